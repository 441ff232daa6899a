//! Barriers, fences and atomics on the GPU against sequential CPU models: results that
//! do not depend on the order in which threads win (sums, min/max, bitwise, wrapping
//! inc/dec, CAS-loop counters), and the multiset of old values where each thread's
//! own result does (exchange, add of 1).

use super::common;
use cudajit::prelude::*;

#[kernel]
fn histogram(data: &[u8], bins: &mut [u32]) {
    let i = grid(1);
    if i < data.len() {
        atomic_add(bins, data[i] as usize, 1);
    }
}

#[test]
fn histogram_with_global_atomics_matches_cpu_counts() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("histogram");
    let n: usize = (1 << 20) + 77;
    // Skewed data: many threads hit the same few bins.
    let data: Vec<u8> = (0..n)
        .map(|_| (rng.below(256) * rng.below(256) / 255) as u8)
        .collect();
    // Bins start at random counts (an atomic adds to what is there).
    let start: Vec<u32> = (0..256).map(|_| rng.below(1 << 20) as u32).collect();
    let mut bins = start.clone();
    launch!(histogram[n.div_ceil(256), 256](&data, &mut bins)).unwrap();
    let mut want = start;
    for &d in &data {
        want[d as usize] += 1;
    }
    assert_eq!(bins, want);
}

/// Slots of `acc` in the u32 kernel.
const U32_OPS: usize = 11;

#[kernel]
fn atomics_u32(vals: &[u32], acc: &mut [u32], olds: &mut [u32]) {
    let i = grid(1);
    if i < vals.len() {
        let v = vals[i];
        atomic_add(acc, 0, v);
        atomic_sub(acc, 1, v);
        atomic_min(acc, 2, v);
        atomic_max(acc, 3, v);
        atomic_and(acc, 4, v | 0x8000_0001);
        atomic_or(acc, 5, v & 0x0f0f_0f0f);
        atomic_xor(acc, 6, v);
        atomic_inc(acc, 7, 999);
        atomic_dec(acc, 8, 999);
        olds[i] = atomic_exch(acc, 9, v);
        // A counter incremented by a compare-and-swap loop. The first guess is read
        // atomically: a plain read of a word other threads update atomically is a data
        // race (the simulator's detector reports it).
        let mut cur = atomic_add(acc, 10, 0);
        loop {
            let prev = atomic_cas(acc, 10, cur, cur + 1);
            if prev == cur {
                break;
            }
            cur = prev;
        }
    }
}

/// `atomic_inc` / `atomic_dec` on u64 (Numba has them; CUDA's are u32 only): limits
/// and values above `u32::MAX`, so a 32-bit operation would be caught.
#[kernel]
fn wrapping_u64(acc: &mut [u64], olds: &mut [u64], limit: u64) {
    let i = grid(1);
    if i < olds.len() / 2 {
        olds[2 * i] = atomic_inc(acc, 0, limit);
        olds[2 * i + 1] = atomic_dec(acc, 1, limit);
    }
}

#[test]
fn u64_atomic_inc_and_dec_wrap_as_numbas() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("wrapping_u64");
    let n: usize = 20_000;
    let limit: u64 = (1 << 40) + 1000 + rng.below(1000);
    // inc starts just below the limit (it soon wraps to 0); dec starts above it (CUDA's
    // rule then sets it to the limit).
    let start = [limit - rng.below(50), limit + 1 + rng.below(50)];
    let mut acc = start.to_vec();
    let mut olds = vec![u64::MAX; 2 * n];
    launch!(wrapping_u64[n.div_ceil(128), 128](&mut acc, &mut olds, limit)).unwrap();
    let (mut inc, mut dec) = (start[0], start[1]);
    let (mut inc_olds, mut dec_olds) = (Vec::new(), Vec::new());
    for _ in 0..n {
        inc_olds.push(inc);
        dec_olds.push(dec);
        inc = if inc >= limit { 0 } else { inc + 1 };
        dec = if dec == 0 || dec > limit {
            limit
        } else {
            dec - 1
        };
    }
    assert_eq!(acc, [inc, dec], "final values: inc, dec");
    // Each thread got one of the sequence's old values, each exactly once.
    let mut got_inc: Vec<u64> = olds.iter().step_by(2).copied().collect();
    let mut got_dec: Vec<u64> = olds.iter().skip(1).step_by(2).copied().collect();
    got_inc.sort_unstable();
    got_dec.sort_unstable();
    inc_olds.sort_unstable();
    dec_olds.sort_unstable();
    assert_eq!(got_inc, inc_olds, "the old values atomic_inc returned");
    assert_eq!(got_dec, dec_olds, "the old values atomic_dec returned");
}

