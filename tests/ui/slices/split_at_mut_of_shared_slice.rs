use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    let (lo, hi) = a.split_at_mut(2);
    c[0] = 0.0;
}

fn main() {}
