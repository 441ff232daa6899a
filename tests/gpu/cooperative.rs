//! Grid-wide synchronisation: kernels that call `grid_sync()` (directly or through a
//! device function) are launched cooperatively by `launch!` itself; every round of a
//! multi-round kernel must see the values other blocks wrote in that same round, also
//! when the kernel runs back to back; a grid that cannot be co-resident is an `Err`,
//! and so is a panic that keeps a block from the barrier (never a hang).

use super::common;
use cudajit::prelude::*;

/// Each round: every thread publishes a value, the grid waits, every thread reads the
/// value of the thread one block size further on (in another block, which wrote it in
/// this round), the grid waits again before the next round overwrites it.
#[kernel]
fn exchange_rounds(values: &mut [i64], seen: &mut [i64], rounds: u32, salt: i64) {
    let (width, height) = grid_size(2);
    let n = width * height;
    let (x, y) = grid(2);
    let g = y * width + x;
    let block = (block_dim().x * block_dim().y) as usize;
    for r in 0..rounds {
        values[g] = salt + g as i64 * 1000 + r as i64;
        grid_sync();
        seen[r as usize * n + g] = values[(g + block) % n];
        grid_sync();
    }
}

#[device]
fn publish(partials: &mut [i64], at: usize, value: i64) {
    partials[at] = value;
    grid_sync();
}

/// Two-phase sum: every thread adds a strided share of `x` into its partial, the grid
/// waits (inside a device function), then thread 0 adds the partials.
#[kernel]
fn two_phase_sum(x: &[i64], partials: &mut [i64], total: &mut [i64]) {
    let g = grid(1);
    let mut sum = 0i64;
    for i in (g..x.len()).step_by(grid_size(1)) {
        sum += x[i];
    }
    publish(partials, g, sum);
    if g == 0 {
        let mut all = 0i64;
        for p in 0..partials.len() {
            all += partials[p];
        }
        total[0] = all;
    }
}

#[test]
fn every_round_sees_this_rounds_values_back_to_back() {
    let gpu = require_gpu!();
    let block = (32u32, 4u32);
    let mut max = exchange_rounds::max_cooperative_grid_blocks(block).unwrap();
    assert!(max >= 1, "no co-resident block at all");
    // The simulator runs blocks one after another between grid barriers, so a grid of
    // sm_90's size only costs CI time there (over a minute) without more interleavings.
    if gpu.is_simulator() {
        max = max.min(16);
    }
    // The whole co-resident grid (the hardest case for the barrier), as a 2-D grid.
    let (gx, gy) = if max >= 2 { (max / 2, 2) } else { (1, 1) };
    let threads = (gx * gy * block.0 * block.1) as usize;
    let rounds = 5u32;
    let mut values = DeviceArray::<i64>::zeros(threads).unwrap();
    let mut rng = common::Rng::fresh("exchange_rounds");
    for launch in 0..4 {
        let salt = rng.below(1 << 40) as i64;
        let mut seen = cudajit::to_device(&vec![i64::MIN; threads * rounds as usize]).unwrap();
        launch!(exchange_rounds[(gx, gy), block](&mut values, &mut seen, rounds, salt)).unwrap();
        let seen = seen.to_host().unwrap();
        let per_block = (block.0 * block.1) as usize;
        for r in 0..rounds as usize {
            for g in 0..threads {
                let other = (g + per_block) % threads;
                let want = salt + other as i64 * 1000 + r as i64;
                assert_eq!(
                    seen[r * threads + g],
                    want,
                    "launch {launch}, round {r}, thread {g} read a stale value of thread {other}"
                );
            }
        }
    }
}

#[test]
fn two_phase_sum_through_a_device_function() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("two_phase_sum");
    let n = 1_000_000 + rng.below(1000) as usize;
    let x: Vec<i64> = (0..n)
        .map(|_| rng.below(1 << 20) as i64 - (1 << 19))
        .collect();
    let want: i64 = x.iter().sum();
    let block = 256u32;
    let blocks = gpu
        .multiprocessor_count()
        .min(two_phase_sum::max_cooperative_grid_blocks(block).unwrap());
    let mut partials = vec![i64::MIN; (blocks * block) as usize];
    for _ in 0..3 {
        let mut total = [i64::MIN];
        launch!(two_phase_sum[blocks, block](&x, &mut partials, &mut total)).unwrap();
        assert_eq!(total[0], want);
    }
}

#[test]
fn a_grid_too_large_to_be_co_resident_is_an_err() {
    let _gpu = require_gpu!();
    let block = 256u32;
    let max = two_phase_sum::max_cooperative_grid_blocks(block).unwrap();
    let x = vec![1i64; 1024];
    let blocks = max + 1;
    let mut partials = vec![0i64; (blocks * block) as usize];
    let mut total = [0i64];
    let err = launch!(two_phase_sum[blocks, block](&x, &mut partials, &mut total))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cuOccupancyMaxActiveBlocksPerMultiprocessor"),
        "{err}"
    );
    assert!(err.contains(&format!("grid of {blocks} blocks")), "{err}");
    assert!(err.contains(&format!("at most {max} blocks")), "{err}");
    // Nothing was launched, and a fitting grid still runs.
    launch!(two_phase_sum[max, block](&x, &mut partials, &mut total)).unwrap();
    assert_eq!(total[0], 1024);
}

