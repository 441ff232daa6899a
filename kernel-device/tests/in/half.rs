// Half precision: f16 (LLVM `half`, native add/sub/mul/compare) and bf16 (an `i16`
// bit pattern computed through f32 with round-to-nearest-even), in a generic axpy,
// the operators, conversions, constants and math methods (through f32).
use cudajit::prelude::*;
use cudajit::{bf16, f16, Float};

cudajit::instantiate!(axpy_any::<f16>, axpy_any::<bf16>);

#[kernel]
fn axpy_any<T: Num>(a: T, x: &[T], y: &mut [T]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[kernel]
fn f16_ops(x: &[f16], y: &[f16], scale: f16, out: &mut [f16], wide: &mut [f32], flags: &mut [u32]) {
    let i = grid(1);
    if i < x.len() {
        let (a, b) = (x[i], y[i]);
        let mut acc = a * scale - b;
        acc = acc / (b.abs() + f16::ONE);
        acc += -a;
        out[3 * i] = acc;
        out[3 * i + 1] = (a * a + b * b).sqrt() + a.exp().max(cudajit::f16::EPSILON);
        out[3 * i + 2] = f16::from_bits(a.to_bits() ^ 1) % f16::from_f64(3.0);
        wide[i] = a.to_f32() * b.to_f32() + acc.to_f64() as f32;
        flags[i] = (a < b) as u32 | ((a == b) as u32) << 1;
    }
}

#[kernel]
fn bf16_ops(x: &[bf16], out: &mut [bf16], wide: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        let a = x[i];
        let p = -(a * a) / bf16::from_f32(3.0) - bf16::PI;
        out[i] = if p < a { p.sqrt() } else { bf16::from_f64(wide[i]) };
        wide[i] = p.to_f64();
    }
}

// bf16 `min`/`max`/`abs`/`mul_add` without an architecture (`Options::arch` unset):
// `min`/`max`/`abs` through f32 (exact), `mul_add` rounded once through f64 (two-sum,
// rounded to odd), the result sm_80's `fma.rn.bf16` gives.
#[kernel]
fn bf16_methods(x: &[bf16], y: &[bf16], out: &mut [bf16]) {
    let i = grid(1);
    if i < x.len() {
        let (a, b) = (x[i], y[i]);
        out[i] = a.mul_add(b, -a).min(a.abs()).max(b);
    }
}
