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

include!("m64n256_accumulators.rs");

pub mod checked {
    use cudajit::prelude::*;
    with_m64n256_accumulators!(fp8_gemm!(true, gemm_e4m3_wgmma,));
}

pub mod nocheck {
    use cudajit::prelude::*;
    with_m64n256_accumulators!(fp8_gemm!(false, gemm_e4m3_wgmma,));
}
