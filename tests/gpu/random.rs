//! The device RNG (`cudajit::random`): the GPU's draws equal the host's (the same
//! `#[device]` functions run as plain Rust) bit for bit for the uniform draws and the
//! generator states, within a few ulp for the normal draws (libdevice's `log`/`cos`
//! against the host's), and Monte-Carlo π (a shared-memory block sum and one atomic
//! per block) lands within the statistical bound.

use super::common;
use cudajit::prelude::*;
use cudajit::random::{init_xoroshiro128p_states, xoroshiro128p_jump};

#[kernel]
fn every_draw(
    states: &mut [u64],
    u32s: &mut [f32],
    u64s: &mut [f64],
    n32s: &mut [f32],
    n64s: &mut [f64],
    rounds: usize,
) {
    let i = grid(1);
    let threads = grid_size(1);
    if 2 * i + 1 < states.len() {
        for r in 0..rounds {
            u32s[r * threads + i] = xoroshiro128p_uniform_f32(states, i);
            u64s[r * threads + i] = xoroshiro128p_uniform_f64(states, i);
            n32s[r * threads + i] = xoroshiro128p_normal_f32(states, i);
            n64s[r * threads + i] = xoroshiro128p_normal_f64(states, i);
        }
        xoroshiro128p_jump(states, i);
    }
}

/// Monte-Carlo π: each thread counts how many of `samples` uniform points fall in the
/// quarter disc, the block adds its counts in dynamic shared memory (a power-of-two
/// block), and one thread per block adds the block's count to `total` atomically.
/// `per_thread` keeps each thread's count for the comparison with the host.
#[kernel]
fn monte_carlo_pi(states: &mut [u64], per_thread: &mut [u32], total: &mut [u64], samples: u32) {
    let mut smem = dynamic_shared();
    let counts = smem.take::<u32>(block_dim().x as usize);
    let t = thread_idx().x as usize;
    let i = grid(1);
    let mut inside = 0u32;
    if i < per_thread.len() {
        for _ in 0..samples {
            let x = xoroshiro128p_uniform_f32(states, i);
            let y = xoroshiro128p_uniform_f32(states, i);
            if x * x + y * y <= 1.0 {
                inside += 1;
            }
        }
        per_thread[i] = inside;
    }
    counts[t] = inside;
    sync_threads();
    let mut half = counts.len() / 2;
    while half > 0 {
        if t < half {
            counts[t] += counts[t + half];
        }
        sync_threads();
        half /= 2;
    }
    if t == 0 {
        atomic_add(total, 0, counts[0] as u64);
    }
}

fn ulps_apart_f32(a: f32, b: f32) -> u32 {
    (a.to_bits() as i32).abs_diff(b.to_bits() as i32)
}

#[test]
fn device_draws_equal_the_host_implementation() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("every_draw");
    let (blocks, block, rounds) = (6usize, 128usize, 3usize);
    let threads = blocks * block;
    let seed = rng.next_u64();
    let mut host_states = vec![0u64; 2 * threads];
    init_xoroshiro128p_states(&mut host_states, seed);
    let mut states = cudajit::random::create_xoroshiro128p_states(threads, seed).unwrap();
    assert_eq!(
        states.to_host().unwrap(),
        host_states,
        "seeding on the host"
    );

    let n = threads * rounds;
    let (mut u32s, mut u64s) = (vec![f32::NAN; n], vec![f64::NAN; n]);
    let (mut n32s, mut n64s) = (vec![f32::NAN; n], vec![f64::NAN; n]);
    launch!(every_draw[blocks, block](&mut states, &mut u32s, &mut u64s, &mut n32s, &mut n64s, rounds))
        .unwrap();

    for i in 0..threads {
        for r in 0..rounds {
            let at = r * threads + i;
            let u32_want = xoroshiro128p_uniform_f32(&mut host_states, i);
            let u64_want = xoroshiro128p_uniform_f64(&mut host_states, i);
            let n32_want = xoroshiro128p_normal_f32(&mut host_states, i);
            let n64_want = xoroshiro128p_normal_f64(&mut host_states, i);
            assert_eq!(
                u32s[at].to_bits(),
                u32_want.to_bits(),
                "uniform f32 {i}/{r}"
            );
            assert_eq!(
                u64s[at].to_bits(),
                u64_want.to_bits(),
                "uniform f64 {i}/{r}"
            );
            // libdevice's logf/cosf are within 2 ulp, glibc's within 1; sqrt and the
            // products add at most a few more.
            assert!(
                ulps_apart_f32(n32s[at], n32_want) <= 8 || (n32s[at] - n32_want).abs() < 1e-6,
                "normal f32 {i}/{r}: {} vs {n32_want}",
                n32s[at]
            );
            assert!(
                (n64s[at] - n64_want).abs() <= 1e-14 * n64_want.abs().max(1.0),
                "normal f64 {i}/{r}: {} vs {n64_want}",
                n64s[at]
            );
        }
        xoroshiro128p_jump(&mut host_states, i);
    }
    assert_eq!(
        states.to_host().unwrap(),
        host_states,
        "states after the draws"
    );
}

