use cudajit::prelude::*;

#[kernel]
fn k(a: &[e4m3], c: &mut [f32]) {
    c[0] = a[0] as f32;
}

fn main() {}