#[test]
fn every_u32_atomic_matches_a_sequential_model() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("atomics_u32");
    // The simulator checks every atomic against the memory model: fewer values there.
    let n: usize = if gpu.is_simulator() { 20_000 } else { 100_000 };
    let vals: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let start: Vec<u32> = (0..U32_OPS)
        .map(|k| match k {
            7 | 8 => rng.below(1000) as u32,
            _ => rng.next_u64() as u32,
        })
        .collect();
    let mut acc = start.clone();
    let mut olds = vec![0xdead_beefu32; n];
    launch!(atomics_u32[n.div_ceil(128), 128](&vals, &mut acc, &mut olds)).unwrap();
    let mut want = start.clone();
    for &v in &vals {
        want[0] = want[0].wrapping_add(v);
        want[1] = want[1].wrapping_sub(v);
        want[2] = want[2].min(v);
        want[3] = want[3].max(v);
        want[4] &= v | 0x8000_0001;
        want[5] |= v & 0x0f0f_0f0f;
        want[6] ^= v;
        want[7] = if want[7] >= 999 { 0 } else { want[7] + 1 };
        want[8] = if want[8] == 0 || want[8] > 999 {
            999
        } else {
            want[8] - 1
        };
        want[10] = want[10].wrapping_add(1);
    }
    want[9] = acc[9];
    assert_eq!(
        acc, want,
        "slots: add sub min max and or xor inc dec exch cas"
    );
    // Exchange: the old values and the final value are the start and the values,
    // in some order.
    let mut seen = olds.clone();
    seen.push(acc[9]);
    let mut all = vals.clone();
    all.push(start[9]);
    seen.sort_unstable();
    all.sort_unstable();
    assert_eq!(seen, all, "exchange loses or duplicates a value");
}

#[kernel]
fn atomics_signed(a: &[i32], b: &[i64], acc32: &mut [i32], acc64: &mut [i64], c: &mut [u64]) {
    let i = grid(1);
    if i < a.len() {
        atomic_add(acc32, 0, a[i]);
        atomic_min(acc32, 1, a[i]);
        atomic_max(acc32, 2, a[i]);
        atomic_sub(acc64, 0, b[i]);
        atomic_min(acc64, 1, b[i]);
        atomic_max(acc64, 2, b[i]);
        atomic_xor(acc64, 3, b[i]);
        let u = b[i] as u64;
        atomic_min(c, 0, u);
        atomic_max(c, 1, u);
        atomic_or(c, 2, u & 0x0101_0101_0101_0101);
        atomic_add_system(c, 3, u);
    }
}

#[test]
fn signed_and_64_bit_atomics_match_a_sequential_model() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("atomics_signed");
    let n: usize = 65_536;
    let a: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let b: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
    let s32: Vec<i32> = (0..3).map(|_| rng.next_u64() as i32).collect();
    let s64: Vec<i64> = (0..4).map(|_| rng.next_u64() as i64).collect();
    let su: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
    let (mut acc32, mut acc64, mut c) = (s32.clone(), s64.clone(), su.clone());
    launch!(atomics_signed[n / 256, 256](&a, &b, &mut acc32, &mut acc64, &mut c)).unwrap();
    let (mut w32, mut w64, mut wu) = (s32, s64, su);
    for (&x, &y) in a.iter().zip(&b) {
        w32[0] = w32[0].wrapping_add(x);
        w32[1] = w32[1].min(x);
        w32[2] = w32[2].max(x);
        w64[0] = w64[0].wrapping_sub(y);
        w64[1] = w64[1].min(y);
        w64[2] = w64[2].max(y);
        w64[3] ^= y;
        let u = y as u64;
        wu[0] = wu[0].min(u);
        wu[1] = wu[1].max(u);
        wu[2] |= u & 0x0101_0101_0101_0101;
        wu[3] = wu[3].wrapping_add(u);
    }
    assert_eq!(acc32, w32, "i32 add min max");
    assert_eq!(acc64, w64, "i64 sub min max xor");
    assert_eq!(c, wu, "u64 min max or add_system");
}

#[kernel]
fn atomics_float(x: &[f32], y: &[f64], acc32: &mut [f32], acc64: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        if x[i] == x[i] {
            atomic_add(acc32, 0, x[i].floor());
        }
        atomic_max(acc32, 1, x[i]);
        atomic_min(acc32, 2, x[i]);
        atomic_sub(acc64, 0, y[i].floor());
        atomic_max(acc64, 1, y[i]);
        atomic_min(acc64, 2, y[i]);
    }
}

#[test]
fn float_atomics_and_cas_loop_min_max_match_cpu() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("atomics_float");
    let n: usize = 50_000;
    // Whole numbers make the sums exact whatever the order.
    let mut x: Vec<f32> = rng.vec_f32(n, -1000.0, 1000.0);
    let y: Vec<f64> = (0..n).map(|_| rng.f64_in(-1e6, 1e6)).collect();
    // std's max/min ignore NaN: a NaN operand never wins.
    x[n / 3] = f32::NAN;
    let start32 = [rng.f32_in(-10.0, 10.0).floor(), 0.0, 0.0];
    let start64 = [rng.f64_in(-10.0, 10.0).floor(), 0.0, 0.0];
    let (mut acc32, mut acc64) = (start32.to_vec(), start64.to_vec());
    launch!(atomics_float[n.div_ceil(256), 256](&x, &y, &mut acc32, &mut acc64)).unwrap();
    let mut w32 = start32;
    let mut w64 = start64;
    for (&a, &b) in x.iter().zip(&y) {
        if !a.is_nan() {
            w32[0] += a.floor();
        }
        w32[1] = w32[1].max(a);
        w32[2] = w32[2].min(a);
        w64[0] -= b.floor();
        w64[1] = w64[1].max(b);
        w64[2] = w64[2].min(b);
    }
    // Partial sums of whole numbers stay below 2^24: exact in any order.
    assert_eq!(acc32, w32, "f32 add max min");
    assert_eq!(acc64, w64, "f64 sub max min");
}

