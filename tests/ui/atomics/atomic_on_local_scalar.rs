use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let mut x = 0u32;
    let old = atomic_add(x, 0, 1u32);
    c[0] = 0.0;
}

fn main() {}
