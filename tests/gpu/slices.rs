//! Sub-slices, `split_at_mut` and dynamic shared memory on the GPU: views passed to
//! device functions, out-of-range views reported with std's words and file:line, a
//! block reduction through two slices carved from dynamic shared memory, and a launch
//! with 100 KiB of it (above the 48 KiB default: the launch opts the kernel in).

use super::common;
use cudajit::prelude::*;

#[device]
fn sum(v: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for i in 0..v.len() {
        s += v[i];
    }
    s
}

#[device]
fn scale(v: &mut [f32], k: f32) {
    for i in 0..v.len() {
        v[i] *= k;
    }
}

/// The host twin of `sum`, adding in the same order (so results are bit-exact).
fn sum_cpu(v: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for &x in v {
        s += x;
    }
    s
}

/// Each thread sums windows of `x` at its own start through every range form.
#[kernel]
fn window_sums(x: &[f32], starts: &[u32], out: &mut [f32], w: usize) {
    let i = grid(1);
    if i < out.len() {
        let s = starts[i] as usize;
        let window = &x[s..s + w];
        let head = &window[..=1];
        let tail = &x[s + w..];
        let (left, right) = window.split_at(w / 2);
        out[i] = sum(window) * 3.0 - sum(head) + sum(&tail[..2]) + sum(right) - sum(left)
            + sum(&x[..1])
            + x[s..][0];
    }
}

/// Each thread owns row `i` of `m` (`w` wide): scales its two halves differently.
#[kernel]
fn split_rows(m: &mut [f32], w: usize, mid: usize) {
    let i = grid(1);
    if i < m.len() / w {
        let row = &mut m[i * w..(i + 1) * w];
        let (lo, hi) = row.split_at_mut(mid);
        scale(lo, 2.0);
        scale(&mut hi[1..], -1.0);
        hi[0] = lo.len() as f32 + hi.len() as f32;
    }
}

/// Same, without bounds checks: the views must be the same.
#[kernel(boundscheck = false)]
fn split_rows_unchecked(m: &mut [f32], w: usize, mid: usize) {
    let i = grid(1);
    if i < m.len() / w {
        let row = &mut m[i * w..(i + 1) * w];
        let (lo, hi) = row.split_at_mut(mid);
        scale(lo, 2.0);
        scale(&mut hi[1..], -1.0);
        hi[0] = lo.len() as f32 + hi.len() as f32;
    }
}

#[kernel]
fn slice_at(a: &[f32], out: &mut [f32], i: usize, j: usize, inclusive: bool) {
    if grid(1) == 0 {
        if inclusive {
            out[0] = sum(&a[i..=j]); // slice site: inclusive
        } else {
            out[0] = sum(&a[i..j]); // slice site: exclusive
        }
    }
}

#[kernel]
fn split_at_mid(a: &mut [f32], mid: usize) {
    if grid(1) == 0 {
        let (lo, hi) = a.split_at_mut(mid); // slice site: split_at_mut
        lo[0] = hi.len() as f32;
    }
}

fn line_of(marker: &str) -> usize {
    include_str!("slices.rs")
        .lines()
        .position(|l| l.contains(marker))
        .expect("marker")
        + 1
}

#[test]
fn sub_slices_reach_device_functions() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("window_sums");
    let n = 20_000 + rng.below(500) as usize;
    let w = 8 + rng.below(24) as usize;
    let x = rng.vec_f32(n, -1.0, 1.0);
    let threads = 5_000 + rng.below(500) as usize;
    let starts: Vec<u32> = (0..threads)
        .map(|_| rng.below((n - w - 2) as u64) as u32)
        .collect();
    let mut out = vec![f32::NAN; threads];
    launch!(window_sums[threads.div_ceil(128), 128](&x, &starts, &mut out, w)).unwrap();
    let want: Vec<f64> = starts
        .iter()
        .map(|&s| {
            let s = s as usize;
            let window = &x[s..s + w];
            let (left, right) = window.split_at(w / 2);
            (sum_cpu(window) * 3.0 - sum_cpu(&window[..=1])
                + sum_cpu(&x[s + w..][..2])
                + sum_cpu(right)
                - sum_cpu(left)
                + sum_cpu(&x[..1])
                + x[s]) as f64
        })
        .collect();
    common::compare("window_sums", &out, &want, 0.0, 0.0).unwrap();
}

