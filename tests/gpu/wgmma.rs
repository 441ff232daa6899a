//! Warpgroup MMA (`wgmma_*`, sm_90a) written once for the GPU and the simulator: a
//! GEMM of 128 x 128 output tiles, one block of two warpgroups per tile, each
//! warpgroup 64 rows with one m64n128k16 bf16 wgmma per 16 of K from 128B-swizzled
//! shared tiles, on fresh random inputs with poisoned outputs against an f64 CPU
//! reference. On a device other than sm_90 the launch must be an `Err` naming wgmma.

use super::common;
use cudajit::prelude::*;

/// `c = a * bᵀ`: `a` is `m x k` row-major bf16, `bt` is `n x k` row-major (B K-major),
/// `c` is `m x n` f32. Grid `(n / 128, m / 128)`, 256 threads: warpgroup `t / 128`
/// computes rows `64 (t / 128)..` of the block's tile. Tiles hold 64 of K per stage,
/// each row 128 bytes swizzled (16-byte chunk `j` of row `r` at `j ^ (r % 8)`).
#[kernel]
fn wgmma_gemm(a: &[bf16], bt: &[bf16], c: &mut [f32], n: usize, k: usize) {
    let ta = shared_array::<[bf16; 8192]>();
    let tb = shared_array::<[bf16; 8192]>();
    let t = thread_idx().x as usize;
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 128;
    let wg = t / 128;
    let mut c0 = 0.0f32;
    let mut c1 = 0.0f32;
    let mut c2 = 0.0f32;
    let mut c3 = 0.0f32;
    let mut c4 = 0.0f32;
    let mut c5 = 0.0f32;
    let mut c6 = 0.0f32;
    let mut c7 = 0.0f32;
    let mut c8 = 0.0f32;
    let mut c9 = 0.0f32;
    let mut c10 = 0.0f32;
    let mut c11 = 0.0f32;
    let mut c12 = 0.0f32;
    let mut c13 = 0.0f32;
    let mut c14 = 0.0f32;
    let mut c15 = 0.0f32;
    let mut c16 = 0.0f32;
    let mut c17 = 0.0f32;
    let mut c18 = 0.0f32;
    let mut c19 = 0.0f32;
    let mut c20 = 0.0f32;
    let mut c21 = 0.0f32;
    let mut c22 = 0.0f32;
    let mut c23 = 0.0f32;
    let mut c24 = 0.0f32;
    let mut c25 = 0.0f32;
    let mut c26 = 0.0f32;
    let mut c27 = 0.0f32;
    let mut c28 = 0.0f32;
    let mut c29 = 0.0f32;
    let mut c30 = 0.0f32;
    let mut c31 = 0.0f32;
    let mut c32 = 0.0f32;
    let mut c33 = 0.0f32;
    let mut c34 = 0.0f32;
    let mut c35 = 0.0f32;
    let mut c36 = 0.0f32;
    let mut c37 = 0.0f32;
    let mut c38 = 0.0f32;
    let mut c39 = 0.0f32;
    let mut c40 = 0.0f32;
    let mut c41 = 0.0f32;
    let mut c42 = 0.0f32;
    let mut c43 = 0.0f32;
    let mut c44 = 0.0f32;
    let mut c45 = 0.0f32;
    let mut c46 = 0.0f32;
    let mut c47 = 0.0f32;
    let mut c48 = 0.0f32;
    let mut c49 = 0.0f32;
    let mut c50 = 0.0f32;
    let mut c51 = 0.0f32;
    let mut c52 = 0.0f32;
    let mut c53 = 0.0f32;
    let mut c54 = 0.0f32;
    let mut c55 = 0.0f32;
    let mut c56 = 0.0f32;
    let mut c57 = 0.0f32;
    let mut c58 = 0.0f32;
    let mut c59 = 0.0f32;
    let mut c60 = 0.0f32;
    let mut c61 = 0.0f32;
    let mut c62 = 0.0f32;
    let mut c63 = 0.0f32;
    let mut k0 = 0;
    while k0 < k {
        for i in 0..4 {
            let q = t * 4 + i;
            let r = q / 8;
            let j = q % 8;
            let at = r * 64 + (j ^ (r % 8)) * 8;
            cp_async::<16>(ta, at, a, (row0 + r) * k + k0 + j * 8);
            cp_async::<16>(tb, at, bt, (col0 + r) * k + k0 + j * 8);
        }
        cp_async_commit();
        cp_async_wait_all();
        fence_proxy_async();
        sync_threads();
        wgmma_fence();
        for ks in 0..4 {
            let da = wgmma_descriptor(ta, wg * 4096 + ks * 16, 128, 0, 1024);
            let db = wgmma_descriptor(tb, ks * 16, 128, 0, 1024);
            let (
                d0,
                d1,
                d2,
                d3,
                d4,
                d5,
                d6,
                d7,
                d8,
                d9,
                d10,
                d11,
                d12,
                d13,
                d14,
                d15,
                d16,
                d17,
                d18,
                d19,
                d20,
                d21,
                d22,
                d23,
                d24,
                d25,
                d26,
                d27,
                d28,
                d29,
                d30,
                d31,
                d32,
                d33,
                d34,
                d35,
                d36,
                d37,
                d38,
                d39,
                d40,
                d41,
                d42,
                d43,
                d44,
                d45,
                d46,
                d47,
                d48,
                d49,
                d50,
                d51,
                d52,
                d53,
                d54,
                d55,
                d56,
                d57,
                d58,
                d59,
                d60,
                d61,
                d62,
                d63,
            ) = wgmma_m64n128k16_f32_bf16(
                da, db, 1, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15,
                c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31,
                c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47,
                c48, c49, c50, c51, c52, c53, c54, c55, c56, c57, c58, c59, c60, c61, c62, c63,
            );
            c0 = d0;
            c1 = d1;
            c2 = d2;
            c3 = d3;
            c4 = d4;
            c5 = d5;
            c6 = d6;
            c7 = d7;
            c8 = d8;
            c9 = d9;
            c10 = d10;
            c11 = d11;
            c12 = d12;
            c13 = d13;
            c14 = d14;
            c15 = d15;
            c16 = d16;
            c17 = d17;
            c18 = d18;
            c19 = d19;
            c20 = d20;
            c21 = d21;
            c22 = d22;
            c23 = d23;
            c24 = d24;
            c25 = d25;
            c26 = d26;
            c27 = d27;
            c28 = d28;
            c29 = d29;
            c30 = d30;
            c31 = d31;
            c32 = d32;
            c33 = d33;
            c34 = d34;
            c35 = d35;
            c36 = d36;
            c37 = d37;
            c38 = d38;
            c39 = d39;
            c40 = d40;
            c41 = d41;
            c42 = d42;
            c43 = d43;
            c44 = d44;
            c45 = d45;
            c46 = d46;
            c47 = d47;
            c48 = d48;
            c49 = d49;
            c50 = d50;
            c51 = d51;
            c52 = d52;
            c53 = d53;
            c54 = d54;
            c55 = d55;
            c56 = d56;
            c57 = d57;
            c58 = d58;
            c59 = d59;
            c60 = d60;
            c61 = d61;
            c62 = d62;
            c63 = d63;
        }
        wgmma_commit_group();
        wgmma_wait_group_0();
        sync_threads();
        k0 += 64;
    }
    // Register i of thread t (in its warpgroup) is element (row, col) of the
    // warpgroup's 64 x 128 D: `proc::wgmma::acc_position`.
    let lane = t % 32;
    let row = row0 + 64 * wg + 16 * ((t % 128) / 32) + lane / 4;
    let col = col0 + 2 * (lane % 4);
    c[row * n + col + 0] = c0;
    c[row * n + col + 1] = c1;
    c[(row + 8) * n + col + 0] = c2;
    c[(row + 8) * n + col + 1] = c3;
    c[row * n + col + 8] = c4;
    c[row * n + col + 9] = c5;
    c[(row + 8) * n + col + 8] = c6;
    c[(row + 8) * n + col + 9] = c7;
    c[row * n + col + 16] = c8;
    c[row * n + col + 17] = c9;
    c[(row + 8) * n + col + 16] = c10;
    c[(row + 8) * n + col + 17] = c11;
    c[row * n + col + 24] = c12;
    c[row * n + col + 25] = c13;
    c[(row + 8) * n + col + 24] = c14;
    c[(row + 8) * n + col + 25] = c15;
    c[row * n + col + 32] = c16;
    c[row * n + col + 33] = c17;
    c[(row + 8) * n + col + 32] = c18;
    c[(row + 8) * n + col + 33] = c19;
    c[row * n + col + 40] = c20;
    c[row * n + col + 41] = c21;
    c[(row + 8) * n + col + 40] = c22;
    c[(row + 8) * n + col + 41] = c23;
    c[row * n + col + 48] = c24;
    c[row * n + col + 49] = c25;
    c[(row + 8) * n + col + 48] = c26;
    c[(row + 8) * n + col + 49] = c27;
    c[row * n + col + 56] = c28;
    c[row * n + col + 57] = c29;
    c[(row + 8) * n + col + 56] = c30;
    c[(row + 8) * n + col + 57] = c31;
    c[row * n + col + 64] = c32;
    c[row * n + col + 65] = c33;
    c[(row + 8) * n + col + 64] = c34;
    c[(row + 8) * n + col + 65] = c35;
    c[row * n + col + 72] = c36;
    c[row * n + col + 73] = c37;
    c[(row + 8) * n + col + 72] = c38;
    c[(row + 8) * n + col + 73] = c39;
    c[row * n + col + 80] = c40;
    c[row * n + col + 81] = c41;
    c[(row + 8) * n + col + 80] = c42;
    c[(row + 8) * n + col + 81] = c43;
    c[row * n + col + 88] = c44;
    c[row * n + col + 89] = c45;
    c[(row + 8) * n + col + 88] = c46;
    c[(row + 8) * n + col + 89] = c47;
    c[row * n + col + 96] = c48;
    c[row * n + col + 97] = c49;
    c[(row + 8) * n + col + 96] = c50;
    c[(row + 8) * n + col + 97] = c51;
    c[row * n + col + 104] = c52;
    c[row * n + col + 105] = c53;
    c[(row + 8) * n + col + 104] = c54;
    c[(row + 8) * n + col + 105] = c55;
    c[row * n + col + 112] = c56;
    c[row * n + col + 113] = c57;
    c[(row + 8) * n + col + 112] = c58;
    c[(row + 8) * n + col + 113] = c59;
    c[row * n + col + 120] = c60;
    c[row * n + col + 121] = c61;
    c[(row + 8) * n + col + 120] = c62;
    c[(row + 8) * n + col + 121] = c63;
}

