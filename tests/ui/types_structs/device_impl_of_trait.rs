use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Pair {
    pub a: f32,
    pub b: f32,
}

pub trait Sum {
    fn sum(self) -> f32;
}

#[device]
impl Sum for Pair {
    fn sum(self) -> f32 {
        self.a + self.b
    }
}

fn main() {}
