use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

impl Vec2 {
    fn norm(self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

#[kernel]
fn k(v: &[Vec2], out: &mut [f32]) {
    out[0] = Vec2::norm(v[0]);
}

fn main() {}
