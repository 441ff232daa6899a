use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    for (x, y) in a.iter().zip(c.iter_mut()) {
    }
}

fn main() {}
