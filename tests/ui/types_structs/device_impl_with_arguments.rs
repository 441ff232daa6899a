use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Pair {
    pub a: f32,
    pub b: f32,
}

#[device(fastmath = true)]
impl Pair {
    #[device]
    pub fn sum(self) -> f32 {
        self.a + self.b
    }
}

fn main() {}
