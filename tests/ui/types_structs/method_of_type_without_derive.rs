use cudajit::prelude::*;

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Plain {
    pub x: f32,
}

impl Plain {
    #[device]
    fn doubled(self) -> f32 {
        self.x * 2.0
    }
}

fn main() {}
