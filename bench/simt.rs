//! cudajit's side of the SIMT benchmark suite (issue 6, plus issue 9's n-body over
//! `Body` structs and Black-Scholes from one generic kernel, f32 and f64, beside the
//! same body hand-written for f32): the same algorithms, launch
//! shapes, sizes and inputs as bench/cuda/simt.cu (nvcc) and bench/numba/simt.py
//! (Numba); bench/run_simt.sh runs the three and bench/report_simt.py makes the table.
//!
//! Every kernel exists twice, from one body: `checked::k` (`#[kernel]`) and `nocheck::k`
//! (`#[kernel(boundscheck = false)]`; device functions they call keep their checks).
//! Each is run once and its output checked against a CPU reference on inputs made by
//! splitmix64 (the same numbers in all three programs) into poisoned outputs, then
//! both are timed interleaved, launch by launch (CUDA events around each launch, after
//! 5 warm-ups, median of 50 or 20), so clock drift cannot favour either. Inputs need no
//! rotation: every memory-bound kernel streams 64 MiB to 1 GiB, beyond the 50 MB L2.
//!
//! Prints `RESULT <kernel>.cudajit[_nocheck] <median_us> <key=value,...>` lines and
//! exits 0 with `skipped: <reason>` where there is no GPU.
//!
//!     simt [kernel ...]     (no argument: all of them)

use std::cell::RefCell;
mod stats;

use stats::median;
use std::error::Error as StdError;

use cudajit::{Device, DeviceArray, Event, LaunchConfig, Stream};
use cudarc::driver::result as cu_result;

type BenchResult<T> = Result<T, Box<dyn StdError>>;

// ---- sizes and launch shapes: identical in bench/cuda/simt.cu and bench/numba/simt.py
// (the kernels below spell the compile-time ones as literals: 256, 16, 128, 8, 32, ...)
const SUM_N: usize = 1 << 28;
const SUM_BLOCK: u32 = 256;
const SUM_GRID: u32 = 2048;
const MAT_N: usize = 2048;
const TPB: u32 = 16;
const GEMM_N: usize = 4096;
const GEMM_TILE: usize = 128;
const GEMM_THREADS: u32 = 256;
const HIST_N: usize = 1 << 26;
const HIST_BLOCK: u32 = 256;
const HIST_GRID: u32 = 1024;
const BINS: usize = 256;
const TRANS_N: usize = 8192;
const TILE: usize = 32;
const TILE_ROWS: u32 = 8;
const STENCIL_N: usize = 8192;
const ST_TILE: usize = 32;
const ST_ROWS: usize = 8;
const SCAN_N: usize = 1 << 26;
const SCAN_BLOCK: u32 = 256;
const SCAN_ITEMS: usize = 16;
const SCAN_SUMS_BLOCK: u32 = 1024;
const PI_BLOCK: u32 = 256;
const PI_GRID: u32 = 1024;
const PI_ITERS: u32 = 1024;
const PI_SEED: u64 = 1234;
const GS_N: usize = 1 << 26;
const GS_BLOCK: u32 = 256;
const GS_BLOCKS_PER_SM: u32 = 2;
const GS_SHARED: usize = GS_BLOCK as usize * 4;
const COPY_N: usize = 1 << 26;
const COPY_BLOCK: u32 = 256;
const NBODY_N: usize = 65536;
const NBODY_BLOCK: u32 = 256;
const NBODY_DT: f32 = 0.01;
const NBODY_SOFTENING2: f32 = 0.05;
/// The usual count for one all-pairs interaction (NVIDIA's nbody sample's).
const FLOPS_PER_INTERACTION: f64 = 20.0;
const BS_N: usize = 1 << 24;
const BS_BLOCK: u32 = 128;
const BS_RATE: f64 = 0.02;
const BS_VOLATILITY: f64 = 0.30;
const WARMUP: usize = 5;

/// A body of the n-body kernel: a `#[derive(DeviceCopy)]` struct, 28 bytes, the layout
/// of bench/cuda/simt.cu's `Body` and bench/numba/simt.py's record dtype.
#[derive(Clone, Copy, Debug, PartialEq, cudajit::DeviceCopy)]
#[repr(C)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, cudajit::DeviceCopy)]
#[repr(C)]
pub struct Body {
    pub pos: Vec3,
    pub vel: Vec3,
    pub mass: f32,
}

