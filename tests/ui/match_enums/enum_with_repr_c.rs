use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
enum Op {
    Add,
    Mul,
}

fn main() {}
