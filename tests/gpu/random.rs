//! The device RNG (`cudajit::random`): the GPU's draws equal the host's (the same
//! `#[device]` functions run as plain Rust) bit for bit for the uniform draws and the
//! generator states, within a few ulp for the normal draws (libdevice's `log`/`cos`
//! against the host's), and Monte-Carlo π lands within the statistical bound.

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

/// Counts, per thread, how many of `samples` uniform points fall in the quarter disc.
#[kernel]
fn monte_carlo_pi(states: &mut [u64], hits: &mut [u32], samples: u32) {
    let i = grid(1);
    if i < hits.len() {
        let mut inside = 0u32;
        for _ in 0..samples {
            let x = xoroshiro128p_uniform_f32(states, i);
            let y = xoroshiro128p_uniform_f32(states, i);
            if x * x + y * y <= 1.0 {
                inside += 1;
            }
        }
        hits[i] = inside;
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
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("monte_carlo_pi");
    let (blocks, block, samples) = (264usize, 256usize, 4096u32);
    let threads = blocks * block;
    let seed = rng.next_u64();
    let mut states = cudajit::random::create_xoroshiro128p_states(threads, seed).unwrap();
    let mut hits = vec![u32::MAX; threads];
    launch!(monte_carlo_pi[blocks, block](&mut states, &mut hits, samples)).unwrap();

    let total = threads as f64 * samples as f64;
    let inside: u64 = hits.iter().map(|&h| h as u64).sum();
    let pi = 4.0 * inside as f64 / total;
    // Binomial: sd of the estimate is 4 sqrt(p (1 - p) / N), p = pi/4.
    let p = std::f64::consts::FRAC_PI_4;
    let sd = 4.0 * (p * (1.0 - p) / total).sqrt();
    assert!(
        (pi - std::f64::consts::PI).abs() < 6.0 * sd,
        "pi estimate {pi} from {total} samples is {} sd away",
        (pi - std::f64::consts::PI).abs() / sd
    );

    // The same kernel body on the host, for 64 of the threads: exactly the same counts.
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
        assert_eq!(hits[i], inside, "thread {i}");
    }
}
