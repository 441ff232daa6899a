use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    for chunk in a.chunks(2) {
    }
    c[0] = 0.0;
}

fn main() {}