// The CUDA SDK's Black-Scholes coefficients (Abramowitz & Stegun 26.2.17).
pub(crate) const CND_K: f64 = 0.231_641_9;
pub(crate) const CND_A1: f64 = 0.319_381_53;
pub(crate) const CND_A2: f64 = -0.356_563_782;
pub(crate) const CND_A3: f64 = 1.781_477_937;
pub(crate) const CND_A4: f64 = -1.821_255_978;
pub(crate) const CND_A5: f64 = 1.330_274_429;
pub(crate) const RSQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// The suite's kernels, stamped out once bounds-checked and once not.
macro_rules! simt_kernels {
    ($check:tt) => {
        /// 0. The plainest memory-bound kernel, one element per thread: a control for
        /// the others (cudajit against nvcc where nothing but loads and stores happen).
        #[kernel(boundscheck = $check)]
        pub fn copy_kernel(input: &[f32], out: &mut [f32]) {
            let i = grid(1);
            if i < out.len() {
                out[i] = input[i];
            }
        }

        /// 1. Sum: grid-stride accumulation into four sums, a shared tree, one atomic
        /// per block.
        #[kernel(boundscheck = $check)]
        pub fn sum_shared(x: &[f32], out: &mut [f32]) {
            let sm = shared_array::<[f32; 256]>();
            let tid = thread_idx().x as usize;
            let n = x.len();
            let stride = grid_size(1);
            let mut i = grid(1);
            let mut a0 = 0.0f32;
            let mut a1 = 0.0f32;
            let mut a2 = 0.0f32;
            let mut a3 = 0.0f32;
            while i + 3 * stride < n {
                a0 += x[i];
                a1 += x[i + stride];
                a2 += x[i + 2 * stride];
                a3 += x[i + 3 * stride];
                i += 4 * stride;
            }
            while i < n {
                a0 += x[i];
                i += stride;
            }
            sm[tid] = (a0 + a1) + (a2 + a3);
            sync_threads();
            let mut s = block_dim().x as usize / 2;
            while s > 0 {
                if tid < s {
                    sm[tid] += sm[tid + s];
                }
                sync_threads();
                s >>= 1;
            }
            if tid == 0 {
                atomic_add(out, 0, sm[0]);
            }
        }

        /// 2. The same accumulation; warp shuffles, one shared slot per warp, one
        /// atomic per block.
        #[kernel(boundscheck = $check)]
        pub fn sum_warp(x: &[f32], out: &mut [f32]) {
            let warp_sums = shared_array::<[f32; 32]>();
            let n = x.len();
            let stride = grid_size(1);
            let mut i = grid(1);
            let mut a0 = 0.0f32;
            let mut a1 = 0.0f32;
            let mut a2 = 0.0f32;
            let mut a3 = 0.0f32;
            while i + 3 * stride < n {
                a0 += x[i];
                a1 += x[i + stride];
                a2 += x[i + 2 * stride];
                a3 += x[i + 3 * stride];
                i += 4 * stride;
            }
            while i < n {
                a0 += x[i];
                i += stride;
            }
            let mut v = (a0 + a1) + (a2 + a3);
            let mut off = 16u32;
            while off > 0 {
                v += shfl_down_sync(0xffff_ffffu32, v, off);
                off >>= 1;
            }
            let lane = thread_idx().x % 32;
            let warp = thread_idx().x / 32;
            if lane == 0 {
                warp_sums[warp as usize] = v;
            }
            sync_threads();
            if warp == 0 {
                v = if lane < block_dim().x / 32 {
                    warp_sums[lane as usize]
                } else {
                    0.0
                };
                off = 16;
                while off > 0 {
                    v += shfl_down_sync(0xffff_ffffu32, v, off);
                    off >>= 1;
                }
                if lane == 0 {
                    atomic_add(out, 0, v);
                }
            }
        }

        /// 3. Numba's documented shared-memory matrix multiply (`fast_matmul`,
        /// TPB = 16) on row-major n×n slices. `mul_add` where nvcc and Numba contract
        /// `tmp += a * b` into an FMA by default.
        #[kernel(boundscheck = $check, block_dim = (16, 16))]
        pub fn fast_matmul(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
            let sa = shared_array::<[[f32; 16]; 16]>();
            let sb = shared_array::<[[f32; 16]; 16]>();
            let (x, y) = grid(2);
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let bpg = grid_dim().x as usize;
            let mut tmp = 0.0f32;
            for i in 0..bpg {
                sa[ty][tx] = 0.0;
                sb[ty][tx] = 0.0;
                if y < n && tx + i * 16 < n {
                    sa[ty][tx] = a[y * n + tx + i * 16];
                }
                if x < n && ty + i * 16 < n {
                    sb[ty][tx] = b[(ty + i * 16) * n + x];
                }
                sync_threads();
                for j in 0..16 {
                    tmp = sa[ty][j].mul_add(sb[j][tx], tmp);
                }
                sync_threads();
            }
            if y < n && x < n {
                c[y * n + x] = tmp;
            }
        }

        /// 4. Register-tiled SGEMM, C = A·B, n×n row-major, n a multiple of 128: a
        /// 128×128 block tile, 8-deep k tiles in shared memory (A transposed), 256
        /// threads on a 16×16 grid each computing an 8×8 micro-tile as two 4-row ×
        /// two 4-column groups 64 apart; a warp covers 4×8 threads so each shared read
        /// is one wavefront (bench/cuda/simt.cu says why); the next k tile is loaded
        /// into registers while the current one is multiplied. The k loop is unrolled
        /// (`#[unroll]`: every shared read a 4-float load) and registers are held to 128
        /// (`launch_bounds = (256, 2)`: two blocks per SM), as nvcc's build is told.
        #[kernel(boundscheck = $check, launch_bounds = (256, 2), block_dim = 256)]
        pub fn sgemm(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
            let a_s = shared_array::<[[f32; 128]; 8]>();
            let b_s = shared_array::<[[f32; 128]; 8]>();
            let tid = thread_idx().x as usize;
            let warp = tid / 32;
            let lane = tid % 32;
            let trow = (warp / 2) * 4 + lane / 8;
            let tcol = (warp % 2) * 8 + lane % 8;
            let row0 = block_idx().y as usize * 128;
            let col0 = block_idx().x as usize * 128;
            let a_row = tid / 2;
            let a_col = (tid % 2) * 4;
            let b_row = tid / 32;
            let b_col = (tid % 32) * 4;
            let mut acc = [[0.0f32; 8]; 8];
            let mut ra = [0.0f32; 8];
            let mut rb = [0.0f32; 8];
            // The next k tile's elements, loaded into registers while this tile is
            // multiplied.
            let mut pa = [0.0f32; 4];
            let mut pb = [0.0f32; 4];
            for j in 0..4 {
                pa[j] = a[(row0 + a_row) * n + a_col + j];
                pb[j] = b[b_row * n + col0 + b_col + j];
            }
            for k0 in (0..n).step_by(8) {
                for j in 0..4 {
                    a_s[a_col + j][a_row] = pa[j];
                    b_s[b_row][b_col + j] = pb[j];
                }
                sync_threads();
                if k0 + 8 < n {
                    for j in 0..4 {
                        pa[j] = a[(row0 + a_row) * n + k0 + 8 + a_col + j];
                        pb[j] = b[(k0 + 8 + b_row) * n + col0 + b_col + j];
                    }
                }
                #[unroll]
                for k in 0..8 {
                    for m in 0..8 {
                        ra[m] = a_s[k][(m / 4) * 64 + trow * 4 + m % 4];
                    }
                    for j in 0..8 {
                        rb[j] = b_s[k][(j / 4) * 64 + tcol * 4 + j % 4];
                    }
                    for m in 0..8 {
                        for j in 0..8 {
                            acc[m][j] = ra[m].mul_add(rb[j], acc[m][j]);
                        }
                    }
                }
                sync_threads();
            }
            for m in 0..8 {
                let r = row0 + (m / 4) * 64 + trow * 4 + m % 4;
                for j in 0..8 {
                    c[r * n + col0 + (j / 4) * 64 + tcol * 4 + j % 4] = acc[m][j];
                }
            }
        }

        /// 5. Histogram: 256 bins in shared memory, then one global atomic per
        /// non-empty bin.
        #[kernel(boundscheck = $check, block_dim = 256)]
        pub fn histogram(x: &[u8], hist: &mut [u32]) {
            let sh = shared_array::<[u32; 256]>();
            let mut b = thread_idx().x as usize;
            while b < 256 {
                sh[b] = 0;
                b += block_dim().x as usize;
            }
            sync_threads();
            let stride = grid_size(1);
            let mut i = grid(1);
            while i < x.len() {
                atomic_add(sh, x[i] as usize, 1u32);
                i += stride;
            }
            sync_threads();
            b = thread_idx().x as usize;
            while b < 256 {
                let c = sh[b];
                if c != 0 {
                    atomic_add(hist, b, c);
                }
                b += block_dim().x as usize;
            }
        }

        /// 6. Transpose through a padded 32×33 shared tile; 32×8 threads, 4 rows each.
        #[kernel(boundscheck = $check, block_dim = (32, 8))]
        pub fn transpose(input: &[f32], out: &mut [f32], n: usize) {
            let tile = shared_array::<[[f32; 33]; 32]>();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let bx = block_idx().x as usize;
            let by = block_idx().y as usize;
            let x = bx * 32 + tx;
            let y = by * 32 + ty;
            for j in (0..32).step_by(8) {
                tile[ty + j][tx] = input[(y + j) * n + x];
            }
            sync_threads();
            let x = by * 32 + tx;
            let y = bx * 32 + ty;
            for j in (0..32).step_by(8) {
                out[(y + j) * n + x] = tile[tx][ty + j];
            }
        }

        /// 7. 5-point stencil, zero outside the grid: 32×8 threads per 32×32 tile (4
        /// rows each) from a 34×34 shared tile; whole warps load the halo (warp-uniform
        /// branches, see bench/cuda/simt.cu). `mul_add` where nvcc contracts
        /// `0.5 * c + 0.125 * around`.
        #[kernel(boundscheck = $check, block_dim = (32, 8))]
        pub fn stencil5(input: &[f32], out: &mut [f32], nx: usize, ny: usize) {
            let t = shared_array::<[[f32; 34]; 34]>();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let x0 = block_idx().x as usize * 32;
            let y0 = block_idx().y as usize * 32;
            let x = x0 + tx;
            for r in (0..32).step_by(8) {
                t[ty + r + 1][tx + 1] = input[(y0 + ty + r) * nx + x];
            }
            if ty == 0 {
                t[0][tx + 1] = if y0 > 0 {
                    input[(y0 - 1) * nx + x]
                } else {
                    0.0
                };
            }
            if ty == 1 {
                t[33][tx + 1] = if y0 + 32 < ny {
                    input[(y0 + 32) * nx + x]
                } else {
                    0.0
                };
            }
            if ty == 2 {
                t[tx + 1][0] = if x0 > 0 {
                    input[(y0 + tx) * nx + x0 - 1]
                } else {
                    0.0
                };
            }
            if ty == 3 {
                t[tx + 1][33] = if x0 + 32 < nx {
                    input[(y0 + tx) * nx + x0 + 32]
                } else {
                    0.0
                };
            }
            sync_threads();
            for r in (0..32).step_by(8) {
                let ly = ty + r + 1;
                let around = (t[ly - 1][tx + 1] + t[ly + 1][tx + 1]) + (t[ly][tx] + t[ly][tx + 2]);
                out[(y0 + ty + r) * nx + x] = t[ly][tx + 1].mul_add(0.5, 0.125 * around);
            }
        }

        /// 8. Block-wide inclusive scan of one value per thread: shuffle-up within each
        /// warp, the warp totals scanned by warp 0 through shared memory. Returns the
        /// thread's inclusive prefix and the block's total.
        #[device]
        pub fn block_scan(value: u32, warp_sums: &mut [u32]) -> (u32, u32) {
            let lane = thread_idx().x % 32;
            let warp = thread_idx().x / 32;
            let nwarps = block_dim().x / 32;
            let mut v = value;
            let mut d = 1u32;
            while d < 32 {
                let u = shfl_up_sync(0xffff_ffffu32, v, d);
                if lane >= d {
                    v += u;
                }
                d <<= 1;
            }
            if lane == 31 {
                warp_sums[warp as usize] = v;
            }
            sync_threads();
            if warp == 0 {
                let mut w = if lane < nwarps {
                    warp_sums[lane as usize]
                } else {
                    0
                };
                d = 1;
                while d < 32 {
                    let u = shfl_up_sync(0xffff_ffffu32, w, d);
                    if lane >= d {
                        w += u;
                    }
                    d <<= 1;
                }
                warp_sums[lane as usize] = w;
            }
            sync_threads();
            let prefix = if warp > 0 {
                warp_sums[warp as usize - 1]
            } else {
                0
            };
            let total = warp_sums[nwarps as usize - 1];
            sync_threads(); // warp_sums is reused by the next call
            (v + prefix, total)
        }

        /// 8a. Each block scans its block_dim consecutive elements.
        #[kernel(boundscheck = $check, block_dim = 256)]
        pub fn scan_block(x: &[u32], out: &mut [u32]) {
            let warp_sums = shared_array::<[u32; 32]>();
            let i = grid(1);
            let (s, _total) = block_scan(x[i], warp_sums);
            out[i] = s;
        }

        /// 8b. Multi-block inclusive scan, reduce-then-scan over tiles of 16 ·
        /// block_dim elements: each tile's total, ...
        #[kernel(boundscheck = $check, block_dim = 256)]
        pub fn scan_reduce(x: &[u32], block_sums: &mut [u32]) {
            let warp_sums = shared_array::<[u32; 32]>();
            let bd = block_dim().x as usize;
            let tid = thread_idx().x as usize;
            let base = block_idx().x as usize * bd * 16;
            let mut v = 0u32;
            for k in 0..16 {
                v += x[base + k * bd + tid];
            }
            let (_s, total) = block_scan(v, warp_sums);
            if tid == 0 {
                block_sums[block_idx().x as usize] = total;
            }
        }

        /// ... one block turning the totals into exclusive prefixes, ...
        #[kernel(boundscheck = $check)]
        pub fn scan_sums(block_sums: &mut [u32]) {
            let warp_sums = shared_array::<[u32; 32]>();
            let nb = block_sums.len();
            let bd = block_dim().x as usize;
            let mut carry = 0u32;
            for k in (0..nb).step_by(bd) {
                let i = k + thread_idx().x as usize;
                let v = if i < nb { block_sums[i] } else { 0 };
                let (s, total) = block_scan(v, warp_sums);
                if i < nb {
                    block_sums[i] = carry + s - v;
                }
                carry += total;
            }
        }

        /// ... and each block scanning its tile from its prefix.
        #[kernel(boundscheck = $check, block_dim = 256)]
        pub fn scan_downsweep(x: &[u32], block_prefix: &[u32], out: &mut [u32]) {
            let warp_sums = shared_array::<[u32; 32]>();
            let bd = block_dim().x as usize;
            let base = block_idx().x as usize * bd * 16;
            let mut carry = block_prefix[block_idx().x as usize];
            for k in 0..16 {
                let i = base + k * bd + thread_idx().x as usize;
                let v = x[i];
                let (s, total) = block_scan(v, warp_sums);
                out[i] = carry + s;
                carry += total;
            }
        }

        /// 9. Monte-Carlo π with the device xoroshiro128+ (Numba's streams), counts
        /// reduced by warp shuffles, one atomic per block.
        #[kernel(boundscheck = $check, block_dim = 256)]
        pub fn monte_carlo_pi(states: &mut [u64], iters: u32, hits: &mut [u32]) {
            let warp_sums = shared_array::<[u32; 32]>();
            let id = grid(1);
            let mut count = 0u32;
            for _k in 0..iters {
                let x = xoroshiro128p_uniform_f32(states, id);
                let y = xoroshiro128p_uniform_f32(states, id);
                if x * x + y * y <= 1.0 {
                    count += 1;
                }
            }
            let mut off = 16u32;
            while off > 0 {
                count += shfl_down_sync(0xffff_ffffu32, count, off);
                off >>= 1;
            }
            let lane = thread_idx().x % 32;
            let warp = thread_idx().x / 32;
            if lane == 0 {
                warp_sums[warp as usize] = count;
            }
            sync_threads();
            if warp == 0 {
                count = if lane < block_dim().x / 32 {
                    warp_sums[lane as usize]
                } else {
                    0
                };
                off = 16;
                while off > 0 {
                    count += shfl_down_sync(0xffff_ffffu32, count, off);
                    off >>= 1;
                }
                if lane == 0 {
                    atomic_add(hits, 0, count);
                }
            }
        }

        /// The block's sum of one value per thread, by a tree in `sm` (block_dim
        /// floats of dynamic shared memory, block_dim a power of two).
        #[device]
        pub fn block_sum_tree(value: f32, sm: &mut [f32]) -> f32 {
            let tid = thread_idx().x as usize;
            sm[tid] = value;
            sync_threads();
            let mut s = block_dim().x as usize / 2;
            while s > 0 {
                if tid < s {
                    sm[tid] += sm[tid + s];
                }
                sync_threads();
                s >>= 1;
            }
            let total = sm[0];
            sync_threads(); // sm is reused by the next call
            total
        }

        /// 10. Two-phase sum through a grid-wide barrier (`launch!` launches it
        /// cooperatively): each block writes its partial sum, the grid syncs, block 0
        /// sums the partials.
        #[kernel(boundscheck = $check)]
        pub fn grid_sync_sum(x: &[f32], partial: &mut [f32], out: &mut [f32]) {
            let mut smem = dynamic_shared();
            let sm = smem.take::<f32>(block_dim().x as usize);
            let mut v = 0.0f32;
            // The subset's grid-stride loop (as Numba's `range(start, n, stride)`): a
            // counted loop libnvvm can unroll, where `while i < n { i += stride }` on a
            // wrapping usize has no trip count.
            for i in (grid(1)..x.len()).step_by(grid_size(1)) {
                v += x[i];
            }
            v = block_sum_tree(v, sm);
            if thread_idx().x == 0 {
                partial[block_idx().x as usize] = v;
            }
            grid_sync();
            if block_idx().x == 0 {
                let mut w = 0.0f32;
                let mut b = thread_idx().x as usize;
                while b < grid_dim().x as usize {
                    w += partial[b];
                    b += block_dim().x as usize;
                }
                w = block_sum_tree(w, sm);
                if thread_idx().x == 0 {
                    out[0] = w;
                }
            }
        }

        /// 11. N-body all-pairs, one step (issue 9), over `Body` structs: each thread
        /// owns one body and sums the softened pull of every body on it with `rsqrt`,
        /// 256 bodies at a time through a shared tile of positions and masses (the
        /// tiling of NVIDIA's nbody sample; the block is the tile: 256 threads), then
        /// integrates. A ragged last tile is padded with massless bodies, which pull
        /// with exactly zero. `mul_add` where nvcc would contract. 20 flops an
        /// interaction by the usual count.
        #[kernel(boundscheck = $check)]
        pub fn nbody(bodies: &[Body], next: &mut [Body], dt: f32, softening2: f32) {
            let tile = shared_array::<[[f32; 4]; 256]>();
            let n = bodies.len();
            let tid = thread_idx().x as usize;
            let i = grid(1);
            let me = bodies[if i < n { i } else { n - 1 }];
            let mut ax = 0.0f32;
            let mut ay = 0.0f32;
            let mut az = 0.0f32;
            for base in (0..n).step_by(256) {
                let j = base + tid;
                if j < n {
                    let b = bodies[j];
                    tile[tid][0] = b.pos.x;
                    tile[tid][1] = b.pos.y;
                    tile[tid][2] = b.pos.z;
                    tile[tid][3] = b.mass;
                } else {
                    tile[tid][0] = 0.0;
                    tile[tid][1] = 0.0;
                    tile[tid][2] = 0.0;
                    tile[tid][3] = 0.0;
                }
                sync_threads();
                for k in 0..256 {
                    let dx = tile[k][0] - me.pos.x;
                    let dy = tile[k][1] - me.pos.y;
                    let dz = tile[k][2] - me.pos.z;
                    let d2 = dx.mul_add(dx, dy.mul_add(dy, dz.mul_add(dz, softening2)));
                    let inv = rsqrt(d2);
                    let s = tile[k][3] * (inv * inv * inv);
                    ax = dx.mul_add(s, ax);
                    ay = dy.mul_add(s, ay);
                    az = dz.mul_add(s, az);
                }
                sync_threads();
            }
            if i < n {
                let vel = Vec3 {
                    x: ax.mul_add(dt, me.vel.x),
                    y: ay.mul_add(dt, me.vel.y),
                    z: az.mul_add(dt, me.vel.z),
                };
                next[i] = Body {
                    pos: Vec3 {
                        x: vel.x.mul_add(dt, me.pos.x),
                        y: vel.y.mul_add(dt, me.pos.y),
                        z: vel.z.mul_add(dt, me.pos.z),
                    },
                    vel,
                    mass: me.mass,
                };
            }
        }

        /// The cumulative normal distribution by the polynomial of the CUDA SDK's
        /// Black-Scholes sample (Abramowitz & Stegun 26.2.17), for any float type.
        #[device]
        pub fn cnd<T: Float>(d: T) -> T {
            let k = T::one() / T::from_f64(CND_K).mul_add(d.abs(), T::one());
            let poly = k * k.mul_add(
                k.mul_add(
                    k.mul_add(
                        k.mul_add(T::from_f64(CND_A5), T::from_f64(CND_A4)),
                        T::from_f64(CND_A3),
                    ),
                    T::from_f64(CND_A2),
                ),
                T::from_f64(CND_A1),
            );
            let tail = T::from_f64(RSQRT_2PI) * (T::from_f64(-0.5) * d * d).exp() * poly;
            if d > T::zero() {
                T::one() - tail
            } else {
                tail
            }
        }

        /// 12. Black-Scholes (issue 9): European call and put prices, one option per
        /// thread, written ONCE for any float type and instantiated at launch for f32
        /// and f64. `mul_add` wherever nvcc would contract.
        #[kernel(boundscheck = $check)]
        pub fn black_scholes<T: Float>(
            price: &[T],
            strike: &[T],
            years: &[T],
            rate: T,
            volatility: T,
            call: &mut [T],
            put: &mut [T],
        ) {
            let i = grid(1);
            if i < call.len() {
                let s = price[i];
                let x = strike[i];
                let t = years[i];
                let sqrt_t = t.sqrt();
                let drift = (T::from_f64(0.5) * volatility).mul_add(volatility, rate);
                let d1 = drift.mul_add(t, (s / x).ln()) / (volatility * sqrt_t);
                let d2 = (-volatility).mul_add(sqrt_t, d1);
                let cnd1 = cnd::<T>(d1);
                let cnd2 = cnd::<T>(d2);
                let discount = x * (-rate * t).exp();
                call[i] = s.mul_add(cnd1, -discount * cnd2);
                put[i] = discount.mul_add(T::one() - cnd2, -s * (T::one() - cnd1));
            }
        }

        /// `cnd` with `f32` written out for `T`: the hand-monomorphised control.
        #[device]
        pub fn cnd_f32(d: f32) -> f32 {
            let k = 1.0f32 / (CND_K as f32).mul_add(d.abs(), 1.0f32);
            let poly = k * k.mul_add(
                k.mul_add(
                    k.mul_add(k.mul_add(CND_A5 as f32, CND_A4 as f32), CND_A3 as f32),
                    CND_A2 as f32,
                ),
                CND_A1 as f32,
            );
            let tail = (RSQRT_2PI as f32) * (-0.5f32 * d * d).exp() * poly;
            if d > 0.0f32 {
                1.0f32 - tail
            } else {
                tail
            }
        }

        /// 12b. `black_scholes::<f32>` written out by hand, the same body token for
        /// token with `f32` for `T`: the generic kernel must be exactly as fast (and
        /// compiles to the same PTX, see tests/gpu/bench_suite.rs).
        #[kernel(boundscheck = $check)]
        pub fn black_scholes_hand_f32(
            price: &[f32],
            strike: &[f32],
            years: &[f32],
            rate: f32,
            volatility: f32,
            call: &mut [f32],
            put: &mut [f32],
        ) {
            let i = grid(1);
            if i < call.len() {
                let s = price[i];
                let x = strike[i];
                let t = years[i];
                let sqrt_t = t.sqrt();
                let drift = (0.5f32 * volatility).mul_add(volatility, rate);
                let d1 = drift.mul_add(t, (s / x).ln()) / (volatility * sqrt_t);
                let d2 = (-volatility).mul_add(sqrt_t, d1);
                let cnd1 = cnd_f32(d1);
                let cnd2 = cnd_f32(d2);
                let discount = x * (-rate * t).exp();
                call[i] = s.mul_add(cnd1, -discount * cnd2);
                put[i] = discount.mul_add(1.0f32 - cnd2, -s * (1.0f32 - cnd1));
            }
        }
    };
}

