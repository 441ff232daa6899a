use cudajit::prelude::*;

#[derive(Clone, Copy)]
struct P {
    x: f32,
}

#[kernel]
fn k(p: P, c: &mut [f32]) {
    c[0] = p.x;
}

fn main() {}
