use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    let x = a + 1.0;
    c[0] = 0.0;
}

fn main() {}
