//! Issue 7: kernels compute exactly what rustc computes. Each kernel calls a
//! `#[device]` function that also runs on the host (compiled by rustc) and the results
//! are compared bit for bit: `a * b + c` is not contracted, `%` is IEEE fmod,
//! `to_degrees`/`to_radians`, constants and literals are std's; an out-of-bounds
//! negative index is reported as Rust prints it (a usize).

use super::common;
use cudajit::prelude::*;

mod exact_fns {
    use cudajit::prelude::*;

    /// Rounds twice; a fused multiply-add differs in the last bits, and where `a * b`
    /// overflows (inf) and `c` is -inf Rust gives NaN but a fused op a finite value,
    /// and the other way round.
    #[device]
    pub fn mul_add_unfused32(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }

    #[device]
    pub fn mul_add_unfused64(a: f64, b: f64, c: f64) -> f64 {
        a * b - c
    }

    #[device]
    pub fn rem32(a: f32, b: f32) -> f32 {
        let mut r = a % b;
        r %= 0.75;
        r
    }

    #[device]
    pub fn rem64(a: f64, b: f64) -> f64 {
        a % b
    }

    #[device]
    pub fn degrees32(a: f32) -> f32 {
        a.to_degrees() - a.to_radians() + 0.09999999776482582092285156250001f32
    }

    #[device]
    pub fn degrees64(a: f64) -> f64 {
        a.to_degrees() + a.to_radians() * std::f64::consts::FRAC_1_PI
    }
}

#[kernel]
fn exact32(a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    let i = grid(1);
    let n = a.len();
    if i < n {
        out[i] = exact_fns::mul_add_unfused32(a[i], b[i], c[i]);
        out[n + i] = exact_fns::rem32(a[i], b[i]);
        out[2 * n + i] = exact_fns::degrees32(a[i]);
    }
}

#[kernel]
fn exact64(a: &[f64], b: &[f64], c: &[f64], out: &mut [f64]) {
    let i = grid(1);
    let n = a.len();
    if i < n {
        out[i] = exact_fns::mul_add_unfused64(a[i], b[i], c[i]);
        out[n + i] = exact_fns::rem64(a[i], b[i]);
        out[2 * n + i] = exact_fns::degrees64(a[i]);
    }
}

#[kernel]
fn store_at(a: &mut [i32], k: i64) {
    a[k as usize] = 1; // panic site: negative index
}

/// Random bit patterns (all classes: subnormals, huge, NaN, ±inf, ±0) plus values
/// where contraction and a naive `%` visibly differ.
fn inputs32(rng: &mut common::Rng, n: usize) -> Vec<f32> {
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        3.0e38,
        -3.0e38,
        1.0e-40,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        16777217.0,
        1.0e10,
        0.75,
    ];
    (0..n)
        .map(|i| match i % 3 {
            0 => special[rng.below(special.len() as u64) as usize],
            1 => f32::from_bits(rng.next_u64() as u32),
            _ => rng.f32_in(-1000.0, 1000.0),
        })
        .collect()
}

fn inputs64(rng: &mut common::Rng, n: usize) -> Vec<f64> {
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        1.0e300,
        -1.0e300,
        1.0e-310,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        9007199254740993.0,
        1.0e20,
        0.75,
    ];
    (0..n)
        .map(|i| match i % 3 {
            0 => special[rng.below(special.len() as u64) as usize],
            1 => f64::from_bits(rng.next_u64()),
            _ => rng.f64_in(-1000.0, 1000.0),
        })
        .collect()
}

/// Same bits, or both NaN (NaN payloads are not part of Rust's semantics).
fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn float_arithmetic_is_bit_exact_f32() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("exact32");
    let n = 30_000;
    let (a, b, c) = (
        inputs32(&mut rng, n),
        inputs32(&mut rng, n),
        inputs32(&mut rng, n),
    );
    let mut out = vec![f32::from_bits(0x7fc0_dead); 3 * n];
    launch!(exact32[n.div_ceil(128), 128](&a, &b, &c, &mut out)).unwrap();
    let mut bad = Vec::new();
    for i in 0..n {
        let want = [
            exact_fns::mul_add_unfused32(a[i], b[i], c[i]),
            exact_fns::rem32(a[i], b[i]),
            exact_fns::degrees32(a[i]),
        ];
        for (k, w) in want.iter().enumerate() {
            let got = out[k * n + i];
            if !same32(got, *w) && bad.len() < 10 {
                bad.push(format!(
                    "fn {k} at ({:e}, {:e}, {:e}): got {got:e} ({:#010x}), rustc {w:e} ({:#010x})",
                    a[i],
                    b[i],
                    c[i],
                    got.to_bits(),
                    w.to_bits()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}

#[test]
fn float_arithmetic_is_bit_exact_f64() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("exact64");
    let n = 30_000;
    let (a, b, c) = (
        inputs64(&mut rng, n),
        inputs64(&mut rng, n),
        inputs64(&mut rng, n),
    );
    let mut out = vec![f64::from_bits(0x7ff8_0000_dead_beef); 3 * n];
    launch!(exact64[n.div_ceil(128), 128](&a, &b, &c, &mut out)).unwrap();
    let mut bad = Vec::new();
    for i in 0..n {
        let want = [
            exact_fns::mul_add_unfused64(a[i], b[i], c[i]),
            exact_fns::rem64(a[i], b[i]),
            exact_fns::degrees64(a[i]),
        ];
        for (k, w) in want.iter().enumerate() {
            let got = out[k * n + i];
            if !same64(got, *w) && bad.len() < 10 {
                bad.push(format!(
                    "fn {k} at ({:e}, {:e}, {:e}): got {got:e} ({:#018x}), rustc {w:e} ({:#018x})",
                    a[i],
                    b[i],
                    c[i],
                    got.to_bits(),
                    w.to_bits()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}

#[test]
fn negative_index_is_reported_as_usize() {
    let _gpu = require_gpu!();
    let mut a = vec![0i32; 8];
    let err = launch!(store_at[1, 1](&mut a, -11))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("index out of bounds: the len is 8 but the index is 18446744073709551605"),
        "{err}"
    );
}
