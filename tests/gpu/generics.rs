//! Generic and const-generic kernels (issue 9): one kernel body instantiated per
//! element type (inferred from the arguments) and per const parameter (named at the
//! launch), each instantiation checked against a CPU reference on fresh inputs.

use super::common;
use cudajit::prelude::*;

// What `cargo xtask build-device` compiles ahead of time (the named launches below
// are found without the list; the inferred ones are not).
cudajit::instantiate!(
    black_scholes::<f32>,
    black_scholes::<f64>,
    axpy::<f32>,
    axpy::<f64>,
    axpy::<i32>,
    transpose::<f32, 16>,
    transpose::<f32, 32>,
    transpose::<i64, 8>,
);

/// The CUDA SDK's Black-Scholes coefficients (Abramowitz & Stegun 26.2.17).
const A1: f64 = 0.319_381_53;
const A2: f64 = -0.356_563_782;
const A3: f64 = 1.781_477_937;
const A4: f64 = -1.821_255_978;
const A5: f64 = 1.330_274_429;
const RSQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// The cumulative normal distribution by the polynomial of the CUDA SDK sample: a
/// generic device function, instantiated by the kernel's `cnd::<T>` calls.
#[device]
fn cnd<T: Float>(d: T) -> T {
    let k = T::one() / (T::one() + T::from_f64(0.231_641_9) * d.abs());
    let poly = k
        * (T::from_f64(A1)
            + k * (T::from_f64(A2)
                + k * (T::from_f64(A3) + k * (T::from_f64(A4) + k * T::from_f64(A5)))));
    let tail = T::from_f64(RSQRT_2PI) * (T::from_f64(-0.5) * d * d).exp() * poly;
    if d > T::zero() {
        T::one() - tail
    } else {
        tail
    }
}

/// European call and put prices, one option per thread, for any float type: the
/// algorithm of the CUDA SDK sample, written once.
#[kernel]
fn black_scholes<T: Float>(
    price: &[T],
    strike: &[T],
    years: &[T],
    rate: T,
    volatility: T,
    call: &mut [T],
    put: &mut [T],
) {
    let i = grid(1);
    if i < call.len() {
        let s = price[i];
        let x = strike[i];
        let t = years[i];
        let sqrt_t = t.sqrt();
        let d1 = ((s / x).ln() + (rate + T::from_f64(0.5) * volatility * volatility) * t)
            / (volatility * sqrt_t);
        let d2 = d1 - volatility * sqrt_t;
        let cnd1 = cnd::<T>(d1);
        let cnd2 = cnd::<T>(d2);
        let discount = x * (-rate * t).exp();
        call[i] = s * cnd1 - discount * cnd2;
        put[i] = discount * (T::one() - cnd2) - s * (T::one() - cnd1);
    }
}

/// The same algorithm in f64 on the host: (call, put).
fn black_scholes_reference(s: f64, x: f64, t: f64, rate: f64, volatility: f64) -> (f64, f64) {
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
        let poly = k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5))));
        let tail = RSQRT_2PI * (-0.5 * d * d).exp() * poly;
        if d > 0.0 {
            1.0 - tail
        } else {
            tail
        }
    };
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (rate + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t);
    let d2 = d1 - volatility * sqrt_t;
    let discount = x * (-rate * t).exp();
    (
        s * cnd(d1) - discount * cnd(d2),
        discount * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)),
    )
}

struct Options {
    price: Vec<f64>,
    strike: Vec<f64>,
    years: Vec<f64>,
    rate: f64,
    volatility: f64,
}

impl Options {
    fn random(rng: &mut common::Rng, n: usize) -> Options {
        Options {
            price: (0..n).map(|_| rng.f64_in(5.0, 30.0)).collect(),
            strike: (0..n).map(|_| rng.f64_in(1.0, 100.0)).collect(),
            years: (0..n).map(|_| rng.f64_in(0.25, 10.0)).collect(),
            rate: rng.f64_in(0.01, 0.05),
            volatility: rng.f64_in(0.1, 0.4),
        }
    }

