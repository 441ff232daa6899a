//! The tensor-core benchmark's bf16 GEMM (bench/cuda/tc_gemm.cuh's 128×128 block tile,
//! 32-element K slices, 3 cp.async stages, 4 warps of 64×64, XOR-swizzled tiles) written
//! with the register-level intrinsics that the `tc` branch has merged (`ldmatrix_x4`,
//! `mma_m16n8k16_bf16_f32`), run on the simulator over four K slices against f64.
//! bench/tc_kernels.rs holds the typed-fragment version of all kernels, which waits for
//! the fragment frontend; this one checks the tiling, swizzle and pipeline meanwhile.

use cudajit::prelude::*;
use cudajit::SimOptions;

#[kernel(block_dim = 128)]
fn gemm_bf16_reg(a: &[bf16], b: &[bf16], c: &mut [bf16], m: usize, n: usize, k: usize) {
    let mut smem = dynamic_shared();
    let tiles = smem.take::<bf16>(3 * 256 * 32);
    let tid = thread_idx().x as usize;
    let lane = tid % 32;
    let warp = tid / 32;
    let tiles_m = m / 128;
    let per_group = 8 * (n / 128);
    let pid = block_idx().x as usize;
    let first_m = (pid / per_group) * 8;
    let rows_here = if tiles_m - first_m < 8 {
        tiles_m - first_m
    } else {
        8
    };
    let tile_m = first_m + (pid % per_group) % rows_here;
    let tile_n = (pid % per_group) / rows_here;
    let wrow = (warp / 2) * 64;
    let wcol = (warp % 2) * 64;
    let load_row = tid / 4;
    let load_chunk = tid % 4;
    let load_dst = load_row * 32 + (load_chunk ^ ((load_row >> 1) & 3)) * 8;
    let a_src = (tile_m * 128 + load_row) * k + load_chunk * 8;
    let b_src = (tile_n * 128 + load_row) * k + load_chunk * 8;
    let k_tiles = k / 32;
    for s in 0..2 {
        if s < k_tiles {
            let dst = s * 8192 + load_dst;
            for p in 0..4 {
                let src = p * 32 * k + s * 32;
                cp_async_cg::<16>(tiles, dst + p * 1024, a, a_src + src);
                cp_async_cg::<16>(tiles, dst + 4096 + p * 1024, b, b_src + src);
            }
        }
        cp_async_commit();
    }
    let mut acc = [[[0.0f32; 4]; 8]; 4];
    let a_row = wrow + (lane & 15);
    let a_swz = (a_row >> 1) & 3;
    let b_row = wcol + ((lane >> 4) << 3) + (lane & 7);
    let b_swz = (b_row >> 1) & 3;
    for kt in 0..k_tiles {
        cp_async_wait::<1>();
        sync_threads();
        let next = kt + 2;
        if next < k_tiles {
            let dst = (next % 3) * 8192 + load_dst;
            for p in 0..4 {
                let src = p * 32 * k + next * 32;
                cp_async_cg::<16>(tiles, dst + p * 1024, a, a_src + src);
                cp_async_cg::<16>(tiles, dst + 4096 + p * 1024, b, b_src + src);
            }
        }
        cp_async_commit();
        let stage = (kt % 3) * 8192;
        for ks in 0..2 {
            let a_off = stage + a_row * 32 + ((ks * 2 + (lane >> 4)) ^ a_swz) * 8;
            let b_off = stage + (128 + b_row) * 32 + ((ks * 2 + ((lane >> 3) & 1)) ^ b_swz) * 8;
            let mut fa = [[0u32; 4]; 4];
            for mt in 0..4 {
                let (r0, r1, r2, r3) = ldmatrix_x4(tiles, a_off + mt * 512);
                fa[mt] = [r0, r1, r2, r3];
            }
            let mut fb = [[0u32; 2]; 8];
            for np in 0..4 {
                let (r0, r1, r2, r3) = ldmatrix_x4(tiles, b_off + np * 512);
                fb[2 * np] = [r0, r1];
                fb[2 * np + 1] = [r2, r3];
            }
            for mt in 0..4 {
                for nt in 0..8 {
                    let (d0, d1, d2, d3) = mma_m16n8k16_bf16_f32(
                        fa[mt][0],
                        fa[mt][1],
                        fa[mt][2],
                        fa[mt][3],
                        fb[nt][0],
                        fb[nt][1],
                        acc[mt][nt][0],
                        acc[mt][nt][1],
                        acc[mt][nt][2],
                        acc[mt][nt][3],
                    );
                    acc[mt][nt] = [d0, d1, d2, d3];
                }
            }
        }
    }
    let g = lane / 4;
    let t = lane % 4;
    for mt in 0..4 {
        for nt in 0..8 {
            let row = tile_m * 128 + wrow + mt * 16 + g;
            let col = tile_n * 128 + wcol + nt * 8 + 2 * t;
            c[row * n + col] = bf16::from_f32(acc[mt][nt][0]);
            c[row * n + col + 1] = bf16::from_f32(acc[mt][nt][1]);
            c[(row + 8) * n + col] = bf16::from_f32(acc[mt][nt][2]);
            c[(row + 8) * n + col + 1] = bf16::from_f32(acc[mt][nt][3]);
        }
    }
}

fn signed(seed: u64, i: u64) -> f64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 40) as f64 / 8_388_608.0 - 1.0
}

#[test]
fn register_level_bf16_gemm_matches_f64() {
    let device = Device::simulator_with(SimOptions::default());
    let stream = device.new_stream().unwrap();
    let (m, n, k) = (128, 128, 128); // four 32-element K slices through three stages
    let a: Vec<bf16> = (0..m * k)
        .map(|i| bf16::from_f64(signed(1, i as u64)))
        .collect();
    let b: Vec<bf16> = (0..n * k)
        .map(|i| bf16::from_f64(signed(2, i as u64)))
        .collect();
    let mut c = vec![bf16::NAN; m * n];
    launch!(gemm_bf16_reg[1, 128, stream, 3 * 256 * 64](&a, &b, &mut c, m, n, k)).unwrap();
    let (mut diff2, mut ref2) = (0.0, 0.0);
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k)
                .map(|p| a[i * k + p].to_f64() * b[j * k + p].to_f64())
                .sum();
            let got = c[i * n + j].to_f64();
            assert!(!got.is_nan(), "C[{i}][{j}] never written");
            diff2 += (got - want).powi(2);
            ref2 += want * want;
        }
    }
    let error = (diff2 / ref2).sqrt();
    assert!(error < 4e-3, "error {error:.3e}");
}
