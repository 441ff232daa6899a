use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    let s = &a[0u32..2];
    c[0] = s[0];
}

fn main() {}
