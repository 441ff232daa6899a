use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Pair {
    pub a: f32,
    pub b: f32,
}

impl Pair {
    #[device]
    fn pick<T: Copy>(self, x: T) -> T {
        x
    }
}

fn main() {}
