use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let (lo, hi) = a.split_at_mut(2);
    out[0] = lo[0] + hi[0];
}

fn main() {}
