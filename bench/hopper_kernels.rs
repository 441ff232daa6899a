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
//!   8)`: wgmma's 128-byte swizzle) and arrives on the stage's `full` barrier once its
//!   copies landed; it waits on the stage's `empty` barrier before refilling it;
//! - warpgroups 1 and 2 consume: each owns 64 rows of the tile, waits on `full`, issues
//!   four m64n256k16 wgmmas per stage (one group), waits for the group and releases the
//!   stage on `empty`.
//!
//! `gemm_bf16_wgmma_early` differs only in the producer's order: it arrives on stage
//! `kt - 2`'s `full` at the top of iteration `kt` (`cp_async_wait::<1>`), before waiting
//! on `empty` and issuing stage `kt`, so a consumer's wait for a stage no longer includes
//! the producer's wait for the stage released just before nor its 24 copies' issue (on
//! the H200 the consumers of the other order spun on `full` ~27 times per k-tile).
//!
//! The producer's stage load is one marked block (and its drain), so a TMA load replaces
//! it without touching the consumers: it must fill stage `s` with k-tile `kt` and make
//! `full[s]` complete once the bytes are visible to wgmma.
//!
//! Shared memory (dynamic, 192 KiB + 64 bytes): the 4 A stages, the 4 B stages, then the
//! 8 barriers (`full[s]` at `s`, `empty[s]` at `4 + s`). The swizzled tiles start at
//! offsets that are multiples of 1024 bytes from the window's start, as the swizzle needs.

/// The bytes of dynamic shared memory a block needs.
pub const SHARED_BYTES: usize = 4 * (128 + 256) * 64 * 2 + 8 * 8;
/// Threads per block: one producer and two consumer warpgroups.
pub const THREADS: u32 = 384;
/// The block tile (rows, columns) and the k-tile.
pub const TILE: (usize, usize, usize) = (128, 256, 64);

