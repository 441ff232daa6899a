//! Tensor cores at register level (`mma_*`, `ldmatrix_*`), written once for the GPU
//! and the simulator: small GEMMs, one warp per output tile, on fresh random inputs
//! with poisoned outputs, against a CPU reference in f64 (exact for integers). Every
//! launch is whole warps. On a GPU below compute 8.0 the launch is an `Err` naming
//! tensor cores, which the tests accept as a skip.

use super::common;
use cudajit::prelude::*;

/// `c = a * b`: bf16 row-major `m x k` and `k x n`, f32 out; one warp per 16x8 tile
/// (grid `(n / 8, m / 16)`), staged through shared memory and loaded with `ldmatrix`.
#[kernel]
fn gemm_bf16(a: &[bf16], b: &[bf16], c: &mut [f32], n: usize, k: usize) {
    let sa = shared_array::<[bf16; 256]>();
    let sb = shared_array::<[bf16; 128]>();
    let l = lane_id() as usize;
    let row0 = block_idx().y as usize * 16;
    let col0 = block_idx().x as usize * 8;
    let q = l / 8;
    let r = l % 8;
    let mut c0 = 0.0f32;
    let mut c1 = 0.0f32;
    let mut c2 = 0.0f32;
    let mut c3 = 0.0f32;
    let mut k0 = 0;
    while k0 < k {
        for j in 0..8 {
            let e = l * 8 + j;
            sa[e] = a[(row0 + e / 16) * k + k0 + e % 16];
        }
        for j in 0..4 {
            let e = l * 4 + j;
            sb[e] = b[(k0 + e / 8) * n + col0 + e % 8];
        }
        sync_threads();
        let (a0, a1, a2, a3) = ldmatrix_x4(sa, (r + 8 * (q % 2)) * 16 + 8 * (q / 2));
        let (b0, b1) = ldmatrix_x2_trans(sb, (l % 16) * 8);
        let (d0, d1, d2, d3) = mma_m16n8k16_bf16_f32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
        c0 = d0;
        c1 = d1;
        c2 = d2;
        c3 = d3;
        sync_threads();
        k0 += 16;
    }
    // c0 c1 are (groupID, 2 threadID_in_group ..), c2 c3 eight rows below.
    let g = l / 4;
    let t = l % 4;
    c[(row0 + g) * n + col0 + 2 * t] = c0;
    c[(row0 + g) * n + col0 + 2 * t + 1] = c1;
    c[(row0 + g + 8) * n + col0 + 2 * t] = c2;
    c[(row0 + g + 8) * n + col0 + 2 * t + 1] = c3;
}

/// `c = a * b` in i8 with i32 accumulation: `a` is `m x k` row-major and `bt` is Bᵀ
/// (`n x k` row-major), both four i8 per `u32` word, so each register is one word.
#[kernel]
fn gemm_i8(a: &[u32], bt: &[u32], c: &mut [i32], n: usize, k: usize) {
    let l = lane_id() as usize;
    let g = l / 4;
    let t = l % 4;
    let row0 = block_idx().y as usize * 16;
    let col0 = block_idx().x as usize * 8;
    let kw = k / 4;
    let mut c0 = 0i32;
    let mut c1 = 0i32;
    let mut c2 = 0i32;
    let mut c3 = 0i32;
    let mut w = 0;
    while w < kw {
        let a0 = a[(row0 + g) * kw + w + t];
        let a1 = a[(row0 + g + 8) * kw + w + t];
        let a2 = a[(row0 + g) * kw + w + 4 + t];
        let a3 = a[(row0 + g + 8) * kw + w + 4 + t];
        let b0 = bt[(col0 + g) * kw + w + t];
        let b1 = bt[(col0 + g) * kw + w + 4 + t];
        let (d0, d1, d2, d3) = mma_m16n8k32_i8_i32(a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
        c0 = d0;
        c1 = d1;
        c2 = d2;
        c3 = d3;
        w += 8;
    }
    c[(row0 + g) * n + col0 + 2 * t] = c0;
    c[(row0 + g) * n + col0 + 2 * t + 1] = c1;
    c[(row0 + g + 8) * n + col0 + 2 * t] = c2;
    c[(row0 + g + 8) * n + col0 + 2 * t + 1] = c3;
}

/// `c = a * b` in f64 with DMMA (m8n8k4): one warp per 8x8 tile.
#[kernel]
fn dgemm(a: &[f64], b: &[f64], c: &mut [f64], n: usize, k: usize) {
    let l = lane_id() as usize;
    let g = l / 4;
    let t = l % 4;
    let row0 = block_idx().y as usize * 8;
    let col0 = block_idx().x as usize * 8;
    let mut c0 = 0.0f64;
    let mut c1 = 0.0f64;
    let mut k0 = 0;
    while k0 < k {
        let (d0, d1) = mma_m8n8k4_f64_f64(
            a[(row0 + g) * k + k0 + t],
            b[(k0 + t) * n + col0 + g],
            c0,
            c1,
        );
        c0 = d0;
        c1 = d1;
        k0 += 4;
    }
    c[(row0 + g) * n + col0 + 2 * t] = c0;
    c[(row0 + g) * n + col0 + 2 * t + 1] = c1;
}

/// The default device, or `None` (after saying why) where it has no tensor cores.
pub(super) fn tensor_core_device() -> Option<Device> {
    let device = Device::default().ok()?;
    if device.compute_capability().0 < 8 {
        skip!("tensor cores need compute capability 8.0");
        return None;
    }
    Some(device)
}

/// Row-major `rows x cols` product of `a` (`rows x k`) and `b` (`k x cols`) in f64.
pub(super) fn reference(a: &[f64], b: &[f64], rows: usize, cols: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            c[i * cols + j] = (0..k).map(|p| a[i * k + p] * b[p * cols + j]).sum();
        }
    }
    c
}