#[test]
fn monte_carlo_pi_is_within_the_statistical_bound_and_equals_the_host() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("monte_carlo_pi");
    // The simulator interprets every draw: a grid a 64th of the GPU's size keeps the
    // test to seconds there (the statistical bound scales with the sample count).
    let (blocks, block, samples) = if gpu.is_simulator() {
        (8usize, 256usize, 512u32)
    } else {
        (264usize, 256usize, 4096u32)
    };
    // The last block is partly idle: its threads without a generator count nothing.
    let threads = blocks * block - 1 - rng.below(block as u64 - 1) as usize;
    let seed = rng.next_u64();
    let mut states = cudajit::random::create_xoroshiro128p_states(threads, seed).unwrap();
    let mut per_thread = vec![u32::MAX; threads];
    let mut total = [0u64];
    let shared = block * std::mem::size_of::<u32>();
    let stream = cudajit::Device::default().unwrap().default_stream();
    launch!(monte_carlo_pi[blocks, block, stream, shared](
        &mut states,
        &mut per_thread,
        &mut total,
        samples
    ))
    .unwrap();

    let inside: u64 = per_thread.iter().map(|&h| h as u64).sum();
    assert_eq!(
        total[0], inside,
        "the atomic per block lost or added counts"
    );
    let samples_in_all = threads as f64 * samples as f64;
    let pi = 4.0 * inside as f64 / samples_in_all;
    // Binomial: the estimate's sd is 4 sqrt(p (1 - p) / N), p = pi/4.
    let p = std::f64::consts::FRAC_PI_4;
    let sd = 4.0 * (p * (1.0 - p) / samples_in_all).sqrt();
    assert!(
        (pi - std::f64::consts::PI).abs() < 6.0 * sd,
        "pi estimate {pi} from {samples_in_all} samples is {} sd away",
        (pi - std::f64::consts::PI).abs() / sd
    );

    // The same loop on the host, for 64 of the threads: exactly the same counts.
    let mut host_states = vec![0u64; 2 * threads];
    init_xoroshiro128p_states(&mut host_states, seed);
    let stride = threads / 64;
    let offset = rng.below(stride as u64) as usize;
    for i in (offset..threads).step_by(stride) {
        let mut inside = 0u32;
        for _ in 0..samples {
            let x = xoroshiro128p_uniform_f32(&mut host_states, i);
            let y = xoroshiro128p_uniform_f32(&mut host_states, i);
            if x * x + y * y <= 1.0 {
                inside += 1;
            }
        }
        assert_eq!(per_thread[i], inside, "thread {i}");
    }
}

/// Runs without a GPU: the kernels' units (with the `cudajit` crate's RNG functions)
/// lower to NVVM IR as the first launch will.
#[test]
fn the_kernels_lower_to_nvvm_ir() {
    for source in [every_draw::source(), monte_carlo_pi::source()] {
        let unit = kernel_device::nvvm_ir_for_kernel(source, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", source.name));
        assert!(unit.nvvm_ir.contains("@__cudajit_dev_xoroshiro128p_next("));
        assert!(!unit.cooperative);
    }
}
