use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
struct Particle {
    x: f32,
    v: f32,
}

fn main() {}
