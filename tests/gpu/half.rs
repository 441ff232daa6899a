//! Half precision (issue 9): `f16` and `bf16` (the `half` crate's types) as kernel
//! scalars, parameters and slice elements. The reference is the `half` crate on the
//! host, which computes each operation in f32 and rounds the result to half once:
//! the GPU's native half instructions give exactly that, and so must the simulator,
//! so the comparisons are bit for bit (a NaN result as "is NaN": its payload is
//! unspecified in Rust, and the GPU's native instructions give the canonical NaN).

use super::common;
use cudajit::prelude::*;
use cudajit::{bf16, f16, Float};

cudajit::instantiate!(
    axpy_any::<f16>,
    axpy_any::<bf16>,
    axpy_any::<f32>,
    axpy_any::<f64>,
    axpy_any::<i32>,
    shifted_norm::<f16>,
    shifted_norm::<bf16>,
    shifted_norm::<f32>,
);

/// `y = a * x + y`, once for every numeric type.
#[kernel]
fn axpy_any<T: Num>(a: T, x: &[T], y: &mut [T]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

fn half_vec<H>(rng: &mut common::Rng, n: usize, lo: f32, hi: f32, of: fn(f32) -> H) -> Vec<H> {
    (0..n).map(|_| of(rng.f32_in(lo, hi))).collect()
}

fn bits16<H: Copy>(v: &[H], to_bits: fn(H) -> u16) -> Vec<u16> {
    v.iter().map(|&x| to_bits(x)).collect()
}

#[test]
fn generic_axpy_for_f16_bf16_f32_f64_and_i32() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("axpy_any");
    let n = 3000 + rng.below(500) as usize;
    let blocks = n.div_ceil(256);

    // f16: two roundings to half per element (the product, then the sum).
    let a = f16::from_f32(rng.f32_in(-4.0, 4.0));
    let x = half_vec(&mut rng, n, -100.0, 100.0, f16::from_f32);
    let y0 = half_vec(&mut rng, n, -100.0, 100.0, f16::from_f32);
    let mut y = vec![f16::NAN; n];
    y.copy_from_slice(&y0);
    launch!(axpy_any[blocks, 256](a, &x, &mut y)).unwrap();
    let want: Vec<f16> = (0..n).map(|i| a * x[i] + y0[i]).collect();
    assert_eq!(bits16(&y, f16::to_bits), bits16(&want, f16::to_bits), "f16");
    // The half result is not the f32 one rounded once: the reference really is per op.
    let f32_once = (0..n)
        .filter(|&i| f16::from_f32(a.to_f32() * x[i].to_f32() + y0[i].to_f32()) != want[i])
        .count();
    assert!(
        f32_once > 0,
        "no element tells per-op rounding from f32 accumulation"
    );

    // bf16: same range as f32, 8 significant bits.
    let a = bf16::from_f32(rng.f32_in(-4.0, 4.0));
    let x = half_vec(&mut rng, n, -1e30, 1e30, bf16::from_f32);
    let y0 = half_vec(&mut rng, n, -1e30, 1e30, bf16::from_f32);
    let mut y = y0.clone();
    launch!(axpy_any[blocks, 256](a, &x, &mut y)).unwrap();
    let want: Vec<bf16> = (0..n).map(|i| a * x[i] + y0[i]).collect();
    assert_eq!(
        bits16(&y, bf16::to_bits),
        bits16(&want, bf16::to_bits),
        "bf16"
    );

    let a = rng.f32_in(-4.0, 4.0);
    let x = rng.vec_f32(n, -100.0, 100.0);
    let y0 = rng.vec_f32(n, -100.0, 100.0);
    let mut y = y0.clone();
    launch!(axpy_any[blocks, 256](a, &x, &mut y)).unwrap();
    let want: Vec<f32> = (0..n).map(|i| a * x[i] + y0[i]).collect();
    assert_eq!(y, want, "f32");

    let a = rng.f64_in(-4.0, 4.0);
    let x: Vec<f64> = (0..n).map(|_| rng.f64_in(-1e3, 1e3)).collect();
    let y0: Vec<f64> = (0..n).map(|_| rng.f64_in(-1e3, 1e3)).collect();
    let mut y = y0.clone();
    launch!(axpy_any[blocks, 256](a, &x, &mut y)).unwrap();
    let want: Vec<f64> = (0..n).map(|i| a * x[i] + y0[i]).collect();
    assert_eq!(y, want, "f64");

    let a = rng.next_u64() as i32;
    let x: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let y0: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let mut y = y0.clone();
    launch!(axpy_any[blocks, 256](a, &x, &mut y)).unwrap();
    let want: Vec<i32> = (0..n)
        .map(|i| a.wrapping_mul(x[i]).wrapping_add(y0[i]))
        .collect();
    assert_eq!(y, want, "i32");
    assert_eq!(axpy_any::instances().launched().len(), 5);
}

