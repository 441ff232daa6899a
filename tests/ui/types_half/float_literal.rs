use cudajit::bf16;
use cudajit::prelude::*;

#[kernel]
fn k(y: &mut [bf16]) {
    let i = grid(1);
    y[i] = y[i] * 2.0;
}

fn main() {}
