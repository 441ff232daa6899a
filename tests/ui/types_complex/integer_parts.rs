use cudajit::prelude::*;
use cudajit::Complex;

#[kernel]
fn k(z: &mut [Complex<i32>]) {
    let i = grid(1);
    z[i] = z[i] * z[i];
}

fn main() {}
