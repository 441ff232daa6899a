use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

#[kernel]
fn k(v: &mut [Vec3]) {
    let i = grid(1);
    if i < v.len() {
        v[i] = Vec3 { x: 0.0, ..v[i] };
    }
}

fn main() {}
