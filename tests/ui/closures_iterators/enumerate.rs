use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    for (i, x) in a.iter().enumerate() {
    }
    c[0] = 0.0;
}

fn main() {}
