use cudajit::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(u8)]
enum Op {
    Add,
    Mul,
}

#[kernel]
fn k(ops: &[Op], out: &mut [u8]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = ops[i] + 1;
    }
}

fn main() {}
