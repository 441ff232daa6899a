use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    let v = a.to_vec();
    c[0] = 0.0;
}

fn main() {}
