use cudajit::prelude::*;
use cudajit::Complex;

#[kernel]
fn k(z: &mut [Complex<f64>], w: &[Complex<f64>]) {
    let i = grid(1);
    z[i] = z[i] % w[i];
}

fn main() {}
