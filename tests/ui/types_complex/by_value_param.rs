use cudajit::prelude::*;
use cudajit::Complex;

#[kernel]
fn k(c: Complex<f32>, z: &mut [Complex<f32>]) {
    let i = grid(1);
    z[i] = z[i] * c;
}

fn main() {}
