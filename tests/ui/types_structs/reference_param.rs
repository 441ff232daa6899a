use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[device]
fn norm2(v: &Vec3) -> f32 {
    v.x * v.x + v.y * v.y + v.z * v.z
}

fn main() {}
