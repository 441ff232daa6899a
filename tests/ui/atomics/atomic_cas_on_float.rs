use cudajit::prelude::*;

#[kernel]
fn k(c: &mut [f32]) {
    let old = atomic_cas(c, 0, 1.0, 2.0);
}

fn main() {}