    fn reference(&self) -> (Vec<f64>, Vec<f64>) {
        (0..self.price.len())
            .map(|i| {
                black_scholes_reference(
                    self.price[i],
                    self.strike[i],
                    self.years[i],
                    self.rate,
                    self.volatility,
                )
            })
            .unzip()
    }
}

#[test]
fn black_scholes_one_generic_kernel_for_f32_and_f64() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("black_scholes");
    let n = 4000 + rng.below(100) as usize;
    let options = Options::random(&mut rng, n);
    let (want_call, want_put) = options.reference();
    let blocks = n.div_ceil(128);

    // f64: the same arithmetic as the reference, up to libdevice's ulps.
    let mut call = vec![f64::NAN; n];
    let mut put = vec![f64::NAN; n];
    launch!(black_scholes[blocks, 128](
        &options.price,
        &options.strike,
        &options.years,
        options.rate,
        options.volatility,
        &mut call,
        &mut put
    ))
    .unwrap();
    for (name, got, want) in [
        ("call f64", &call, &want_call),
        ("put f64", &put, &want_put),
    ] {
        for i in 0..n {
            let err = (got[i] - want[i]).abs();
            assert!(
                err <= 1e-9 * (1.0 + want[i].abs()),
                "{name}[{i}]: got {}, expected {}",
                got[i],
                want[i]
            );
        }
    }

    // f32: the same kernel, instantiated for f32 by the arguments' type.
    let narrow = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    let mut call = vec![f32::NAN; n];
    let mut put = vec![f32::NAN; n];
    launch!(black_scholes[blocks, 128](
        &narrow(&options.price),
        &narrow(&options.strike),
        &narrow(&options.years),
        options.rate as f32,
        options.volatility as f32,
        &mut call,
        &mut put
    ))
    .unwrap();
    // Prices up to ~100 computed in f32: a few ulps of the largest terms.
    common::compare("call f32", &call, &want_call, 2e-4, 2e-5).unwrap();
    common::compare("put f32", &put, &want_put, 2e-4, 2e-5).unwrap();
    assert_eq!(black_scholes::instances().launched().len(), 2);
}

#[kernel]
fn axpy<T: Num>(a: T, x: &[T], y: &mut [T]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[test]
fn generic_axpy_for_f32_f64_and_i32() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("generic_axpy");
    let n = 3000 + rng.below(500) as usize;
    let blocks = n.div_ceil(256);

    let a = rng.f32_in(-4.0, 4.0);
    let x = rng.vec_f32(n, -100.0, 100.0);
    let y0 = rng.vec_f32(n, -100.0, 100.0);
    let mut y = y0.clone();
    launch!(axpy[blocks, 256](a, &x, &mut y)).unwrap();
    // Two roundings in f32 (no contraction into an fma without fastmath).
    let want: Vec<f32> = (0..n).map(|i| a * x[i] + y0[i]).collect();
    assert_eq!(y, want, "f32");

    let a = rng.f64_in(-4.0, 4.0);
    let x: Vec<f64> = (0..n).map(|_| rng.f64_in(-1e3, 1e3)).collect();
    let y0: Vec<f64> = (0..n).map(|_| rng.f64_in(-1e3, 1e3)).collect();
    let mut y = y0.clone();
    launch!(axpy[blocks, 256](a, &x, &mut y)).unwrap();
    let want: Vec<f64> = (0..n).map(|i| a * x[i] + y0[i]).collect();
    assert_eq!(y, want, "f64");

    // Full-range integers: the kernel wraps on overflow, as release builds do.
    let a = rng.next_u64() as i32;
    let x: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let y0: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let mut y = y0.clone();
    launch!(axpy[blocks, 256](a, &x, &mut y)).unwrap();
    let want: Vec<i32> = (0..n)
        .map(|i| a.wrapping_mul(x[i]).wrapping_add(y0[i]))
        .collect();
    assert_eq!(y, want, "i32");
    // Named instead of inferred: the same instantiation, not a new one.
    let mut y2 = y0.clone();
    launch!(axpy::<i32>[blocks, 256](a, &x, &mut y2)).unwrap();
    assert_eq!(y2, want, "i32, named");
    assert_eq!(axpy::instances().launched().len(), 3);
}

