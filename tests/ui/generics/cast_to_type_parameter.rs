use cudajit::prelude::*;

// `as` cannot target a type parameter in Rust: rustc reports it in the twin.
#[kernel]
fn k<T: Float>(x: &mut [T], n: usize) {
    x[0] = n as T;
}

fn main() {}
