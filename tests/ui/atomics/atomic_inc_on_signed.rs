use cudajit::prelude::*;

#[kernel]
fn k(a: &mut [i32], c: &mut [f32]) {
    let old = atomic_inc(a, 0, 10);
    c[0] = 0.0;
}

fn main() {}
