use cudajit::prelude::*;

#[derive(Clone, Copy)]
#[repr(u8)]
enum Op {
    Add,
    Mul,
}

#[kernel]
fn k(ops: &[Op], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = match ops[i] {
            Op::Add => 1.0,
            Op::Mul => 2.0,
        };
    }
}

fn main() {}
