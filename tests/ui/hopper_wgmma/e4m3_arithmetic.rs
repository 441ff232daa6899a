use cudajit::prelude::*;

#[kernel]
fn k(a: &[e4m3], b: &[e4m3], c: &mut [e4m3]) {
    // e4m3 is the tensor cores' storage type: kernels copy it, never compute with it.
    c[0] = a[0] * b[0];
}

fn main() {}
