use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let t = (1.0f32, 2.0f32);
    c[0] = t.2;
}

fn main() {}
