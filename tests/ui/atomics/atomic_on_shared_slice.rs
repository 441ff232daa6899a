use cudajit::prelude::*;

#[kernel]
fn k(a: &[u32], c: &mut [f32]) {
    let old = atomic_add(a, 0, 1u32);
    c[0] = 0.0;
}

fn main() {}
