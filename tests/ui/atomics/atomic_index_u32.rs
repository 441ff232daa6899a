use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let old = atomic_add(c, 0u32, 1.0);
}

fn main() {}
