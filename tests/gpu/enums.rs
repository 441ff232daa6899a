//! Fieldless `#[derive(DeviceCopy)]` enums on the device: a kernel that interprets a
//! program of operations (`&[Op]`) with a `match`, enums as struct fields, device-fn
//! parameters and results, kernel parameters by value, `==` and `as`, each against
//! rustc's own build of the same `#[device]` functions on the host, on fresh random
//! inputs with poisoned outputs.

use super::common;
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

pub const OPS: [Op; 6] = [Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min, Op::Neg];

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

#[test]
fn operation_programs_match_rustc() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("operation_programs");
    let (threads, len) = (1000usize, 12usize);
    let ops: Vec<Op> = (0..threads * len)
        .map(|_| OPS[rng.below(OPS.len() as u64) as usize])
        .collect();
    let xs = rng.vec_f32(threads * len, -2.0, 2.0);
    let mut out = vec![f32::NAN; threads];
    launch!(interpret[threads.div_ceil(128), 128](&ops, &xs, len, &mut out)).unwrap();
    for t in 0..threads {
        let mut acc = 1.0f32;
        for k in 0..len {
            acc = apply(ops[t * len + k], acc, xs[t * len + k]);
        }
        assert_eq!(
            out[t].to_bits(),
            acc.to_bits(),
            "thread {t}: {} vs {acc}",
            out[t]
        );
    }
    // The same program from a device array of enums, kept on the device.
    let device_ops = DeviceArray::from_slice(&ops).unwrap();
    assert_eq!(device_ops.to_host().unwrap(), ops);
    let mut again = vec![f32::NAN; threads];
    launch!(interpret[threads.div_ceil(128), 128](&device_ops, &xs, len, &mut again)).unwrap();
    assert_eq!(
        again.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn enums_in_structs_and_parameters_match_rustc() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("enums_in_structs");
    let n = 777usize;
    let input: Vec<Step> = (0..n)
        .map(|i| Step {
            operand: rng.f32_in(-1.0, 1.0),
            // The edges of `level_of`'s ranges first.
            code: match i {
                0 => 0,
                1 => 199,
                2 => 200,
                3 => 299,
                4 => 300,
                _ => rng.below(600) as u16,
            },
            level: i16::MIN,
            op: OPS[rng.below(OPS.len() as u64) as usize],
            _pad: [0; 3],
        })
        .collect();
    for bias in [Op::Mul, Op::Neg] {
        let mut steps = input.clone();
        let mut scores = vec![i64::MIN; n];
        launch!(classify_steps[n.div_ceil(64), 64](&mut steps, bias, &mut scores)).unwrap();
        for i in 0..n {
            let level = level_of(input[i].code as i32 - 200);
            let s = score(input[i].op, level);
            let want = if input[i].op == bias { -s } else { s };
            assert_eq!(scores[i], want, "score of {:?}", input[i]);
            assert_eq!(steps[i].level, level as i16);
            let op = match level {
                Level::Low => Op::Neg,
                Level::Mid => input[i].op,
                Level::High => bias,
            };
            assert_eq!(steps[i].op, op, "op of {:?}", input[i]);
        }
    }
}

/// Zeroed memory is no `Level` (no variant is 0): `zeros` says so instead of making one.
#[test]
fn zeros_of_an_enum_without_a_zero_variant_is_an_error() {
    let _gpu = require_gpu!();
    let err = DeviceArray::<Level>::zeros(4).unwrap_err();
    assert!(err.to_string().contains("no value of this type"), "{err}");
    let ok = DeviceArray::<Op>::zeros(4).unwrap().to_host().unwrap();
    assert_eq!(ok, vec![Op::Add; 4]);
}
