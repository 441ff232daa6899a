//! The Hopper GEMM's cudajit kernels (issue 24): bf16 `C = A·Bᵀ` with a warp-specialised
//! mbarrier pipeline feeding `wgmma`, the algorithm of bench/cuda/hopper_gemm.cu kernel for
//! kernel. bench/hopper_gemm.rs times them against that twin and cuBLAS;
//! tests/sim_hopper_gemm.rs runs them small on the simulator against an f64 reference.
//!
//! Layout: A is M×K and B is N×K, both row-major (K contiguous); C is M×N row-major bf16;
//! M a multiple of 128, N of 256, K of 64 (the host asserts). One block of 384 threads
//! computes one 128×256 tile of C:
//! - warpgroup 0 produces: it fills a 4-stage ring of shared tiles (A 128×64 and B 256×64
//!   bf16 per stage, rows of 128 bytes with the 16-byte chunk `j` of row `r` at `j ^ (r %
//!   8)`: wgmma's 128-byte swizzle, which is also TMA's) and completes the stage's `full`
//!   barrier once the bytes landed; it waits on the stage's `empty` barrier before
//!   refilling it;
//! - warpgroups 1 and 2 consume: each owns 64 rows of the tile, waits on `full`, issues
//!   four m64n256k16 wgmmas per stage (one group), waits for the group and releases the
//!   stage on `empty`.
//!
//! Two producers, the consumers identical:
//! - `gemm_bf16_tma` (and `_setmaxnreg`): one elected thread of warpgroup 0 loads a stage
//!   with two TMA box copies (A's 128×64 box, B's 256×64 box, both maps 128B-swizzled),
//!   announced by `mbarrier_arrive_expect_tx` on `full[s]` (count 1): the bytes themselves
//!   complete the phase. With `setmaxnreg` the producer warpgroup gives registers back
//!   (40) and the consumers take them (232).
//! - `gemm_bf16_wgmma` (the previous producer, kept as the table's baseline row): all 128
//!   producer threads issue 24 `cp_async::<16>` per stage into the swizzled layout by hand
//!   and arrive on `full[s]` (count 128) two stages behind, after their own copies landed
//!   and a proxy fence.
//!
//! Shared memory (dynamic, 192 KiB + 64 bytes): the 4 A stages, the 4 B stages, then the
//! 8 barriers (`full[s]` at `s`, `empty[s]` at `4 + s`). The swizzled tiles start at
//! offsets that are multiples of 1024 bytes from the window's start, as the swizzle needs
//! (the TMA copies check it at run time).

/// The bytes of dynamic shared memory a block needs.
pub const SHARED_BYTES: usize = 4 * (128 + 256) * 64 * 2 + 8 * 8;
/// Threads per block: one producer and two consumer warpgroups.
pub const THREADS: u32 = 384;
/// The block tile (rows, columns) and the k-tile.
pub const TILE: (usize, usize, usize) = (128, 256, 64);

