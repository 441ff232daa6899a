use cudajit::prelude::*;

#[kernel]
fn k(a: &[(f32, f32)], c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
