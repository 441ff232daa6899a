use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let tail = &mut a[1..];
    out[0] = tail[0];
}

fn main() {}
