// Enums (issue 9): fieldless `#[derive(DeviceCopy)] #[repr(int)]` enums as slice
// elements (`&[Op]`), struct fields, device-function parameters and results and a
// kernel parameter by value; `match` over them (exhaustive without `_`, with
// or-patterns, `if let`, `matches!`), `==`, `!=` and `as`. A value of an enum is its
// repr integer in the IR: `Op::Mul` is the constant 2 of type i8, `Level::High` 1000.
use cudajit::prelude::*;

/// An operation of the interpreter (discriminants 0.., implicit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, DeviceCopy)]
#[repr(u8)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Max,
    Min,
    Neg,
}

/// Explicit, negative and sparse discriminants in a wider repr.
#[derive(Clone, Copy, Debug, PartialEq, Eq, DeviceCopy)]
#[repr(i32)]
pub enum Level {
    Low = -7,
    Mid = 40,
    High = 1000,
}

/// A step of a program: an enum as a struct field.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Step {
    pub operand: f32,
    pub code: u16,
    pub level: i16,
    pub op: Op,
    pub _pad: [u8; 3],
}

/// One operation on the accumulator: an exhaustive `match` without `_`.
#[device]
pub fn apply(op: Op, acc: f32, x: f32) -> f32 {
    match op {
        Op::Add => acc + x,
        Op::Sub => acc - x,
        Op::Mul => acc * x,
        Op::Max => acc.max(x),
        Op::Min => acc.min(x),
        Op::Neg => -acc,
    }
}

/// An enum as a device function's result, from `match` with ranges and `_`.
#[device]
pub fn level_of(x: i32) -> Level {
    match x {
        i32::MIN..=-1 => Level::Low,
        0..=99 => Level::Mid,
        _ => Level::High,
    }
}

/// `==`, `!=`, `as`, `matches!`, `if let` and or-patterns on enums, mixed.
#[device]
pub fn score(op: Op, level: Level) -> i64 {
    let mut s = op as i64 * 10 + level as i64;
    if op == Op::Mul || op != Op::Neg && level == Level::High {
        s += 5000;
    }
    if matches!(op, Op::Max | Op::Min) {
        s -= 3;
    }
    if let Level::Low = level {
        s *= 2;
    }
    let swapped = match op {
        Op::Add => Op::Sub,
        Op::Sub => Op::Add,
        other => other,
    };
    s + swapped as i64 * 100_000
}

/// Runs each thread's program of `len` steps from `ops` over its inputs.
#[kernel]
fn interpret(ops: &[Op], xs: &[f32], len: usize, out: &mut [f32]) {
    let t = grid(1);
    if t < out.len() {
        let mut acc = 1.0f32;
        for k in 0..len {
            let op = ops[t * len + k];
            acc = apply(op, acc, xs[t * len + k]);
        }
        out[t] = acc;
    }
}

/// Enums as struct fields, device-fn results and a kernel parameter by value.
#[kernel]
fn classify_steps(steps: &mut [Step], bias: Op, scores: &mut [i64]) {
    let i = grid(1);
    if i < steps.len() {
        let level = level_of(steps[i].code as i32 - 200);
        let s = score(steps[i].op, level);
        scores[i] = if steps[i].op == bias { -s } else { s };
        steps[i].level = level as i16;
        steps[i].op = match level {
            Level::Low => Op::Neg,
            Level::Mid => steps[i].op,
            Level::High => bias,
        };
    }
}

