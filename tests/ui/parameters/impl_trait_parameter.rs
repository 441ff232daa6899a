use cudajit::prelude::*;

#[kernel]
fn k(x: impl Copy, c: &mut [f32]) {
    c[0] = 0.0;
}

fn main() {}