/// The kernels with bounds checks (`#[kernel]`).
#[allow(dead_code, unused_imports)]
pub(crate) mod checked {
    use super::{Body, Vec3, CND_A1, CND_A2, CND_A3, CND_A4, CND_A5, CND_K, RSQRT_2PI};
    use cudajit::prelude::*;
    simt_kernels!(true);
}

/// The kernels without (`#[kernel(boundscheck = false)]`). Launching them is `unsafe`;
/// every launch below passes the same shapes and buffers as the checked twin's, which
/// the checked launches prove in bounds (they return `Ok`) before anything is timed.
#[allow(dead_code, unused_imports)]
pub(crate) mod nocheck {
    use super::{Body, Vec3, CND_A1, CND_A2, CND_A3, CND_A4, CND_A5, CND_K, RSQRT_2PI};
    use cudajit::prelude::*;
    simt_kernels!(false);
}

// =====================================================================================
// Host side
// =====================================================================================

/// Every kernel's embedded source, both variants.
fn kernel_sources() -> Vec<(String, &'static cudajit::__private::FnSource)> {
    let mut all = Vec::new();
    macro_rules! add {
        ($($k:ident),*) => {
            $(
                all.push((stringify!($k).to_string(), checked::$k::source()));
                all.push((format!("{}_nocheck", stringify!($k)), nocheck::$k::source()));
            )*
        };
    }
    add!(
        copy_kernel,
        sum_shared,
        sum_warp,
        fast_matmul,
        sgemm,
        histogram,
        transpose,
        stencil5,
        scan_block,
        scan_reduce,
        scan_sums,
        scan_downsweep,
        monte_carlo_pi,
        grid_sync_sum,
        nbody,
        black_scholes_hand_f32
    );
    // The generic kernel's two instantiations (its template alone is not a kernel).
    all.push((
        "black_scholes_generic_f32".to_string(),
        checked::black_scholes::__cudajit_instance::<f32>().0,
    ));
    all.push((
        "black_scholes_generic_f32_nocheck".to_string(),
        nocheck::black_scholes::__cudajit_instance::<f32>().0,
    ));
    all.push((
        "black_scholes_generic_f64".to_string(),
        checked::black_scholes::__cudajit_instance::<f64>().0,
    ));
    all.push((
        "black_scholes_generic_f64_nocheck".to_string(),
        nocheck::black_scholes::__cudajit_instance::<f64>().0,
    ));
    all
}