/// The kernel; `$c`/`$d` are the 128 accumulator registers of m64n256 and their results,
/// `$hi`/`$col` each register's row (0 or 8) and column offset within the thread's
/// 16-row slice (`proc::wgmma::acc_position`).
macro_rules! hopper_gemm {
    ($check:tt, $name:ident, early_arrive = $early:tt, producer = { $($producer:tt)* },
     consumer = { $($consumer:tt)* }, acc = [$(($c:ident, $d:ident, $hi:literal, $col:literal)),*]) => {
        #[kernel(boundscheck = $check, launch_bounds = 384)]
        pub fn $name(a: &[bf16], b: &[bf16], c: &mut [bf16], m: usize, n: usize, k: usize) {
            let mut smem = dynamic_shared();
            let ta = smem.take::<bf16>(4 * 128 * 64);
            let tb = smem.take::<bf16>(4 * 256 * 64);
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
            let ktiles = k / 64;
            if t == 0 {
                for s in 0..4 {
                    mbarrier_init(bars, s, 128);
                    mbarrier_init(bars, 4 + s, 256);
                }
                fence_mbarrier_init();
            }
            sync_threads();
            if wg == 0 {
                $($producer)*
                for kt in 0..ktiles {
                    let s = kt % 4;
                    if $early && kt >= 2 {
                        // Early arrival: stage `kt - 2` (its group is the older of the
                        // two in flight) is published before the wait for room below,
                        // so `full[kt - 2]` never waits on the consumers' release of
                        // stage `kt - 4` nor on this stage's 24 copies being issued:
                        // two k-tiles of slack for the producer instead of one.
                        cp_async_wait::<1>();
                        fence_proxy_async();
                        mbarrier_arrive(bars, (kt - 2) % 4);
                    }
                    if kt >= 4 {
                        // The consumers' (kt / 4 - 1)-th release of this stage.
                        while !mbarrier_try_wait_parity(bars, 4 + s, ((kt / 4 - 1) % 2) as u32) {}
                    }
                    // ---- the stage load (cp.async; TMA replaces this block and the drain):
                    // k-tile `kt` into stage `s`, each thread 8 chunks of A and 16 of B
                    // (16 bytes each, rows coalesced); two stages behind, the thread waits
                    // for its own copies of stage `kt - 2`, fences them into the async
                    // proxy (wgmma reads through it) and arrives on that stage's `full`
                    // (count 128: every producer thread) — after this stage's copies, or
                    // before the wait for room with `early_arrive`.
                    for i in 0..8 {
                        let q = tw + 128 * i;
                        let r = q / 8;
                        let j = q % 8;
                        let at = s * 8192 + r * 64 + (j ^ (r % 8)) * 8;
                        cp_async::<16>(ta, at, a, (row0 + r) * k + kt * 64 + j * 8);
                    }
                    for i in 0..16 {
                        let q = tw + 128 * i;
                        let r = q / 8;
                        let j = q % 8;
                        let at = s * 16384 + r * 64 + (j ^ (r % 8)) * 8;
                        cp_async::<16>(tb, at, b, (col0 + r) * k + kt * 64 + j * 8);
                    }
                    cp_async_commit();
                    if !$early && kt >= 2 {
                        cp_async_wait::<2>();
                        fence_proxy_async();
                        mbarrier_arrive(bars, (kt - 2) % 4);
                    }
                }
                // ---- the drain: the last two stages' arrivals.
                cp_async_wait_all();
                fence_proxy_async();
                let last = if ktiles >= 2 { ktiles - 2 } else { 0 };
                for kt in last..ktiles {
                    mbarrier_arrive(bars, kt % 4);
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
                $(let mut $c = 0.0f32;)*
                for kt in 0..ktiles {
                    let s = kt % 4;
                    while !mbarrier_try_wait_parity(bars, s, ((kt / 4) % 2) as u32) {}
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
                }
                wgmma_wait_group_0();
                let lane = tw % 32;
                let row = row0 + 64 * cw + 16 * (tw / 32) + lane / 4;
                let col = col0 + 2 * (lane % 4);
                $(c[(row + $hi) * n + col + $col] = bf16::from_f32($c);)*
            }
        }
    };
}

/// Calls `$kernel!(.., acc = [..])` with m64n256's 128 accumulator registers: `(c, d, hi,
/// col)` for register `i` = `(c<i>, d<i>, 8 ((i / 2) % 2), 8 (i / 4) + i % 2)`.
macro_rules! with_m64n256_accumulators {
    ($kernel:ident!($($args:tt)*)) => {
        $kernel!($($args)* acc = [
            (c0, d0, 0, 0), (c1, d1, 0, 1), (c2, d2, 8, 0), (c3, d3, 8, 1), (c4, d4, 0, 8),
            (c5, d5, 0, 9), (c6, d6, 8, 8), (c7, d7, 8, 9), (c8, d8, 0, 16), (c9, d9, 0, 17),
            (c10, d10, 8, 16), (c11, d11, 8, 17), (c12, d12, 0, 24), (c13, d13, 0, 25),
            (c14, d14, 8, 24), (c15, d15, 8, 25), (c16, d16, 0, 32), (c17, d17, 0, 33),
            (c18, d18, 8, 32), (c19, d19, 8, 33), (c20, d20, 0, 40), (c21, d21, 0, 41),
            (c22, d22, 8, 40), (c23, d23, 8, 41), (c24, d24, 0, 48), (c25, d25, 0, 49),
            (c26, d26, 8, 48), (c27, d27, 8, 49), (c28, d28, 0, 56), (c29, d29, 0, 57),
            (c30, d30, 8, 56), (c31, d31, 8, 57), (c32, d32, 0, 64), (c33, d33, 0, 65),
            (c34, d34, 8, 64), (c35, d35, 8, 65), (c36, d36, 0, 72), (c37, d37, 0, 73),
            (c38, d38, 8, 72), (c39, d39, 8, 73), (c40, d40, 0, 80), (c41, d41, 0, 81),
            (c42, d42, 8, 80), (c43, d43, 8, 81), (c44, d44, 0, 88), (c45, d45, 0, 89),
            (c46, d46, 8, 88), (c47, d47, 8, 89), (c48, d48, 0, 96), (c49, d49, 0, 97),
            (c50, d50, 8, 96), (c51, d51, 8, 97), (c52, d52, 0, 104), (c53, d53, 0, 105),
            (c54, d54, 8, 104), (c55, d55, 8, 105), (c56, d56, 0, 112), (c57, d57, 0, 113),
            (c58, d58, 8, 112), (c59, d59, 8, 113), (c60, d60, 0, 120), (c61, d61, 0, 121),
            (c62, d62, 8, 120), (c63, d63, 8, 121), (c64, d64, 0, 128), (c65, d65, 0, 129),
            (c66, d66, 8, 128), (c67, d67, 8, 129), (c68, d68, 0, 136), (c69, d69, 0, 137),
            (c70, d70, 8, 136), (c71, d71, 8, 137), (c72, d72, 0, 144), (c73, d73, 0, 145),
            (c74, d74, 8, 144), (c75, d75, 8, 145), (c76, d76, 0, 152), (c77, d77, 0, 153),
            (c78, d78, 8, 152), (c79, d79, 8, 153), (c80, d80, 0, 160), (c81, d81, 0, 161),
            (c82, d82, 8, 160), (c83, d83, 8, 161), (c84, d84, 0, 168), (c85, d85, 0, 169),
            (c86, d86, 8, 168), (c87, d87, 8, 169), (c88, d88, 0, 176), (c89, d89, 0, 177),
            (c90, d90, 8, 176), (c91, d91, 8, 177), (c92, d92, 0, 184), (c93, d93, 0, 185),
            (c94, d94, 8, 184), (c95, d95, 8, 185), (c96, d96, 0, 192), (c97, d97, 0, 193),
            (c98, d98, 8, 192), (c99, d99, 8, 193), (c100, d100, 0, 200), (c101, d101, 0, 201),
            (c102, d102, 8, 200), (c103, d103, 8, 201), (c104, d104, 0, 208),
            (c105, d105, 0, 209), (c106, d106, 8, 208), (c107, d107, 8, 209),
            (c108, d108, 0, 216), (c109, d109, 0, 217), (c110, d110, 8, 216),
            (c111, d111, 8, 217), (c112, d112, 0, 224), (c113, d113, 0, 225),
            (c114, d114, 8, 224), (c115, d115, 8, 225), (c116, d116, 0, 232),
            (c117, d117, 0, 233), (c118, d118, 8, 232), (c119, d119, 8, 233),
            (c120, d120, 0, 240), (c121, d121, 0, 241), (c122, d122, 8, 240),
            (c123, d123, 8, 241), (c124, d124, 0, 248), (c125, d125, 0, 249),
            (c126, d126, 8, 248), (c127, d127, 8, 249)
        ]);
    };
}

/// The kernels of the benchmark, bounds-checked (`$check` = true) or not.
macro_rules! hopper_kernels {
    ($check:tt) => {
        with_m64n256_accumulators!(hopper_gemm!(
            $check,
            gemm_bf16_wgmma,
            early_arrive = false,
            producer = {},
            consumer = {},
        ));
        // The same with warp specialisation's register reallocation: the producer gives
        // registers back, the consumers take them (128 · 40 + 256 · 232 ≤ 65536).
        with_m64n256_accumulators!(hopper_gemm!(
            $check,
            gemm_bf16_wgmma_setmaxnreg,
            early_arrive = false,
            producer = {
                setmaxnreg_dec::<40>();
            },
            consumer = {
                setmaxnreg_inc::<232>();
            },
        ));
        // The producer publishes a stage before it waits for room for the next one
        // (`early_arrive`): the same copies, barriers and wgmmas, in another order.
        with_m64n256_accumulators!(hopper_gemm!(
            $check,
            gemm_bf16_wgmma_early,
            early_arrive = true,
            producer = {},
            consumer = {},
        ));
    };
}

pub mod checked {
    use cudajit::prelude::*;
    hopper_kernels!(true);
}

pub mod nocheck {
    use cudajit::prelude::*;
    hopper_kernels!(false);
}
