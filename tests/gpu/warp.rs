//! Warp operations on the GPU against a CPU model of each warp: lane registers,
//! shuffles of 32- and 64-bit integers and floats in every mode, votes, matches and
//! the warp reductions. Every launch uses whole warps (all 32 lanes active).

use super::common;
use cudajit::prelude::*;

const FULL: u32 = 0xffff_ffff;

/// Lane `lane`'s source for each shuffle mode, as PTX defines it for a full warp:
/// (idx from `(lane * 7 + 3) % 32`, up by 3, down by 5, xor 13).
fn sources(lane: usize) -> [usize; 4] {
    [
        (lane * 7 + 3) % 32,
        if lane >= 3 { lane - 3 } else { lane },
        if lane + 5 <= 31 { lane + 5 } else { lane },
        lane ^ 13,
    ]
}

#[kernel]
fn lane_registers(out: &mut [u32]) {
    let i = grid(1);
    let n = out.len() / 4;
    if i < n {
        out[i] = lane_id();
        out[n + i] = warp_size();
        out[2 * n + i] = lanemask_lt();
        out[3 * n + i] = active_mask();
    }
}

#[test]
fn lane_registers_match_the_thread_index() {
    let _gpu = require_gpu!();
    let n: usize = 1024;
    let mut out = vec![0xdead_beefu32; 4 * n];
    launch!(lane_registers[n / 128, 128](&mut out)).unwrap();
    for i in 0..n {
        let lane = (i % 32) as u32;
        assert_eq!(out[i], lane, "lane_id of {i}");
        assert_eq!(out[n + i], 32, "warp_size");
        assert_eq!(out[2 * n + i], (1u32 << lane) - 1, "lanemask_lt of {i}");
        assert_eq!(out[3 * n + i], FULL, "active_mask of {i}");
    }
}

#[kernel]
fn shuffles(
    a: &[i32],
    b: &[u64],
    c: &[f32],
    d: &[f64],
    oa: &mut [i32],
    ob: &mut [u64],
    oc: &mut [f32],
    od: &mut [f64],
) {
    let i = grid(1);
    // Every lane of the warp (module consts reach kernels with issue 6's arrays).
    let full = 0xffff_ffffu32;
    let n = a.len();
    let lane = lane_id();
    let src = (lane * 7 + 3) % 32;
    oa[i] = shfl_sync(full, a[i], src);
    oa[n + i] = shfl_up_sync(full, a[i], 3);
    oa[2 * n + i] = shfl_down_sync(full, a[i], 5);
    oa[3 * n + i] = shfl_xor_sync(full, a[i], 13);
    ob[i] = shfl_sync(full, b[i], src);
    ob[n + i] = shfl_up_sync(full, b[i], 3);
    ob[2 * n + i] = shfl_down_sync(full, b[i], 5);
    ob[3 * n + i] = shfl_xor_sync(full, b[i], 13);
    oc[i] = shfl_sync(full, c[i], src);
    oc[n + i] = shfl_up_sync(full, c[i], 3);
    oc[2 * n + i] = shfl_down_sync(full, c[i], 5);
    oc[3 * n + i] = shfl_xor_sync(full, c[i], 13);
    od[i] = shfl_sync(full, d[i], src);
    od[n + i] = shfl_up_sync(full, d[i], 3);
    od[2 * n + i] = shfl_down_sync(full, d[i], 5);
    od[3 * n + i] = shfl_xor_sync(full, d[i], 13);
}

#[test]
fn every_shuffle_mode_moves_every_word_type() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("shuffles");
    let n: usize = 2048;
    let a: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let b: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let c: Vec<f32> = rng.vec_f32(n, -1e3, 1e3);
    let d: Vec<f64> = (0..n)
        .map(|_| f64::from_bits(rng.next_u64() >> 2))
        .collect();
    let mut oa = vec![i32::MIN; 4 * n];
    let mut ob = vec![u64::MAX; 4 * n];
    let mut oc = vec![f32::NAN; 4 * n];
    let mut od = vec![f64::NAN; 4 * n];
    launch!(shuffles[n / 256, 256](&a, &b, &c, &d, &mut oa, &mut ob, &mut oc, &mut od)).unwrap();
    for i in 0..n {
        let warp = i - i % 32;
        for (k, src) in sources(i % 32).into_iter().enumerate() {
            let j = warp + src;
            assert_eq!(oa[k * n + i], a[j], "i32 mode {k} lane {i}");
            assert_eq!(ob[k * n + i], b[j], "u64 mode {k} lane {i}");
            assert_eq!(
                oc[k * n + i].to_bits(),
                c[j].to_bits(),
                "f32 mode {k} lane {i}"
            );
            assert_eq!(
                od[k * n + i].to_bits(),
                d[j].to_bits(),
                "f64 mode {k} lane {i}"
            );
        }
    }
}

#[kernel]
fn votes(flags: &[bool], keys: &[u64], out: &mut [u32]) {
    let i = grid(1);
    // Every lane of the warp (module consts reach kernels with issue 6's arrays).
    let full = 0xffff_ffffu32;
    let n = flags.len();
    let p = flags[i];
    out[i] = ballot_sync(full, p);
    out[n + i] = all_sync(full, p) as u32;
    out[2 * n + i] = any_sync(full, p) as u32;
    out[3 * n + i] = eq_sync(full, p) as u32;
    out[4 * n + i] = match_any_sync(full, keys[i]);
    let (mask, same) = match_all_sync(full, keys[i]);
    out[5 * n + i] = mask;
    out[6 * n + i] = same as u32;
}