/// The default device when it is sm_90 (an H100/H200, or the simulator), else `None`
/// after checking that a launch is an `Err` naming wgmma.
pub(super) fn hopper_device() -> Option<Device> {
    let device = Device::default().ok()?;
    if device.compute_capability() != (9, 0) {
        let (a, b) = (vec![bf16::ZERO; 128 * 64], vec![bf16::ZERO; 128 * 64]);
        let mut c = vec![0.0f32; 128 * 128];
        let err = launch!(wgmma_gemm[(1, 1), 256](&a, &b, &mut c, 128, 64)).unwrap_err();
        assert!(err.to_string().contains("wgmma"), "{err}");
        skip!(
            "wgmma needs sm_90a; this device is {:?}",
            device.compute_capability()
        );
        return None;
    }
    Some(device)
}

/// `a (m x k) * bt (n x k)ᵀ` in f64.
fn reference(a: &[f64], bt: &[f64], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * bt[j * k + p]).sum();
        }
    }
    c
}

pub(super) fn random_bf16(rng: &mut common::Rng, len: usize) -> Vec<bf16> {
    (0..len)
        .map(|_| bf16::from_f32(rng.f32_in(-1.0, 1.0)))
        .collect()
}

fn check_gemm(m: usize, n: usize, k: usize, seed: &str) {
    let mut rng = common::Rng::fresh(seed);
    let (a, bt) = (random_bf16(&mut rng, m * k), random_bf16(&mut rng, n * k));
    let mut c = vec![f32::NAN; m * n];
    launch!(wgmma_gemm[(n / 128, m / 128), 256](&a, &bt, &mut c, n, k)).unwrap();
    let wide = |v: &[bf16]| v.iter().map(|x| x.to_f64()).collect::<Vec<_>>();
    let want = reference(&wide(&a), &wide(&bt), m, n, k);
    // Products are exact; the GPU sums k of them (|x| < 1) with at least f32 precision
    // in its own order (`docs/hopper.md`, wgmma numerics).
    common::compare(seed, &c, &want, 1e-4 * (k as f64 / 64.0), 1e-5).unwrap();
}