/// Every half operation a kernel has, on `f16`: conversions, the four operators and
/// negation, comparisons, constants, `sqrt` (correctly rounded in f32 on both sides,
/// so exact here too), `min`/`abs`, bit patterns, and an f32 accumulator.
#[kernel]
fn f16_ops(x: &[f16], y: &[f16], scale: f16, out: &mut [f16], wide: &mut [f32], flags: &mut [u32]) {
    let i = grid(1);
    if i < x.len() {
        let (a, b) = (x[i], y[i]);
        let mut acc = a * scale - b;
        acc = acc / (b.abs() + f16::ONE);
        acc += -a;
        let root = (a * a + b * b).sqrt();
        out[5 * i] = acc;
        out[5 * i + 1] = root;
        out[5 * i + 2] = a.min(b) + f16::from_f64(0.1) * cudajit::f16::EPSILON;
        out[5 * i + 3] = f16::from_bits(a.to_bits() ^ 1) % f16::from_f32(3.0);
        out[5 * i + 4] = if a < b {
            cudajit::f16::MAX
        } else {
            f16::from_f32(b.to_f32() * 0.5)
        };
        wide[i] = a.to_f32() * b.to_f32() + acc.to_f64() as f32;
        flags[i] = (a < b) as u32 | ((a == b) as u32) << 1 | ((a >= scale) as u32) << 2;
    }
}

fn f16_ops_reference(a: f16, b: f16, scale: f16) -> ([f16; 5], f32, u32) {
    let mut acc = a * scale - b;
    acc = acc / (b.abs() + f16::ONE);
    acc += -a;
    let root = Float::sqrt(a * a + b * b);
    let out = [
        acc,
        root,
        a.min(b) + f16::from_f64(0.1) * f16::EPSILON,
        f16::from_bits(a.to_bits() ^ 1) % f16::from_f32(3.0),
        if a < b {
            f16::MAX
        } else {
            f16::from_f32(b.to_f32() * 0.5)
        },
    ];
    let wide = a.to_f32() * b.to_f32() + acc.to_f64() as f32;
    let flags = (a < b) as u32 | ((a == b) as u32) << 1 | ((a >= scale) as u32) << 2;
    (out, wide, flags)
}

#[test]
fn f16_operations_match_the_half_crate_bit_for_bit() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("f16_ops");
    let n = 2000 + rng.below(300) as usize;
    let mut x = half_vec(&mut rng, n, -300.0, 300.0, f16::from_f32);
    let y = half_vec(&mut rng, n, -300.0, 300.0, f16::from_f32);
    // Ties and equal operands, subnormals and the overflow edge.
    x[0] = y[0];
    x[1] = f16::from_bits(0x0003);
    x[2] = f16::from_f32(60000.0);
    let scale = f16::from_f32(rng.f32_in(0.5, 2.0));
    let mut out = vec![f16::NAN; 5 * n];
    let mut wide = vec![f32::NAN; n];
    let mut flags = vec![u32::MAX; n];
    launch!(f16_ops[n.div_ceil(128), 128](&x, &y, scale, &mut out, &mut wide, &mut flags)).unwrap();
    for i in 0..n {
        let (want, want_wide, want_flags) = f16_ops_reference(x[i], y[i], scale);
        assert_eq!(
            bits16(&out[5 * i..5 * i + 5], f16::to_bits),
            bits16(&want, f16::to_bits),
            "element {i}: x = {}, y = {}",
            x[i],
            y[i]
        );
        assert_eq!(wide[i].to_bits(), want_wide.to_bits(), "wide {i}");
        assert_eq!(flags[i], want_flags, "flags {i}");
    }
}

