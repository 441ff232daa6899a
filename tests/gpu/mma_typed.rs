//! The typed tensor-core API (`FragA`/`FragB`/`Acc`, `mma_sync`, `load_row`,
//! `ldmatrix_*`, `row_col`) in kernels, written once for the GPU and the simulator: a
//! small GEMM per `mma.sync` combination (one warp per output tile, fragments loaded
//! from global memory with one bounds check each) and a 4-warp bf16 GEMM through
//! shared memory with `ldmatrix.x4` and a `row_col` epilogue; fresh random inputs,
//! poisoned outputs, an f64 CPU reference (exact for integers). Below compute 8.0 the
//! tests skip.

use super::common;
use cudajit::prelude::*;

// One kernel per combination: `c = a * b` (row-major `m x k`, `k x n`, `m x n`),
// block (x, y) computing the `M x N` tile at (y M, x N).

#[kernel]
fn gemm_bf16_f32(a: &[bf16], b: &[bf16], c: &mut [f32], n: usize, k: usize) {
    let (row0, col0) = (block_idx().y as usize * 16, block_idx().x as usize * 8);
    let mut acc = Acc::<M16N8K16, f32>::zero();
    let mut k0 = 0;
    while k0 < k {
        let fa = FragA::<M16N8K16, bf16>::load_row(a, k, row0, k0);
        let fb = FragB::<M16N8K16, bf16>::load_row(b, n, k0, col0);
        mma_sync(&fa, &fb, &mut acc);
        k0 += 16;
    }
    acc.store_row(c, n, row0, col0);
}

#[kernel]
fn gemm_f16_f32(a: &[f16], b: &[f16], c: &mut [f32], n: usize, k: usize) {
    let (row0, col0) = (block_idx().y as usize * 16, block_idx().x as usize * 8);
    let mut acc = Acc::<M16N8K16, f32>::zero();
    let mut k0 = 0;
    while k0 < k {
        let fa = FragA::<M16N8K16, f16>::load_row(a, k, row0, k0);
        let fb = FragB::<M16N8K16, f16>::load_row(b, n, k0, col0);
        mma_sync(&fa, &fb, &mut acc);
        k0 += 16;
    }
    acc.store_row(c, n, row0, col0);
}

#[kernel]
fn gemm_f16_f16(a: &[f16], b: &[f16], c: &mut [f16], n: usize, k: usize) {
    let (row0, col0) = (block_idx().y as usize * 16, block_idx().x as usize * 8);
    let mut acc = Acc::<M16N8K16, f16>::zero();
    let mut k0 = 0;
    while k0 < k {
        let fa = FragA::<M16N8K16, f16>::load_row(a, k, row0, k0);
        let fb = FragB::<M16N8K16, f16>::load_col(b, k, k0, col0);
        mma_sync(&fa, &fb, &mut acc);
        k0 += 16;
    }
    acc.store_row(c, n, row0, col0);
}

#[kernel]
fn gemm_tf32_f32(a: &[f32], b: &[f32], c: &mut [f32], n: usize, k: usize) {
    let (row0, col0) = (block_idx().y as usize * 16, block_idx().x as usize * 8);
    let mut acc = Acc::<M16N8K8, f32>::zero();
    let mut k0 = 0;
    while k0 < k {
        let mut fa = FragA::<M16N8K8, tf32>::load_row(a, k, row0, k0);
        for i in 0..fa.len() {
            fa[i] = to_tf32(fa[i]);
        }
        let fb = FragB::<M16N8K8, tf32>::load_row(b, n, k0, col0);
        mma_sync(&fa, &fb, &mut acc);
        k0 += 8;
    }
    acc.store_row(c, n, row0, col0);
}

#[kernel]
fn gemm_f64_f64(a: &[f64], b: &[f64], c: &mut [f64], n: usize, k: usize) {
    let (row0, col0) = (block_idx().y as usize * 8, block_idx().x as usize * 8);
    let mut acc = Acc::<M8N8K4, f64>::zero();
    let mut k0 = 0;
    while k0 < k {
        let fa = FragA::<M8N8K4, f64>::load_row(a, k, row0, k0);
        let fb = FragB::<M8N8K4, f64>::load_row(b, n, k0, col0);
        mma_sync(&fa, &fb, &mut acc);
        k0 += 4;
    }
    acc.store_row(c, n, row0, col0);
}

#[kernel]
fn gemm_i8_i32(a: &[i8], b: &[i8], c: &mut [i32], n: usize, k: usize) {
    let (row0, col0) = (block_idx().y as usize * 16, block_idx().x as usize * 8);
    let mut acc = Acc::<M16N8K32, i32>::zero();
    let mut k0 = 0;
    while k0 < k {
        let fa = FragA::<M16N8K32, i8>::load_row(a, k, row0, k0);
        let fb = FragB::<M16N8K32, i8>::load_row(b, n, k0, col0);
        mma_sync(&fa, &fb, &mut acc);
        k0 += 32;
    }
    acc.store_col(c, 64, row0, col0);
}

