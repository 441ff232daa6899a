use cudajit::prelude::*;

const SCALE: f32 = 2.0;

#[kernel]
fn k(c: &mut [f32]) {
    SCALE = c[0];
}

fn main() {}
