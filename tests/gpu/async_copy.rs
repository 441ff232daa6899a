//! Asynchronous copies and vector accesses, on both backends: the three-stage
//! pipelined GEMM tile loop of `docs/async_copies.md` against an f64 CPU reference on
//! sizes that are not multiples of the tile (the edges zero-filled), with poisoned
//! outputs; vector loads and stores of several widths and types; and the one check of a
//! copy or a vector access panicking with its indices instead of faulting.

use super::common;
use cudajit::prelude::*;

#[kernel]
fn gemm_cp_async(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    // Three stages of a 32 x 32 tile each: stage s is [s * 1024, s * 1024 + 1024).
    let a_tiles = shared_array::<[f32; 3072]>();
    let b_tiles = shared_array::<[f32; 3072]>();
    let t = thread_idx().x as usize;
    let row0 = block_idx().y as usize * 32;
    let col0 = block_idx().x as usize * 32;
    let r = t / 8;
    let c4 = (t % 8) * 4;
    let k_tiles = (k + 31) / 32;
    for tile in 0..2 {
        if tile < k_tiles {
            let stage = tile * 1024 + r * 32 + c4;
            let (a_row, a_col) = (row0 + r, tile * 32 + c4);
            let a_valid = if a_row < m {
                k.saturating_sub(a_col)
            } else {
                0
            };
            cp_async_zfill::<16>(a_tiles, stage, a, a_row * k + a_col, a_valid);
            let (b_row, b_col) = (tile * 32 + r, col0 + c4);
            let b_valid = if b_row < k {
                n.saturating_sub(b_col)
            } else {
                0
            };
            cp_async_zfill::<16>(b_tiles, stage, b, b_row * n + b_col, b_valid);
        }
        cp_async_commit();
    }
    let mut acc = [0.0f32; 4];
    for kt in 0..k_tiles {
        let next = kt + 2;
        if next < k_tiles {
            let stage = (next % 3) * 1024 + r * 32 + c4;
            let (a_row, a_col) = (row0 + r, next * 32 + c4);
            let a_valid = if a_row < m {
                k.saturating_sub(a_col)
            } else {
                0
            };
            cp_async_zfill::<16>(a_tiles, stage, a, a_row * k + a_col, a_valid);
            let (b_row, b_col) = (next * 32 + r, col0 + c4);
            let b_valid = if b_row < k {
                n.saturating_sub(b_col)
            } else {
                0
            };
            cp_async_zfill::<16>(b_tiles, stage, b, b_row * n + b_col, b_valid);
        }
        cp_async_commit();
        cp_async_wait::<2>();
        sync_threads();
        let base = (kt % 3) * 1024;
        for kk in 0..32 {
            let a_value = a_tiles[base + r * 32 + kk];
            let b_values = b_tiles.load_vec::<4>(base + kk * 32 + c4);
            for j in 0..4 {
                acc[j] += a_value * b_values[j];
            }
        }
        sync_threads();
    }
    let (row, col) = (row0 + r, col0 + c4);
    if row < m {
        if col + 4 <= n {
            c.store_vec::<4>(row * n + col, acc);
        } else {
            for j in 0..4 {
                if col + j < n {
                    c[row * n + col + j] = acc[j];
                }
            }
        }
    }
}

#[test]
fn the_pipelined_gemm_matches_an_f64_reference_at_ragged_sizes() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("cp_async gemm");
    // Simulated: small; on a GPU also a size with many k tiles in flight.
    let mut sizes = vec![(100usize, 68usize, 52usize), (32, 32, 32), (7, 4, 4)];
    if !gpu.is_simulator() {
        sizes.push((1000, 1004, 1500));
    }
    for (m, n, k) in sizes {
        let a: Vec<f32> = (0..m * k).map(|_| rng.f32_in(-1.0, 1.0)).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.f32_in(-1.0, 1.0)).collect();
        let mut c = vec![f32::NAN; m * n];
        let grid = (n.div_ceil(32) as u32, m.div_ceil(32) as u32);
        launch!(gemm_cp_async[grid, 256](&a, &b, &mut c, m, n, k)).expect("launch");
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k)
                    .map(|p| f64::from(a[i * k + p]) * f64::from(b[p * n + j]))
                    .sum();
                let bound = 1e-5 * k as f64 + 1e-6;
                let got = f64::from(c[i * n + j]);
                assert!(
                    (got - want).abs() <= bound,
                    "c[{i}][{j}] = {got}, want {want} ({m} x {n} x {k})"
                );
            }
        }
    }
}

#[kernel]
fn vector_round_trip(
    f: &[f32],
    d: &[f64],
    h: &[u16],
    f_out: &mut [f32],
    d_out: &mut [f64],
    h_out: &mut [u16],
) {
    let t = grid(1);
    let quad = f.load_vec::<4>(4 * t);
    f_out.store_vec::<4>(4 * t, [quad[3], quad[2], quad[1], quad[0]]);
    let pair = d.load_vec::<2>(2 * t);
    d_out.store_vec::<2>(2 * t, [pair[0] * 2.0, pair[1] + 1.0]);
    let eight = h.load_vec::<8>(8 * t);
    let mut shifted = [0u16; 8];
    for j in 0..8 {
        shifted[j] = eight[(j + 1) % 8];
    }
    h_out.store_vec::<8>(8 * t, shifted);
}

