use cudajit::prelude::*;
use cudajit::Complex;

#[kernel]
fn k(z: &mut [Complex<f32>]) {
    let i = grid(1);
    let n = i as i32;
    z[i] = z[i] + Complex::new(n, n);
}

fn main() {}
