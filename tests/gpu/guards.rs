//! Bounds checks decided ahead of a run by one guard (the NVVM backend's versioning,
//! with strided checks of indices affine in a literal loop's variable) panic exactly
//! where and as the checks written in place do: the same message, the same elements
//! written before it. On the simulator, which checks in place, the same tests are the
//! reference behaviour.

use super::common;
use cudajit::prelude::*;

/// Four rows `stride` apart per thread: `input[i + r * stride]` is affine in `r`.
#[kernel]
fn gather_rows(input: &[f32], out: &mut [f32], stride: usize) {
    let i = grid(1);
    for r in (0..32).step_by(8) {
        out[i * 4 + r / 8] = input[i + r * stride];
    }
}

/// Four rows walking down from `i + 96`: the index falls by 32 per element, which the
/// guard's rising-sequence check cannot take; the run falls back to its checked copy.
#[kernel]
fn gather_down(input: &[f32], out: &mut [f32]) {
    let i = grid(1);
    let top = i + 96;
    for r in (0..32).step_by(8) {
        out[i * 4 + r / 8] = input[top - r * 4];
    }
}

/// What thread's four rows hold when `rows(r)` gives row `r`'s index (`None`: the
/// index wrapped): the rows before the first one out of bounds, then nothing.
fn want_rows(input: &[f32], rows: impl Fn(usize) -> Option<usize>) -> [Option<f32>; 4] {
    let mut w = [None; 4];
    for (k, slot) in w.iter_mut().enumerate() {
        match rows(k * 8) {
            Some(ix) if ix < input.len() => *slot = Some(input[ix]),
            _ => break,
        }
    }
    w
}

#[test]
fn strided_guard_passes_in_bounds_rows_and_panics_at_the_first_row_out() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("strided guard");
    let threads = 256usize;
    let stride = 40 + rng.below(40) as usize;
    // In bounds: every row of every thread.
    let full = threads + 24 * stride;
    let input = rng.vec_f32(full, -1.0, 1.0);
    let mut out = vec![f32::NAN; threads * 4];
    launch!(gather_rows[1, threads as u32](&input, &mut out, stride)).unwrap();
    for i in 0..threads {
        for k in 0..4 {
            assert_eq!(
                out[i * 4 + k],
                input[i + k * 8 * stride],
                "thread {i} row {k}"
            );
        }
    }
    // Cut so that the last row of the threads from `cut` on is out of bounds.
    let cut = 1 + rng.below(threads as u64 - 2) as usize;
    let short = &input[..cut + 24 * stride];
    let mut out = vec![f32::NAN; threads * 4];
    let err = launch!(gather_rows[1, threads as u32](short, &mut out, stride))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("index out of bounds: the len is {}", short.len())),
        "{err}"
    );
    for i in 0..threads {
        let want = want_rows(short, |r| Some(i + r * stride));
        for (k, w) in want.iter().enumerate() {
            match w {
                Some(v) => assert_eq!(out[i * 4 + k], *v, "thread {i} row {k}"),
                None => assert!(out[i * 4 + k].is_nan(), "thread {i} row {k} written"),
            }
        }
    }
}

#[test]
fn a_falling_index_runs_checked_and_panics_at_its_first_row_out() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("falling guard");
    let threads = 128usize;
    let input = rng.vec_f32(threads + 96, -1.0, 1.0);
    let mut out = vec![f32::NAN; threads * 4];
    // `top - r * 4` never wraps here (top >= 96): every row is read.
    launch!(gather_down[1, threads as u32](&input, &mut out)).unwrap();
    for i in 0..threads {
        for k in 0..4 {
            assert_eq!(out[i * 4 + k], input[i + 96 - k * 32], "thread {i} row {k}");
        }
    }
    // Shorter input: the first rows of the last threads are out of bounds.
    let short = &input[..threads + 40];
    let mut out = vec![f32::NAN; threads * 4];
    let err = launch!(gather_down[1, threads as u32](short, &mut out))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("index out of bounds: the len is {}", short.len())),
        "{err}"
    );
    for i in 0..threads {
        let want = want_rows(short, |r| (i + 96).checked_sub(r * 4));
        for (k, w) in want.iter().enumerate() {
            match w {
                Some(v) => assert_eq!(out[i * 4 + k], *v, "thread {i} row {k}"),
                None => assert!(out[i * 4 + k].is_nan(), "thread {i} row {k} written"),
            }
        }
    }
}

/// The same sums with a loop unrolled completely, four at a time, and as the compiler
/// likes: `#[unroll]` is a hint that changes no result.
#[kernel]
fn unrolled_sums(x: &[f32], out: &mut [f32], n: usize) {
    let i = grid(1);
    if i < out.len() / 3 {
        let mut a = 0.0f32;
        #[unroll]
        for k in 0..8 {
            a += x[i * 8 + k];
        }
        let mut b = 0.0f32;
        #[unroll(4)]
        for k in 0..n {
            b += x[i * 8 + k];
        }
        let mut c = 0.0f32;
        for k in 0..n {
            c += x[i * 8 + k];
        }
        out[i * 3] = a;
        out[i * 3 + 1] = b;
        out[i * 3 + 2] = c;
    }
}

#[test]
fn unroll_hints_change_no_result() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("unroll");
    let rows = 500 + rng.below(100) as usize;
    let n = 5 + rng.below(4) as usize;
    let x: Vec<f32> = (0..rows * 8).map(|_| rng.below(100) as f32).collect();
    let mut out = vec![f32::NAN; rows * 3];
    launch!(unrolled_sums[rows.div_ceil(128), 128](&x, &mut out, n)).unwrap();
    for i in 0..rows {
        let sum = |m: usize| x[i * 8..i * 8 + m].iter().sum::<f32>();
        assert_eq!(out[i * 3], sum(8), "row {i}");
        assert_eq!(out[i * 3 + 1], sum(n), "row {i}");
        assert_eq!(out[i * 3 + 2], sum(n), "row {i}");
    }
}

#[kernel(launch_bounds = (128, 2))]
fn bounded_fill(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = i as u32;
    }
}

#[test]
fn a_block_over_the_kernels_launch_bounds_is_an_err_naming_them() {
    let _gpu = require_gpu!();
    let mut out = vec![u32::MAX; 1000];
    launch!(bounded_fill[8, 128](&mut out)).unwrap();
    assert!(out.iter().enumerate().all(|(i, &v)| v == i as u32));
    let err = launch!(bounded_fill[4, 256](&mut out))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("block of 256 threads (256 x 1 x 1) exceeds the kernel's `launch_bounds` of 128 threads per block"),
        "{err}"
    );
    let err = launch!(bounded_fill[4, (16, 16)](&mut out))
        .unwrap_err()
        .to_string();
    assert!(err.contains("(launch_bounds)"), "{err}");
}