#[test]
fn max_cooperative_grid_blocks_follows_block_size_and_shared_memory() {
    let gpu = require_gpu!();
    let sms = gpu.multiprocessor_count();
    let small = two_phase_sum::max_cooperative_grid_blocks(64u32).unwrap();
    let large = two_phase_sum::max_cooperative_grid_blocks(1024u32).unwrap();
    assert!(
        large >= sms,
        "a 1024-thread block fits once per SM: {large} < {sms}"
    );
    assert!(small >= large, "{small} < {large}");
    assert_eq!(small % sms, 0, "whole blocks per SM");
    // Most of an SM's shared memory per block leaves room for one block per SM.
    let shared = gpu.limits().max_shared_per_block_optin as usize;
    let one_each = two_phase_sum::max_cooperative_grid_blocks_for(
        LaunchConfig::new(1, 64).shared_bytes(shared),
    )
    .unwrap();
    assert_eq!(one_each, sms);
}

/// Thread 0 of block `victim` panics before the barrier, so its block never arrives:
/// the other blocks must notice the panic and stop waiting.
#[kernel]
fn panics_before_the_barrier(x: &mut [u32], victim: u32) {
    if block_idx().x == victim && thread_idx().x == 0 {
        x[x.len()] = 1; // panic site: before grid_sync
    }
    grid_sync();
    x[grid(1)] = 2;
}

#[test]
fn a_panic_before_grid_sync_is_an_err_not_a_hang() {
    let _gpu = require_gpu!();
    let (blocks, block) = (8u32, 64u32);
    let mut x = vec![0u32; (blocks * block) as usize];
    let err = launch!(panics_before_the_barrier[blocks, block](&mut x, 3))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("index out of bounds: the len is 512 but the index is 512"),
        "{err}"
    );
    assert!(err.contains("(block 3, thread 0)"), "{err}");
    // The context survives, the abandoned barrier was taken back, and the same kernel
    // runs normally, again and again.
    for _ in 0..3 {
        let mut x = vec![0u32; (blocks * block) as usize];
        launch!(panics_before_the_barrier[blocks, block](&mut x, u32::MAX)).unwrap();
        assert!(x.iter().all(|&v| v == 2));
    }
}

/// Block `skipper` returns before the barrier (against CUDA's rule that every thread
/// calls it): the others time out after 10 s with an `Err` instead of hanging.
#[kernel]
fn a_block_skips_the_barrier(x: &mut [u32], skipper: u32) {
    if block_idx().x == skipper {
        return;
    }
    grid_sync(); // timeout site
    x[grid(1)] = 2;
}

#[test]
fn a_block_that_never_arrives_times_out_with_an_err() {
    let gpu = require_gpu!();
    let (blocks, block) = (4u32, 32u32);
    let mut x = vec![0u32; (blocks * block) as usize];
    let started = std::time::Instant::now();
    let err = launch!(a_block_skips_the_barrier[blocks, block](&mut x, 2))
        .unwrap_err()
        .to_string();
    // The GPU can only wait and time out; the simulator sees at once that block 2's
    // threads exited while the others wait.
    let expected = if gpu.is_simulator() {
        "but block (2, 0, 0) thread (0, 0, 0) exited"
    } else {
        "not every block reached the barrier within 10 s"
    };
    assert!(err.contains(expected), "{err}");
    let site = format!(
        "tests/gpu/cooperative.rs:{}",
        line_of_cooperative("// timeout site")
    );
    assert!(err.contains(&site), "expected {site} in: {err}");
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
    // The abandoned barrier was taken back: the next launches pass it normally.
    for _ in 0..3 {
        let mut x = vec![0u32; (blocks * block) as usize];
        launch!(a_block_skips_the_barrier[blocks, block](&mut x, u32::MAX)).unwrap();
        assert!(x.iter().all(|&v| v == 2));
    }
}

/// The 1-based line of this file holding `marker`.
fn line_of_cooperative(marker: &str) -> usize {
    include_str!("cooperative.rs")
        .lines()
        .position(|l| l.contains(marker) && !l.contains("line_of_cooperative"))
        .expect("marker present")
        + 1
}

/// Runs without a GPU: both kernels lower to NVVM IR and are marked cooperative (one
/// through its device function).
#[test]
fn the_kernels_lower_and_are_cooperative() {
    for source in [
        exchange_rounds::source(),
        two_phase_sum::source(),
        panics_before_the_barrier::source(),
        a_block_skips_the_barrier::source(),
    ] {
        let unit = kernel_device::nvvm_ir_for_kernel(source, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", source.name));
        assert!(unit.cooperative, "{}", source.name);
    }
}
