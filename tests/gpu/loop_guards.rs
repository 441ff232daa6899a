//! Bounds checks decided once before a loop with a run-time trip count (the NVVM
//! backend's loop versioning: indices affine in the loop's variable, checked at the
//! loop's first two elements) compute what the checks written in place compute: the
//! same values when every index is in bounds, the same panic (message, and the
//! elements written before it) when one is not, and no panic where the guard cannot
//! tell and falls back to the checked loop. On the simulator, which checks in place,
//! the same tests are the reference behaviour.

use super::common;
use cudajit::prelude::*;

/// A grid-stride `y = a x + y` over `x`: `x[i]` needs no check (the loop ends at
/// `x.len()`), `y[i]`'s check is decided before the loop.
#[kernel]
fn saxpy_grid_stride(a: f32, x: &[f32], y: &mut [f32]) {
    for i in (grid(1)..x.len()).step_by(grid_size(1)) {
        y[i] = a.mul_add(x[i], y[i]);
    }
}

/// Thread `t` copies `n` elements `stride` apart from `input[t]` into its row of `out`,
/// through a `let` that depends on the loop's variable.
#[kernel]
fn strided_rows(input: &[f32], out: &mut [f32], n: usize, stride: usize) {
    let t = grid(1);
    for i in 0..n {
        let at = t + i * stride;
        out[t * n + i] = input[at];
    }
}

/// Copies the flagged elements: the condition is not one the guard counts with, so
/// it checks `dst[i]` and `src[i]` for every `i` and falls back to the checked loop
/// when `dst` is shorter than `flags`, which is correct as long as no flagged `i`
/// is out of bounds.
#[kernel]
fn flagged_copy(flags: &[u32], src: &[f32], dst: &mut [f32]) {
    if grid(1) == 0 {
        for i in 0..flags.len() {
            if flags[i] != 0 {
                dst[i] = src[i];
            }
        }
    }
}

/// A `u32` loop variable widened for indexing.
#[kernel]
fn shifted_u32(input: &[f32], out: &mut [f32], lo: u32, hi: u32) {
    if grid(1) == 0 {
        for i in lo..hi {
            out[i as usize] = 2.0 * input[i as usize + 8];
        }
    }
}

/// An `i64` loop variable from a negative start, indexing only where it is not
/// negative: as an unsigned index the first element is huge, so the guard fails.
#[kernel]
fn from_negative(input: &[f32], out: &mut [f32], n: i64) {
    if grid(1) == 0 {
        for i in -4..n {
            if i >= 0 {
                out[i as usize] = input[i as usize] + 1.0;
            }
        }
    }
}

fn saxpy_reference(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
    x.iter().zip(y).map(|(x, y)| a.mul_add(*x, *y)).collect()
}

#[test]
fn grid_stride_loop_with_its_check_hoisted_matches_the_host() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("loop guard saxpy");
    let n = 5000 + rng.below(3000) as usize;
    let a = rng.vec_f32(1, -2.0, 2.0)[0];
    let x = rng.vec_f32(n, -1.0, 1.0);
    let y0 = rng.vec_f32(n, -1.0, 1.0);
    let mut y = y0.clone();
    launch!(saxpy_grid_stride[7, 128](a, &x, &mut y)).unwrap();
    assert_eq!(y, saxpy_reference(a, &x, &y0));
}

#[test]
fn grid_stride_loop_past_a_short_slice_panics_after_every_element_below_it() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("loop guard saxpy short");
    let n = 4000 + rng.below(1000) as usize;
    let short = n - 1 - rng.below(300) as usize;
    let a = 1.5f32;
    let x = rng.vec_f32(n, -1.0, 1.0);
    let y0 = rng.vec_f32(short, -1.0, 1.0);
    let mut y = y0.clone();
    let err = launch!(saxpy_grid_stride[3, 128](a, &x, &mut y))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!(
            "index out of bounds: the len is {short} but the index is "
        )),
        "{err}"
    );
    // Each thread's indices rise, so it updated every element of `y` it owns before
    // the one out of bounds.
    assert_eq!(y, saxpy_reference(a, &x[..short], &y0));
}

