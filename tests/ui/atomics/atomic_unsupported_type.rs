use cudajit::prelude::*;

#[kernel]
fn k(a: &mut [u8], c: &mut [f32]) {
    let old = atomic_add(a, 0, 1u8);
    c[0] = 0.0;
}

fn main() {}
