//! Grid-stride and other stepped / reversed `for` loops against the same loops run on
//! the host: every form (`.step_by(n)` on `a..b` and `a..=b`, `.rev()`, and
//! `.rev().step_by(n)`), with per-thread bounds and steps, at the integer types'
//! limits, and the zero-step panic.

use super::common;
use cudajit::prelude::*;

/// Values written per thread by `loop_forms` (spelled `48` in the kernels, which
/// cannot name constants).
const SLOTS: usize = 48;

/// Writes what each loop form yields into `out[base..base + 48]` (stopping, not
/// panicking, when the slots run out); the step and bounds vary with `t`. Also runs on
/// the host as the reference.
#[device]
fn loop_forms(out: &mut [i64], base: usize, t: usize) {
    let step = t % 5 + 1;
    let lo = (t % 11) as i32 - 5;
    let hi = (t / 11 % 13) as i32 - 6;
    let mut n = 0usize;
    for v in (lo..hi).step_by(step) {
        if n < 48 {
            out[base + n] = v as i64;
            n += 1;
        }
    }
    for v in (lo..=hi).step_by(step) {
        if n < 48 {
            out[base + n] = v as i64 * 10;
            n += 1;
        }
    }
    for v in (lo..hi).rev() {
        if n < 48 {
            out[base + n] = v as i64 * 100;
            n += 1;
        }
    }
    for v in (lo..=hi).rev() {
        if n < 48 {
            out[base + n] = v as i64 * 1000;
            n += 1;
        }
    }
    for v in (lo..hi).rev().step_by(step) {
        if v == 0 {
            continue;
        }
        if n < 48 {
            out[base + n] = v as i64 * 10000;
            n += 1;
        }
    }
    // At the limits: no overflow, whatever the step.
    let big = (t as u64 % 3 + 1) << 62;
    for v in (0u8..=255).step_by(step * 50) {
        if n < 48 {
            out[base + n] = v as i64;
            n += 1;
        }
    }
    for v in (250u8..=u8::MAX).step_by(step) {
        if n < 48 {
            out[base + n] = v as i64;
            n += 1;
        }
    }
    for v in (0u32..=u32::MAX).rev().step_by(1 << 31) {
        if n < 48 {
            out[base + n] = v as i64;
            n += 1;
        }
    }
    for v in (i64::MIN..=i64::MAX).rev().step_by(big as usize) {
        if n < 48 {
            out[base + n] = v;
            n += 1;
        }
    }
    while n < 48 {
        out[base + n] = -1;
        n += 1;
    }
}

#[kernel]
fn every_loop_form(out: &mut [i64], threads: usize) {
    for t in (grid(1)..threads).step_by(grid_size(1)) {
        loop_forms(out, t * 48, t);
    }
}

#[kernel]
fn step_from(out: &mut [u32], step: usize) {
    // The zero-step panic site is the step expression, on the next line (panic site: step).
    for i in (grid(1)..out.len()).step_by(step) {
        out[i] += 1;
    }
}

#[test]
fn every_loop_form_matches_host() {
    let _gpu = require_gpu!();
    // Fewer threads than work items, so the grid-stride loop itself is exercised.
    let threads = 11 * 13 * 5 + 3;
    let mut out = vec![i64::MIN; threads * SLOTS];
    launch!(every_loop_form[3, 64](&mut out, threads)).unwrap();
    let mut want = vec![i64::MIN; threads * SLOTS];
    for t in 0..threads {
        loop_forms(&mut want, t * SLOTS, t);
    }
    for t in 0..threads {
        let range = t * SLOTS..(t + 1) * SLOTS;
        assert_eq!(out[range.clone()], want[range], "thread {t}");
    }
}

#[test]
fn grid_stride_covers_each_element_once_and_zero_step_panics() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("step_from");
    let n = 10_000 + rng.below(1000) as usize;
    let mut out = vec![0u32; n];
    // 4 blocks of 64 threads, stepping by the grid size: every element exactly once.
    launch!(step_from[4, 64](&mut out, 256)).unwrap();
    assert!(out.iter().all(|&c| c == 1));
    let err = launch!(step_from[4, 64](&mut out, 0))
        .unwrap_err()
        .to_string();
    assert!(err.contains("assertion failed: step != 0"), "{err}");
    let lines: Vec<&str> = include_str!("loops.rs").lines().collect();
    let marker = lines
        .iter()
        .position(|l| l.contains(concat!("(panic site", ": step)")))
        .expect("marker");
    // 1-based: the line after the marker, the column of the `step_by` argument.
    let column = lines[marker + 1].find("step_by(").expect("step_by") + "step_by(".len() + 1;
    let site = format!("tests/gpu/loops.rs:{}:{column}:", marker + 2);
    assert!(err.contains(&site), "expected {site} in: {err}");
}
