//! The generator on the host: known SplitMix64 output, the jump polynomial against
//! T^(2^64) computed independently over GF(2), and statistics of the draws (uniform
//! mean, variance and chi-square; normal mean, variance and Kolmogorov–Smirnov
//! distance; correlation between neighbouring streams). Fixed seeds: each bound is
//! several standard deviations wide, so a correct generator passes with certainty
//! for these seeds and a broken conversion or jump fails by far.

use super::*;

fn states(n: usize, seed: u64) -> Vec<u64> {
    let mut s = vec![0u64; 2 * n];
    init_xoroshiro128p_states(&mut s, seed);
    s
}

#[test]
fn splitmix64_matches_the_reference_output() {
    // The reference implementation's first output for seed 0 (and for seed 1).
    assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    assert_eq!(splitmix64(1), 0x910a_2dec_8902_5cc1);
    let s = states(1, 0);
    assert_eq!(s, [0xe220_a839_7b1d_cdaf, 0xe220_a839_7b1d_cdaf]);
}

#[test]
fn next_matches_the_reference_recurrence() {
    // xoroshiro128+ (55, 14, 36) written out with u128 state, independently.
    let mut s = [0x0123_4567_89ab_cdefu64, 0xfedc_ba98_7654_3210u64];
    let (mut a, mut b) = (s[0], s[1]);
    for _ in 0..1000 {
        let want = a.wrapping_add(b);
        let x = b ^ a;
        let (na, nb) = (a.rotate_left(55) ^ x ^ (x << 14), x.rotate_left(36));
        assert_eq!(xoroshiro128p_next(&mut s, 0), want);
        (a, b) = (na, nb);
        assert_eq!(s, [a, b]);
    }
}

/// The 128×128 GF(2) matrix of one `next` step: column j is the image of basis vector j.
fn step_matrix() -> Vec<u128> {
    (0..128)
        .map(|j| {
            let e = 1u128 << j;
            let mut s = [e as u64, (e >> 64) as u64];
            xoroshiro128p_next(&mut s, 0);
            s[0] as u128 | (s[1] as u128) << 64
        })
        .collect()
}

fn apply(m: &[u128], v: u128) -> u128 {
    (0..128)
        .filter(|&j| v >> j & 1 == 1)
        .fold(0, |acc, j| acc ^ m[j])
}

/// Matrix product a·b (apply b first).
fn compose(a: &[u128], b: &[u128]) -> Vec<u128> {
    b.iter().map(|&col| apply(a, col)).collect()
}

#[test]
fn jump_is_two_to_the_64_steps() {
    let mut m = step_matrix();
    for _ in 0..64 {
        m = compose(&m, &m);
    }
    for seed in [1u64, 42, 0xdead_beef] {
        let mut s = states(1, seed);
        let v = s[0] as u128 | (s[1] as u128) << 64;
        let want = apply(&m, v);
        xoroshiro128p_jump(&mut s, 0);
        assert_eq!(s[0] as u128 | (s[1] as u128) << 64, want, "seed {seed}");
    }
}

#[test]
fn each_state_is_the_previous_one_jumped() {
    let s = states(5, 7);
    for i in 1..5 {
        let mut previous = [s[2 * i - 2], s[2 * i - 1]];
        xoroshiro128p_jump(&mut previous, 0);
        assert_eq!(previous, [s[2 * i], s[2 * i + 1]]);
    }
    // A trailing odd word is left alone; empty and one-word slices are fine.
    let mut odd = vec![9u64; 5];
    init_xoroshiro128p_states(&mut odd, 7);
    assert_eq!(&odd[..4], &s[..4]);
    assert_eq!(odd[4], 9);
    init_xoroshiro128p_states(&mut [], 7);
    init_xoroshiro128p_states(&mut [3], 7);
}

#[test]
fn uniform_extremes_stay_in_the_unit_interval() {
    // Bits that make `next` return all ones: s0 = u64::MAX, s1 = 0.
    let mut s = [u64::MAX, 0];
    let u = xoroshiro128p_uniform_f32(&mut s, 0);
    assert_eq!(u, 1.0 - f32::EPSILON / 2.0);
    let mut s = [u64::MAX, 0];
    assert_eq!(
        xoroshiro128p_uniform_f64(&mut s, 0),
        1.0 - f64::EPSILON / 2.0
    );
    let mut s = [0, 0];
    assert_eq!(xoroshiro128p_uniform_f32(&mut s, 0), 0.0);
    // u = 0 gives the largest normal draw, still finite.
    let mut s = [0, 0, 0, 0];
    assert!(xoroshiro128p_normal_f32(&mut s, 0).is_finite());
    assert!(xoroshiro128p_normal_f64(&mut s, 1).is_finite());
}

fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

