use cudajit::prelude::*;

#[kernel]
fn k<T>(x: &mut [T]) {
    x[0] = x[1];
}

fn main() {}
