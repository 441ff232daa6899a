use cudajit::prelude::*;

#[derive(Clone, Copy)]
struct P {
    x: f32,
}
const ORIGIN: P = P { x: 0.0 };

#[kernel]
fn k(c: &mut [f32]) {
    c[0] = ORIGIN.x;
}

fn main() {}
