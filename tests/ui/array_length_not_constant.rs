use cudajit::prelude::*;

#[kernel]
fn k(out: &mut [f32], n: usize) {
    let mut acc = [0.0f32; n];
    acc[0] = 1.0;
    out[0] = acc[0];
}

fn main() {}