/// A bf16 dot product per row with an f32 accumulator (how bf16 is used in practice),
/// and the same row reduced in bf16 itself.
#[kernel]
fn bf16_rows(m: &[bf16], v: &[bf16], cols: usize, wide: &mut [f32], narrow: &mut [bf16]) {
    let row = grid(1);
    if row < wide.len() {
        let mut acc = 0.0f32;
        let mut acc16 = bf16::ZERO;
        for j in 0..cols {
            let p = m[row * cols + j] * v[j];
            acc += p.to_f32();
            acc16 = acc16 + p;
        }
        wide[row] = acc;
        narrow[row] = -acc16 / bf16::from_f32(cols as f32);
    }
}

#[test]
fn bf16_rows_match_the_half_crate_bit_for_bit() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bf16_rows");
    let rows = 300 + rng.below(100) as usize;
    let cols = 48;
    let m = half_vec(&mut rng, rows * cols, -8.0, 8.0, bf16::from_f32);
    let v = half_vec(&mut rng, cols, -8.0, 8.0, bf16::from_f32);
    let mut wide = vec![f32::NAN; rows];
    let mut narrow = vec![bf16::NAN; rows];
    launch!(bf16_rows[rows.div_ceil(64), 64](&m, &v, cols, &mut wide, &mut narrow)).unwrap();
    for r in 0..rows {
        let (mut acc, mut acc16) = (0.0f32, bf16::ZERO);
        for j in 0..cols {
            let p = m[r * cols + j] * v[j];
            acc += p.to_f32();
            acc16 = acc16 + p;
        }
        assert_eq!(wide[r].to_bits(), acc.to_bits(), "row {r}");
        let want = -acc16 / bf16::from_f32(cols as f32);
        assert_eq!(narrow[r].to_bits(), want.to_bits(), "row {r}");
    }
}

/// A generic `Float` body: the traits' constructors (`T::from_f64`, `T::from_i32`,
/// `T::one()`), `sqrt` and `max` through f32 for the half types.
#[kernel]
fn shifted_norm<T: Float>(x: &[T], y: &[T], out: &mut [T]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = shifted_norm_of::<T>(x[i], y[i]);
    }
}

/// The same body on the host, through the same trait implementations.
#[device]
fn shifted_norm_of<T: Float>(a: T, b: T) -> T {
    let r = (a * a + b * b + T::one()).sqrt() * T::from_f64(0.75);
    r.max(T::from_i32(3)) - T::from_f32(0.5) + T::zero()
}

#[test]
fn generic_float_kernel_for_f16_bf16_and_f32() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("shifted_norm");
    let n = 1000 + rng.below(200) as usize;
    fn check<T: Float + cudajit::DeviceScalar + std::fmt::Debug>(
        rng: &mut common::Rng,
        n: usize,
        of: fn(f32) -> T,
    ) {
        let x: Vec<T> = (0..n).map(|_| of(rng.f32_in(-50.0, 50.0))).collect();
        let y: Vec<T> = (0..n).map(|_| of(rng.f32_in(-50.0, 50.0))).collect();
        let mut out = vec![T::NAN; n];
        launch!(shifted_norm[n.div_ceil(128), 128](&x, &y, &mut out)).unwrap();
        for i in 0..n {
            let want = shifted_norm_of(x[i], y[i]);
            // Bit for bit: sqrt is correctly rounded in f32 on the GPU and the host.
            assert!(
                out[i] == want,
                "element {i}: got {:?}, want {want:?}",
                out[i]
            );
        }
    }
    check(&mut rng, n, f16::from_f32);
    check(&mut rng, n, bf16::from_f32);
    check(&mut rng, n, |v| v);
}