#[test]
fn vector_loads_and_stores_move_whole_chunks() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("vector accesses");
    let threads = 96;
    let f: Vec<f32> = (0..4 * threads).map(|_| rng.f32_in(-5.0, 5.0)).collect();
    let d: Vec<f64> = (0..2 * threads)
        .map(|_| f64::from(rng.f32_in(-5.0, 5.0)))
        .collect();
    let h: Vec<u16> = (0..8 * threads).map(|_| rng.next_u64() as u16).collect();
    let mut f_out = vec![f32::NAN; f.len()];
    let mut d_out = vec![f64::NAN; d.len()];
    let mut h_out = vec![0xdeadu16; h.len()];
    launch!(vector_round_trip[3, 32](&f, &d, &h, &mut f_out, &mut d_out, &mut h_out))
        .expect("launch");
    for t in 0..threads {
        for j in 0..4 {
            assert_eq!(f_out[4 * t + j], f[4 * t + 3 - j]);
        }
        assert_eq!(d_out[2 * t], d[2 * t] * 2.0);
        assert_eq!(d_out[2 * t + 1], d[2 * t + 1] + 1.0);
        for j in 0..8 {
            assert_eq!(h_out[8 * t + j], h[8 * t + (j + 1) % 8]);
        }
    }
}

/// 4-byte vectors: bf16 pairs (a GEMM epilogue's store) and byte quads.
#[kernel]
fn pair_round_trip(h: &[bf16], q: &[u8], h_out: &mut [bf16], q_out: &mut [u8], shift: usize) {
    let t = grid(1);
    let pair = h.load_vec::<2>(2 * t + shift);
    h_out.store_vec::<2>(
        2 * t,
        [
            bf16::from_f32(pair[1].to_f32() * 2.0),
            bf16::from_f32(pair[0].to_f32()),
        ],
    );
    let quad = q.load_vec::<4>(4 * t);
    q_out.store_vec::<4>(4 * t, [quad[3], quad[2], quad[1], quad[0] ^ 0x5a]);
}

#[test]
fn four_byte_vectors_move_bf16_pairs_and_byte_quads() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("4-byte vectors");
    let threads = 96;
    let h: Vec<bf16> = (0..2 * threads)
        .map(|_| bf16::from_f32(rng.f32_in(-5.0, 5.0)))
        .collect();
    let q: Vec<u8> = (0..4 * threads).map(|_| rng.next_u64() as u8).collect();
    let mut h_out = vec![bf16::from_f32(f32::NAN); h.len()];
    let mut q_out = vec![0u8; q.len()];
    launch!(pair_round_trip[3, 32](&h, &q, &mut h_out, &mut q_out, 0)).expect("launch");
    for t in 0..threads {
        // Doubling a bf16 is exact (below the largest finite value).
        assert_eq!(h_out[2 * t].to_f32(), h[2 * t + 1].to_f32() * 2.0);
        assert_eq!(h_out[2 * t + 1].to_f32(), h[2 * t].to_f32());
        for j in 0..3 {
            assert_eq!(q_out[4 * t + j], q[4 * t + 3 - j]);
        }
        assert_eq!(q_out[4 * t + 3], q[4 * t] ^ 0x5a);
    }
    // A pair at an odd index is misaligned: a panic naming the index, not a fault.
    let err = launch!(pair_round_trip[1, 1](&h, &q, &mut h_out, &mut q_out, 1)).unwrap_err();
    assert!(
        err.to_string()
            .contains("vector access out of bounds or misaligned"),
        "{err}"
    );
}

#[kernel]
fn misaligned_vector(a: &[f32], out: &mut [f32], shift: usize) {
    let t = grid(1);
    let v = a.load_vec::<4>(4 * t + shift);
    out[t] = v[0];
}

#[kernel]
fn copy_past_the_tile(a: &[f32], out: &mut [f32], at: usize) {
    let tile = shared_array::<[f32; 64]>();
    let t = thread_idx().x as usize;
    cp_async::<16>(tile, at + 4 * t, a, 4 * t);
    cp_async_wait_all();
    sync_threads();
    out[t] = tile[4 * t];
}

#[test]
fn misaligned_or_out_of_bounds_accesses_panic_with_their_indices() {
    let _gpu = require_gpu!();
    let a: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let mut out = vec![f32::NAN; 16];
    launch!(misaligned_vector[1, 16](&a, &mut out, 4)).expect("aligned");
    assert_eq!(out, (0..16).map(|t| (4 * t + 4) as f32).collect::<Vec<_>>());
    let err = launch!(misaligned_vector[1, 16](&a, &mut out, 2)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("vector access out of bounds or misaligned"),
        "{text}"
    );
    launch!(copy_past_the_tile[1, 16](&a, &mut out, 0)).expect("in bounds");
    assert_eq!(out, (0..16).map(|t| (4 * t) as f32).collect::<Vec<_>>());
    let err = launch!(copy_past_the_tile[1, 16](&a, &mut out, 4)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(
            "cp_async out of bounds or misaligned: destination index 64, source index 60"
        ),
        "{text}"
    );
}
