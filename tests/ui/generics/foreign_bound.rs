use cudajit::prelude::*;

#[kernel]
fn k<T: Copy>(a: &[T], c: &mut [T]) {
    c[0] = a[0];
}

fn main() {}
