use cudajit::prelude::*;

#[kernel]
fn k(t: (f32, f32), c: &mut [f32]) {
    c[0] = t.0;
}

fn main() {}
