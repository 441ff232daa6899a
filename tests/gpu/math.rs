//! f32/f64 math methods against f64 (resp. host f64) references with ulp tolerances
//! (libdevice's documented maximum errors), and saturating `as` casts against the host.

use super::common;
use cudajit::prelude::*;

/// Ulps between two floats of the same type, via their ordered bit patterns.
fn ulps_f32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let bits = x.to_bits() as i32;
        (if bits < 0 { i32::MIN - bits } else { bits }) as i64
    };
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    (key(a) - key(b)).unsigned_abs()
}

fn ulps_f64(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        (if bits < 0 { i64::MIN - bits } else { bits }) as i128
    };
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    (key(a) - key(b)).unsigned_abs() as u64
}

const F32_FNS: usize = 31;

#[kernel]
fn math_f32(x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = grid(1);
    let n = x.len();
    if i < n {
        let (a, b) = (x[i], y[i]);
        out[i] = a.sqrt();
        out[n + i] = a.cbrt();
        out[2 * n + i] = a.sin();
        out[3 * n + i] = a.cos();
        out[4 * n + i] = a.tan();
        out[5 * n + i] = a.asin();
        out[6 * n + i] = a.acos();
        out[7 * n + i] = a.atan();
        out[8 * n + i] = a.atan2(b);
        out[9 * n + i] = a.sinh();
        out[10 * n + i] = a.cosh();
        out[11 * n + i] = a.tanh();
        out[12 * n + i] = a.exp();
        out[13 * n + i] = a.exp2();
        out[14 * n + i] = a.exp_m1();
        out[15 * n + i] = a.ln();
        out[16 * n + i] = a.log2();
        out[17 * n + i] = a.log10();
        out[18 * n + i] = a.ln_1p();
        out[19 * n + i] = a.powf(b);
        out[20 * n + i] = a.powi(3);
        out[21 * n + i] = a.hypot(b);
        out[22 * n + i] = (a * 10.0).floor();
        out[23 * n + i] = (a * 10.0).ceil();
        out[24 * n + i] = (a * 10.0).round();
        out[25 * n + i] = (-a * 10.0).trunc();
        out[26 * n + i] = (-a).abs();
        out[27 * n + i] = a.min(b);
        out[28 * n + i] = f32::max(a, b);
        out[29 * n + i] = a.mul_add(b, 0.25);
        out[30 * n + i] = 1.5f32.copysign(a - 0.5);
    }
}