/// `output = inputᵀ` through a block-shared tile padded by one column (no bank
/// conflicts); a block is `TILE × TILE` threads.
#[kernel]
fn transpose<T: Num, const TILE: usize>(input: &[T], output: &mut [T], rows: usize, cols: usize) {
    let tile = shared_array::<[[T; TILE + 1]; TILE]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let row = block_idx().y as usize * TILE + ty;
    let col = block_idx().x as usize * TILE + tx;
    if row < rows && col < cols {
        tile[ty][tx] = input[row * cols + col];
    }
    sync_threads();
    // The block's tile lands mirrored: its rows become output columns.
    let out_row = block_idx().x as usize * TILE + ty;
    let out_col = block_idx().y as usize * TILE + tx;
    if out_row < cols && out_col < rows {
        output[out_row * rows + out_col] = tile[tx][ty];
    }
}

fn check_transpose<T: Num + cudajit::DeviceScalar + std::fmt::Debug, const TILE: usize>(
    input: &[T],
    poison: T,
    rows: usize,
    cols: usize,
) {
    let mut output = vec![poison; rows * cols];
    let grid = (cols.div_ceil(TILE), rows.div_ceil(TILE));
    launch!(transpose::<T, TILE>[grid, (TILE, TILE)](input, &mut output, rows, cols)).unwrap();
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(
                output[c * rows + r],
                input[r * cols + c],
                "TILE {TILE}: ({r}, {c})"
            );
        }
    }
}

#[test]
fn const_generic_transpose_for_two_tile_sizes() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("generic_transpose");
    // Sizes that are not multiples of either tile.
    let rows = 40 + rng.below(30) as usize;
    let cols = 50 + rng.below(30) as usize;
    let input: Vec<f32> = rng.vec_f32(rows * cols, -1e3, 1e3);
    check_transpose::<f32, 16>(&input, f32::NAN, rows, cols);
    check_transpose::<f32, 32>(&input, f32::NAN, rows, cols);
    let input: Vec<i64> = (0..rows * cols).map(|_| rng.next_u64() as i64).collect();
    check_transpose::<i64, 8>(&input, i64::MIN, rows, cols);
    assert_eq!(transpose::instances().launched().len(), 3);
}

/// `N` terms of `x[start..]` weighted by `w`, for any number type and window: a
/// generic device function with a const parameter, called from another generic one.
#[device]
fn weighted_window<T: Num, const N: usize>(x: &[T], start: usize, w: T) -> T {
    let mut acc = T::zero();
    for k in 0..N {
        acc += scaled::<T>(x[start + k], w);
    }
    acc
}

#[device]
fn scaled<T: Num>(v: T, w: T) -> T {
    v * w
}

/// A non-generic kernel calling generic device functions with several arguments.
#[kernel]
fn windows(x: &[f64], n: &[i32], out: &mut [f64], out_n: &mut [i32]) {
    let i = grid(1);
    if i + 4 <= x.len() && i < out.len() {
        out[i] = weighted_window::<f64, 4>(x, i, 0.5);
        out_n[i] = weighted_window::<i32, 3>(n, i, 3) + scaled::<i32>(n[i], -1);
    }
}

#[test]
fn generic_device_functions_instantiated_per_call() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("generic_device_functions");
    let len = 500 + rng.below(100) as usize;
    let x: Vec<f64> = (0..len).map(|_| rng.f64_in(-10.0, 10.0)).collect();
    let n: Vec<i32> = (0..len)
        .map(|_| rng.below(20_000) as i32 - 10_000)
        .collect();
    let m = len - 3;
    let mut out = vec![f64::NAN; m];
    let mut out_n = vec![i32::MIN; m];
    launch!(windows[m.div_ceil(64), 64](&x, &n, &mut out, &mut out_n)).unwrap();
    for i in 0..m {
        let want: f64 = (0..4).map(|k| x[i + k] * 0.5).sum();
        assert_eq!(out[i], want, "f64 window at {i}");
        let want_n: i32 = (0..3).map(|k| n[i + k] * 3).sum::<i32>() - n[i];
        assert_eq!(out_n[i], want_n, "i32 window at {i}");
    }
}
