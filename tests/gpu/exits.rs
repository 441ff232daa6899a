//! Exited threads count as arrived at barriers (PTX `exit`, every GPU since Volta),
//! and each lane of a warp passes its own mask: written once, run on the GPU and on the
//! simulator, each against a CPU reference.

use super::common;
use cudajit::prelude::*;

/// One explicit step of the heat equation at `i` (zero outside the array).
#[device]
fn heat_step(b: &[f32], i: usize, k: f32) -> f32 {
    let left = if i > 0 { b[i - 1] } else { 0.0 };
    let right = if i + 1 < b.len() { b[i + 1] } else { 0.0 };
    b[i] + k * (left - 2.0 * b[i] + right)
}

/// Numba's 1-D heat equation (the cooperative groups example): threads past the end
/// of the array return, the others step with `grid_sync()`.
#[kernel]
fn solve_heat_equation(buf_0: &mut [f32], buf_1: &mut [f32], timesteps: u32, k: f32) {
    let i = grid(1);
    if i >= buf_0.len() {
        return;
    }
    for step in 0..timesteps {
        if step % 2 == 0 {
            buf_1[i] = heat_step(&buf_0[..], i, k);
        } else {
            buf_0[i] = heat_step(&buf_1[..], i, k);
        }
        grid_sync();
    }
}

#[test]
fn heat_equation_with_early_return_before_grid_sync() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("heat_equation");
    let n = 1000usize;
    let block = 128u32;
    let blocks = (n as u32).div_ceil(block);
    let init = rng.vec_f32(n, 0.0, 100.0);
    let (steps, k) = (6u32, 0.25f32);
    let mut want = (init.clone(), vec![0.0f32; n]);
    for step in 0..steps {
        let (from, to) = if step % 2 == 0 {
            (&want.0, &mut want.1)
        } else {
            (&want.1, &mut want.0)
        };
        let from = from.clone();
        for i in 0..n {
            let left = if i > 0 { from[i - 1] } else { 0.0 };
            let right = if i + 1 < n { from[i + 1] } else { 0.0 };
            to[i] = from[i] + k * (left - 2.0 * from[i] + right);
        }
    }
    let (mut b0, mut b1) = (init.clone(), vec![f32::NAN; n]);
    launch!(solve_heat_equation[blocks, block](&mut b0, &mut b1, steps, k)).unwrap();
    for i in 0..n {
        assert!(
            (b0[i] - want.0[i]).abs() <= 1e-3 * want.0[i].abs().max(1.0),
            "buf_0[{i}]"
        );
    }
}

/// Threads past the end return before `sync_threads()`; the others reverse a tile.
#[kernel]
fn reverse_valid_prefix(input: &[u32], out: &mut [u32], valid: u32) {
    let tile = shared_array::<[u32; 128]>();
    let t = thread_idx().x;
    if t >= valid {
        return;
    }
    tile[t as usize] = input[t as usize];
    sync_threads();
    out[t as usize] = tile[(valid - 1 - t) as usize];
}

#[test]
fn early_return_before_sync_threads() {
    let _gpu = require_gpu!();
    let input: Vec<u32> = (0..128).map(|i| i * 3 + 1).collect();
    for valid in [1u32, 31, 70, 127] {
        let mut out = vec![u32::MAX; 128];
        launch!(reverse_valid_prefix[1, 128](&input, &mut out, valid)).unwrap();
        for t in 0..128u32 {
            let want = if t < valid {
                input[(valid - 1 - t) as usize]
            } else {
                u32::MAX
            };
            assert_eq!(out[t as usize], want, "valid {valid}, thread {t}");
        }
    }
}

/// Cooperative-groups-style tiles: each half-warp shuffles and syncs with its own
/// 16-lane mask.
#[kernel]
fn half_warp_tile_sums(input: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let mask = if t % 32 < 16 {
        0x0000_ffffu32
    } else {
        0xffff_0000u32
    };
    let mut v = input[grid(1)];
    let mut d = 8;
    while d > 0 {
        v = v.wrapping_add(shfl_xor_sync(mask, v, d));
        d /= 2;
    }
    sync_warp(mask);
    out[grid(1)] = v;
}

#[test]
fn half_warp_tiles_pass_their_own_masks() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("half_warp_tiles");
    let n = 256usize;
    let input: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
    let mut out = vec![0u32; n];
    launch!(half_warp_tile_sums[2, 128](&input, &mut out)).unwrap();
    for i in 0..n {
        let tile = i / 16 * 16;
        let want: u32 = input[tile..tile + 16].iter().sum();
        assert_eq!(out[i], want, "element {i}");
    }
}
