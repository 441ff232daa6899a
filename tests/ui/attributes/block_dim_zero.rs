use cudajit::prelude::*;

#[kernel(block_dim = (32, 0))]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
