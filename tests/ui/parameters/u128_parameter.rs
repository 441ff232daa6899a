use cudajit::prelude::*;

#[kernel]
fn k(x: u128, c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