fn reference_f32(a: f64, b: f64) -> [(f64, u64, &'static str); F32_FNS] {
    let (af, bf) = (a as f32, b as f32);
    [
        (a.sqrt(), 1, "sqrt"),
        (a.cbrt(), 2, "cbrt"),
        (a.sin(), 2, "sin"),
        (a.cos(), 2, "cos"),
        (a.tan(), 4, "tan"),
        (a.asin(), 4, "asin"),
        (a.acos(), 4, "acos"),
        (a.atan(), 2, "atan"),
        (a.atan2(b), 3, "atan2"),
        (a.sinh(), 3, "sinh"),
        (a.cosh(), 2, "cosh"),
        (a.tanh(), 2, "tanh"),
        (a.exp(), 2, "exp"),
        (a.exp2(), 2, "exp2"),
        (a.exp_m1(), 2, "exp_m1"),
        (a.ln(), 1, "ln"),
        (a.log2(), 1, "log2"),
        (a.log10(), 2, "log10"),
        (a.ln_1p(), 1, "ln_1p"),
        (a.powf(b), 8, "powf"),
        (a.powi(3), 4, "powi"),
        (a.hypot(b), 3, "hypot"),
        ((af * 10.0).floor() as f64, 0, "floor"),
        ((af * 10.0).ceil() as f64, 0, "ceil"),
        ((af * 10.0).round() as f64, 0, "round"),
        ((-af * 10.0).trunc() as f64, 0, "trunc"),
        (a, 0, "abs"),
        (af.min(bf) as f64, 0, "min"),
        (af.max(bf) as f64, 0, "max"),
        (af.mul_add(bf, 0.25) as f64, 0, "mul_add"),
        (1.5f64.copysign(a - 0.5), 0, "copysign"),
    ]
}

#[test]
fn f32_math_within_ulps_of_f64() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("math_f32");
    let n = 4096;
    // Every function is defined on (0.05, 0.95) x (0.5, 2).
    let x = rng.vec_f32(n, 0.05, 0.95);
    let y = rng.vec_f32(n, 0.5, 2.0);
    let mut out = vec![f32::NAN; F32_FNS * n];
    launch!(math_f32[n / 256, 256](&x, &y, &mut out)).unwrap();
    let mut failures = Vec::new();
    for i in 0..n {
        for (k, (want, tol, name)) in reference_f32(x[i] as f64, y[i] as f64)
            .into_iter()
            .enumerate()
        {
            let got = out[k * n + i];
            let ulps = ulps_f32(got, want as f32);
            if ulps > tol {
                failures.push(format!(
                    "{name}({}, {}) = {got}, want {want} ({ulps} ulps > {tol})",
                    x[i], y[i]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures, first: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
}

#[kernel]
fn math_f64(x: &[f64], out: &mut [f64]) {
    let i = grid(1);
    let n = x.len();
    if i < n {
        let a = x[i];
        out[i] = a.sqrt();
        out[n + i] = a.sin();
        out[2 * n + i] = a.exp();
        out[3 * n + i] = a.ln();
        out[4 * n + i] = f64::powf(a, 1.5);
        out[5 * n + i] = a.atan2(0.5) + std::f64::consts::PI;
    }
}

#[test]
fn f64_math_within_ulps_of_host() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("math_f64");
    let n = 2048;
    let x: Vec<f64> = (0..n).map(|_| rng.f64_in(0.01, 10.0)).collect();
    let mut out = vec![f64::NAN; 6 * n];
    launch!(math_f64[n / 128, 128](&x, &mut out)).unwrap();
    for (i, &a) in x.iter().enumerate() {
        let want = [
            a.sqrt(),
            a.sin(),
            a.exp(),
            a.ln(),
            a.powf(1.5),
            a.atan2(0.5) + std::f64::consts::PI,
        ];
        for (k, w) in want.into_iter().enumerate() {
            let got = out[k * n + i];
            assert!(ulps_f64(got, w) <= 4, "fn #{k} of {a}: got {got}, want {w}");
        }
    }
}

#[kernel]
fn casts(x: &[f32], to_i32: &mut [i32], to_u8: &mut [u8], to_i64: &mut [i64], wrapped: &mut [u8]) {
    let i = grid(1);
    if i < x.len() {
        to_i32[i] = x[i] as i32;
        to_u8[i] = x[i] as u8;
        to_i64[i] = x[i] as i64;
        wrapped[i] = (x[i] as i64) as u8;
    }
}

#[test]
fn float_to_int_casts_saturate_like_rust() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("casts");
    let mut x = vec![
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e10,
        -1e10,
        3e9,
        300.7,
        255.9,
        256.0,
        -5.5,
        -0.9,
        0.5,
        2147483520.0,
        -2147483904.0,
        9.3e18,
        -9.3e18,
    ];
    x.extend((0..240).map(|_| rng.f32_in(-1000.0, 1000.0)));
    let n = x.len();
    let (mut a, mut b, mut c, mut d) = (vec![7i32; n], vec![7u8; n], vec![7i64; n], vec![7u8; n]);
    launch!(casts[1, n](&x, &mut a, &mut b, &mut c, &mut d)).unwrap();
    for i in 0..n {
        let v = x[i];
        assert_eq!(a[i], v as i32, "{v} as i32");
        assert_eq!(b[i], v as u8, "{v} as u8");
        assert_eq!(c[i], v as i64, "{v} as i64");
        assert_eq!(d[i], (v as i64) as u8, "({v} as i64) as u8");
    }
}
