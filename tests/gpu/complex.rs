//! Complex numbers (issue 9): num-complex's `Complex<f32>`/`Complex<f64>` as kernel
//! values and slice elements, with its arithmetic and methods, checked against
//! num-complex on the host in f64.

use super::common;
use cudajit::prelude::*;
use cudajit::Complex;

/// One radix-2 decimation-in-time stage: butterflies of span `2 * half` with the
/// twiddle `exp(-iπ j / half)`.
#[kernel]
fn fft_stage(input: &[Complex<f32>], output: &mut [Complex<f32>], half: usize) {
    let t = grid(1);
    if t < input.len() / 2 {
        let j = t % half;
        let base = (t / half) * 2 * half;
        let angle = -std::f32::consts::PI * j as f32 / half as f32;
        let w = Complex::new(0.0f32, angle).exp();
        let a = input[base + j];
        let b = w * input[base + j + half];
        output[base + j] = a + b;
        output[base + j + half] = a - b;
    }
}

#[test]
fn radix2_fft_of_complex_f32_matches_an_f64_dft() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("fft_stage");
    let n = 256;
    let bits = n.trailing_zeros();
    let x: Vec<Complex<f32>> = (0..n)
        .map(|_| Complex::new(rng.f32_in(-1.0, 1.0), rng.f32_in(-1.0, 1.0)))
        .collect();
    // Bit-reversed order in, natural order out.
    let mut cur: Vec<Complex<f32>> = (0..n)
        .map(|i| x[(i as u32).reverse_bits() as usize >> (32 - bits)])
        .collect();
    let mut half = 1;
    while half < n {
        let mut next = vec![Complex::new(f32::NAN, f32::NAN); n];
        launch!(fft_stage[1, n / 2](&cur, &mut next, half)).unwrap();
        cur = next;
        half *= 2;
    }
    for (k, got) in cur.iter().enumerate() {
        let want: Complex<f64> = (0..n)
            .map(|j| {
                let xj = Complex::new(f64::from(x[j].re), f64::from(x[j].im));
                let angle = -2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                xj * Complex::new(0.0, angle).exp()
            })
            .sum();
        let err = (Complex::new(f64::from(got.re), f64::from(got.im)) - want).norm();
        assert!(
            err < 1e-4,
            "bin {k}: got {got}, want {want} (error {err:e})"
        );
    }
}

/// num-complex's operators and methods on `Complex<f64>`, one result per slot.
#[kernel]
fn complex_ops(z: &[Complex<f64>], w: &[Complex<f64>], p: f64, out: &mut [Complex<f64>]) {
    let i = grid(1);
    if i < z.len() {
        let (a, b) = (z[i], w[i]);
        let o = 10 * i;
        out[o] = a * b + a - b;
        out[o + 1] = a / b;
        out[o + 2] = a.conj() * 2.0;
        out[o + 3] = Complex::new(a.norm(), a.arg());
        out[o + 4] = a.exp();
        out[o + 5] = a.ln();
        out[o + 6] = a.sqrt();
        out[o + 7] = a.powf(p);
        out[o + 8] = Complex::new(a.norm_sqr(), if a == b { 1.0 } else { a.im });
        out[o + 9] = b.inv().scale(p) / 4.0;
    }
}

fn complex_ops_reference(a: Complex<f64>, b: Complex<f64>, p: f64) -> [Complex<f64>; 10] {
    [
        a * b + a - b,
        a / b,
        a.conj() * 2.0,
        Complex::new(a.norm(), a.arg()),
        a.exp(),
        a.ln(),
        a.sqrt(),
        a.powf(p),
        Complex::new(a.norm_sqr(), if a == b { 1.0 } else { a.im }),
        b.inv().scale(p) / 4.0,
    ]
}

#[test]
fn complex_f64_methods_match_num_complex() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("complex_ops");
    let n = 700 + rng.below(100) as usize;
    let mut z: Vec<Complex<f64>> = (0..n)
        .map(|_| Complex::new(rng.f64_in(-4.0, 4.0), rng.f64_in(-4.0, 4.0)))
        .collect();
    let w: Vec<Complex<f64>> = (0..n)
        .map(|_| Complex::new(rng.f64_in(-4.0, 4.0), rng.f64_in(-4.0, 4.0)))
        .collect();
    // The axes, where sqrt takes its exact branches, and an equal pair.
    z[0] = Complex::new(4.0, 0.0);
    z[1] = Complex::new(-9.0, 0.0);
    z[2] = Complex::new(0.0, -2.0);
    z[3] = Complex::new(-9.0, -0.0);
    z[4] = w[4];
    let p = rng.f64_in(-2.5, 2.5);
    let mut out = vec![Complex::new(f64::NAN, f64::NAN); 10 * n];
    launch!(complex_ops[n.div_ceil(128), 128](&z, &w, p, &mut out)).unwrap();
    for i in 0..n {
        let want = complex_ops_reference(z[i], w[i], p);
        for (slot, (got, want)) in out[10 * i..10 * i + 10].iter().zip(want).enumerate() {
            // libdevice's transcendentals are within a few ulps of the host's.
            let err = (got - want).norm();
            assert!(
                err <= 1e-13 * want.norm().max(1.0),
                "z[{i}] = {}, w = {}, slot {slot}: got {got}, want {want}",
                z[i],
                w[i]
            );
        }
    }
}

/// Julia-set escape counts: the constant `c` comes by value, as a kernel parameter.
#[kernel]
fn julia(c: Complex<f64>, origin: Complex<f64>, step: f64, width: usize, counts: &mut [u32]) {
    let t = grid(1);
    if t < counts.len() {
        let pixel = Complex::new((t % width) as f64, (t / width) as f64);
        let mut z = origin + pixel.scale(step);
        let mut n = 0u32;
        while n < 64 && z.norm_sqr() <= 4.0 {
            z = z * z + c;
            n += 1;
        }
        counts[t] = n;
    }
}

#[test]
fn complex_by_value_parameters_match_the_host() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("julia");
    let c = Complex::new(rng.f64_in(-0.8, -0.7), rng.f64_in(0.1, 0.2));
    let origin = Complex::new(-1.5, -1.0);
    let (width, height, step) = (96usize, 64usize, 3.0 / 96.0);
    let mut counts = vec![u32::MAX; width * height];
    launch!(julia[(width * height).div_ceil(128), 128](c, origin, step, width, &mut counts))
        .unwrap();
    let mut escaped = 0;
    for (t, &got) in counts.iter().enumerate() {
        // The same iteration with num-complex on the host, in the same f64 operations.
        let pixel = Complex::new((t % width) as f64, (t / width) as f64);
        let mut z = origin + pixel.scale(step);
        let mut n = 0u32;
        while n < 64 && z.norm_sqr() <= 4.0 {
            z = z * z + c;
            n += 1;
        }
        assert_eq!(got, n, "pixel {t} (c = {c})");
        escaped += usize::from(n < 64);
    }
    // Both outcomes occur, so the parameter's value mattered.
    assert!(
        escaped > 0 && escaped < counts.len(),
        "{escaped} of {} escaped",
        counts.len()
    );
}
