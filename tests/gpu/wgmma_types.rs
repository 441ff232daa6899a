//! The tf32 and 8-bit integer wgmmas, written once for the GPU and the simulator: one
//! warpgroup computes `c (64 x N) = a btᵀ` with A and B K-major in 128B-swizzled shared
//! tiles (K one 128-byte row: 32 tf32 or 128 bytes), or a tf32 A from registers where
//! the PTX ISA's fragment puts it; fresh random inputs, poisoned outputs, against an
//! f64 reference of the truncated tf32 inputs and an exact i64 one for the integers.

use super::common;
use super::wgmma::hopper_device;
use cudajit::prelude::*;

/// tf32, A and B from shared tiles, N = 32.
#[kernel]
fn tf32_gemm_n32(a: &[f32], bt: &[f32], c: &mut [f32]) {
    let ta = shared_array::<[f32; 2048]>();
    let tb = shared_array::<[f32; 1024]>();
    let t = thread_idx().x as usize;
    for q in 0..16 {
        let e = t * 16 + q;
        let (m, kk) = (e / 32, e % 32);
        ta[m * 32 + ((kk / 4) ^ (m % 8)) * 4 + kk % 4] = a[e];
    }
    for q in 0..8 {
        let e = t * 8 + q;
        let (nn, kk) = (e / 32, e % 32);
        tb[nn * 32 + ((kk / 4) ^ (nn % 8)) * 4 + kk % 4] = bt[e];
    }
    fence_proxy_async();
    sync_threads();
    let row = 16 * (t / 32) + (t % 32) / 4;
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
    wgmma_fence();
    for ks in 0..4 {
        let db = wgmma_descriptor(tb, ks * 8, 128, 0, 1024);
        let (d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15) =
            wgmma_m64n32k8_f32_tf32(
                wgmma_descriptor(ta, ks * 8, 128, 0, 1024),
                db,
                1,
                c0,
                c1,
                c2,
                c3,
                c4,
                c5,
                c6,
                c7,
                c8,
                c9,
                c10,
                c11,
                c12,
                c13,
                c14,
                c15,
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
    }
    wgmma_commit_group();
    wgmma_wait_group_0();
    let col = 2 * (t % 4);
    c[row * 32 + col + 0] = c0;
    c[row * 32 + col + 1] = c1;
    c[(row + 8) * 32 + col + 0] = c2;
    c[(row + 8) * 32 + col + 1] = c3;
    c[row * 32 + col + 8] = c4;
    c[row * 32 + col + 9] = c5;
    c[(row + 8) * 32 + col + 8] = c6;
    c[(row + 8) * 32 + col + 9] = c7;
    c[row * 32 + col + 16] = c8;
    c[row * 32 + col + 17] = c9;
    c[(row + 8) * 32 + col + 16] = c10;
    c[(row + 8) * 32 + col + 17] = c11;
    c[row * 32 + col + 24] = c12;
    c[row * 32 + col + 25] = c13;
    c[(row + 8) * 32 + col + 24] = c14;
    c[(row + 8) * 32 + col + 25] = c15;
}

/// tf32, A from registers, N = 16.
#[kernel]
fn tf32_rs_gemm_n16(a: &[f32], bt: &[f32], c: &mut [f32]) {
    let tb = shared_array::<[f32; 512]>();
    let t = thread_idx().x as usize;
    for q in 0..4 {
        let e = t * 4 + q;
        let (nn, kk) = (e / 32, e % 32);
        tb[nn * 32 + ((kk / 4) ^ (nn % 8)) * 4 + kk % 4] = bt[e];
    }
    fence_proxy_async();
    sync_threads();
    let row = 16 * (t / 32) + (t % 32) / 4;
    let mut c0 = 0.0f32;
    let mut c1 = 0.0f32;
    let mut c2 = 0.0f32;
    let mut c3 = 0.0f32;
    let mut c4 = 0.0f32;
    let mut c5 = 0.0f32;
    let mut c6 = 0.0f32;
    let mut c7 = 0.0f32;
    wgmma_fence();
    for ks in 0..4 {
        // The PTX ISA's tf32 A fragment: rows `lane / 4` and `+ 8`, columns
        // `lane % 4` and `+ 4` of each 8 of K; one f32 (its bits) a register.
        let top = row * 32 + 8 * ks + t % 4;
        let bottom = top + 8 * 32;
        let db = wgmma_descriptor(tb, ks * 8, 128, 0, 1024);
        let (d0, d1, d2, d3, d4, d5, d6, d7) = wgmma_m64n16k8_f32_tf32_rs(
            a[top].to_bits(),
            a[bottom].to_bits(),
            a[top + 4].to_bits(),
            a[bottom + 4].to_bits(),
            db,
            1,
            c0,
            c1,
            c2,
            c3,
            c4,
            c5,
            c6,
            c7,
        );
        c0 = d0;
        c1 = d1;
        c2 = d2;
        c3 = d3;
        c4 = d4;
        c5 = d5;
        c6 = d6;
        c7 = d7;
    }
    wgmma_commit_group();
    wgmma_wait_group_0();
    let col = 2 * (t % 4);
    c[row * 16 + col + 0] = c0;
    c[row * 16 + col + 1] = c1;
    c[(row + 8) * 16 + col + 0] = c2;
    c[(row + 8) * 16 + col + 1] = c3;
    c[row * 16 + col + 8] = c4;
    c[row * 16 + col + 9] = c5;
    c[(row + 8) * 16 + col + 8] = c6;
    c[(row + 8) * 16 + col + 9] = c7;
}

/// i8 A, u8 B, N = 32.
#[kernel]
fn i8_u8_gemm_n32(a: &[i8], bt: &[u8], c: &mut [i32]) {
    let ta = shared_array::<[i8; 8192]>();
    let tb = shared_array::<[u8; 4096]>();
    let t = thread_idx().x as usize;
    for q in 0..64 {
        let e = t * 64 + q;
        let (m, kk) = (e / 128, e % 128);
        ta[m * 128 + ((kk / 16) ^ (m % 8)) * 16 + kk % 16] = a[e];
    }
    for q in 0..32 {
        let e = t * 32 + q;
        let (nn, kk) = (e / 128, e % 128);
        tb[nn * 128 + ((kk / 16) ^ (nn % 8)) * 16 + kk % 16] = bt[e];
    }
    fence_proxy_async();
    sync_threads();
    let row = 16 * (t / 32) + (t % 32) / 4;
    let mut c0 = 0i32;
    let mut c1 = 0i32;
    let mut c2 = 0i32;
    let mut c3 = 0i32;
    let mut c4 = 0i32;
    let mut c5 = 0i32;
    let mut c6 = 0i32;
    let mut c7 = 0i32;
    let mut c8 = 0i32;
    let mut c9 = 0i32;
    let mut c10 = 0i32;
    let mut c11 = 0i32;
    let mut c12 = 0i32;
    let mut c13 = 0i32;
    let mut c14 = 0i32;
    let mut c15 = 0i32;
    wgmma_fence();
    for ks in 0..4 {
        let db = wgmma_descriptor(tb, ks * 32, 128, 0, 1024);
        let (d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15) =
            wgmma_m64n32k32_i32_i8_u8(
                wgmma_descriptor(ta, ks * 32, 128, 0, 1024),
                db,
                1,
                c0,
                c1,
                c2,
                c3,
                c4,
                c5,
                c6,
                c7,
                c8,
                c9,
                c10,
                c11,
                c12,
                c13,
                c14,
                c15,
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
    }
    wgmma_commit_group();
    wgmma_wait_group_0();
    let col = 2 * (t % 4);
    c[row * 32 + col + 0] = c0;
    c[row * 32 + col + 1] = c1;
    c[(row + 8) * 32 + col + 0] = c2;
    c[(row + 8) * 32 + col + 1] = c3;
    c[row * 32 + col + 8] = c4;
    c[row * 32 + col + 9] = c5;
    c[(row + 8) * 32 + col + 8] = c6;
    c[(row + 8) * 32 + col + 9] = c7;
    c[row * 32 + col + 16] = c8;
    c[row * 32 + col + 17] = c9;
    c[(row + 8) * 32 + col + 16] = c10;
    c[(row + 8) * 32 + col + 17] = c11;
    c[row * 32 + col + 24] = c12;
    c[row * 32 + col + 25] = c13;
    c[(row + 8) * 32 + col + 24] = c14;
    c[(row + 8) * 32 + col + 25] = c15;
}

/// u8 A, i8 B, N = 16.
#[kernel]
fn u8_i8_gemm_n16(a: &[u8], bt: &[i8], c: &mut [i32]) {
    let ta = shared_array::<[u8; 8192]>();
    let tb = shared_array::<[i8; 2048]>();
    let t = thread_idx().x as usize;
    for q in 0..64 {
        let e = t * 64 + q;
        let (m, kk) = (e / 128, e % 128);
        ta[m * 128 + ((kk / 16) ^ (m % 8)) * 16 + kk % 16] = a[e];
    }
    for q in 0..16 {
        let e = t * 16 + q;
        let (nn, kk) = (e / 128, e % 128);
        tb[nn * 128 + ((kk / 16) ^ (nn % 8)) * 16 + kk % 16] = bt[e];
    }
    fence_proxy_async();
    sync_threads();
    let row = 16 * (t / 32) + (t % 32) / 4;
    let mut c0 = 0i32;
    let mut c1 = 0i32;
    let mut c2 = 0i32;
    let mut c3 = 0i32;
    let mut c4 = 0i32;
    let mut c5 = 0i32;
    let mut c6 = 0i32;
    let mut c7 = 0i32;
    wgmma_fence();
    for ks in 0..4 {
        let db = wgmma_descriptor(tb, ks * 32, 128, 0, 1024);
        let (d0, d1, d2, d3, d4, d5, d6, d7) = wgmma_m64n16k32_i32_u8_i8(
            wgmma_descriptor(ta, ks * 32, 128, 0, 1024),
            db,
            1,
            c0,
            c1,
            c2,
            c3,
            c4,
            c5,
            c6,
            c7,
        );
        c0 = d0;
        c1 = d1;
        c2 = d2;
        c3 = d3;
        c4 = d4;
        c5 = d5;
        c6 = d6;
        c7 = d7;
    }
    wgmma_commit_group();
    wgmma_wait_group_0();
    let col = 2 * (t % 4);
    c[row * 16 + col + 0] = c0;
    c[row * 16 + col + 1] = c1;
    c[(row + 8) * 16 + col + 0] = c2;
    c[(row + 8) * 16 + col + 1] = c3;
    c[row * 16 + col + 8] = c4;
    c[row * 16 + col + 9] = c5;
    c[(row + 8) * 16 + col + 8] = c6;
    c[(row + 8) * 16 + col + 9] = c7;
}

/// i8 A and B, N = 64.
#[kernel]
fn i8_i8_gemm_n64(a: &[i8], bt: &[i8], c: &mut [i32]) {
    let ta = shared_array::<[i8; 8192]>();
    let tb = shared_array::<[i8; 8192]>();
    let t = thread_idx().x as usize;
    for q in 0..64 {
        let e = t * 64 + q;
        let (m, kk) = (e / 128, e % 128);
        ta[m * 128 + ((kk / 16) ^ (m % 8)) * 16 + kk % 16] = a[e];
    }
    for q in 0..64 {
        let e = t * 64 + q;
        let (nn, kk) = (e / 128, e % 128);
        tb[nn * 128 + ((kk / 16) ^ (nn % 8)) * 16 + kk % 16] = bt[e];
    }
    fence_proxy_async();
    sync_threads();
    let row = 16 * (t / 32) + (t % 32) / 4;
    let mut c0 = 0i32;
    let mut c1 = 0i32;
    let mut c2 = 0i32;
    let mut c3 = 0i32;
    let mut c4 = 0i32;
    let mut c5 = 0i32;
    let mut c6 = 0i32;
    let mut c7 = 0i32;
    let mut c8 = 0i32;
    let mut c9 = 0i32;
    let mut c10 = 0i32;
    let mut c11 = 0i32;
    let mut c12 = 0i32;
    let mut c13 = 0i32;
    let mut c14 = 0i32;
    let mut c15 = 0i32;
    let mut c16 = 0i32;
    let mut c17 = 0i32;
    let mut c18 = 0i32;
    let mut c19 = 0i32;
    let mut c20 = 0i32;
    let mut c21 = 0i32;
    let mut c22 = 0i32;
    let mut c23 = 0i32;
    let mut c24 = 0i32;
    let mut c25 = 0i32;
    let mut c26 = 0i32;
    let mut c27 = 0i32;
    let mut c28 = 0i32;
    let mut c29 = 0i32;
    let mut c30 = 0i32;
    let mut c31 = 0i32;
    wgmma_fence();
    for ks in 0..4 {
        let db = wgmma_descriptor(tb, ks * 32, 128, 0, 1024);
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
        ) = wgmma_m64n64k32_i32_i8_i8(
            wgmma_descriptor(ta, ks * 32, 128, 0, 1024),
            db,
            1,
            c0,
            c1,
            c2,
            c3,
            c4,
            c5,
            c6,
            c7,
            c8,
            c9,
            c10,
            c11,
            c12,
            c13,
            c14,
            c15,
            c16,
            c17,
            c18,
            c19,
            c20,
            c21,
            c22,
            c23,
            c24,
            c25,
            c26,
            c27,
            c28,
            c29,
            c30,
            c31,
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
    }
    wgmma_commit_group();
    wgmma_wait_group_0();
    let col = 2 * (t % 4);
    c[row * 64 + col + 0] = c0;
    c[row * 64 + col + 1] = c1;
    c[(row + 8) * 64 + col + 0] = c2;
    c[(row + 8) * 64 + col + 1] = c3;
    c[row * 64 + col + 8] = c4;
    c[row * 64 + col + 9] = c5;
    c[(row + 8) * 64 + col + 8] = c6;
    c[(row + 8) * 64 + col + 9] = c7;
    c[row * 64 + col + 16] = c8;
    c[row * 64 + col + 17] = c9;
    c[(row + 8) * 64 + col + 16] = c10;
    c[(row + 8) * 64 + col + 17] = c11;
    c[row * 64 + col + 24] = c12;
    c[row * 64 + col + 25] = c13;
    c[(row + 8) * 64 + col + 24] = c14;
    c[(row + 8) * 64 + col + 25] = c15;
    c[row * 64 + col + 32] = c16;
    c[row * 64 + col + 33] = c17;
    c[(row + 8) * 64 + col + 32] = c18;
    c[(row + 8) * 64 + col + 33] = c19;
    c[row * 64 + col + 40] = c20;
    c[row * 64 + col + 41] = c21;
    c[(row + 8) * 64 + col + 40] = c22;
    c[(row + 8) * 64 + col + 41] = c23;
    c[row * 64 + col + 48] = c24;
    c[row * 64 + col + 49] = c25;
    c[(row + 8) * 64 + col + 48] = c26;
    c[(row + 8) * 64 + col + 49] = c27;
    c[row * 64 + col + 56] = c28;
    c[row * 64 + col + 57] = c29;
    c[(row + 8) * 64 + col + 56] = c30;
    c[(row + 8) * 64 + col + 57] = c31;
}

/// The tf32 value the tensor core reads of an f32 (its top 19 bits: the low 13 are
/// dropped) and, to name the other candidate when a result differs, the f32 rounded
/// to nearest tf32 instead.
fn truncated(x: f32) -> f64 {
    f64::from(f32::from_bits(x.to_bits() & !0x1fff))
}

fn rounded(x: f32) -> f64 {
    f64::from(f32::from_bits(x.to_bits().wrapping_add(0x1000) & !0x1fff))
}

/// Runs a tf32 kernel (A from registers or not) on fresh unrounded f32 inputs and
/// compares with the f64 products of the truncated inputs.
fn check_tf32(n: usize, registers: bool, seed: &str) {
    let mut rng = common::Rng::fresh(seed);
    let a = rng.vec_f32(64 * 32, -1.0, 1.0);
    let bt = rng.vec_f32(n * 32, -1.0, 1.0);
    let mut c = vec![f32::NAN; 64 * n];
    if registers {
        launch!(tf32_rs_gemm_n16[1, 128](&a, &bt, &mut c))
    } else {
        launch!(tf32_gemm_n32[1, 128](&a, &bt, &mut c))
    }
    .unwrap();
    let reference = |read: fn(f32) -> f64| -> Vec<f64> {
        (0..64 * n)
            .map(|i| {
                let (r, j) = (i / n, i % n);
                (0..32)
                    .map(|k| read(a[r * 32 + k]) * read(bt[j * 32 + k]))
                    .sum()
            })
            .collect()
    };
    // The f32 sum of 32 products (|x| < 1) differs from f64 by well under 1e-4; the
    // truncated and rounded inputs' sums differ by about 1e-3.
    if let Err(e) = common::compare(seed, &c, &reference(truncated), 1e-4, 1e-5) {
        let nearest = common::compare(seed, &c, &reference(rounded), 1e-4, 1e-5);
        panic!("{e}\nagainst round-to-nearest tf32 inputs instead: {nearest:?}");
    }
}

#[test]
fn tf32_wgmma_from_shared_tiles_matches_the_f64_reference_at_n32() {
    if hopper_device().is_some() {
        check_tf32(32, false, "wgmma_tf32_n32");
    }
}

#[test]
fn tf32_wgmma_with_a_from_registers_matches_the_f64_reference_at_n16() {
    if hopper_device().is_some() {
        check_tf32(16, true, "wgmma_tf32_rs_n16");
    }
}

/// Fresh random bytes.
fn random_bytes(rng: &mut common::Rng, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.below(256) as u8).collect()
}

/// `c (64 x n)` against the exact sum over K = 128 of `a_at(row, k) b_at(col, k)`.
fn check_exact(
    c: &[i32],
    n: usize,
    a_at: impl Fn(usize, usize) -> i64,
    b_at: impl Fn(usize, usize) -> i64,
) {
    for i in 0..64 {
        for j in 0..n {
            let want: i64 = (0..128).map(|k| a_at(i, k) * b_at(j, k)).sum();
            assert_eq!(i64::from(c[i * n + j]), want, "c[{i}][{j}]");
        }
    }
}

#[test]
fn i8_by_u8_wgmma_is_exact_at_n32() {
    if hopper_device().is_some() {
        let mut rng = common::Rng::fresh("wgmma_i8_u8_n32");
        let a: Vec<i8> = random_bytes(&mut rng, 64 * 128)
            .into_iter()
            .map(|b| b as i8)
            .collect();
        let bt = random_bytes(&mut rng, 32 * 128);
        let mut c = vec![i32::MIN; 64 * 32];
        launch!(i8_u8_gemm_n32[1, 128](&a, &bt, &mut c)).unwrap();
        check_exact(
            &c,
            32,
            |r, k| i64::from(a[r * 128 + k]),
            |j, k| i64::from(bt[j * 128 + k]),
        );
    }
}

#[test]
fn u8_by_i8_wgmma_is_exact_at_n16() {
    if hopper_device().is_some() {
        let mut rng = common::Rng::fresh("wgmma_u8_i8_n16");
        let a = random_bytes(&mut rng, 64 * 128);
        let bt: Vec<i8> = random_bytes(&mut rng, 16 * 128)
            .into_iter()
            .map(|b| b as i8)
            .collect();
        let mut c = vec![i32::MIN; 64 * 16];
        launch!(u8_i8_gemm_n16[1, 128](&a, &bt, &mut c)).unwrap();
        check_exact(
            &c,
            16,
            |r, k| i64::from(a[r * 128 + k]),
            |j, k| i64::from(bt[j * 128 + k]),
        );
    }
}

#[test]
fn i8_by_i8_wgmma_is_exact_at_n64() {
    if hopper_device().is_some() {
        let mut rng = common::Rng::fresh("wgmma_i8_i8_n64");
        let mut signed = |len| -> Vec<i8> {
            random_bytes(&mut rng, len)
                .into_iter()
                .map(|b| b as i8)
                .collect()
        };
        let (a, bt) = (signed(64 * 128), signed(64 * 128));
        let mut c = vec![i32::MIN; 64 * 64];
        launch!(i8_i8_gemm_n64[1, 128](&a, &bt, &mut c)).unwrap();
        check_exact(
            &c,
            64,
            |r, k| i64::from(a[r * 128 + k]),
            |j, k| i64::from(bt[j * 128 + k]),
        );
    }
}