#[test]
fn split_at_mut_writes_both_halves() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("split_rows");
    let rows = 3_000 + rng.below(300) as usize;
    let w = 5 + rng.below(20) as usize;
    let mid = rng.below(w as u64 - 1) as usize;
    let m0 = rng.vec_f32(rows * w, -4.0, 4.0);
    let mut want = m0.clone();
    for row in want.chunks_mut(w) {
        let (lo, hi) = row.split_at_mut(mid);
        lo.iter_mut().for_each(|v| *v *= 2.0);
        hi[1..].iter_mut().for_each(|v| *v *= -1.0);
        hi[0] = lo.len() as f32 + hi.len() as f32;
    }
    let want: Vec<f64> = want.iter().map(|&v| v as f64).collect();
    let mut m = m0.clone();
    launch!(split_rows[rows.div_ceil(64), 64](&mut m, w, mid)).unwrap();
    common::compare("split_rows", &m, &want, 0.0, 0.0).unwrap();
    let mut m = m0;
    // SAFETY: the same rows and split as the checked launch above, which returned Ok.
    unsafe { launch!(split_rows_unchecked[rows.div_ceil(64), 64](&mut m, w, mid)) }.unwrap();
    common::compare("split_rows_unchecked", &m, &want, 0.0, 0.0).unwrap();
}

#[test]
fn out_of_range_sub_slices_are_errs_with_std_words() {
    let _gpu = require_gpu!();
    let a = vec![1.0f32; 8];
    let mut out = vec![f32::NAN; 1];
    let exclusive = format!(
        "tests/gpu/slices.rs:{}",
        line_of(concat!("slice site", ": exclusive"))
    );
    let inclusive = format!(
        "tests/gpu/slices.rs:{}",
        line_of(concat!("slice site", ": inclusive"))
    );
    // (i, j, inclusive, std's message, site)
    let cases = [
        (
            2,
            9,
            false,
            "range end index 9 out of range for slice of length 8",
            &exclusive,
        ),
        (
            5,
            3,
            false,
            "slice index starts at 5 but ends at 3",
            &exclusive,
        ),
        (
            9,
            9,
            false,
            "range start index 9 out of range for slice of length 8",
            &exclusive,
        ),
        (
            2,
            8,
            true,
            "range end index 8 out of range for slice of length 8",
            &inclusive,
        ),
        (
            5,
            3,
            true,
            "slice index starts at 5 but ends at 4",
            &inclusive,
        ),
    ];
    for (i, j, incl, words, site) in cases {
        let err = launch!(slice_at[1, 32](&a, &mut out, i, j, incl))
            .unwrap_err()
            .to_string();
        assert!(err.contains("slice_at"), "{err}");
        assert!(err.contains(words), "expected {words:?} in: {err}");
        assert!(err.contains(site.as_str()), "expected {site} in: {err}");
        // The reference: std panics with the same words.
        let payload = std::panic::catch_unwind(|| {
            if incl {
                sum_cpu(&a[i..=j])
            } else {
                sum_cpu(&a[i..j])
            }
        })
        .unwrap_err();
        let std_words = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()));
        assert_eq!(std_words.as_deref(), Some(words));
    }
    // In range: no error, and the context still works.
    launch!(slice_at[1, 32](&a, &mut out, 2, 7, true)).unwrap();
    assert_eq!(out[0], 6.0);
    let mut b = vec![0.0f32; 8];
    let err = launch!(split_at_mid[1, 32](&mut b, 9))
        .unwrap_err()
        .to_string();
    let site = format!(
        "tests/gpu/slices.rs:{}",
        line_of(concat!("slice site", ": split_at_mut"))
    );
    assert!(err.contains("mid > len"), "{err}");
    assert!(err.contains(&site), "expected {site} in: {err}");
    launch!(split_at_mid[1, 32](&mut b, 8)).unwrap();
    assert_eq!(b[0], 0.0);
}

/// Per block: the sum and the count of the positive elements, reduced in two slices
/// carved from dynamic shared memory (`block_dim` f32 values, then as many u32 counts),
/// plus a byte slice and an f64 slice after it to exercise alignment.
#[kernel]
fn positive_sum_count(x: &[f32], sums: &mut [f32], counts: &mut [u32], check: &mut [f64]) {
    let mut smem = dynamic_shared();
    let n = block_dim().x as usize;
    let vals = smem.take::<f32>(n);
    let cnts = smem.take::<u32>(n);
    let flags = smem.take::<u8>(3);
    let wide = smem.take::<f64>(1);
    let t = thread_idx().x as usize;
    let i = grid(1);
    let v = if i < x.len() { x[i] } else { 0.0 };
    vals[t] = if v > 0.0 { v } else { 0.0 };
    cnts[t] = if v > 0.0 { 1 } else { 0 };
    if t == 0 {
        flags[2] = 7;
        wide[0] = 0.5;
    }
    sync_threads();
    let mut stride = n / 2;
    while stride > 0 {
        if t < stride {
            vals[t] += vals[t + stride];
            cnts[t] += cnts[t + stride];
        }
        sync_threads();
        stride /= 2;
    }
    if t == 0 {
        let b = block_idx().x as usize;
        sums[b] = vals[0];
        counts[b] = cnts[0];
        check[b] = wide[0] + flags[2] as f64;
    }
}