/// Every `bf16` operation with a native instruction: sm_90's `add.rn`, `sub.rn`,
/// `mul.rn` and `setp`, sm_80's `fma.rn`, `min`, `max`, `neg`, `abs` (the GPU run uses
/// them; the simulator computes through f32 and `mul_add` rounded once).
#[kernel]
fn bf16_native_ops(x: &[bf16], y: &[bf16], z: &[bf16], out: &mut [bf16], flags: &mut [u32]) {
    let i = grid(1);
    if i < x.len() {
        let (a, b, c) = (x[i], y[i], z[i]);
        out[8 * i] = a + b;
        out[8 * i + 1] = a - b;
        out[8 * i + 2] = a * b;
        out[8 * i + 3] = a.mul_add(b, c);
        out[8 * i + 4] = a.min(b);
        out[8 * i + 5] = a.max(b);
        out[8 * i + 6] = -a;
        out[8 * i + 7] = a.abs();
        flags[i] = (a < b) as u32
            | ((a <= b) as u32) << 1
            | ((a > b) as u32) << 2
            | ((a >= b) as u32) << 3
            | ((a == b) as u32) << 4
            | ((a != b) as u32) << 5;
    }
}

/// A `bf16` operand: any bit pattern (NaNs, infinities, subnormals), or one near
/// `near` in magnitude so that sums cancel and round at ties.
fn bf16_operand(rng: &mut common::Rng, near: bf16) -> bf16 {
    let r = rng.next_u64();
    if r % 3 == 0 {
        return bf16::from_bits((r >> 8) as u16);
    }
    let field = i64::from((near.to_bits() >> 7) & 0xFF) + ((r >> 8) % 17) as i64 - 8;
    let field = field.clamp(0, 0xFE) as u16;
    bf16::from_bits((((r >> 16) as u16) & 0x8000) | field << 7 | ((r >> 32) as u16 & 0x7F))
}

#[test]
fn bf16_native_operations_match_the_half_crate_and_one_rounding_fma() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("bf16_native_ops");
    let n = 20_000 + rng.below(2000) as usize;
    let (mut x, mut y, mut z) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        let a = bf16_operand(&mut rng, bf16::ONE);
        let b = bf16_operand(&mut rng, a);
        let c = bf16_operand(&mut rng, bf16::from_f32(a.to_f32() * b.to_f32()));
        x.push(a);
        y.push(b);
        z.push(c);
    }
    let v = bf16::from_f32;
    // Hand-picked: an fma just below a tie (f32 then bf16 would round up), signed
    // zeros, subnormals, overflow to infinity, infinities that cancel, a NaN.
    let cases = [
        (
            v(3.0),
            v(1.0 + 2f32.powi(-7)),
            bf16::from_f64(-(2f64.powi(-30))),
        ),
        (v(0.0), v(-0.0), v(-0.0)),
        (v(-0.0), v(-0.0), v(-0.0)),
        (
            bf16::from_bits(1),
            bf16::from_bits(0x8003),
            bf16::from_bits(0x0002),
        ),
        (bf16::MAX, v(2.0), bf16::MAX),
        (bf16::INFINITY, v(1.0), bf16::NEG_INFINITY),
        (bf16::NAN, v(1.0), v(2.0)),
        (v(1.5), v(1.5), v(-2.25)),
    ];
    for (k, &(a, b, c)) in cases.iter().enumerate() {
        (x[k], y[k], z[k]) = (a, b, c);
    }
    let mut out = vec![bf16::from_bits(0x7FA5); 8 * n];
    let mut flags = vec![u32::MAX; n];
    launch!(bf16_native_ops[n.div_ceil(128), 128](&x, &y, &z, &mut out, &mut flags)).unwrap();
    let same_bits =
        |got: bf16, want: bf16| got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
    // `min`/`max` of +0 and -0 may return either (Rust leaves it unspecified).
    let same_value = |got: bf16, want: bf16| got == want || (got.is_nan() && want.is_nan());
    for i in 0..n {
        let (a, b, c) = (x[i], y[i], z[i]);
        let want = [
            a + b,
            a - b,
            a * b,
            Float::mul_add(a, b, c),
            Float::min(a, b),
            Float::max(a, b),
            -a,
            Float::abs(a),
        ];
        let got = &out[8 * i..8 * i + 8];
        for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
            let ok = if k == 4 || k == 5 {
                same_value(g, w)
            } else {
                same_bits(g, w)
            };
            assert!(
                ok,
                "element {i}, result {k}: a = {a:?} ({:#06x}), b = {b:?} ({:#06x}), c = {c:?} ({:#06x}): got {g:?} ({:#06x}), want {w:?} ({:#06x})",
                a.to_bits(),
                b.to_bits(),
                c.to_bits(),
                g.to_bits(),
                w.to_bits()
            );
        }
        let want_flags = (a < b) as u32
            | ((a <= b) as u32) << 1
            | ((a > b) as u32) << 2
            | ((a >= b) as u32) << 3
            | ((a == b) as u32) << 4
            | ((a != b) as u32) << 5;
        assert_eq!(flags[i], want_flags, "element {i}: flags of {a:?}, {b:?}");
    }
    // The first hand-picked case: one rounding, not f32's two.
    assert_eq!(out[3], v(3.015625));
}