/// `simt --ptx`: compiles every kernel as cudajit's JIT would for an sm_90 device.
fn compile_all(out_dir: Option<&str>) -> BenchResult<()> {
    use kernel_device::back::nvvm::Options;
    use kernel_device::nvvm::{CompileOptions, Nvvm};
    let nvvm = Nvvm::shared()?;
    let options = Options {
        ir_version: nvvm.ir_version(),
        ..Options::default()
    };
    let compile = CompileOptions {
        arch: "compute_90".to_string(),
        ..CompileOptions::default()
    };
    let ptxas = std::env::var_os("CUDAJIT_PTXAS");
    let dir = std::path::PathBuf::from(out_dir.unwrap_or("target/simt-ptx"));
    std::fs::create_dir_all(&dir)?;
    let mut failures = 0;
    for (name, source) in kernel_sources() {
        let result = kernel_device::nvvm_ir_for_kernel(source, &options)
            .map_err(|e| e.to_string())
            .and_then(|unit| {
                // The IR too, to read what libnvvm was given beside what it made.
                std::fs::write(dir.join(format!("{name}.ll")), &unit.nvvm_ir)
                    .map_err(|e| e.to_string())?;
                nvvm.compile(&unit.nvvm_ir, &compile)
                    .map_err(|e| e.to_string())
            });
        let ptx = match result {
            Ok(ptx) => ptx,
            Err(e) => {
                println!("FAIL {name}: {e}");
                failures += 1;
                continue;
            }
        };
        let path = dir.join(format!("{name}.ptx"));
        std::fs::write(&path, &ptx)?;
        let mut line = format!("ok   {name}: {} bytes of PTX", ptx.len());
        if let Some(ptxas) = &ptxas {
            let out = std::process::Command::new(ptxas)
                .args(["-arch=sm_90", "-v", "-o", "/dev/null"])
                .arg(&path)
                .output()?;
            let text = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                println!("FAIL {name}: ptxas: {text}");
                failures += 1;
                continue;
            }
            let usage: Vec<&str> = text
                .lines()
                .filter(|l| l.contains("Used") || l.contains("spill"))
                .collect();
            line += &format!(
                "; ptxas: {}",
                usage
                    .join("; ")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        println!("{line}");
    }
    if failures > 0 {
        return Err(format!("{failures} kernels failed to compile").into());
    }
    Ok(())
}

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    // `simt --ptx [DIR]`: every kernel through libnvvm for compute_90 (and ptxas
    // -arch=sm_90 when CUDAJIT_PTXAS names it), without a GPU; IR and PTX files go to DIR.
    if wanted.first().is_some_and(|a| a == "--ptx") {
        std::process::exit(match compile_all(wanted.get(1).map(String::as_str)) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("simt --ptx: {e}");
                1
            }
        });
    }
    // SAFETY: only asks the loader whether libcuda can be opened.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        println!("skipped: no CUDA driver library (libcuda) on this machine");
        // `cargo test --all-targets` (CI) runs this binary too: there, check instead that
        // every kernel compiles as the GPU machine's JIT will compile it.
        if kernel_device::nvvm::Nvvm::shared().is_ok() {
            println!("compiling every kernel for compute_90 instead (ptxas too when CUDAJIT_PTXAS is set)");
            let dir = std::env::temp_dir().join(format!("cudajit-simt-ptx-{}", std::process::id()));
            let result = compile_all(dir.to_str());
            let _ = std::fs::remove_dir_all(&dir);
            if let Err(e) = result {
                eprintln!("simt: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let device = match Device::default() {
        Ok(d) => d,
        Err(e) => {
            println!("skipped: no CUDA device: {e}");
            return;
        }
    };
    match run(&device, &wanted) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("simt: error: {e}");
            std::process::exit(1);
        }
    }
}

