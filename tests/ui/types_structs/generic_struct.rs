use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Pair<T> {
    a: T,
    b: T,
}

fn main() {}
