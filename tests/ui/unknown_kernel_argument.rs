use cudajit::prelude::*;

#[kernel(boundscheck = false, fast = true)]
fn k(a: &mut [f32]) {
    a[0] = 1.0;
}

#[kernel(fastmath = 1)]
fn k2(a: &mut [f32]) {
    a[0] = 1.0;
}

fn main() {}
