use cudajit::prelude::*;

#[kernel(boundscheck = 0)]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
