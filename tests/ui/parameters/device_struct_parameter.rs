use cudajit::prelude::*;

#[derive(Clone, Copy)]
struct P {
    x: f32,
}

#[device]
fn norm(p: P) -> f32 {
    p.x
}

fn main() {}
