// The warp-specialised Hopper GEMM with a cp.async producer, over its input type: the
// bf16 benchmark's baseline row (bench/hopper_kernels.rs) and the fp8 benchmark's kernel
// (bench/hopper_fp8_kernels.rs) both expand it, with m64n256's accumulator list
// (bench/m64n256_accumulators.rs). The algorithm is described in bench/hopper_kernels.rs.

/// The cp.async kernel over `$elem` inputs, `$chunk` of them in a 16-byte chunk (8 bf16,
/// 16 e4m3), so that a swizzled 128-byte row is a k-tile of `8 * $chunk` elements and
/// every byte offset is the same for both types; `$wgmma` is the m64n256 wgmma of that
/// input type (k16 for bf16, k32 for e4m3: four per stage either way). `$c`/`$d` are the
/// 128 accumulator registers of m64n256 and their results, `$half`/`$col` each
/// register's row (`$top`: the thread's first row, `$bottom`: 8 rows below) and column
/// offset within the thread's 16-row slice (`proc::wgmma::acc_position`).
macro_rules! hopper_gemm_cp_async {
    ($check:tt, $name:ident, $elem:ident, $chunk:literal, $wgmma:ident,
     rows = ($top:ident, $bottom:ident),
     acc = [$(($c:ident, $d:ident, $half:ident, $col:literal)),*]) => {
        #[kernel(boundscheck = $check, launch_bounds = 384)]
        pub fn $name(a: &[$elem], b: &[$elem], c: &mut [bf16], m: usize, n: usize, k: usize) {
            let mut smem = dynamic_shared();
            let ta = smem.take::<$elem>(4 * 128 * 8 * $chunk);
            let tb = smem.take::<$elem>(4 * 256 * 8 * $chunk);
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
            let ktiles = k / (8 * $chunk);
            // The row stride in whole 16-byte chunks: `k` itself (a multiple of the
            // k-tile, the host asserts), written so that `opt::align` proves every copy's source
            // aligned and the writer tests only the slices' bases, once, instead of one
            // test and branch per copy (24 per stage; ptxas padded each with three
            // dummy shared loads).
            let row_stride = k / $chunk * $chunk;
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
                    // k-tile `kt` into stage `s`, each thread 8 chunks of A and 16 of B
                    // (16 bytes each, rows coalesced); two stages behind, the thread waits
                    // for its own copies of stage `kt - 2`, fences them into the async
                    // proxy (wgmma reads through it) and arrives on that stage's `full`
                    // (count 128: every producer thread).
                    for i in 0..8 {
                        let q = tw + 128 * i;
                        let r = q / 8;
                        let j = q % 8;
                        let at = s * (1024 * $chunk) + r * (8 * $chunk) + (j ^ (r % 8)) * $chunk;
                        cp_async::<16>(ta, at, a, (row0 + r) * row_stride + kt * (8 * $chunk) + j * $chunk);
                    }
                    for i in 0..16 {
                        let q = tw + 128 * i;
                        let r = q / 8;
                        let j = q % 8;
                        let at = s * (2048 * $chunk) + r * (8 * $chunk) + (j ^ (r % 8)) * $chunk;
                        cp_async::<16>(tb, at, b, (col0 + r) * row_stride + kt * (8 * $chunk) + j * $chunk);
                    }
                    cp_async_commit();
                    if kt >= 2 {
                        cp_async_wait::<2>();
                        fence_proxy_async();
                        mbarrier_arrive(bars, (kt - 2) % 4);
                    }
                }
                // The drain: the last two stages' arrivals.
                cp_async_wait_all();
                fence_proxy_async();
                let last = if ktiles >= 2 { ktiles - 2 } else { 0 };
                for kt in last..ktiles {
                    mbarrier_arrive(bars, kt % 4);
                }
            } else {
                let cw = wg - 1;
                // The descriptors of stage 0 (checked: shared memory, in bounds); a
                // stage's and a k-step's are these plus their byte offsets >> 4 (the start
                // field's unit), so no check branches between the wgmmas (ptxas
                // serialises wgmmas around divergent code).
                let da0 = wgmma_descriptor(ta, cw * (512 * $chunk), 128, 0, 1024);
                let db0 = wgmma_descriptor(tb, 0, 128, 0, 1024);
                $(let mut $c = 0.0f32;)*
                for kt in 0..ktiles {
                    let s = kt % 4;
                    while !mbarrier_try_wait_parity(bars, s, ((kt / 4) % 2) as u32) {}
                    wgmma_fence();
                    for ks in 0..4 {
                        let da = da0 + (s * 1024 + ks * 2) as u64;
                        let db = db0 + (s * 2048 + ks * 2) as u64;
                        let ($($d),*) = $wgmma(da, db, 1, $($c),*);
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
            }
        }
    };
}
