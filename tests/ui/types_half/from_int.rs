use cudajit::f16;
use cudajit::prelude::*;

#[kernel]
fn k(y: &mut [f16]) {
    let i = grid(1);
    y[i] = f16::from_f32(i);
}

fn main() {}
