use cudajit::prelude::*;

#[kernel]
fn k(p: *mut f32, c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
