//! The fp8 Hopper GEMM's kernel (bench/hopper_fp8_kernels.rs, issue 24) at test size on
//! the CPU simulator: two 128×256 block tiles over six k-tiles of 128 e4m3 elements, so
//! the 4-stage ring wraps (the producer waits on `empty`, the consumers on `full` of the
//! second phase) and the raster moves between block rows, against an f64 reference
//! computed from the decoded e4m3 inputs. The simulator decodes e4m3 exactly and reads
//! each wgmma's operands through the hardware's descriptor and 128-byte swizzle, and
//! reports any pipeline race, so a wrong element count in a copy, a descriptor step or a
//! barrier phase fails here before it reaches a GPU.

use cudajit::prelude::*;
use cudajit::{SimOptions, Stream};

#[path = "../bench/hopper_fp8_kernels.rs"]
#[allow(dead_code, unused_imports, unused_macros)]
mod hopper_fp8_kernels;

use hopper_fp8_kernels::{checked, nocheck, SHARED_BYTES, THREADS};

/// Fresh e4m3 inputs over the format's range: uniform in [-1, 1) scaled by 2^-9 .. 2^3,
/// so subnormals, ties and both signs occur.
fn random_e4m3(rng: &mut fastrand::Rng, len: usize) -> Vec<e4m3> {
    (0..len)
        .map(|_| e4m3::from_f32((rng.f32() * 2.0 - 1.0) * 2f32.powi(rng.i32(-9..=3))))
        .collect()
}

/// Runs `launch` on an `m × n × k` problem and checks every element of C (poisoned
/// first) against the f64 sum of the decoded inputs: within the bf16 output's rounding
/// (2^-8 relative) plus the f32 accumulation's (2^-16 of Σ|a·b| bounds K/32 roundings).
fn check_gemm(launch: impl FnOnce(&Stream, &[e4m3], &[e4m3], &mut [bf16], usize, usize, usize)) {
    let seed = fastrand::u64(..);
    let mut rng = fastrand::Rng::with_seed(seed);
    let device = Device::simulator_with(SimOptions::default());
    let stream = device.new_stream().unwrap();
    let (m, n, k) = (256, 256, 6 * 128);
    let a = random_e4m3(&mut rng, m * k);
    let b = random_e4m3(&mut rng, n * k);
    let mut c = vec![bf16::NAN; m * n];
    launch(&stream, &a, &b, &mut c, m, n, k);
    // Decoded once: the reference reads each input n (or m) times.
    let a: Vec<f64> = a.iter().map(|x| x.to_f64()).collect();
    let b: Vec<f64> = b.iter().map(|x| x.to_f64()).collect();
    for i in 0..m {
        for j in 0..n {
            let products = (0..k).map(|p| a[i * k + p] * b[j * k + p]);
            let want: f64 = products.clone().sum();
            let magnitude: f64 = products.map(f64::abs).sum();
            let got = c[i * n + j].to_f64();
            assert!(!got.is_nan(), "C[{i}][{j}] never written (seed {seed})");
            let bound = want.abs() / 256.0 + magnitude / 65536.0;
            assert!(
                (got - want).abs() <= bound,
                "C[{i}][{j}] = {got}, f64 reference {want} (bound {bound:e}, seed {seed})"
            );
        }
    }
}

#[test]
fn fp8_wgmma_gemm_matches_the_f64_reference() {
    check_gemm(|stream, a, b, c, m, n, k| {
        let blocks = (m / 128) * (n / 256);
        launch!(checked::gemm_e4m3_wgmma[blocks, THREADS, stream, SHARED_BYTES](a, b, c, m, n, k))
            .unwrap()
    });
}

#[test]
fn unchecked_fp8_wgmma_gemm_matches_the_f64_reference() {
    check_gemm(|stream, a, b, c, m, n, k| {
        let blocks = (m / 128) * (n / 256);
        // SAFETY: m, n and k are multiples of the block tile and the k-tile.
        unsafe {
            launch!(nocheck::gemm_e4m3_wgmma[blocks, THREADS, stream, SHARED_BYTES](
                a, b, c, m, n, k
            ))
        }
        .unwrap()
    });
}