/// Runs the wanted benches; `Ok(false)` when a kernel gave a wrong result (the others
/// still run). A CUDA error ends the run: the context may be unusable after it.
fn run(device: &Device, wanted: &[String]) -> BenchResult<bool> {
    let (major, minor) = device.compute_capability();
    println!(
        "simt cudajit: {} (sm_{major}{minor}), {} SMs",
        device.name(),
        device.multiprocessor_count()
    );
    let stream = device.new_stream()?;
    let b = Bench {
        stream: &stream,
        device,
    };
    type Run = fn(&Bench) -> BenchResult<()>;
    let benches: &[(&str, Run)] = &[
        ("copy", |b| b.copy()),
        ("copy_kernel", |b| b.copy_kernel()),
        ("sum_shared", |b| b.sum(false)),
        ("sum_warp", |b| b.sum(true)),
        ("fast_matmul", |b| b.fast_matmul()),
        ("sgemm", |b| b.sgemm()),
        ("histogram", |b| b.histogram()),
        ("transpose", |b| b.transpose()),
        ("stencil", |b| b.stencil()),
        ("scan", |b| b.scans()),
        ("monte_carlo_pi", |b| b.pi()),
        ("grid_sync", |b| b.grid_sync()),
        ("nbody", |b| b.nbody()),
        ("black_scholes", |b| b.black_scholes()),
    ];
    let mut all_right = true;
    for (name, bench) in benches {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == name) {
            continue;
        }
        match bench(&b) {
            Ok(()) => {}
            Err(e) if e.is::<WrongResult>() => {
                eprintln!("simt cudajit: {name}: wrong result: {e}");
                device.synchronize()?;
                all_right = false;
            }
            Err(e) => return Err(format!("{name}: {e}").into()),
        }
    }
    Ok(all_right)
}

#[derive(Debug)]
struct WrongResult(String);

impl std::fmt::Display for WrongResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl StdError for WrongResult {}

fn wrong(what: impl Into<String>) -> Box<dyn StdError> {
    Box::new(WrongResult(what.into()))
}

// ---- inputs: splitmix64 of (seed, index), the same numbers in all three programs
fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// k / 2^24 in [0, 1), exact in f32.
fn unit_floats(n: usize, seed: u64) -> Vec<f32> {
    (0..n as u64)
        .map(|i| (mix(seed, i) >> 40) as f32 * (1.0 / 16_777_216.0))
        .collect()
}

/// [-1, 1), exact in f32.
fn signed_floats(n: usize, seed: u64) -> Vec<f32> {
    (0..n as u64)
        .map(|i| (mix(seed, i) >> 40) as f32 * (1.0 / 8_388_608.0) - 1.0)
        .collect()
}

fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    (0..n as u64).map(|i| (mix(seed, i) >> 56) as u8).collect()
}

/// 0..15: a scan of 2^26 of them stays below 2^32.
fn small_u32(n: usize, seed: u64) -> Vec<u32> {
    (0..n as u64).map(|i| (mix(seed, i) >> 60) as u32).collect()
}

/// What one bench needs: the stream every launch goes to.
struct Bench<'a> {
    stream: &'a Stream,
    device: &'a Device,
}

/// Which variant a launch closure runs.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Checked,
    Nocheck,
}

use Variant::{Checked, Nocheck};

