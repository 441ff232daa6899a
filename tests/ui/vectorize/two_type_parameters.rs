use cudajit::prelude::*;

#[vectorize]
fn first<T: Float, U: Float>(x: T, _y: U) -> T {
    x
}

fn main() {}
