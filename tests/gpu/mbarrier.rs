//! mbarriers, on both backends: a warp-specialised pipeline (warp 0 copies tiles with
//! `cp_async` into a three-stage ring and arrives on `full[s]`, warp 1 waits for the
//! stage's phase, computes, and releases it through `empty[s]`), and a phase completed
//! by transaction bytes. Random inputs, a CPU reference, poisoned outputs. mbarriers
//! need sm_90: on an older GPU the launch is an `Err` naming the feature.

use super::common;
use cudajit::prelude::*;

const STAGES: usize = 3;
const TILE: usize = 128;

#[kernel]
fn pipelined_scale(input: &[f32], out: &mut [f32], tiles_per_block: usize) {
    let full = shared_array::<[u64; 3]>();
    let empty = shared_array::<[u64; 3]>();
    let ring = shared_array::<[f32; 384]>();
    let t = thread_idx().x as usize;
    let lane = t % 32;
    if t == 0 {
        for s in 0..3 {
            mbarrier_init(full, s, 32);
            mbarrier_init(empty, s, 32);
        }
        fence_mbarrier_init();
    }
    sync_threads();
    let first = block_idx().x as usize * tiles_per_block;
    for it in 0..tiles_per_block {
        let s = it % 3;
        let at = (first + it) * 128;
        if t < 32 {
            if it >= 3 {
                // The consumer's (it / 3 - 1)-th release of this stage.
                while !mbarrier_try_wait_parity(empty, s, ((it / 3 - 1) % 2) as u32) {}
            }
            cp_async::<16>(ring, s * 128 + lane * 4, input, at + lane * 4);
            cp_async_wait_all();
            mbarrier_arrive(full, s);
        } else {
            while !mbarrier_try_wait_parity(full, s, ((it / 3) % 2) as u32) {}
            for j in 0..4 {
                let k = lane * 4 + j;
                out[at + k] = ring[s * 128 + k] * 2.0 + 1.0;
            }
            mbarrier_arrive(empty, s);
        }
    }
}

#[test]
fn a_warp_specialised_mbarrier_pipeline_matches_the_cpu() {
    let gpu = require_gpu!();
    if gpu.compute_capability() < (9, 0) {
        let mut out = vec![0.0f32; TILE];
        let err = launch!(pipelined_scale[1, 64](&vec![0.0f32; TILE], &mut out, 1)).unwrap_err();
        assert!(err.to_string().contains("compute capability 9.0"), "{err}");
        return;
    }
    let mut rng = common::Rng::fresh("mbarrier pipeline");
    for (blocks, tiles_per_block) in [(1usize, 7usize), (3, STAGES * 2 + 1)] {
        let n = blocks * tiles_per_block * TILE;
        let input: Vec<f32> = (0..n).map(|_| rng.f32_in(-100.0, 100.0)).collect();
        let mut out = vec![f32::NAN; n];
        launch!(pipelined_scale[blocks, 64](&input, &mut out, tiles_per_block)).expect("launch");
        for i in 0..n {
            assert_eq!(out[i], input[i] * 2.0 + 1.0, "element {i} of {n}");
        }
    }
}

#[kernel]
fn transaction_phase(input: &[u32], out: &mut [u32]) {
    let bar = shared_array::<[u64; 1]>();
    let data = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        mbarrier_init(bar, 0, 1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        mbarrier_arrive_expect_tx(bar, 0, 256);
    }
    data[t] = input[block_idx().x as usize * 64 + t] ^ 0x5A5A;
    mbarrier_complete_tx(bar, 0, 4);
    while !mbarrier_try_wait_parity(bar, 0, 0) {}
    out[block_idx().x as usize * 64 + t] = data[63 - t];
}

#[test]
fn transaction_bytes_complete_a_phase() {
    let gpu = require_gpu!();
    if gpu.compute_capability() < (9, 0) {
        return;
    }
    let mut rng = common::Rng::fresh("mbarrier transactions");
    let blocks = 5;
    let input: Vec<u32> = (0..blocks * 64).map(|_| rng.next_u64() as u32).collect();
    let mut out = vec![0xDEAD_BEEFu32; input.len()];
    launch!(transaction_phase[blocks, 64](&input, &mut out)).expect("launch");
    for b in 0..blocks {
        for t in 0..64 {
            assert_eq!(
                out[b * 64 + t],
                input[b * 64 + 63 - t] ^ 0x5A5A,
                "block {b} thread {t}"
            );
        }
    }
}
