use cudajit::prelude::*;

#[kernel]
fn k(x: &mut [f32]) {
    atomic_and(x, 0, 1.0);
}

fn main() {}
