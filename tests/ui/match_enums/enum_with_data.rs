use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(u8)]
enum Op {
    Add,
    Scale(f32),
}

fn main() {}
