use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], out: &mut [f32], start: i32) {
    let tail = &a[start..];
    out[0] = tail[0];
}

fn main() {}