#[test]
fn block_reduction_through_dynamic_shared_memory() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("positive_sum_count");
    let block = 256usize;
    let n = 100_000 + rng.below(10_000) as usize;
    let blocks = n.div_ceil(block);
    let x = rng.vec_f32(n, -1.0, 1.0);
    let mut sums = vec![f32::NAN; blocks];
    let mut counts = vec![u32::MAX; blocks];
    let mut check = vec![f64::NAN; blocks];
    // f32 + u32 per thread, then 3 bytes, padding to 8, one f64.
    let shared = block * 8 + 8 + 8;
    let stream = gpu.new_stream().unwrap();
    launch!(positive_sum_count[blocks, block, stream, shared](
        &x,
        &mut sums,
        &mut counts,
        &mut check
    ))
    .unwrap();
    for b in 0..blocks {
        let chunk = &x[b * block..((b + 1) * block).min(n)];
        let want_count = chunk.iter().filter(|&&v| v > 0.0).count() as u32;
        let want_sum: f64 = chunk.iter().filter(|&&v| v > 0.0).map(|&v| v as f64).sum();
        assert_eq!(counts[b], want_count, "block {b}");
        assert!(
            (sums[b] as f64 - want_sum).abs() <= 1e-4 * (1.0 + want_sum),
            "block {b}: {} vs {want_sum}",
            sums[b]
        );
        assert_eq!(check[b], 7.5, "block {b}");
    }
    // One byte short of the f64: the carve panics, naming the bytes.
    let err = launch!(positive_sum_count[blocks, block, stream, shared - 1](
        &x,
        &mut sums,
        &mut counts,
        &mut check
    ))
    .unwrap_err()
    .to_string();
    let words = format!(
        "dynamic shared memory exhausted: `take` needs {} bytes but the launch has {} bytes",
        shared,
        shared - 1
    );
    assert!(err.contains(&words), "expected {words:?} in: {err}");
}

/// Reverses each block's chunk of `x` through 100 KiB of dynamic shared memory.
#[kernel]
fn reverse_through_shared(x: &[f32], out: &mut [f32], per_block: usize) {
    let mut smem = dynamic_shared();
    let tile = smem.take::<f32>(per_block);
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let base = block_idx().x as usize * per_block;
    for k in (t..per_block).step_by(n) {
        tile[k] = x[base + k];
    }
    sync_threads();
    for k in (t..per_block).step_by(n) {
        out[base + k] = tile[per_block - 1 - k];
    }
}

#[test]
fn launch_with_100_kib_of_dynamic_shared_memory() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("reverse_through_shared");
    let per_block = 100 * 1024 / 4;
    let blocks = 8 + rng.below(8) as usize;
    let x = rng.vec_f32(blocks * per_block, -1.0, 1.0);
    let mut out = vec![f32::NAN; x.len()];
    let stream = gpu.new_stream().unwrap();
    launch!(reverse_through_shared[blocks, 512, stream, 100 * 1024](&x, &mut out, per_block))
        .unwrap();
    let want: Vec<f64> = x
        .chunks(per_block)
        .flat_map(|c| c.iter().rev().map(|&v| v as f64))
        .collect();
    common::compare("reverse_through_shared", &out, &want, 0.0, 0.0).unwrap();
}

const TILE_BLOCK: usize = 128;

/// Windows and prefixes of a shared tile, and a local array split in two, all through
/// `sum`: shared and local arrays as sub-slices.
#[kernel]
fn shared_window_sums(x: &[f32], out: &mut [f32], w: usize) {
    let tile = shared_array::<[f32; TILE_BLOCK]>();
    let t = thread_idx().x as usize;
    let i = grid(1);
    tile[t] = if i < x.len() { x[i] } else { 0.0 };
    sync_threads();
    if i < out.len() {
        let end = (t + w).min(TILE_BLOCK);
        let mut acc = [0.0f32; 4];
        acc[0] = sum(&tile[t..end]);
        let (lo, hi) = acc.split_at_mut(2);
        lo[1] = sum(&tile[..=t]);
        hi[0] = lo[0] + lo[1];
        out[i] = sum(&acc[..3]);
    }
}

#[test]
fn shared_and_local_array_sub_slices() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("shared_window_sums");
    let n = 30_000 + rng.below(1000) as usize;
    let w = 1 + rng.below(40) as usize;
    let x = rng.vec_f32(n, -1.0, 1.0);
    let mut out = vec![f32::NAN; n];
    launch!(shared_window_sums[n.div_ceil(TILE_BLOCK), TILE_BLOCK](&x, &mut out, w)).unwrap();
    let mut want = Vec::with_capacity(n);
    for chunk in x.chunks(TILE_BLOCK) {
        let mut tile = [0.0f32; TILE_BLOCK];
        tile[..chunk.len()].copy_from_slice(chunk);
        for t in 0..chunk.len() {
            let window = sum_cpu(&tile[t..(t + w).min(TILE_BLOCK)]);
            let prefix = sum_cpu(&tile[..=t]);
            want.push(sum_cpu(&[window, prefix, window + prefix]) as f64);
        }
    }
    common::compare("shared_window_sums", &out, &want, 0.0, 0.0).unwrap();
}
