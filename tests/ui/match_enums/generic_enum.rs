use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(u8)]
enum Op<T> {
    Add,
    Mul,
    Other(T),
}

fn main() {}
