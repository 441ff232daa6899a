use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let b = block_dim().len();
    c[0] = 0.0;
}

fn main() {}