#[kernel]
fn gemm_u8_i32(a: &[u8], b: &[u8], c: &mut [i32], n: usize, k: usize) {
    let (row0, col0) = (block_idx().y as usize * 16, block_idx().x as usize * 8);
    let mut acc = Acc::<M16N8K32, i32>::zero();
    let mut k0 = 0;
    while k0 < k {
        let fa = FragA::<M16N8K32, u8>::load_row(a, k, row0, k0);
        let fb = FragB::<M16N8K32, u8>::load_row(b, n, k0, col0);
        mma_sync(&fa, &fb, &mut acc);
        k0 += 32;
    }
    acc.store_row(c, n, row0, col0);
}

/// `c = alpha * a * b` in bf16 with f32 accumulation: 4 warps per 32x32 block tile,
/// each a 16x16 sub-tile; A (32x16) and B (16x32) staged in shared memory per k step,
/// A by `ldmatrix.x4`, B as an n16 pair by `ldmatrix.x4.trans`; the epilogue places
/// each accumulator element by `row_col`.
#[kernel]
fn gemm_ldmatrix(a: &[bf16], b: &[bf16], c: &mut [f32], n: usize, k: usize, alpha: f32) {
    let sa = shared_array::<[bf16; 512]>();
    let sb = shared_array::<[bf16; 512]>();
    let tid = thread_idx().x as usize;
    let warp = tid / 32;
    let (wm, wn) = (warp / 2, warp % 2);
    let (row0, col0) = (block_idx().y as usize * 32, block_idx().x as usize * 32);
    let mut acc = [Acc::<M16N8K16, f32>::zero(); 2];
    let mut k0 = 0;
    while k0 < k {
        for j in 0..4 {
            let e = tid * 4 + j;
            sa[e] = a[(row0 + e / 16) * k + k0 + e % 16];
            sb[e] = b[(k0 + e / 32) * n + col0 + e % 32];
        }
        sync_threads();
        let fa = FragA::<M16N8K16, bf16>::ldmatrix_row(sa, 16, 16 * wm, 0);
        let (b_lo, b_hi) = FragB::<M16N8K16, bf16>::ldmatrix_pair_row(sb, 32, 0, 16 * wn);
        mma_sync(&fa, &b_lo, &mut acc[0]);
        mma_sync(&fa, &b_hi, &mut acc[1]);
        sync_threads();
        k0 += 16;
    }
    for h in 0..2 {
        for i in 0..acc[h].len() {
            let (r, col) = acc[h].row_col(i);
            c[(row0 + 16 * wm + r) * n + col0 + 16 * wn + 8 * h + col] = alpha * acc[h][i];
        }
    }
}

use super::mma::reference as product;

const M: usize = 32;
const N: usize = 16;
const K: usize = 64;

fn floats(rng: &mut common::Rng, len: usize) -> Vec<f64> {
    (0..len).map(|_| rng.f64_in(-1.0, 1.0)).collect()
}

#[test]
fn half_inputs_match_the_f64_reference() {
    let Some(_device) = super::mma::tensor_core_device() else {
        return;
    };
    let mut rng = common::Rng::fresh("typed half gemm");
    let a: Vec<bf16> = floats(&mut rng, M * K)
        .iter()
        .map(|&x| bf16::from_f64(x))
        .collect();
    let b: Vec<bf16> = floats(&mut rng, K * N)
        .iter()
        .map(|&x| bf16::from_f64(x))
        .collect();
    let want = product(
        &a.iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
        &b.iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
        M,
        N,
        K,
    );
    let mut c = vec![f32::NAN; M * N];
    launch!(gemm_bf16_f32[(N / 8, M / 16), 32](&a, &b, &mut c, N, K)).unwrap();
    common::compare("typed bf16 gemm", &c, &want, 1e-4, 1e-5).unwrap();

    let a: Vec<f16> = floats(&mut rng, M * K)
        .iter()
        .map(|&x| f16::from_f64(x))
        .collect();
    let b: Vec<f16> = floats(&mut rng, K * N)
        .iter()
        .map(|&x| f16::from_f64(x))
        .collect();
    let (a64, b64): (Vec<f64>, Vec<f64>) = (
        a.iter().map(|x| x.to_f64()).collect(),
        b.iter().map(|x| x.to_f64()).collect(),
    );
    let want = product(&a64, &b64, M, N, K);
    let mut c = vec![f32::NAN; M * N];
    launch!(gemm_f16_f32[(N / 8, M / 16), 32](&a, &b, &mut c, N, K)).unwrap();
    common::compare("typed f16 gemm", &c, &want, 1e-4, 1e-5).unwrap();

    // f16 accumulation, B given column-major (`load_col`): rounding of each partial
    // sum to f16 bounds the error by about K ulps of f16.
    let bt: Vec<f16> = (0..N * K).map(|i| b[(i % K) * N + i / K]).collect();
    let mut c = vec![f16::NAN; M * N];
    launch!(gemm_f16_f16[(N / 8, M / 16), 32](&a, &bt, &mut c, N, K)).unwrap();
    let c32: Vec<f32> = c.iter().map(|x| x.to_f32()).collect();
    common::compare("typed f16-accumulator gemm", &c32, &want, 2e-2, 1e-2).unwrap();
}

