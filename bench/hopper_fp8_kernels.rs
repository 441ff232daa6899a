//! The fp8 Hopper GEMM's cudajit kernel (issue 24): `C (bf16) = A·Bᵀ` with A (M×K) and B
//! (N×K) in OCP FP8 E4M3, K contiguous, through `wgmma.mma_async ... k32.f32.e4m3.e4m3`.
//! The structure of bench/hopper_kernels.rs's bf16 kernel (warp specialisation, a
//! 4-stage ring of 128-byte-swizzled tiles, `full`/`empty` mbarriers), and kernel for
//! kernel the algorithm of bench/cuda/hopper_fp8.cu; bench/hopper_fp8.rs times it against
//! that twin and cuBLASLt (`torch._scaled_mm`), tests/sim_hopper_fp8.rs runs it small on
//! the simulator against an f64 reference.
//!
//! A swizzled row is 128 bytes, so a k-tile is 128 e4m3 elements (64 bf16 ones): the
//! stage's bytes, its copies (16 bytes = 16 elements each) and the descriptors' byte
//! steps are the bf16 kernel's; only the element counts double. M a multiple of 128, N
//! of 256, K of 128 (the host asserts). One block of 384 threads computes one 128×256
//! tile of C:
//! - warpgroup 0 produces: it fills stage `s` (A 128×128 and B 256×128 e4m3, 16-byte chunk
//!   `j` of row `r` at `j ^ (r % 8)`) with cp.async and, two stages behind, waits for its
//!   own copies, fences them into the async proxy and arrives on `full[s]`; it waits on
//!   `empty[s]` before refilling a stage;
//! - warpgroups 1 and 2 consume: each owns 64 rows of the tile, waits on `full`, issues
//!   four m64n256k32 wgmmas per stage (one group), retires the group and releases the
//!   stage on `empty`.
//!
//! Shared memory (dynamic, 192 KiB + 64 bytes): the 4 A stages, the 4 B stages, then the
//! 8 barriers (`full[s]` at `s`, `empty[s]` at `4 + s`); the tiles start at multiples of
//! 1024 bytes, as the swizzle needs.

/// The bytes of dynamic shared memory a block needs.
pub const SHARED_BYTES: usize = 4 * (128 + 256) * 128 + 8 * 8;
/// Threads per block: one producer and two consumer warpgroups.
pub const THREADS: u32 = 384;
/// The block tile (rows, columns) and the k-tile (elements).
pub const TILE: (usize, usize, usize) = (128, 256, 128);

