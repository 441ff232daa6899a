use cudajit::prelude::*;

#[kernel]
fn k(a: &Nd<f32, 2>, out: &mut [f32]) {
    let i = grid(1);
    out[i] = a[i];
}

fn main() {}
