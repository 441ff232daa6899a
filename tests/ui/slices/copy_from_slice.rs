use cudajit::prelude::*;

#[kernel]
fn k(a: &[f32], c: &mut [f32]) {
    c.copy_from_slice(a);
}

fn main() {}
