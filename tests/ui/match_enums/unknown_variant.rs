use cudajit::prelude::*;

#[derive(Clone, Copy, PartialEq, DeviceCopy)]
#[repr(u8)]
enum Op {
    Add,
    Mul,
}

#[kernel]
fn k(ops: &[Op], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() && ops[i] == Op::Div {
        out[i] = 1.0;
    }
}

fn main() {}
