use cudajit::f16;
use cudajit::prelude::*;

#[kernel]
fn k(x: &[f16], total: &mut [f16]) {
    let i = grid(1);
    atomic_add(total, 0, x[i]);
}

fn main() {}