#[test]
fn bf16_gemm_through_ldmatrix_matches_the_f64_reference() {
    let Some(_device) = tensor_core_device() else {
        return;
    };
    let (m, n, k) = (64, 48, 96);
    let mut rng = common::Rng::fresh("bf16_gemm");
    let a: Vec<bf16> = (0..m * k)
        .map(|_| bf16::from_f32(rng.f32_in(-1.0, 1.0)))
        .collect();
    let b: Vec<bf16> = (0..k * n)
        .map(|_| bf16::from_f32(rng.f32_in(-1.0, 1.0)))
        .collect();
    let mut c = vec![f32::NAN; m * n];
    launch!(gemm_bf16[(n / 8, m / 16), 32](&a, &b, &mut c, n, k)).unwrap();
    let wide = |v: &[bf16]| v.iter().map(|x| x.to_f64()).collect::<Vec<_>>();
    let want = reference(&wide(&a), &wide(&b), m, n, k);
    // Products are exact; the GPU sums 96 of them (|x| < 1) in f32 in its own order.
    common::compare("bf16 gemm", &c, &want, 1e-4, 1e-5).unwrap();
}

#[test]
fn i8_gemm_is_bit_exact() {
    let Some(_device) = tensor_core_device() else {
        return;
    };
    let (m, n, k) = (32, 24, 128);
    let mut rng = common::Rng::fresh("i8_gemm");
    let a: Vec<i8> = (0..m * k).map(|_| rng.next_u64() as i8).collect();
    let bt: Vec<i8> = (0..n * k).map(|_| rng.next_u64() as i8).collect();
    let words = |v: &[i8]| -> Vec<u32> {
        v.chunks(4)
            .map(|w| u32::from_le_bytes([w[0] as u8, w[1] as u8, w[2] as u8, w[3] as u8]))
            .collect()
    };
    let mut c = vec![i32::MIN; m * n];
    launch!(gemm_i8[(n / 8, m / 16), 32](&words(&a), &words(&bt), &mut c, n, k)).unwrap();
    for i in 0..m {
        for j in 0..n {
            let want: i32 = (0..k)
                .map(|p| a[i * k + p] as i32 * bt[j * k + p] as i32)
                .sum();
            assert_eq!(c[i * n + j], want, "({i}, {j})");
        }
    }
}

#[test]
fn dmma_gemm_matches_the_f64_reference() {
    let Some(_device) = tensor_core_device() else {
        return;
    };
    let (m, n, k) = (24, 16, 64);
    let mut rng = common::Rng::fresh("dgemm");
    let a: Vec<f64> = (0..m * k).map(|_| rng.f64_in(-1.0, 1.0)).collect();
    let b: Vec<f64> = (0..k * n).map(|_| rng.f64_in(-1.0, 1.0)).collect();
    let mut c = vec![f64::NAN; m * n];
    launch!(dgemm[(n / 8, m / 8), 32](&a, &b, &mut c, n, k)).unwrap();
    let want = reference(&a, &b, m, n, k);
    for (i, (got, want)) in c.iter().zip(&want).enumerate() {
        assert!((got - want).abs() <= 1e-13, "element {i}: {got} vs {want}");
    }
}
