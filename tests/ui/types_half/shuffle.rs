use cudajit::f16;
use cudajit::prelude::*;

#[kernel]
fn k(x: &[f16], y: &mut [f16]) {
    let i = grid(1);
    y[i] = shfl_down_sync(FULL_MASK, x[i], 1);
}

fn main() {}
