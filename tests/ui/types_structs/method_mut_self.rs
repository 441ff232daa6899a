use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Counter {
    pub n: u32,
}

impl Counter {
    #[device]
    fn bump(&mut self) {
        self.n += 1;
    }
}

fn main() {}