impl Bench<'_> {
    fn cfg(
        &self,
        grid: impl Into<cudajit::Dim>,
        block: impl Into<cudajit::Dim>,
    ) -> LaunchConfig<'_> {
        LaunchConfig::new(grid, block).stream(self.stream)
    }

    /// Zeroes `a` on the bench's stream without waiting (cudaMemsetAsync's place).
    fn zero<T: cudajit::DeviceScalar>(&self, a: &DeviceArray<T>) -> BenchResult<()> {
        let bytes = a.len() * std::mem::size_of::<T>();
        // SAFETY: `a` owns `bytes` bytes at its device pointer.
        unsafe { cu_result::memset_d8_async(a.device_ptr(), 0, bytes, self.stream.cu_stream()) }?;
        Ok(())
    }

    /// Medians (µs) of `reps` event-timed runs of the checked and unchecked variants,
    /// interleaved launch by launch; `before` (untimed) runs before each launch.
    fn time_pair(
        &self,
        reps: usize,
        before: &mut dyn FnMut() -> BenchResult<()>,
        body: &mut dyn FnMut(Variant) -> BenchResult<()>,
    ) -> BenchResult<(f64, f64)> {
        stats::time_checked_pair(self.stream, WARMUP, reps, before, &mut |checked| {
            body(if checked { Checked } else { Nocheck })
        })
    }

    /// Medians (µs) of `reps` event-timed runs of each of `variants` launch kinds,
    /// interleaved launch by launch as in `time_pair`; `body(v)` launches kind `v`.
    fn time_interleaved(
        &self,
        reps: usize,
        variants: usize,
        body: &mut dyn FnMut(usize) -> BenchResult<()>,
    ) -> BenchResult<Vec<f64>> {
        for _ in 0..WARMUP {
            for v in 0..variants {
                body(v)?;
            }
        }
        self.stream.synchronize()?;
        let mut events = Vec::with_capacity(reps);
        for _ in 0..reps {
            let mut row = Vec::with_capacity(variants);
            for v in 0..variants {
                let start = Event::record(self.stream)?;
                body(v)?;
                row.push((start, Event::record(self.stream)?));
            }
            events.push(row);
        }
        self.stream.synchronize()?;
        let mut times = vec![Vec::with_capacity(reps); variants];
        for row in &events {
            for (v, (start, stop)) in row.iter().enumerate() {
                times[v].push(start.elapsed_ms(stop)? as f64 * 1e3);
            }
        }
        Ok(times.into_iter().map(median).collect())
    }

    fn report(kernel: &str, (checked, unchecked): (f64, f64), bytes: f64, flops: f64, reps: usize) {
        for (variant, us) in [("cudajit", checked), ("cudajit_nocheck", unchecked)] {
            println!(
                "RESULT {kernel}.{variant} {us:.3} bytes={bytes:.0},flops={flops:.0},reps={reps}"
            );
        }
    }

    /// Device-to-device copy bandwidth (cuMemcpyDtoDAsync), the ceiling of the %copy
    /// column.
    fn copy(&self) -> BenchResult<()> {
        let h = unit_floats(COPY_N, 10);
        let a = DeviceArray::from_slice(&h)?;
        let b = DeviceArray::from_slice(&vec![f32::NAN; COPY_N])?;
        let bytes = COPY_N * 4;
        let mut copy = |_: Variant| -> BenchResult<()> {
            // SAFETY: both arrays hold `bytes` bytes; the copy is ordered on the stream.
            unsafe {
                cu_result::memcpy_dtod_async(
                    b.device_ptr(),
                    a.device_ptr(),
                    bytes,
                    self.stream.cu_stream(),
                )
            }?;
            Ok(())
        };
        let (us, _) = self.time_pair(50, &mut || Ok(()), &mut copy)?;
        if b.to_host()? != h {
            return Err(wrong("copy"));
        }
        println!(
            "RESULT copy.cudajit {us:.3} bytes={},flops=0,reps=50",
            2 * bytes
        );
        Ok(())
    }

    /// The same copy through a SIMT kernel, one element per thread.
    fn copy_kernel(&self) -> BenchResult<()> {
        let h = signed_floats(COPY_N, 12);
        let input = DeviceArray::from_slice(&h)?;
        let out = RefCell::new(DeviceArray::from_slice(&vec![f32::NAN; COPY_N])?);
        let blocks = (COPY_N as u32).div_ceil(COPY_BLOCK);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(blocks, COPY_BLOCK);
            match v {
                Checked => checked::copy_kernel::launch(cfg, &input, &mut *out.borrow_mut())?,
                Nocheck => {
                    unsafe { nocheck::copy_kernel::launch(cfg, &input, &mut *out.borrow_mut()) }?
                }
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            out.borrow_mut().copy_from_host(&vec![f32::NAN; COPY_N])?;
            body(v)?;
            if out.borrow().to_host()? != h {
                return Err(wrong("copy_kernel"));
            }
        }
        let times = self.time_pair(50, &mut || Ok(()), &mut body)?;
        Self::report("copy_kernel", times, 8.0 * COPY_N as f64, 0.0, 50);
        Ok(())
    }

    fn sum(&self, warp: bool) -> BenchResult<()> {
        let name = if warp { "sum_warp" } else { "sum_shared" };
        let h = unit_floats(SUM_N, 1);
        let want: f64 = h.iter().map(|&v| v as f64).sum();
        let x = DeviceArray::from_slice(&h)?;
        let out = RefCell::new(DeviceArray::from_slice(&[f32::NAN])?);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(SUM_GRID, SUM_BLOCK);
            match (warp, v) {
                (false, Checked) => checked::sum_shared::launch(cfg, &x, &mut *out.borrow_mut())?,
                (false, Nocheck) => {
                    unsafe { nocheck::sum_shared::launch(cfg, &x, &mut *out.borrow_mut()) }?
                }
                (true, Checked) => checked::sum_warp::launch(cfg, &x, &mut *out.borrow_mut())?,
                (true, Nocheck) => {
                    unsafe { nocheck::sum_warp::launch(cfg, &x, &mut *out.borrow_mut()) }?
                }
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            self.zero(&out.borrow())?;
            body(v)?;
            let got = out.borrow().to_host()?[0] as f64;
            // f32 atomics over 2048 partial sums of ~65536: far below 1e-4 of the total.
            if (got - want).abs() > 1e-4 * want {
                return Err(wrong(format!("{name}: {got}, want {want}")));
            }
        }
        let times = self.time_pair(50, &mut || self.zero(&out.borrow()), &mut body)?;
        Self::report(name, times, 4.0 * SUM_N as f64, SUM_N as f64, 50);
        Ok(())
    }

    fn fast_matmul(&self) -> BenchResult<()> {
        let n = MAT_N;
        let (ha, hb) = (signed_floats(n * n, 2), signed_floats(n * n, 3));
        let (a, b) = (DeviceArray::from_slice(&ha)?, DeviceArray::from_slice(&hb)?);
        let c = RefCell::new(DeviceArray::from_slice(&vec![f32::NAN; n * n])?);
        let blocks = (n as u32).div_ceil(TPB);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg((blocks, blocks), (TPB, TPB));
            match v {
                Checked => checked::fast_matmul::launch(cfg, &a, &b, &mut *c.borrow_mut(), n)?,
                Nocheck => {
                    unsafe { nocheck::fast_matmul::launch(cfg, &a, &b, &mut *c.borrow_mut(), n) }?
                }
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            c.borrow_mut().copy_from_host(&vec![f32::NAN; n * n])?;
            body(v)?;
            check_matmul(&ha, &hb, &c.borrow().to_host()?, n, "fast_matmul")?;
        }
        let times = self.time_pair(20, &mut || Ok(()), &mut body)?;
        let nn = (n * n) as f64;
        Self::report("fast_matmul", times, 12.0 * nn, 2.0 * n as f64 * nn, 20);
        Ok(())
    }

    fn sgemm(&self) -> BenchResult<()> {
        let n = GEMM_N;
        let (ha, hb) = (signed_floats(n * n, 4), signed_floats(n * n, 5));
        let (a, b) = (DeviceArray::from_slice(&ha)?, DeviceArray::from_slice(&hb)?);
        let c = RefCell::new(DeviceArray::from_slice(&vec![f32::NAN; n * n])?);
        let blocks = (n / GEMM_TILE) as u32;
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg((blocks, blocks), GEMM_THREADS);
            match v {
                Checked => checked::sgemm::launch(cfg, &a, &b, &mut *c.borrow_mut(), n)?,
                Nocheck => unsafe { nocheck::sgemm::launch(cfg, &a, &b, &mut *c.borrow_mut(), n) }?,
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            c.borrow_mut().copy_from_host(&vec![f32::NAN; n * n])?;
            body(v)?;
            check_matmul(&ha, &hb, &c.borrow().to_host()?, n, "sgemm")?;
        }
        let times = self.time_pair(20, &mut || Ok(()), &mut body)?;
        let nn = (n * n) as f64;
        Self::report("sgemm", times, 12.0 * nn, 2.0 * n as f64 * nn, 20);
        Ok(())
    }

    fn histogram(&self) -> BenchResult<()> {
        let h = random_bytes(HIST_N, 6);
        let mut want = vec![0u32; BINS];
        for &v in &h {
            want[v as usize] += 1;
        }
        let x = DeviceArray::from_slice(&h)?;
        let hist = RefCell::new(DeviceArray::<u32>::zeros(BINS)?);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(HIST_GRID, HIST_BLOCK);
            match v {
                Checked => checked::histogram::launch(cfg, &x, &mut *hist.borrow_mut())?,
                Nocheck => unsafe { nocheck::histogram::launch(cfg, &x, &mut *hist.borrow_mut()) }?,
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            self.zero(&hist.borrow())?;
            body(v)?;
            if hist.borrow().to_host()? != want {
                return Err(wrong("histogram"));
            }
        }
        let times = self.time_pair(50, &mut || self.zero(&hist.borrow()), &mut body)?;
        Self::report("histogram", times, HIST_N as f64, 0.0, 50);
        Ok(())
    }

    fn transpose(&self) -> BenchResult<()> {
        let n = TRANS_N;
        let h = signed_floats(n * n, 7);
        let input = DeviceArray::from_slice(&h)?;
        let out = RefCell::new(DeviceArray::from_slice(&vec![f32::NAN; n * n])?);
        let blocks = (n / TILE) as u32;
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg((blocks, blocks), (TILE as u32, TILE_ROWS));
            match v {
                Checked => checked::transpose::launch(cfg, &input, &mut *out.borrow_mut(), n)?,
                Nocheck => {
                    unsafe { nocheck::transpose::launch(cfg, &input, &mut *out.borrow_mut(), n) }?
                }
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            out.borrow_mut().copy_from_host(&vec![f32::NAN; n * n])?;
            body(v)?;
            let got = out.borrow().to_host()?;
            for r in 0..n {
                for c in 0..n {
                    if got[r * n + c].to_bits() != h[c * n + r].to_bits() {
                        return Err(wrong(format!("transpose at ({r}, {c})")));
                    }
                }
            }
        }
        let times = self.time_pair(50, &mut || Ok(()), &mut body)?;
        Self::report("transpose", times, 8.0 * (n * n) as f64, 0.0, 50);
        Ok(())
    }

    fn stencil(&self) -> BenchResult<()> {
        let n = STENCIL_N;
        let h = signed_floats(n * n, 8);
        let input = DeviceArray::from_slice(&h)?;
        let out = RefCell::new(DeviceArray::from_slice(&vec![f32::NAN; n * n])?);
        let grid = ((n / ST_TILE) as u32, (n / ST_TILE) as u32);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(grid, (ST_TILE as u32, ST_ROWS as u32));
            match v {
                Checked => checked::stencil5::launch(cfg, &input, &mut *out.borrow_mut(), n, n)?,
                Nocheck => {
                    unsafe { nocheck::stencil5::launch(cfg, &input, &mut *out.borrow_mut(), n, n) }?
                }
            }
            Ok(())
        };
        let at = |r: isize, c: isize| -> f64 {
            if r < 0 || c < 0 || r >= n as isize || c >= n as isize {
                0.0
            } else {
                h[r as usize * n + c as usize] as f64
            }
        };
        for v in [Checked, Nocheck] {
            out.borrow_mut().copy_from_host(&vec![f32::NAN; n * n])?;
            body(v)?;
            let got = out.borrow().to_host()?;
            for r in 0..n as isize {
                for c in 0..n as isize {
                    let want = 0.5 * at(r, c)
                        + 0.125 * (at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1));
                    let g = got[r as usize * n + c as usize] as f64;
                    if !((g - want).abs() <= 1e-6) {
                        return Err(wrong(format!("stencil at ({r}, {c}): {g} != {want}")));
                    }
                }
            }
        }
        let times = self.time_pair(50, &mut || Ok(()), &mut body)?;
        let nn = (n * n) as f64;
        Self::report("stencil", times, 8.0 * nn, 6.0 * nn, 50);
        Ok(())
    }

    fn scans(&self) -> BenchResult<()> {
        let h = small_u32(SCAN_N, 9);
        let x = DeviceArray::from_slice(&h)?;
        let poison = vec![u32::MAX; SCAN_N];
        let out = RefCell::new(DeviceArray::from_slice(&poison)?);
        // a. block-wide
        let blocks = (SCAN_N / SCAN_BLOCK as usize) as u32;
        let mut block_body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(blocks, SCAN_BLOCK);
            match v {
                Checked => checked::scan_block::launch(cfg, &x, &mut *out.borrow_mut())?,
                Nocheck => unsafe { nocheck::scan_block::launch(cfg, &x, &mut *out.borrow_mut()) }?,
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            block_body(v)?;
            let got = out.borrow().to_host()?;
            let mut run = 0u32;
            for (i, (&g, &x)) in got.iter().zip(&h).enumerate() {
                run = if i % SCAN_BLOCK as usize == 0 { 0 } else { run } + x;
                if g != run {
                    return Err(wrong(format!("scan_block at {i}: {g} != {run}")));
                }
            }
            out.borrow_mut().copy_from_host(&poison)?;
        }
        let times = self.time_pair(50, &mut || Ok(()), &mut block_body)?;
        Self::report("scan_block", times, 8.0 * SCAN_N as f64, 0.0, 50);
        // b. multi-block, reduce-then-scan
        let tiles = SCAN_N / (SCAN_BLOCK as usize * SCAN_ITEMS);
        let sums = RefCell::new(DeviceArray::<u32>::zeros(tiles)?);
        let mut multi_body = |v: Variant| -> BenchResult<()> {
            let (t, s) = (
                self.cfg(tiles as u32, SCAN_BLOCK),
                self.cfg(1, SCAN_SUMS_BLOCK),
            );
            let t2 = self.cfg(tiles as u32, SCAN_BLOCK);
            match v {
                Checked => {
                    checked::scan_reduce::launch(t, &x, &mut *sums.borrow_mut())?;
                    checked::scan_sums::launch(s, &mut *sums.borrow_mut())?;
                    checked::scan_downsweep::launch(
                        t2,
                        &x,
                        &*sums.borrow(),
                        &mut *out.borrow_mut(),
                    )?;
                }
                Nocheck => unsafe {
                    nocheck::scan_reduce::launch(t, &x, &mut *sums.borrow_mut())?;
                    nocheck::scan_sums::launch(s, &mut *sums.borrow_mut())?;
                    nocheck::scan_downsweep::launch(
                        t2,
                        &x,
                        &*sums.borrow(),
                        &mut *out.borrow_mut(),
                    )?;
                },
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            out.borrow_mut().copy_from_host(&poison)?;
            multi_body(v)?;
            let got = out.borrow().to_host()?;
            let mut run = 0u32;
            for (i, (&g, &x)) in got.iter().zip(&h).enumerate() {
                run += x;
                if g != run {
                    return Err(wrong(format!("scan_multi at {i}: {g} != {run}")));
                }
            }
        }
        let times = self.time_pair(50, &mut || Ok(()), &mut multi_body)?;
        Self::report("scan_multi", times, 12.0 * SCAN_N as f64, 0.0, 50);
        Ok(())
    }

    fn pi(&self) -> BenchResult<()> {
        let threads = (PI_GRID * PI_BLOCK) as usize;
        let states = RefCell::new(cudajit::random::create_xoroshiro128p_states(
            threads, PI_SEED,
        )?);
        let hits = RefCell::new(DeviceArray::<u32>::zeros(1)?);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(PI_GRID, PI_BLOCK);
            match v {
                Checked => checked::monte_carlo_pi::launch(
                    cfg,
                    &mut *states.borrow_mut(),
                    PI_ITERS,
                    &mut *hits.borrow_mut(),
                )?,
                Nocheck => unsafe {
                    nocheck::monte_carlo_pi::launch(
                        cfg,
                        &mut *states.borrow_mut(),
                        PI_ITERS,
                        &mut *hits.borrow_mut(),
                    )
                }?,
            }
            Ok(())
        };
        let samples = threads as f64 * PI_ITERS as f64;
        for v in [Checked, Nocheck] {
            self.zero(&hits.borrow())?;
            body(v)?;
            let pi = 4.0 * hits.borrow().to_host()?[0] as f64 / samples;
            // 2^28 samples: the standard error of the estimate is 1e-4.
            if (pi - std::f64::consts::PI).abs() > 1e-3 {
                return Err(wrong(format!("monte_carlo_pi: {pi}")));
            }
            println!("monte_carlo_pi.cudajit estimate {pi:.6}");
        }
        let times = self.time_pair(50, &mut || self.zero(&hits.borrow()), &mut body)?;
        Self::report("monte_carlo_pi", times, 32.0 * threads as f64, samples, 50);
        Ok(())
    }

    fn grid_sync(&self) -> BenchResult<()> {
        let grid = GS_BLOCKS_PER_SM * self.device.multiprocessor_count();
        let most = checked::grid_sync_sum::max_cooperative_grid_blocks_for(
            LaunchConfig::new(1u32, GS_BLOCK).shared_bytes(GS_SHARED),
        )?;
        if grid > most {
            return Err(wrong(format!(
                "grid_sync_sum: {grid} blocks cannot be co-resident (at most {most})"
            )));
        }
        let h = unit_floats(GS_N, 11);
        let want: f64 = h.iter().map(|&v| v as f64).sum();
        let x = DeviceArray::from_slice(&h)?;
        let partial = RefCell::new(DeviceArray::<f32>::zeros(grid as usize)?);
        let out = RefCell::new(DeviceArray::from_slice(&[f32::NAN])?);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(grid, GS_BLOCK).shared_bytes(GS_SHARED);
            match v {
                Checked => checked::grid_sync_sum::launch(
                    cfg,
                    &x,
                    &mut *partial.borrow_mut(),
                    &mut *out.borrow_mut(),
                )?,
                Nocheck => unsafe {
                    nocheck::grid_sync_sum::launch(
                        cfg,
                        &x,
                        &mut *partial.borrow_mut(),
                        &mut *out.borrow_mut(),
                    )
                }?,
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            out.borrow_mut().copy_from_host(&[f32::NAN])?;
            body(v)?;
            let got = out.borrow().to_host()?[0] as f64;
            if (got - want).abs() > 1e-4 * want {
                return Err(wrong(format!("grid_sync_sum: {got}, want {want}")));
            }
        }
        let times = self.time_pair(50, &mut || Ok(()), &mut body)?;
        for (variant, us) in [("cudajit", times.0), ("cudajit_nocheck", times.1)] {
            println!(
                "RESULT grid_sync.{variant} {us:.3} bytes={},flops={GS_N},reps=50,grid={grid}",
                4 * GS_N
            );
        }
        Ok(())
    }
}

