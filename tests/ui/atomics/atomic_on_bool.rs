use cudajit::prelude::*;

#[kernel]
fn k(a: &mut [bool], c: &mut [f32]) {
    let old = atomic_exch(a, 0, true);
    c[0] = 0.0;
}

fn main() {}