/// The TMA kernel (accumulator arguments as `hopper_gemm_cp_async!`'s, in
/// bench/hopper_cp_async_gemm.rs); `$producer` and
/// `$consumer` open the two roles (the register reallocation, or nothing). A block walks
/// the tiles `block_idx().x`, `+ grid_dim().x`, ..: launched with one block per tile it
/// computes one, launched with one block per SM it is persistent, and its producer
/// loads the next tile's first stages while the consumers store the last one's C.
macro_rules! hopper_gemm_tma {
    ($check:tt, $name:ident, producer = { $($producer:tt)* }, consumer = { $($consumer:tt)* },
     rows = ($top:ident, $bottom:ident),
     acc = [$(($c:ident, $d:ident, $half:ident, $col:literal)),*]) => {
        #[kernel(boundscheck = $check, launch_bounds = 384)]
        pub fn $name(
            a: &TensorMap<bf16, 2>,
            b: &TensorMap<bf16, 2>,
            c: &mut [bf16],
            m: usize,
            n: usize,
            k: usize,
        ) {
            let mut smem = dynamic_shared();
            let ta = smem.take::<bf16>(4 * 128 * 64);
            let tb = smem.take::<bf16>(4 * 256 * 64);
            let bars = smem.take::<u64>(8);
            let t = thread_idx().x as usize;
            let wg = t / 128;
            let tw = t % 128;
            // Grouped raster: 8 block rows share each B panel while it is in L2 (each
            // tile's `row0`, `col0` below, in both roles).
            let tiles_m = m / 128;
            let per_group = 8 * (n / 256);
            let tiles = tiles_m * (n / 256);
            let ktiles = k / 64;
            if t == 0 {
                for s in 0..4 {
                    // `full[s]`: the producer's one arrival, then the stage's bytes.
                    mbarrier_init(bars, s, 1);
                    mbarrier_init(bars, 4 + s, 256);
                }
                fence_mbarrier_init();
            }
            sync_threads();
            if wg == 0 {
                $($producer)*
                if tw == 0 {
                    tma_prefetch(a);
                    tma_prefetch(b);
                    // `it`: the k-tiles this block loaded so far, over all its tiles.
                    let mut it = 0usize;
                    let mut tile = block_idx().x as usize;
                    while tile < tiles {
                        let first_m = (tile / per_group) * 8;
                        let rows_here = if tiles_m - first_m < 8 { tiles_m - first_m } else { 8 };
                        let row0 = ((first_m + (tile % per_group) % rows_here) * 128) as i32;
                        let col0 = (((tile % per_group) / rows_here) * 256) as i32;
                        for kt in 0..ktiles {
                            let s = it % 4;
                            if it >= 4 {
                                // The consumers' (it / 4 - 1)-th release of this stage.
                                while !mbarrier_try_wait_parity(bars, 4 + s, ((it / 4 - 1) % 2) as u32) {}
                            }
                            // The stage's two boxes: 128 × 64 + 256 × 64 bf16 = 49152
                            // bytes, which complete the phase with this arrival.
                            mbarrier_arrive_expect_tx(bars, s, 49152);
                            let inner = (kt * 64) as i32;
                            tma_load(a, &mut ta[s * 8192..s * 8192 + 8192], [row0, inner], bars, s);
                            tma_load(b, &mut tb[s * 16384..s * 16384 + 16384], [col0, inner], bars, s);
                            it += 1;
                        }
                        tile += grid_dim().x as usize;
                    }
                }
            } else {
                $($consumer)*
                let cw = wg - 1;
                // The descriptors of stage 0 (checked: shared memory, in bounds); a
                // stage's and a k-step's are these plus their byte offsets >> 4 (the start
                // field's unit), so no check branches between the wgmmas (ptxas
                // serialises wgmmas around divergent code).
                let da0 = wgmma_descriptor(ta, cw * 4096, 128, 0, 1024);
                let db0 = wgmma_descriptor(tb, 0, 128, 0, 1024);
                // `it`: the k-tiles this block consumed so far, over all its tiles (the
                // ring's stage and phase run on across tiles).
                let mut it = 0usize;
                let mut tile = block_idx().x as usize;
                while tile < tiles {
                    let first_m = (tile / per_group) * 8;
                    let rows_here = if tiles_m - first_m < 8 { tiles_m - first_m } else { 8 };
                    let row0 = (first_m + (tile % per_group) % rows_here) * 128;
                    let col0 = ((tile % per_group) / rows_here) * 256;
                    $(let mut $c = 0.0f32;)*
                    for _kt in 0..ktiles {
                        let s = it % 4;
                        while !mbarrier_try_wait_parity(bars, s, ((it / 4) % 2) as u32) {}
                        wgmma_fence();
                        for ks in 0..4 {
                            let da = da0 + (s * 1024 + ks * 2) as u64;
                            let db = db0 + (s * 2048 + ks * 2) as u64;
                            let ($($d),*) = wgmma_m64n256k16_f32_bf16(da, db, 1, $($c),*);
                            $($c = $d;)*
                        }
                        wgmma_commit_group();
                        // Retire the stage's group before releasing it. (Keeping one group in
                        // flight, `wgmma_wait_group_1`, makes ptxas serialise every wgmma:
                        // the next stage's wgmmas read accumulators still being written; the
                        // other consumer warpgroup keeps the tensor cores busy meanwhile.)
                        wgmma_wait_group_0();
                        mbarrier_arrive(bars, 4 + s);
                        it += 1;
                    }
                    wgmma_wait_group_0();
                    let lane = tw % 32;
                    let row = row0 + 64 * cw + 16 * (tw / 32) + lane / 4;
                    let col = col0 + 2 * (lane % 4);
                    // The thread's two rows of C (`row`, `row + 8`) as 250-element windows
                    // from `col`: the checked kernel checks the two windows, and each store's
                    // constant index is in bounds of a window whose length LLVM folds to 250.
                    // (Indexing `c` itself made the check plan's guard compute all 128
                    // indices, which stayed live into the stores: 1.2 KB of spills.)
                    let first = row * n + col;
                    let (upper, lower) = c.split_at_mut(first + 8 * n);
                    let $top = &mut upper[first..first + 250];
                    let $bottom = &mut lower[..250];
                    $($half[$col] = bf16::from_f32($c);)*
                    tile += grid_dim().x as usize;
                }
            }
        }
    };
}

include!("m64n256_accumulators.rs");
include!("hopper_cp_async_gemm.rs");

/// The kernels of the benchmark, bounds-checked (`$check` = true) or not.
macro_rules! hopper_kernels {
    ($check:tt) => {
        with_m64n256_accumulators!(hopper_gemm_tma!(
            $check,
            gemm_bf16_tma,
            producer = {},
            consumer = {},
        ));
        // Warp specialisation's register reallocation: the producer (one thread issuing
        // copies) gives registers back, the consumers take them (128 · 40 + 256 · 232 ≤
        // 65536).
        with_m64n256_accumulators!(hopper_gemm_tma!(
            $check,
            gemm_bf16_tma_setmaxnreg,
            producer = {
                setmaxnreg_dec::<40>();
            },
            consumer = {
                setmaxnreg_inc::<232>();
            },
        ));
        with_m64n256_accumulators!(hopper_gemm_cp_async!(
            $check,
            gemm_bf16_wgmma,
            bf16,
            8,
            wgmma_m64n256k16_f32_bf16,
        ));
    };
}

pub mod checked {
    use cudajit::prelude::*;
    use cudajit::TensorMap;
    hopper_kernels!(true);
}

pub mod nocheck {
    use cudajit::prelude::*;
    use cudajit::TensorMap;
    hopper_kernels!(false);
}
