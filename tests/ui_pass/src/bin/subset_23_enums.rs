// Fieldless `#[derive(DeviceCopy)] #[repr(int)]` enums: slice elements, struct fields,
// kernel and device-function parameters, results, `match` (exhaustive without `_`),
// `==`, `as`.
use cudajit::prelude::*;

#[derive(Clone, Copy, PartialEq, DeviceCopy)]
#[repr(u8)]
enum Op {
    Add,
    Mul,
    Max = 7,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Instr {
    x: f32,
    op: Op,
    _pad: [u8; 3],
}

#[device]
fn apply(op: Op, a: f32, b: f32) -> f32 {
    match op {
        Op::Add => a + b,
        Op::Mul => a * b,
        Op::Max => a.max(b),
    }
}

#[device]
fn flip(op: Op) -> Op {
    if op == Op::Add {
        Op::Mul
    } else {
        op
    }
}

#[kernel]
fn run(ops: &[Op], prog: &mut [Instr], default: Op, out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        let op: Op = flip(ops[i]);
        out[i] = apply(op, out[i], prog[i].x) + (op as u8) as f32;
        prog[i].op = if prog[i].op != default {
            default
        } else {
            Op::Max
        };
    }
}

fn main() {
    let ops = [Op::Add, Op::Mul, Op::Max];
    let mut prog = [Instr {
        x: 1.0,
        op: Op::Add,
        _pad: [0; 3],
    }; 3];
    let mut out = [0.0f32; 3];
    let _ = launch!(run[1, 3](&ops, &mut prog, Op::Mul, &mut out));
}
