use cudajit::prelude::*;

const WIDTH: u32 = 32;

#[kernel(block_dim = (WIDTH, 8))]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
