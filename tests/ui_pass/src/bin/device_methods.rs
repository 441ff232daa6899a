//! `#[device]` methods of `#[derive(DeviceCopy)]` structs: `self`, `mut self`,
//! `&self`, associated functions, `Self`, called by method syntax and by path, from
//! kernels, device functions and other methods, beside host-only methods.
use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

impl Vec2 {
    #[device]
    pub fn new(x: f32, y: f32) -> Self {
        Self { x, y }
    }

    #[device]
    pub fn dot(self, o: Vec2) -> f32 {
        self.x * o.x + self.y * o.y
    }

    #[device]
    pub fn len(&self) -> f32 {
        self.dot(*self).sqrt()
    }

    #[device]
    pub fn shifted(mut self, dx: f32) -> Vec2 {
        self.x += dx;
        self
    }

    pub fn on_host_only(&self) -> String {
        format!("{} {}", self.x, self.y)
    }
}

#[device]
fn twice_len(v: Vec2) -> f32 {
    2.0 * v.len()
}

#[kernel]
fn k(v: &[Vec2], out: &mut [f32]) {
    let i = grid(1);
    if i < v.len() {
        let p: Vec2 = v[i];
        out[i] = p.dot(Vec2::new(1.0, 2.0)) + Vec2::len(&p) + twice_len(p.shifted(1.0));
    }
}

fn main() {
    let _ = (k::source(), Vec2::new(1.0, 2.0).on_host_only());
}
