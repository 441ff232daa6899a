use cudajit::prelude::*;

// A literal is not a `T`: rustc says so in the twin (write `T::from_f64(2.0)`).
#[kernel]
fn k<T: Float>(x: &mut [T]) {
    x[0] = x[1] * 2.0;
}

fn main() {}