#[test]
fn votes_and_matches_match_a_warp_model() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("votes");
    let warps = 64;
    let n: usize = 32 * warps;
    // Warp w: predicate density w/63 (warp 0 all false, warp 63 all true); keys from
    // 1 << (w % 4) distinct values (one value in every fourth warp).
    let flags: Vec<bool> = (0..n).map(|i| rng.below(63) < (i / 32) as u64).collect();
    let keys: Vec<u64> = (0..n)
        .map(|i| rng.below(1 << ((i / 32) % 4)) * 0x1_0000_0001)
        .collect();
    let mut out = vec![0xdead_beefu32; 7 * n];
    launch!(votes[warps, 32](&flags, &keys, &mut out)).unwrap();
    for w in 0..warps {
        let f = &flags[32 * w..32 * w + 32];
        let k = &keys[32 * w..32 * w + 32];
        let ballot = (0..32).filter(|&l| f[l]).fold(0u32, |m, l| m | 1 << l);
        let all_same = k.iter().all(|&x| x == k[0]);
        for l in 0..32 {
            let i = 32 * w + l;
            let matching = (0..32)
                .filter(|&m| k[m] == k[l])
                .fold(0u32, |m, j| m | 1 << j);
            let want = [
                ballot,
                (ballot == FULL) as u32,
                (ballot != 0) as u32,
                (ballot == FULL || ballot == 0) as u32,
                matching,
                if all_same { FULL } else { 0 },
                all_same as u32,
            ];
            for (q, want) in want.into_iter().enumerate() {
                assert_eq!(out[q * n + i], want, "warp {w} lane {l} result {q}");
            }
        }
    }
}

#[kernel]
fn reductions(
    a: &[i32],
    b: &[u64],
    c: &[f32],
    d: &[f64],
    oa: &mut [i32],
    ob: &mut [u64],
    oc: &mut [f32],
    od: &mut [f64],
) {
    let i = grid(1);
    // Every lane of the warp (module consts reach kernels with issue 6's arrays).
    let full = 0xffff_ffffu32;
    let n = a.len();
    oa[i] = warp_reduce_sum(a[i]);
    oa[n + i] = warp_reduce_min(a[i]);
    oa[2 * n + i] = warp_reduce_max(a[i]);
    ob[i] = warp_reduce_sum(b[i]);
    ob[n + i] = warp_reduce_min(b[i]);
    ob[2 * n + i] = warp_reduce_max(b[i]);
    oc[i] = warp_reduce_sum(c[i]);
    oc[n + i] = warp_reduce_min(c[i]);
    oc[2 * n + i] = warp_reduce_max(c[i]);
    od[i] = warp_reduce_sum(d[i]);
    od[n + i] = warp_reduce_min(d[i]);
    od[2 * n + i] = warp_reduce_max(d[i]);
}

#[test]
fn warp_reductions_give_every_lane_the_warp_result() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("warp_reduce");
    let n: usize = 4096;
    let a: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    let b: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    // Whole numbers: float sums are exact in any order.
    let mut c: Vec<f32> = (0..n).map(|_| rng.f32_in(-1e4, 1e4).floor()).collect();
    let d: Vec<f64> = (0..n).map(|_| rng.f64_in(-1e9, 1e9).floor()).collect();
    // A NaN never wins std's min/max (it does poison the sum).
    c[100] = f32::NAN;
    let mut oa = vec![0i32; 3 * n];
    let mut ob = vec![0u64; 3 * n];
    let mut oc = vec![0f32; 3 * n];
    let mut od = vec![0f64; 3 * n];
    launch!(reductions[n / 128, 128](&a, &b, &c, &d, &mut oa, &mut ob, &mut oc, &mut od)).unwrap();
    for w in 0..n / 32 {
        let r = 32 * w..32 * w + 32;
        let wa = [
            a[r.clone()].iter().fold(0i32, |s, &x| s.wrapping_add(x)),
            *a[r.clone()].iter().min().unwrap(),
            *a[r.clone()].iter().max().unwrap(),
        ];
        let wb = [
            b[r.clone()].iter().fold(0u64, |s, &x| s.wrapping_add(x)),
            *b[r.clone()].iter().min().unwrap(),
            *b[r.clone()].iter().max().unwrap(),
        ];
        let wc = [
            c[r.clone()].iter().sum::<f32>(),
            c[r.clone()].iter().fold(f32::INFINITY, |m, &x| m.min(x)),
            c[r.clone()]
                .iter()
                .fold(f32::NEG_INFINITY, |m, &x| m.max(x)),
        ];
        let wd = [
            d[r.clone()].iter().sum::<f64>(),
            d[r.clone()].iter().fold(f64::INFINITY, |m, &x| m.min(x)),
            d[r.clone()]
                .iter()
                .fold(f64::NEG_INFINITY, |m, &x| m.max(x)),
        ];
        for i in r {
            for k in 0..3 {
                assert_eq!(oa[k * n + i], wa[k], "i32 op {k} lane {i}");
                assert_eq!(ob[k * n + i], wb[k], "u64 op {k} lane {i}");
                assert_eq!(od[k * n + i], wd[k], "f64 op {k} lane {i}");
                let (got, want) = (oc[k * n + i], wc[k]);
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "f32 op {k} lane {i}: {got} vs {want}"
                );
            }
        }
    }
}

/// Runs without a GPU: every kernel of this file lowers to NVVM IR as its first launch
/// will (the snapshot tests put the same constructs through libnvvm and ptxas).
#[test]
fn the_kernels_lower_to_nvvm_ir() {
    for source in [
        lane_registers::source(),
        shuffles::source(),
        votes::source(),
        reductions::source(),
    ] {
        kernel_device::nvvm_ir_for_kernel(source, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", source.name));
    }
}