#[test]
fn strided_rows_in_bounds_match_the_host() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("loop guard strided rows");
    let (threads, n) = (64usize, 3 + rng.below(20) as usize);
    let stride = 64 + rng.below(100) as usize;
    let input = rng.vec_f32(threads + (n - 1) * stride, -1.0, 1.0);
    let mut out = vec![f32::NAN; threads * n];
    launch!(strided_rows[1, threads as u32](&input, &mut out, n, stride)).unwrap();
    for t in 0..threads {
        for i in 0..n {
            assert_eq!(
                out[t * n + i],
                input[t + i * stride],
                "thread {t} element {i}"
            );
        }
    }
}

#[test]
fn a_stride_that_wraps_is_not_taken_for_in_bounds() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("loop guard wrapping stride");
    // `i * 2^63` is 0, 2^63, 0 (wrapping): the third element is in bounds again, and
    // only the guard's overflow test keeps the second from being skipped.
    let input = rng.vec_f32(16, -1.0, 1.0);
    let mut out = vec![f32::NAN; 3];
    let err = launch!(strided_rows[1, 1](&input, &mut out, 3usize, 1usize << 63))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("index out of bounds: the len is 16 but the index is 9223372036854775808"),
        "{err}"
    );
    assert_eq!(out[0], input[0]);
    assert!(out[1].is_nan() && out[2].is_nan(), "{out:?}");
}

#[test]
fn a_condition_the_guard_cannot_count_falls_back_without_a_false_panic() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("loop guard flagged copy");
    let n = 500 + rng.below(500) as usize;
    let short = n - 1 - rng.below(100) as usize;
    let src = rng.vec_f32(n, -1.0, 1.0);
    let flags: Vec<u32> = (0..n)
        .map(|i| u32::from(i < short && rng.below(2) == 1))
        .collect();
    for len in [n, short] {
        let mut dst = vec![f32::NAN; len];
        launch!(flagged_copy[1, 32](&flags, &src, &mut dst)).unwrap();
        for (i, got) in dst.iter().enumerate() {
            if flags[i] != 0 {
                assert_eq!(*got, src[i], "dst of {len}, element {i}");
            } else {
                assert!(got.is_nan(), "dst of {len}, element {i}: {got}");
            }
        }
    }
}

#[test]
fn narrow_and_signed_loop_variables_check_as_written() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("loop guard narrow variables");
    let (lo, hi) = (3 + rng.below(10) as u32, 100 + rng.below(100) as u32);
    let input = rng.vec_f32(hi as usize + 8, -1.0, 1.0);
    let mut out = vec![f32::NAN; hi as usize];
    launch!(shifted_u32[1, 32](&input, &mut out, lo, hi)).unwrap();
    for i in 0..hi as usize {
        let want = if i >= lo as usize {
            2.0 * input[i + 8]
        } else {
            f32::NAN
        };
        assert!(
            out[i] == want || (want.is_nan() && out[i].is_nan()),
            "element {i}"
        );
    }
    // One element short: the last iteration panics, after all the others.
    let short = &input[..hi as usize + 7];
    let mut out = vec![f32::NAN; hi as usize];
    let err = launch!(shifted_u32[1, 32](short, &mut out, lo, hi))
        .unwrap_err()
        .to_string();
    let len = hi + 7;
    assert!(
        err.contains(&format!(
            "index out of bounds: the len is {len} but the index is {len}"
        )),
        "{err}"
    );
    for i in lo as usize..hi as usize - 1 {
        assert_eq!(out[i], 2.0 * input[i + 8], "element {i}");
    }
    assert!(out[hi as usize - 1].is_nan());

    let n = 50 + rng.below(50) as usize;
    let input = rng.vec_f32(n, -1.0, 1.0);
    let mut out = vec![f32::NAN; n];
    launch!(from_negative[1, 32](&input, &mut out, n as i64)).unwrap();
    let want: Vec<f32> = input.iter().map(|x| x + 1.0).collect();
    assert_eq!(out, want);
}
