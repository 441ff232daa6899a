use cudajit::prelude::*;

#[kernel]
fn k(x: &f32, c: &mut [f32]) {
    c[0] = *x;
}

fn main() {}