/// The kernel; `$c`/`$d` are the 128 accumulator registers of m64n256 and their results,
/// `$half`/`$col` each register's row (`$top`: the thread's first row, `$bottom`: 8 rows
/// below) and column offset within the thread's 16-row slice (`proc::wgmma::acc_position`).
macro_rules! fp8_gemm {
    ($check:tt, $name:ident, rows = ($top:ident, $bottom:ident),
     acc = [$(($c:ident, $d:ident, $half:ident, $col:literal)),*]) => {
        #[kernel(boundscheck = $check, launch_bounds = 384)]
        pub fn $name(a: &[e4m3], b: &[e4m3], c: &mut [bf16], m: usize, n: usize, k: usize) {
            let mut smem = dynamic_shared();
            let ta = smem.take::<e4m3>(4 * 128 * 128);
            let tb = smem.take::<e4m3>(4 * 256 * 128);
            let bars = smem.take::<u64>(8);
            let t = thread_idx().x as usize;
            let wg = t / 128;
            let tw = t % 128;
            // Grouped raster: 8 block rows share each B panel while it is in L2.
            let tiles_m = m / 128;
            let per_group = 8 * (n / 256);
            let pid = block_idx().x as usize;
            let first_m = (pid / per_group) * 8;
            let rows_here = if tiles_m - first_m < 8 {
                tiles_m - first_m
            } else {
                8
            };
            let row0 = (first_m + (pid % per_group) % rows_here) * 128;
            let col0 = ((pid % per_group) / rows_here) * 256;
            let ktiles = k / 128;
            // `k` in whole 16-byte chunks, so that `opt::align` proves every copy's
            // source aligned (the bf16 kernel's reason, at 16 elements a chunk).
            let row_stride = k / 16 * 16;
            if t == 0 {
                for s in 0..4 {
                    mbarrier_init(bars, s, 128);
                    mbarrier_init(bars, 4 + s, 256);
                }
                fence_mbarrier_init();
            }
            sync_threads();
            if wg == 0 {
                for kt in 0..ktiles {
                    let s = kt % 4;
                    if kt >= 4 {
                        // The consumers' (kt / 4 - 1)-th release of this stage.
                        while !mbarrier_try_wait_parity(bars, 4 + s, ((kt / 4 - 1) % 2) as u32) {}
                    }
                    // k-tile `kt` into stage `s`: each thread 8 chunks of A, 16 of B.
                    for i in 0..8 {
                        let q = tw + 128 * i;
                        let r = q / 8;
                        let j = q % 8;
                        let at = s * 16384 + r * 128 + (j ^ (r % 8)) * 16;
                        cp_async::<16>(ta, at, a, (row0 + r) * row_stride + kt * 128 + j * 16);
                    }
                    for i in 0..16 {
                        let q = tw + 128 * i;
                        let r = q / 8;
                        let j = q % 8;
                        let at = s * 32768 + r * 128 + (j ^ (r % 8)) * 16;
                        cp_async::<16>(tb, at, b, (col0 + r) * row_stride + kt * 128 + j * 16);
                    }
                    cp_async_commit();
                    if kt >= 2 {
                        cp_async_wait::<2>();
                        fence_proxy_async();
                        mbarrier_arrive(bars, (kt - 2) % 4);
                    }
                }
                // The last two stages' arrivals.
                cp_async_wait_all();
                fence_proxy_async();
                let last = if ktiles >= 2 { ktiles - 2 } else { 0 };
                for kt in last..ktiles {
                    mbarrier_arrive(bars, kt % 4);
                }
            } else {
                let cw = wg - 1;
                // Stage 0's descriptors (checked once: shared memory, in bounds); a
                // stage's and a k-step's add their byte offsets >> 4: 16 KiB (A) or
                // 32 KiB (B) a stage, 32 bytes (k32) a step.
                let da0 = wgmma_descriptor(ta, cw * 8192, 128, 0, 1024);
                let db0 = wgmma_descriptor(tb, 0, 128, 0, 1024);
                $(let mut $c = 0.0f32;)*
                for kt in 0..ktiles {
                    let s = kt % 4;
                    while !mbarrier_try_wait_parity(bars, s, ((kt / 4) % 2) as u32) {}
                    wgmma_fence();
                    for ks in 0..4 {
                        let da = da0 + (s * 1024 + ks * 2) as u64;
                        let db = db0 + (s * 2048 + ks * 2) as u64;
                        let ($($d),*) = wgmma_m64n256k32_f32_e4m3(da, db, 1, $($c),*);
                        $($c = $d;)*
                    }
                    wgmma_commit_group();
                    wgmma_wait_group_0();
                    mbarrier_arrive(bars, 4 + s);
                }
                wgmma_wait_group_0();
                let lane = tw % 32;
                let row = row0 + 64 * cw + 16 * (tw / 32) + lane / 4;
                let col = col0 + 2 * (lane % 4);
                // The thread's two rows of C as 250-element windows (the bf16 kernel's
                // epilogue: one check per window, constant indices within it).
                let first = row * n + col;
                let (upper, lower) = c.split_at_mut(first + 8 * n);
                let $top = &mut upper[first..first + 250];
                let $bottom = &mut lower[..250];
                $($half[$col] = bf16::from_f32($c);)*
            }
        }
    };
}

