use cudajit::prelude::*;

#[kernel]
fn k<const N: bool>(x: &mut [f32]) {
    x[0] = 1.0;
}

fn main() {}
