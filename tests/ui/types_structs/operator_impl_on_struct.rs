use cudajit::prelude::*;
use std::ops::Add;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

impl Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3 { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
}

#[kernel]
fn k(a: &[Vec3], b: &[Vec3], c: &mut [Vec3]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

fn main() {}