#[test]
fn one_tile_wgmma_gemm_matches_the_f64_reference() {
    let Some(_device) = hopper_device() else {
        return;
    };
    check_gemm(128, 128, 128, "wgmma_one_tile");
}

#[test]
fn a_grid_of_warpgroup_tiles_matches_the_f64_reference() {
    let Some(device) = hopper_device() else {
        return;
    };
    let (m, n, k) = if device.is_simulator() {
        (256, 128, 64)
    } else {
        (1024, 768, 512)
    };
    check_gemm(m, n, k, "wgmma_grid");
}

/// A first timing of the (unpipelined, bounds-checked) wgmma GEMM at 8192³ bf16 on
/// device arrays, when `CUDAJIT_WGMMA_BENCH` is set on a GPU: the mean of 5 launches
/// after a warm-up, in TFLOP/s, and a check of a few entries (all inputs 0.5: every
/// entry is 0.25 k exactly).
#[test]
fn wgmma_gemm_8192_timing() {
    if std::env::var_os("CUDAJIT_WGMMA_BENCH").is_none() {
        skip!("set CUDAJIT_WGMMA_BENCH to time the 8192³ wgmma GEMM");
        return;
    }
    let Some(device) = hopper_device() else {
        return;
    };
    if device.is_simulator() {
        skip!("a timing on the simulator means nothing");
        return;
    }
    let n = 8192usize;
    let half = vec![bf16::from_f32(0.5); n * n];
    let a = DeviceArray::from_slice(&half).unwrap();
    let b = DeviceArray::from_slice(&half).unwrap();
    let mut c = DeviceArray::<f32>::zeros(n * n).unwrap();
    launch!(wgmma_gemm[(n / 128, n / 128), 256](&a, &b, &mut c, n, n)).unwrap();
    device.synchronize().unwrap();
    let runs = 5;
    let started = std::time::Instant::now();
    for _ in 0..runs {
        launch!(wgmma_gemm[(n / 128, n / 128), 256](&a, &b, &mut c, n, n)).unwrap();
    }
    device.synchronize().unwrap();
    let seconds = started.elapsed().as_secs_f64() / runs as f64;
    let tflops = 2.0 * (n as f64).powi(3) / seconds / 1e12;
    eprintln!(
        "wgmma_gemm 8192^3 bf16 (m64n128k16, 2 warpgroups, 1 stage, checked): {:.3} ms, {tflops:.1} TFLOP/s",
        seconds * 1e3
    );
    let c = c.to_host().unwrap();
    for i in [0, 12345, n * n / 2 + 77, n * n - 1] {
        assert_eq!(c[i], 0.25 * n as f32, "c[{i}]");
    }
}
