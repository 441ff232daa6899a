use cudajit::prelude::*;

#[kernel(block_dim = (64, 32))]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
