use cudajit::f16;
use cudajit::prelude::*;

#[kernel]
fn k(x: &[f32], y: &mut [f16]) {
    let i = grid(1);
    y[i] = x[i] as f16;
}

fn main() {}