#[test]
fn tf32_and_dmma_match_the_f64_reference() {
    let Some(_device) = super::mma::tensor_core_device() else {
        return;
    };
    let mut rng = common::Rng::fresh("typed tf32 and f64 gemm");
    let a: Vec<f32> = floats(&mut rng, M * K).iter().map(|&x| x as f32).collect();
    // B pre-rounded on the host, A rounded in the kernel by `to_tf32`.
    let b: Vec<f32> = floats(&mut rng, K * N)
        .iter()
        .map(|&x| to_tf32(x as f32))
        .collect();
    let want = product(
        &a.iter().map(|&x| to_tf32(x) as f64).collect::<Vec<_>>(),
        &b.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        M,
        N,
        K,
    );
    let mut c = vec![f32::NAN; M * N];
    launch!(gemm_tf32_f32[(N / 8, M / 16), 32](&a, &b, &mut c, N, K)).unwrap();
    common::compare("typed tf32 gemm", &c, &want, 1e-4, 1e-5).unwrap();

    let a = floats(&mut rng, M * K);
    let b = floats(&mut rng, K * N);
    let want = product(&a, &b, M, N, K);
    let mut c = vec![f64::NAN; M * N];
    launch!(gemm_f64_f64[(N / 8, M / 8), 32](&a, &b, &mut c, N, K)).unwrap();
    for (i, (&got, &w)) in c.iter().zip(&want).enumerate() {
        assert!(
            (got - w).abs() <= 1e-12 * (1.0 + w.abs()),
            "dmma {i}: {got} vs {w}"
        );
    }
}

#[test]
fn integer_mma_is_bit_exact() {
    let Some(_device) = super::mma::tensor_core_device() else {
        return;
    };
    let mut rng = common::Rng::fresh("typed int8 gemm");
    let a: Vec<i8> = (0..M * K).map(|_| rng.below(256) as u8 as i8).collect();
    let b: Vec<i8> = (0..K * N).map(|_| rng.below(256) as u8 as i8).collect();
    let want = product(
        &a.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        &b.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        M,
        N,
        K,
    );
    // Stored column-major with leading dimension 64 (`store_col`).
    let mut c = vec![i32::MIN; 64 * N];
    launch!(gemm_i8_i32[(N / 8, M / 16), 32](&a, &b, &mut c, N, K)).unwrap();
    for r in 0..M {
        for col in 0..N {
            assert_eq!(c[col * 64 + r] as f64, want[r * N + col], "i8 ({r}, {col})");
        }
    }
    let a: Vec<u8> = (0..M * K).map(|_| rng.below(256) as u8).collect();
    let b: Vec<u8> = (0..K * N).map(|_| rng.below(256) as u8).collect();
    let want = product(
        &a.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        &b.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        M,
        N,
        K,
    );
    let mut c = vec![i32::MIN; M * N];
    launch!(gemm_u8_i32[(N / 8, M / 16), 32](&a, &b, &mut c, N, K)).unwrap();
    let got: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    assert_eq!(got, want, "u8");
}

#[test]
fn a_four_warp_ldmatrix_gemm_with_a_row_col_epilogue_matches() {
    let Some(_device) = super::mma::tensor_core_device() else {
        return;
    };
    let mut rng = common::Rng::fresh("typed ldmatrix gemm");
    let (m, n, k) = (64, 64, 48);
    let a: Vec<bf16> = floats(&mut rng, m * k)
        .iter()
        .map(|&x| bf16::from_f64(x))
        .collect();
    let b: Vec<bf16> = floats(&mut rng, k * n)
        .iter()
        .map(|&x| bf16::from_f64(x))
        .collect();
    let alpha = 0.5f32;
    let want: Vec<f64> = product(
        &a.iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
        &b.iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
        m,
        n,
        k,
    )
    .iter()
    .map(|x| x * alpha as f64)
    .collect();
    let mut c = vec![f32::NAN; m * n];
    launch!(gemm_ldmatrix[(n / 32, m / 32), 128](&a, &b, &mut c, n, k, alpha)).unwrap();
    common::compare("typed ldmatrix gemm", &c, &want, 1e-4, 1e-5).unwrap();
}
