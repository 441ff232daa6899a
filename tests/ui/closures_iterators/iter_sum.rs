use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    let s: f32 = a.iter().sum();
    c[0] = s;
}

fn main() {}