fn uniform_checks(what: &str, u: &[f64]) {
    let n = u.len() as f64;
    assert!(
        u.iter().all(|&x| (0.0..1.0).contains(&x)),
        "{what}: outside [0, 1)"
    );
    let (mean, var) = mean_var(u);
    // sd of the mean: sqrt(1/12 / n); of the variance: sqrt(1/180 / n).
    assert!(
        (mean - 0.5).abs() < 6.0 * (1.0 / 12.0 / n).sqrt(),
        "{what}: mean {mean}"
    );
    assert!(
        (var - 1.0 / 12.0).abs() < 6.0 * (1.0 / 180.0 / n).sqrt(),
        "{what}: variance {var}"
    );
    // Chi-square over 100 equal bins: 99 degrees of freedom, sd sqrt(198) ≈ 14.
    let bins = 100;
    let mut counts = vec![0u64; bins];
    for &x in u {
        counts[(x * bins as f64) as usize] += 1;
    }
    let expected = n / bins as f64;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    assert!(
        chi2 < 99.0 + 6.0 * 198f64.sqrt() && chi2 > 99.0 - 5.0 * 198f64.sqrt(),
        "{what}: chi2 {chi2}"
    );
}

#[test]
fn uniform_draws_are_uniform() {
    let n = 200_000;
    let mut s = states(4, 2024);
    let u64s: Vec<f64> = (0..n)
        .map(|_| xoroshiro128p_uniform_f64(&mut s, 1))
        .collect();
    uniform_checks("f64", &u64s);
    let u32s: Vec<f64> = (0..n)
        .map(|_| xoroshiro128p_uniform_f32(&mut s, 2) as f64)
        .collect();
    uniform_checks("f32", &u32s);
}

/// The standard normal CDF, from erfc by Numerical Recipes' Chebyshev fit (|error| <
/// 1.2e-7, far below the Kolmogorov–Smirnov bound).
fn normal_cdf(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.26551223
        + t * (1.00002368
            + t * (0.37409196
                + t * (0.09678418
                    + t * (-0.18628806
                        + t * (0.27886807
                            + t * (-1.13520398
                                + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 {
        1.0 - 0.5 * erfc
    } else {
        0.5 * erfc
    }
}

fn normal_checks(what: &str, mut z: Vec<f64>) {
    let n = z.len() as f64;
    assert!(z.iter().all(|v| v.is_finite()), "{what}: not finite");
    let (mean, var) = mean_var(&z);
    assert!(mean.abs() < 6.0 / n.sqrt(), "{what}: mean {mean}");
    assert!(
        (var - 1.0).abs() < 6.0 * (2.0 / n).sqrt(),
        "{what}: variance {var}"
    );
    z.sort_by(f64::total_cmp);
    let d = z
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = normal_cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max);
    // P(D > 1.95 / sqrt(n)) ≈ 0.001 for a true normal sample.
    assert!(
        d < 1.95 / n.sqrt(),
        "{what}: Kolmogorov–Smirnov distance {d}"
    );
}

#[test]
fn normal_draws_are_standard_normal() {
    let n = 100_000;
    let mut s = states(3, 99);
    let z64: Vec<f64> = (0..n)
        .map(|_| xoroshiro128p_normal_f64(&mut s, 0))
        .collect();
    normal_checks("f64", z64);
    let z32: Vec<f64> = (0..n)
        .map(|_| xoroshiro128p_normal_f32(&mut s, 2) as f64)
        .collect();
    normal_checks("f32", z32);
}

fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let cov = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - ma) * (y - mb))
        .sum::<f64>()
        / (a.len() as f64 - 1.0);
    cov / (va * vb).sqrt()
}

#[test]
fn neighbouring_streams_are_uncorrelated() {
    // Along the sequence of two neighbouring generators...
    let n = 100_000;
    let mut s = states(2, 5);
    let (a, b): (Vec<f64>, Vec<f64>) = (0..n)
        .map(|_| {
            (
                xoroshiro128p_uniform_f64(&mut s, 0),
                xoroshiro128p_uniform_f64(&mut s, 1),
            )
        })
        .unzip();
    let r = correlation(&a, &b);
    assert!(r.abs() < 5.0 / (n as f64).sqrt(), "r = {r}");
    // ...and across many generators at the same step (what a kernel's threads draw).
    let m = 20_000;
    let mut s = states(m, 11);
    let first: Vec<f64> = (0..m)
        .map(|i| xoroshiro128p_uniform_f64(&mut s, i))
        .collect();
    uniform_checks("first draws of 20000 generators", &first);
    let r = correlation(&first[..m - 1], &first[1..]);
    assert!(r.abs() < 5.0 / (m as f64).sqrt(), "r = {r}");
    // No two generators start alike.
    let mut starts: Vec<(u64, u64)> = (0..m).map(|i| (s[2 * i], s[2 * i + 1])).collect();
    starts.sort_unstable();
    starts.dedup();
    assert_eq!(starts.len(), m);
}

#[test]
fn create_states_without_a_gpu_is_an_err_not_a_panic() {
    match create_xoroshiro128p_states(4, 1) {
        Ok(states) => assert_eq!(states.len(), 8),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}
