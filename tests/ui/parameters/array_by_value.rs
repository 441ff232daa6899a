use cudajit::prelude::*;

#[kernel]
fn k(a: [f32; 4], c: &mut [f32]) {
    c[0] = a[0];
}

fn main() {}
