use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let old = atomic_and(c, 0, 1.0);
}

fn main() {}
