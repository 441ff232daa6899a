use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
enum Op {
    Add,
    Mul,
}

fn main() {}
