use cudajit::prelude::*;

#[device]
fn first(a: &[f32]) -> f32 {
    a[0]
}

#[kernel]
fn k(a: &Nd<f32, 2>, out: &mut [f32]) {
    out[0] = first(a);
}

fn main() {}
