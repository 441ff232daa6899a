use cudajit::prelude::*;

#[kernel]
fn k<T: Float + Int>(x: &mut [T]) {
    x[0] = x[1];
}

fn main() {}
