use cudajit::prelude::*;

const TAPS: [f32; 3] = [0.25, 0.5, 0.25];

#[kernel]
fn k(c: &mut [f32]) {
    TAPS[0] = c[0];
}

fn main() {}
