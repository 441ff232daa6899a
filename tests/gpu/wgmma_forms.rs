//! The wgmma forms attention needs, written once for the GPU and the simulator: A from
//! registers (`_rs`, packed with `pack_bf16x2` where the PTX ISA's fragment puts each
//! element) and an MN-major (transposed) B from shared memory (`_trans_b`,
//! `_rs_trans_b`), each at two N, on one warpgroup (`64 x N`, K = 64) against an f64
//! CPU reference on fresh random bf16 inputs with poisoned outputs.

use super::common;
use super::wgmma::{hopper_device, random_bf16};
use cudajit::prelude::*;

/// `c (64 x 64) = a (64 x 64) btᵀ`, `bt` `64 x 64` row-major: K-major B, 128B-swizzled
/// rows of 64 of K; A from registers.
#[kernel]
fn rs_gemm_n64(a: &[bf16], bt: &[bf16], c: &mut [f32]) {
    let tb = shared_array::<[bf16; 4096]>();
    let t = thread_idx().x as usize;
    for i in 0..32 {
        let e = t * 32 + i;
        let (r, c) = (e / 64, e % 64);
        tb[r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8] = bt[e];
    }
    fence_proxy_async();
    sync_threads();
    // The PTX ISA's A fragment: rows `lane / 4` and `+ 8`, columns `2 (lane % 4)`, `+ 1`,
    // `+ 8`, `+ 9` of each 16 of K; a register packs two columns of one row.
    let row = 16 * (t / 32) + (t % 32) / 4;
    let col = 2 * (t % 4);
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
    for ks in 0..4 {
        let top = row * 64 + 16 * ks + col;
        let bottom = top + 8 * 64;
        let a0 = pack_bf16x2(a[top].to_f32(), a[top + 1].to_f32());
        let a1 = pack_bf16x2(a[bottom].to_f32(), a[bottom + 1].to_f32());
        let a2 = pack_bf16x2(a[top + 8].to_f32(), a[top + 9].to_f32());
        let a3 = pack_bf16x2(a[bottom + 8].to_f32(), a[bottom + 9].to_f32());
        let db = wgmma_descriptor(tb, ks * 16, 128, 0, 1024);
        wgmma_fence();
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
        ) = wgmma_m64n64k16_f32_bf16_rs(
            a0, a1, a2, a3, db, 1, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14,
            c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31,
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

/// `c (64 x 128) = a (64 x 64) b`, `b` `64 x 128` row-major: MN-major B, stored as
/// 2 blocks of `[64 of K][64 of N]` 128B-swizzled (leading 8192 bytes between
/// them, stride 1024 between groups of 8 K rows); A from registers.
#[kernel]
fn rs_trans_b_gemm_n128(a: &[bf16], b: &[bf16], c: &mut [f32]) {
    let tb = shared_array::<[bf16; 8192]>();
    let t = thread_idx().x as usize;
    for i in 0..64 {
        let e = t * 64 + i;
        let (r, c) = (e / 128, e % 128 % 64);
        tb[e % 128 / 64 * 4096 + r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8] = b[e];
    }
    fence_proxy_async();
    sync_threads();
    // The PTX ISA's A fragment: rows `lane / 4` and `+ 8`, columns `2 (lane % 4)`, `+ 1`,
    // `+ 8`, `+ 9` of each 16 of K; a register packs two columns of one row.
    let row = 16 * (t / 32) + (t % 32) / 4;
    let col = 2 * (t % 4);
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
    for ks in 0..4 {
        let top = row * 64 + 16 * ks + col;
        let bottom = top + 8 * 64;
        let a0 = pack_bf16x2(a[top].to_f32(), a[top + 1].to_f32());
        let a1 = pack_bf16x2(a[bottom].to_f32(), a[bottom + 1].to_f32());
        let a2 = pack_bf16x2(a[top + 8].to_f32(), a[top + 9].to_f32());
        let a3 = pack_bf16x2(a[bottom + 8].to_f32(), a[bottom + 9].to_f32());
        let db = wgmma_descriptor(tb, ks * 16 * 64, 128, 8192, 1024);
        wgmma_fence();
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
        ) = wgmma_m64n128k16_f32_bf16_rs_trans_b(
            a0, a1, a2, a3, db, 1, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14,
            c15, c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31,
            c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43, c44, c45, c46, c47, c48,
            c49, c50, c51, c52, c53, c54, c55, c56, c57, c58, c59, c60, c61, c62, c63,
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
    c[row * 128 + col + 0] = c0;
    c[row * 128 + col + 1] = c1;
    c[(row + 8) * 128 + col + 0] = c2;
    c[(row + 8) * 128 + col + 1] = c3;
    c[row * 128 + col + 8] = c4;
    c[row * 128 + col + 9] = c5;
    c[(row + 8) * 128 + col + 8] = c6;
    c[(row + 8) * 128 + col + 9] = c7;
    c[row * 128 + col + 16] = c8;
    c[row * 128 + col + 17] = c9;
    c[(row + 8) * 128 + col + 16] = c10;
    c[(row + 8) * 128 + col + 17] = c11;
    c[row * 128 + col + 24] = c12;
    c[row * 128 + col + 25] = c13;
    c[(row + 8) * 128 + col + 24] = c14;
    c[(row + 8) * 128 + col + 25] = c15;
    c[row * 128 + col + 32] = c16;
    c[row * 128 + col + 33] = c17;
    c[(row + 8) * 128 + col + 32] = c18;
    c[(row + 8) * 128 + col + 33] = c19;
    c[row * 128 + col + 40] = c20;
    c[row * 128 + col + 41] = c21;
    c[(row + 8) * 128 + col + 40] = c22;
    c[(row + 8) * 128 + col + 41] = c23;
    c[row * 128 + col + 48] = c24;
    c[row * 128 + col + 49] = c25;
    c[(row + 8) * 128 + col + 48] = c26;
    c[(row + 8) * 128 + col + 49] = c27;
    c[row * 128 + col + 56] = c28;
    c[row * 128 + col + 57] = c29;
    c[(row + 8) * 128 + col + 56] = c30;
    c[(row + 8) * 128 + col + 57] = c31;
    c[row * 128 + col + 64] = c32;
    c[row * 128 + col + 65] = c33;
    c[(row + 8) * 128 + col + 64] = c34;
    c[(row + 8) * 128 + col + 65] = c35;
    c[row * 128 + col + 72] = c36;
    c[row * 128 + col + 73] = c37;
    c[(row + 8) * 128 + col + 72] = c38;
    c[(row + 8) * 128 + col + 73] = c39;
    c[row * 128 + col + 80] = c40;
    c[row * 128 + col + 81] = c41;
    c[(row + 8) * 128 + col + 80] = c42;
    c[(row + 8) * 128 + col + 81] = c43;
    c[row * 128 + col + 88] = c44;
    c[row * 128 + col + 89] = c45;
    c[(row + 8) * 128 + col + 88] = c46;
    c[(row + 8) * 128 + col + 89] = c47;
    c[row * 128 + col + 96] = c48;
    c[row * 128 + col + 97] = c49;
    c[(row + 8) * 128 + col + 96] = c50;
    c[(row + 8) * 128 + col + 97] = c51;
    c[row * 128 + col + 104] = c52;
    c[row * 128 + col + 105] = c53;
    c[(row + 8) * 128 + col + 104] = c54;
    c[(row + 8) * 128 + col + 105] = c55;
    c[row * 128 + col + 112] = c56;
    c[row * 128 + col + 113] = c57;
    c[(row + 8) * 128 + col + 112] = c58;
    c[(row + 8) * 128 + col + 113] = c59;
    c[row * 128 + col + 120] = c60;
    c[row * 128 + col + 121] = c61;
    c[(row + 8) * 128 + col + 120] = c62;
    c[(row + 8) * 128 + col + 121] = c63;
}

/// `c (64 x 64) = a (64 x 64) b` from shared tiles: A K-major (`[64][64]` 128B-swizzled),
/// `b` `64 x 64` row-major, MN-major B (`[64 of K][64 of N]` blocks, 128B-swizzled).
#[kernel]
fn trans_b_gemm_n64(a: &[bf16], b: &[bf16], c: &mut [f32]) {
    let ta = shared_array::<[bf16; 4096]>();
    let tb = shared_array::<[bf16; 4096]>();
    let t = thread_idx().x as usize;
    for i in 0..32 {
        let e = t * 32 + i;
        let (r, c) = (e / 64, e % 64);
        ta[r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8] = a[e];
    }
    for i in 0..32 {
        let e = t * 32 + i;
        let (r, c) = (e / 64, e % 64 % 64);
        tb[e % 64 / 64 * 4096 + r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8] = b[e];
    }
    fence_proxy_async();
    sync_threads();
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
    wgmma_fence();
    for ks in 0..4 {
        let da = wgmma_descriptor(ta, ks * 16, 128, 0, 1024);
        let db = wgmma_descriptor(tb, ks * 16 * 64, 128, 8192, 1024);
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
        ) = wgmma_m64n64k16_f32_bf16_trans_b(
            da, db, 1, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16,
            c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31,
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
    let row = 16 * (t / 32) + (t % 32) / 4;
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

/// Which kernel, and how it is given B.
#[derive(Clone, Copy)]
enum Form {
    /// `rs_gemm_n64`: `bt`, `n x 64`.
    RsKMajorB,
    /// `rs_trans_b_gemm_n128`: `b`, `64 x n`.
    RsMnMajorB,
    /// `trans_b_gemm_n64`: `b`, `64 x n`.
    MnMajorB,
}

/// Runs `form` at its N on fresh inputs and compares with `a b` in f64.
fn check_form(form: Form, n: usize, seed: &str) {
    let mut rng = common::Rng::fresh(seed);
    let (a, b) = (
        random_bf16(&mut rng, 64 * 64),
        random_bf16(&mut rng, 64 * n),
    );
    let mut c = vec![f32::NAN; 64 * n];
    match form {
        Form::RsKMajorB => launch!(rs_gemm_n64[1, 128](&a, &b, &mut c)),
        Form::RsMnMajorB => launch!(rs_trans_b_gemm_n128[1, 128](&a, &b, &mut c)),
        Form::MnMajorB => launch!(trans_b_gemm_n64[1, 128](&a, &b, &mut c)),
    }
    .unwrap();
    // B's element (k, j): `bt[j][k]` when given K-major, `b[k][j]` when MN-major.
    let b_at = |k: usize, j: usize| match form {
        Form::RsKMajorB => b[j * 64 + k].to_f64(),
        Form::RsMnMajorB | Form::MnMajorB => b[k * n + j].to_f64(),
    };
    let want: Vec<f64> = (0..64 * n)
        .map(|i| {
            let (r, j) = (i / n, i % n);
            (0..64).map(|k| a[r * 64 + k].to_f64() * b_at(k, j)).sum()
        })
        .collect();
    // Products are exact; the GPU sums 64 of them (|x| < 1) with at least f32 precision.
    common::compare(seed, &c, &want, 1e-4, 1e-5).unwrap();
}

#[test]
fn rs_wgmma_with_a_k_major_b_matches_the_f64_reference_at_n64() {
    if hopper_device().is_some() {
        check_form(Form::RsKMajorB, 64, "wgmma_rs_n64");
    }
}

#[test]
fn rs_wgmma_with_an_mn_major_b_matches_the_f64_reference_at_n128() {
    if hopper_device().is_some() {
        check_form(Form::RsMnMajorB, 128, "wgmma_rs_trans_b_n128");
    }
}

#[test]
fn shared_wgmma_with_an_mn_major_b_matches_the_f64_reference_at_n64() {
    if hopper_device().is_some() {
        check_form(Form::MnMajorB, 64, "wgmma_trans_b_n64");
    }
}
