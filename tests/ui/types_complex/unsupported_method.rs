use cudajit::prelude::*;
use cudajit::Complex;

#[kernel]
fn k(z: &mut [Complex<f32>]) {
    let i = grid(1);
    z[i] = z[i].cbrt();
}

fn main() {}