#[kernel]
fn block_scoped(vals: &[u32], acc: &mut [u32]) {
    let i = grid(1);
    let b = block_idx().x as usize;
    if i < vals.len() {
        // Block scope is enough: only this block's threads touch these slots.
        atomic_add_block(acc, 4 * b, vals[i]);
        atomic_max_block(acc, 4 * b + 1, vals[i]);
        atomic_min_block(acc, 4 * b + 2, vals[i]);
        atomic_inc_block(acc, 4 * b + 3, u32::MAX);
    }
}

#[test]
fn block_scoped_atomics_per_block_match_cpu() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("block_scoped");
    let (blocks, threads): (usize, usize) = (64, 256);
    let vals: Vec<u32> = (0..blocks * threads)
        .map(|_| rng.next_u64() as u32)
        .collect();
    let mut acc = vec![0u32; 4 * blocks];
    for b in 0..blocks {
        acc[4 * b + 2] = u32::MAX;
    }
    launch!(block_scoped[blocks, threads](&vals, &mut acc)).unwrap();
    for b in 0..blocks {
        let v = &vals[b * threads..(b + 1) * threads];
        let sum = v.iter().fold(0u32, |s, &x| s.wrapping_add(x));
        let want = [
            sum,
            *v.iter().max().unwrap(),
            *v.iter().min().unwrap(),
            threads as u32,
        ];
        assert_eq!(&acc[4 * b..4 * b + 4], &want, "block {b}");
    }
}

#[kernel]
fn block_votes(flags: &[bool], out: &mut [u32]) {
    let i = grid(1);
    let p = flags[i];
    let count = sync_threads_count(p);
    let all = sync_threads_and(p);
    let any = sync_threads_or(p);
    sync_warp(0xffff_ffff);
    threadfence();
    out[i] = count + 1000 * all as u32 + 10_000 * any as u32;
}

#[test]
fn sync_threads_count_and_or_match_cpu() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("block_votes");
    let (blocks, threads): (usize, usize) = (48, 128);
    // Block 0: all true; block 1: all false; others: random with varying density.
    let flags: Vec<bool> = (0..blocks * threads)
        .map(|i| match i / threads {
            0 => true,
            1 => false,
            b => rng.below(blocks as u64) < b as u64,
        })
        .collect();
    let mut out = vec![u32::MAX; blocks * threads];
    launch!(block_votes[blocks, threads](&flags, &mut out)).unwrap();
    for b in 0..blocks {
        let f = &flags[b * threads..(b + 1) * threads];
        let count = f.iter().filter(|&&x| x).count() as u32;
        let want =
            count + 1000 * f.iter().all(|&x| x) as u32 + 10_000 * f.iter().any(|&x| x) as u32;
        for t in 0..threads {
            assert_eq!(out[b * threads + t], want, "block {b} thread {t}");
        }
    }
}

#[kernel]
fn shared_histogram(data: &[u8], bins: &mut [u32]) {
    // Per block: counts in shared memory (block-scoped atomics), then one global
    // atomic per bin. Launched with 256 threads per block.
    let local = shared_array::<[u32; 256]>();
    let t = thread_idx().x as usize;
    local[t] = 0;
    sync_threads();
    let mut i = grid(1);
    while i < data.len() {
        atomic_add_block(local, data[i] as usize, 1);
        i += grid_size(1);
    }
    sync_threads();
    atomic_add(bins, t, local[t]);
}

#[test]
fn shared_then_global_histogram_matches_cpu_counts() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("shared_histogram");
    let n: usize = (1 << 22) + 1234;
    let data: Vec<u8> = (0..n)
        .map(|_| (rng.below(256) * rng.below(256) / 255) as u8)
        .collect();
    let mut bins: Vec<u32> = (0..256).map(|_| rng.below(1000) as u32).collect();
    let mut want = bins.clone();
    for &d in &data {
        want[d as usize] += 1;
    }
    launch!(shared_histogram[120, 256](&data, &mut bins)).unwrap();
    assert_eq!(bins, want);
}

/// Runs without a GPU: every kernel of this file lowers to NVVM IR as its first launch
/// will (the snapshot tests put the same constructs through libnvvm and ptxas).
#[test]
fn the_kernels_lower_to_nvvm_ir() {
    for source in [
        histogram::source(),
        atomics_u32::source(),
        atomics_signed::source(),
        atomics_float::source(),
        block_scoped::source(),
        block_votes::source(),
        shared_histogram::source(),
    ] {
        kernel_device::nvvm_ir_for_kernel(source, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", source.name));
    }
}