impl Bench<'_> {
    /// Issue 9: n-body all-pairs over `Body` structs, checked and unchecked builds.
    fn nbody(&self) -> BenchResult<()> {
        let n = NBODY_N;
        let bodies = nbody_inputs(n);
        let input = DeviceArray::from_slice(&bodies)?;
        let poison = vec![poisoned_body(); n];
        let next = RefCell::new(DeviceArray::from_slice(&poison)?);
        let blocks = (n as u32).div_ceil(NBODY_BLOCK);
        let (dt, soft) = (NBODY_DT, NBODY_SOFTENING2);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(blocks, NBODY_BLOCK);
            let mut next = next.borrow_mut();
            match v {
                Checked => checked::nbody::launch(cfg, &input, &mut *next, dt, soft)?,
                Nocheck => unsafe { nocheck::nbody::launch(cfg, &input, &mut *next, dt, soft) }?,
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            next.borrow_mut().copy_from_host(&poison)?;
            body(v)?;
            check_nbody(&bodies, &next.borrow().to_host()?)?;
        }
        let times = self.time_pair(20, &mut || Ok(()), &mut body)?;
        let bytes = 2.0 * std::mem::size_of::<Body>() as f64 * n as f64;
        let flops = FLOPS_PER_INTERACTION * (n * n) as f64;
        Self::report("nbody", times, bytes, flops, 20);
        Ok(())
    }

    /// Issue 9: Black-Scholes from ONE generic kernel, instantiated for f32 and f64,
    /// beside the same body hand-written for f32. The four f32 launches (generic and
    /// hand-written, checked and not) are interleaved launch by launch, so the
    /// generic-against-hand ratio sees no clock drift.
    fn black_scholes(&self) -> BenchResult<()> {
        let n = BS_N;
        let (price, strike, years) = option_inputs(n);
        let want: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let (s, x, t) = (price[i] as f64, strike[i] as f64, years[i] as f64);
                black_scholes_reference(s, x, t, BS_RATE, BS_VOLATILITY)
            })
            .collect();
        let blocks = (n as u32).div_ceil(BS_BLOCK);

        // f32: generic (checked, unchecked), hand-written (checked, unchecked).
        let (p, x, t) = (
            DeviceArray::from_slice(&price)?,
            DeviceArray::from_slice(&strike)?,
            DeviceArray::from_slice(&years)?,
        );
        let (rate, vol) = (BS_RATE as f32, BS_VOLATILITY as f32);
        let poison = vec![f32::NAN; n];
        let call = RefCell::new(DeviceArray::from_slice(&poison)?);
        let put = RefCell::new(DeviceArray::from_slice(&poison)?);
        let mut body = |v: usize| -> BenchResult<()> {
            let cfg = self.cfg(blocks, BS_BLOCK);
            let (mut c, mut q) = (call.borrow_mut(), put.borrow_mut());
            let (c, q) = (&mut *c, &mut *q);
            match v {
                0 => checked::black_scholes::launch(cfg, &p, &x, &t, rate, vol, c, q)?,
                1 => unsafe { nocheck::black_scholes::launch(cfg, &p, &x, &t, rate, vol, c, q) }?,
                2 => checked::black_scholes_hand_f32::launch(cfg, &p, &x, &t, rate, vol, c, q)?,
                _ => unsafe {
                    nocheck::black_scholes_hand_f32::launch(cfg, &p, &x, &t, rate, vol, c, q)
                }?,
            }
            Ok(())
        };
        let mut outputs = Vec::new();
        for v in 0..4 {
            call.borrow_mut().copy_from_host(&poison)?;
            put.borrow_mut().copy_from_host(&poison)?;
            body(v)?;
            let got = (call.borrow().to_host()?, put.borrow().to_host()?);
            check_options(
                &price,
                &strike,
                &got.0,
                &got.1,
                &want,
                1e-5,
                "black_scholes f32",
            )?;
            outputs.push(got);
        }
        // The generic instantiation and the hand-written kernel compute the very same
        // bits (they compile to the same PTX; tests/gpu/bench_suite.rs checks that).
        let same_bits = |a: &(Vec<f32>, Vec<f32>), b: &(Vec<f32>, Vec<f32>)| {
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            bits(&a.0) == bits(&b.0) && bits(&a.1) == bits(&b.1)
        };
        let same = [
            same_bits(&outputs[0], &outputs[2]),
            same_bits(&outputs[1], &outputs[3]),
        ];
        let us = self.time_interleaved(50, 4, &mut body)?;
        let bytes = 5.0 * 4.0 * n as f64;
        Self::report("black_scholes_f32", (us[0], us[1]), bytes, 0.0, 50);
        for (variant, at, same) in [("cudajit", 2, same[0]), ("cudajit_nocheck", 3, same[1])] {
            println!(
                "RESULT black_scholes_f32_hand.{variant} {:.3} bytes={bytes:.0},flops=0,reps=50,same_bits_as_generic={same}",
                us[at]
            );
        }

        // f64: the same generic kernel, the same options widened.
        let wide = |v: &[f32]| v.iter().map(|&a| a as f64).collect::<Vec<f64>>();
        let (p, x, t) = (
            DeviceArray::from_slice(&wide(&price))?,
            DeviceArray::from_slice(&wide(&strike))?,
            DeviceArray::from_slice(&wide(&years))?,
        );
        let (rate, vol) = (BS_RATE, BS_VOLATILITY);
        let poison = vec![f64::NAN; n];
        let call = RefCell::new(DeviceArray::from_slice(&poison)?);
        let put = RefCell::new(DeviceArray::from_slice(&poison)?);
        let mut body = |v: Variant| -> BenchResult<()> {
            let cfg = self.cfg(blocks, BS_BLOCK);
            let (mut c, mut q) = (call.borrow_mut(), put.borrow_mut());
            let (c, q) = (&mut *c, &mut *q);
            match v {
                Checked => checked::black_scholes::launch(cfg, &p, &x, &t, rate, vol, c, q)?,
                Nocheck => {
                    unsafe { nocheck::black_scholes::launch(cfg, &p, &x, &t, rate, vol, c, q) }?
                }
            }
            Ok(())
        };
        for v in [Checked, Nocheck] {
            call.borrow_mut().copy_from_host(&poison)?;
            put.borrow_mut().copy_from_host(&poison)?;
            body(v)?;
            let (c, q) = (call.borrow().to_host()?, put.borrow().to_host()?);
            check_options(&price, &strike, &c, &q, &want, 1e-10, "black_scholes f64")?;
        }
        let times = self.time_pair(50, &mut || Ok(()), &mut body)?;
        Self::report("black_scholes_f64", times, 5.0 * 8.0 * n as f64, 0.0, 50);
        Ok(())
    }
}

