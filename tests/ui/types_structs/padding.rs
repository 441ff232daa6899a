use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Tagged {
    alive: bool,
    mass: f32,
}

fn main() {}