/// `f32` to `bf16` and `f16` in a kernel: each rounded once to nearest-even, as the
/// `half` crate's `from_f32` (which sees every bit) rounds on the host.
#[kernel]
fn narrow_near_ties(x: &[f32], b: &mut [bf16], h: &mut [f16]) {
    let i = grid(1);
    if i < x.len() {
        b[i] = bf16::from_f32(x[i]);
        h[i] = f16::from_f32(x[i]);
    }
}

/// `f32`s at and a few ulps around the midpoints between neighbouring `bf16` and
/// `f16` values, where a conversion that drops low bits before rounding goes wrong.
fn near_ties(rng: &mut common::Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|k| {
            let tie = if k % 2 == 0 {
                // A bf16 midpoint: any upper half with a finite exponent, then 0x8000.
                let hi = (rng.below(0x7f00) as u32 + 0x0080) | ((rng.below(2) as u32) << 15);
                f32::from_bits((hi << 16) | 0x8000)
            } else {
                // An f16 midpoint: halfway from a normal f16 to the next one up, which
                // is finite too (0x7bff is the largest finite f16).
                let v = f16::from_bits(rng.below(0x7bff - 0x0400) as u16 + 0x0400);
                let next = f16::from_bits(v.to_bits() + 1);
                (v.to_f32() + next.to_f32()) / 2.0
            };
            let delta = rng.below(7) as i32 - 3;
            f32::from_bits((tie.to_bits() as i32 + delta) as u32)
        })
        .collect()
}

#[test]
fn f32_to_half_rounds_once_at_and_around_ties() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("narrow_near_ties");
    let n = 4096 + rng.below(512) as usize;
    let x = near_ties(&mut rng, n);
    let mut b = vec![bf16::NAN; x.len()];
    let mut h = vec![f16::NAN; x.len()];
    launch!(narrow_near_ties[x.len().div_ceil(128), 128](&x, &mut b, &mut h)).unwrap();
    for (i, &v) in x.iter().enumerate() {
        // Every input is finite: a NaN here (whose payload Rust leaves unspecified and
        // the GPU's `cvt` makes canonical) would say the generator strayed.
        assert!(v.is_finite(), "input {i} is {v:e}");
        assert_eq!(
            b[i].to_bits(),
            bf16::from_f32(v).to_bits(),
            "bf16 of {v:e} ({:#x})",
            v.to_bits()
        );
        assert_eq!(
            h[i].to_bits(),
            f16::from_f32(v).to_bits(),
            "f16 of {v:e} ({:#x})",
            v.to_bits()
        );
    }
}