/// The bodies: positions in [-10, 10)³, velocities in [-1, 1)³, masses in [0.5, 2).
fn nbody_inputs(n: usize) -> Vec<Body> {
    let coord = |seed: u64, scale: f32| -> Vec<f32> {
        signed_floats(n, seed)
            .into_iter()
            .map(|v| scale * v)
            .collect()
    };
    let (px, py, pz) = (coord(21, 10.0), coord(22, 10.0), coord(23, 10.0));
    let (vx, vy, vz) = (coord(24, 1.0), coord(25, 1.0), coord(26, 1.0));
    let mass = unit_floats(n, 27);
    (0..n)
        .map(|i| Body {
            pos: Vec3 {
                x: px[i],
                y: py[i],
                z: pz[i],
            },
            vel: Vec3 {
                x: vx[i],
                y: vy[i],
                z: vz[i],
            },
            mass: 0.5 + 1.5 * mass[i],
        })
        .collect()
}

fn poisoned_body() -> Body {
    let nan = Vec3 {
        x: f32::NAN,
        y: f32::NAN,
        z: f32::NAN,
    };
    Body {
        pos: nan,
        vel: nan,
        mass: f32::NAN,
    }
}

/// Body `i` after one step, in f64: (position, velocity).
fn nbody_reference(bodies: &[Body], i: usize, dt: f64, softening2: f64) -> [f64; 6] {
    let me = bodies[i];
    let mut acc = [0.0f64; 3];
    for other in bodies {
        let d = [
            other.pos.x as f64 - me.pos.x as f64,
            other.pos.y as f64 - me.pos.y as f64,
            other.pos.z as f64 - me.pos.z as f64,
        ];
        let inv = 1.0 / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening2).sqrt();
        let s = other.mass as f64 * inv * inv * inv;
        for k in 0..3 {
            acc[k] += d[k] * s;
        }
    }
    let vel = [
        me.vel.x as f64 + acc[0] * dt,
        me.vel.y as f64 + acc[1] * dt,
        me.vel.z as f64 + acc[2] * dt,
    ];
    [
        me.pos.x as f64 + vel[0] * dt,
        me.pos.y as f64 + vel[1] * dt,
        me.pos.z as f64 + vel[2] * dt,
        vel[0],
        vel[1],
        vel[2],
    ]
}

/// Spot-checks one step at 1024 bodies (the first and last among them) against the
/// f64 reference: f32 sums of 65536 terms with `rsqrt` (2 ulp), within 1e-3 of the
/// larger of a value and 1.
fn check_nbody(bodies: &[Body], next: &[Body]) -> BenchResult<()> {
    let n = bodies.len();
    for s in 0..1024u64 {
        let i = match s {
            0 => 0,
            1 => n - 1,
            _ => (mix(98, s) % n as u64) as usize,
        };
        let want = nbody_reference(bodies, i, NBODY_DT as f64, NBODY_SOFTENING2 as f64);
        let g = next[i];
        let got = [g.pos.x, g.pos.y, g.pos.z, g.vel.x, g.vel.y, g.vel.z];
        let close = got
            .iter()
            .zip(&want)
            .all(|(&a, &b)| (a as f64 - b).abs() <= 1e-3 * b.abs().max(1.0));
        if !close || g.mass.to_bits() != bodies[i].mass.to_bits() {
            return Err(wrong(format!("nbody: body {i}: {g:?}, want {want:?}")));
        }
    }
    Ok(())
}

/// The options: prices in [5, 30), strikes in [1, 100), years in [0.25, 10) (the CUDA
/// SDK sample's ranges).
fn option_inputs(n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let range = |seed: u64, lo: f32, width: f32| -> Vec<f32> {
        unit_floats(n, seed)
            .into_iter()
            .map(|u| lo + width * u)
            .collect()
    };
    (
        range(31, 5.0, 25.0),
        range(32, 1.0, 99.0),
        range(33, 0.25, 9.75),
    )
}

/// (call, put) by the kernels' algorithm in plain f64 arithmetic.
fn black_scholes_reference(s: f64, x: f64, t: f64, rate: f64, volatility: f64) -> (f64, f64) {
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + CND_K * d.abs());
        let poly = k * (CND_A1 + k * (CND_A2 + k * (CND_A3 + k * (CND_A4 + k * CND_A5))));
        let tail = RSQRT_2PI * (-0.5 * d * d).exp() * poly;
        if d > 0.0 {
            1.0 - tail
        } else {
            tail
        }
    };
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (rate + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t);
    let d2 = d1 - volatility * sqrt_t;
    let discount = x * (-rate * t).exp();
    (
        s * cnd(d1) - discount * cnd(d2),
        discount * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)),
    )
}

/// Every option's call and put within `tol` · (price + strike) of the f64 reference
/// (the scale of the two products whose difference each price is).
fn check_options<T: Copy + Into<f64>>(
    price: &[f32],
    strike: &[f32],
    call: &[T],
    put: &[T],
    want: &[(f64, f64)],
    tol: f64,
    name: &str,
) -> BenchResult<()> {
    for i in 0..want.len() {
        let scale = tol * (price[i] as f64 + strike[i] as f64);
        let (c, p): (f64, f64) = (call[i].into(), put[i].into());
        if !((c - want[i].0).abs() <= scale && (p - want[i].1).abs() <= scale) {
            return Err(wrong(format!(
                "{name}: option {i}: call {c}, put {p}, want {:?}",
                want[i]
            )));
        }
    }
    Ok(())
}

/// Spot-checks n×n C = A·B at 512 places (two corners among them) against a
/// double-precision dot product.
fn check_matmul(a: &[f32], b: &[f32], c: &[f32], n: usize, name: &str) -> BenchResult<()> {
    for s in 0..512u64 {
        let (mut r, mut col) = (
            (mix(99, 2 * s) % n as u64) as usize,
            (mix(99, 2 * s + 1) % n as u64) as usize,
        );
        if s == 0 {
            (r, col) = (0, 0);
        }
        if s == 1 {
            (r, col) = (n - 1, n - 1);
        }
        let want: f64 = (0..n)
            .map(|k| a[r * n + k] as f64 * b[k * n + col] as f64)
            .sum();
        let got = c[r * n + col] as f64;
        // |terms| < 1 and n of them: f32 accumulation error well under 1e-5·n.
        if !((got - want).abs() <= 1e-5 * n as f64) {
            return Err(wrong(format!("{name}: C[{r}][{col}] = {got}, want {want}")));
        }
    }
    Ok(())
}