// (A copy of bench/hopper_kernels.rs's list, which another benchmark owns.)
/// Calls `$kernel!(.., rows = (top, bottom), acc = [..])` with m64n256's 128 accumulator
/// registers: `(c, d, half, col)` for register `i` = `(c<i>, d<i>, top if (i / 2) % 2 == 0
/// else bottom, 8 (i / 4) + i % 2)`. (The row names come from here, as the accumulators'
/// do, so that macro hygiene lets the kernel bind and use them.)
macro_rules! with_m64n256_accumulators {
    ($kernel:ident!($($args:tt)*)) => {
        $kernel!($($args)* rows = (top, bottom), acc = [
            (c0, d0, top, 0), (c1, d1, top, 1), (c2, d2, bottom, 0), (c3, d3, bottom, 1), (c4, d4, top, 8),
            (c5, d5, top, 9), (c6, d6, bottom, 8), (c7, d7, bottom, 9), (c8, d8, top, 16), (c9, d9, top, 17),
            (c10, d10, bottom, 16), (c11, d11, bottom, 17), (c12, d12, top, 24), (c13, d13, top, 25),
            (c14, d14, bottom, 24), (c15, d15, bottom, 25), (c16, d16, top, 32), (c17, d17, top, 33),
            (c18, d18, bottom, 32), (c19, d19, bottom, 33), (c20, d20, top, 40), (c21, d21, top, 41),
            (c22, d22, bottom, 40), (c23, d23, bottom, 41), (c24, d24, top, 48), (c25, d25, top, 49),
            (c26, d26, bottom, 48), (c27, d27, bottom, 49), (c28, d28, top, 56), (c29, d29, top, 57),
            (c30, d30, bottom, 56), (c31, d31, bottom, 57), (c32, d32, top, 64), (c33, d33, top, 65),
            (c34, d34, bottom, 64), (c35, d35, bottom, 65), (c36, d36, top, 72), (c37, d37, top, 73),
            (c38, d38, bottom, 72), (c39, d39, bottom, 73), (c40, d40, top, 80), (c41, d41, top, 81),
            (c42, d42, bottom, 80), (c43, d43, bottom, 81), (c44, d44, top, 88), (c45, d45, top, 89),
            (c46, d46, bottom, 88), (c47, d47, bottom, 89), (c48, d48, top, 96), (c49, d49, top, 97),
            (c50, d50, bottom, 96), (c51, d51, bottom, 97), (c52, d52, top, 104), (c53, d53, top, 105),
            (c54, d54, bottom, 104), (c55, d55, bottom, 105), (c56, d56, top, 112), (c57, d57, top, 113),
            (c58, d58, bottom, 112), (c59, d59, bottom, 113), (c60, d60, top, 120), (c61, d61, top, 121),
            (c62, d62, bottom, 120), (c63, d63, bottom, 121), (c64, d64, top, 128), (c65, d65, top, 129),
            (c66, d66, bottom, 128), (c67, d67, bottom, 129), (c68, d68, top, 136), (c69, d69, top, 137),
            (c70, d70, bottom, 136), (c71, d71, bottom, 137), (c72, d72, top, 144), (c73, d73, top, 145),
            (c74, d74, bottom, 144), (c75, d75, bottom, 145), (c76, d76, top, 152), (c77, d77, top, 153),
            (c78, d78, bottom, 152), (c79, d79, bottom, 153), (c80, d80, top, 160), (c81, d81, top, 161),
            (c82, d82, bottom, 160), (c83, d83, bottom, 161), (c84, d84, top, 168), (c85, d85, top, 169),
            (c86, d86, bottom, 168), (c87, d87, bottom, 169), (c88, d88, top, 176), (c89, d89, top, 177),
            (c90, d90, bottom, 176), (c91, d91, bottom, 177), (c92, d92, top, 184), (c93, d93, top, 185),
            (c94, d94, bottom, 184), (c95, d95, bottom, 185), (c96, d96, top, 192), (c97, d97, top, 193),
            (c98, d98, bottom, 192), (c99, d99, bottom, 193), (c100, d100, top, 200), (c101, d101, top, 201),
            (c102, d102, bottom, 200), (c103, d103, bottom, 201), (c104, d104, top, 208),
            (c105, d105, top, 209), (c106, d106, bottom, 208), (c107, d107, bottom, 209),
            (c108, d108, top, 216), (c109, d109, top, 217), (c110, d110, bottom, 216),
            (c111, d111, bottom, 217), (c112, d112, top, 224), (c113, d113, top, 225),
            (c114, d114, bottom, 224), (c115, d115, bottom, 225), (c116, d116, top, 232),
            (c117, d117, top, 233), (c118, d118, bottom, 232), (c119, d119, bottom, 233),
            (c120, d120, top, 240), (c121, d121, top, 241), (c122, d122, bottom, 240),
            (c123, d123, bottom, 241), (c124, d124, top, 248), (c125, d125, top, 249),
            (c126, d126, bottom, 248), (c127, d127, bottom, 249)
        ]);
    };
}

pub mod checked {
    use cudajit::prelude::*;
    with_m64n256_accumulators!(fp8_gemm!(true, gemm_e4m3_wgmma,));
}

pub mod nocheck {
    use cudajit::prelude::*;
    with_m64n256_accumulators!(fp8_gemm!(false, gemm_e4m3_wgmma,));
}
