// bf16 written for sm_90 (`Options::arch`): `+ - *` and comparisons are sm_90's
// `add.rn.bf16`/`sub.rn.bf16`/`mul.rn.bf16`/`setp.*.bf16`, `min`/`max`/`abs`/`-`/
// `mul_add` sm_80's `min.bf16`/`max.bf16`/`abs.bf16`/`neg.bf16`/`fma.rn.bf16` (inline
// PTX on the i16 bit pattern: libnvvm has no `bfloat`), `/` and `sqrt` through f32.
use cudajit::prelude::*;
use cudajit::{bf16, Float};

cudajit::instantiate!(axpy_any::<bf16>);

#[kernel]
fn axpy_any<T: Num>(a: T, x: &[T], y: &mut [T]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[kernel]
fn bf16_native(x: &[bf16], y: &[bf16], out: &mut [bf16], flags: &mut [u32]) {
    let i = grid(1);
    if i < x.len() {
        let (a, b) = (x[i], y[i]);
        let fused = a.mul_add(b, -a);
        out[2 * i] = (a - b).abs().min(fused).max(a * b) / b;
        out[2 * i + 1] = fused.sqrt();
        flags[i] = (a < b) as u32 | ((a != b) as u32) << 1;
    }
}
