use cudajit::prelude::*;

const PAIR: (f32, f32) = (1.0, 2.0);

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = PAIR.0;
}

fn main() {}
