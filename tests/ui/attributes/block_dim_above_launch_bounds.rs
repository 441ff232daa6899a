use cudajit::prelude::*;

#[kernel(launch_bounds = 128, block_dim = (32, 8))]
fn k(c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
