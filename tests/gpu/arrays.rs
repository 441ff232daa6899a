//! Arrays on the GPU against CPU references on fresh random inputs (outputs poisoned
//! first): a shared-memory tree reduction with `sync_threads`, Numba's documented
//! shared-memory matrix multiply (`fast_matmul`, TPB = 16), a transpose through a padded
//! `[[f32; 33]; 32]` tile, a 5-point stencil with a shared halo, per-thread local arrays
//! (a sorting network and a histogram), constant tables (`const` and `static`, in
//! constant memory), and an out-of-bounds index into a local array as an `Err`.

use super::common;
use cudajit::prelude::*;

const BLOCK: usize = 256;
/// Numba's `TPB`: threads per block along each axis of `fast_matmul`.
const TPB: usize = 16;
const TILE: usize = 32;
const BLOCK_ROWS: usize = 8;
/// The stencil's block edge; its tile has a one-element halo on each side.
const EDGE: usize = 16;
const SORTED: usize = 8;
const BINS: usize = 16;
const TAPS: [f32; 7] = [0.03125, 0.09375, 0.21875, 0.3125, 0.21875, 0.09375, 0.03125];
static POPCOUNT: [u8; 256] = popcount_table();

const fn popcount_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    t
}

/// Halves the active part of `s` until `s[0]` holds the sum (every thread of the block
/// calls it: the barrier is reached by all).
#[device]
fn tree_sum(s: &mut [f32], tid: usize) {
    let mut stride = s.len() / 2;
    while stride > 0 {
        if tid < stride {
            s[tid] += s[tid + stride];
        }
        sync_threads();
        stride /= 2;
    }
}

/// One partial sum per block, through a shared array passed on as a slice.
#[kernel]
fn block_sum(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; BLOCK]>();
    let tid = thread_idx().x as usize;
    let mut i = grid(1);
    let mut acc = 0.0f32;
    while i < x.len() {
        acc += x[i];
        i += grid_size(1);
    }
    cache[tid] = acc;
    sync_threads();
    tree_sum(cache, tid);
    if tid == 0 {
        partial[block_idx().x as usize] = cache[0];
    }
}

/// Numba's `fast_matmul` (CUDA kernels > Memory management > shared memory example):
/// `C = A @ B` with `A` m×k, `B` k×n, row-major; both tiles zero-filled where the
/// matrices end.
#[kernel]
fn fast_matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    let s_a: &mut [[f32; TPB]; TPB] = shared_array();
    let s_b: &mut [[f32; TPB]; TPB] = shared_array();
    let (x, y) = grid(2);
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tiles = (k + TPB - 1) / TPB;
    let mut tmp = 0.0f32;
    for i in 0..tiles {
        s_a[ty][tx] = 0.0;
        s_b[ty][tx] = 0.0;
        if y < m && tx + i * TPB < k {
            s_a[ty][tx] = a[y * k + tx + i * TPB];
        }
        if x < n && ty + i * TPB < k {
            s_b[ty][tx] = b[(ty + i * TPB) * n + x];
        }
        sync_threads();
        for j in 0..TPB {
            tmp += s_a[ty][j] * s_b[j][tx];
        }
        sync_threads();
    }
    if y < m && x < n {
        c[y * n + x] = tmp;
    }
}

/// NVIDIA's coalesced transpose: 32×32 tiles, 32×8 threads, one column of padding so
/// the column reads hit 32 different banks.
#[kernel]
fn transpose_tiled(input: &[f32], output: &mut [f32], width: usize, height: usize) {
    let tile: &mut [[f32; TILE + 1]; TILE] = shared_array();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let x = block_idx().x as usize * TILE + tx;
    let y = block_idx().y as usize * TILE + ty;
    for j in (0..TILE).step_by(BLOCK_ROWS) {
        if x < width && y + j < height {
            tile[ty + j][tx] = input[(y + j) * width + x];
        }
    }
    sync_threads();
    let x = block_idx().y as usize * TILE + tx;
    let y = block_idx().x as usize * TILE + ty;
    for j in (0..TILE).step_by(BLOCK_ROWS) {
        if x < height && y + j < width {
            output[(y + j) * height + x] = tile[tx][ty + j];
        }
    }
}

/// `out = c0 * u + c1 * (4 neighbours)` inside, `u` on the border; each block stages
/// its 16×16 points and a one-point halo in shared memory.
#[kernel]
fn stencil5(u: &[f32], out: &mut [f32], w: usize, h: usize, c0: f32, c1: f32) {
    let tile: &mut [[f32; EDGE + 2]; EDGE + 2] = shared_array();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let (x, y) = grid(2);
    // Clamped reads: threads past the edge load something harmless.
    let cx = x.min(w - 1);
    let cy = y.min(h - 1);
    tile[ty + 1][tx + 1] = u[cy * w + cx];
    if tx == 0 {
        tile[ty + 1][0] = u[cy * w + cx.max(1) - 1];
    }
    if tx == EDGE - 1 {
        tile[ty + 1][EDGE + 1] = u[cy * w + (cx + 1).min(w - 1)];
    }
    if ty == 0 {
        tile[0][tx + 1] = u[(cy.max(1) - 1) * w + cx];
    }
    if ty == EDGE - 1 {
        tile[EDGE + 1][tx + 1] = u[(cy + 1).min(h - 1) * w + cx];
    }
    sync_threads();
    if x < w && y < h {
        let centre = tile[ty + 1][tx + 1];
        out[y * w + x] = if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
            centre
        } else {
            let around =
                tile[ty][tx + 1] + tile[ty + 2][tx + 1] + tile[ty + 1][tx] + tile[ty + 1][tx + 2];
            c0 * centre + c1 * around
        };
    }
}

/// Sorts `v` (odd-even transposition: a fixed network, so the indices are constants
/// after unrolling).
#[device]
fn sort8(mut v: [u32; SORTED]) -> [u32; SORTED] {
    for round in 0..SORTED {
        let mut k = round % 2;
        while k + 1 < SORTED {
            if v[k] > v[k + 1] {
                let t = v[k];
                v[k] = v[k + 1];
                v[k + 1] = t;
            }
            k += 2;
        }
    }
    v
}

/// Counts `values` into `bins` by their low four bits.
#[device]
fn count_low_bits(values: &[u32], bins: &mut [u32]) {
    for i in 0..values.len() {
        bins[(values[i] % BINS as u32) as usize] += 1;
    }
}

/// Each thread sorts its 8 values in a local array and counts them in a local
/// histogram; rows of a 2-D local array hold both.
#[kernel]
fn local_arrays(data: &[u32], sorted: &mut [u32], hist: &mut [u32]) {
    let t = grid(1);
    if (t + 1) * SORTED > data.len() {
        return;
    }
    let mut v = [0u32; SORTED];
    for k in 0..v.len() {
        v[k] = data[t * SORTED + k];
    }
    let v = sort8(v);
    let mut counts = [[0u32; BINS]; 1];
    count_low_bits(&v, &mut counts[0]);
    for k in 0..SORTED {
        sorted[t * SORTED + k] = v[k];
    }
    for b in 0..BINS {
        hist[t * BINS + b] = counts[0][b];
    }
}

/// Constant memory: a 7-tap filter (`const`) and a popcount table (`static`, filled by
/// a `const fn`).
#[kernel]
fn const_tables(x: &[f32], bytes: &[u8], y: &mut [f32], bits: &mut [u32]) {
    let i = grid(1);
    if i + TAPS.len() <= x.len() && i < y.len() {
        let mut s = 0.0f32;
        for k in 0..TAPS.len() {
            s += TAPS[k] * x[i + k];
        }
        y[i] = s;
    }
    if i < bits.len() && 4 * i + 3 < bytes.len() {
        let mut total = 0u32;
        for k in 0..4 {
            total += POPCOUNT[bytes[4 * i + k] as usize] as u32;
        }
        bits[i] = total;
    }
}

#[kernel]
fn local_out_of_bounds(out: &mut [i32], at: usize) {
    let mut a = [1i32, 2, 3, 4];
    if grid(1) == 0 {
        a[at] = 5; // local array site: index
        out[0] = a[0];
    }
}

fn line_of(marker: &str) -> usize {
    include_str!("arrays.rs")
        .lines()
        .position(|l| l.contains(marker))
        .expect("marker")
        + 1
}

#[test]
fn shared_tree_reduction_sums_each_block() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("block_sum");
    let n = (1 << 20) + rng.below(1 << 16) as usize;
    let x = rng.vec_f32(n, -1.0, 1.0);
    let blocks = 160 + rng.below(64) as usize;
    let mut partial = vec![f32::NAN; blocks];
    launch!(block_sum[blocks, BLOCK](&x, &mut partial)).unwrap();
    // Block b's threads read x[b * 256 + t + k * blocks * 256].
    let mut want = vec![0.0f64; blocks];
    for (i, v) in x.iter().enumerate() {
        want[(i / BLOCK) % blocks] += *v as f64;
    }
    common::compare("block_sum", &partial, &want, 1e-3, 1e-5).unwrap();
    let total: f64 = partial.iter().map(|&p| p as f64).sum();
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    assert!((total - exact).abs() < 1e-2, "{total} vs {exact}");
}

#[test]
fn numbas_fast_matmul_matches_cpu() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("fast_matmul");
    let m = 150 + rng.below(60) as usize;
    let k = 100 + rng.below(60) as usize;
    let n = 120 + rng.below(60) as usize;
    let a = rng.vec_f32(m * k, -1.0, 1.0);
    let b = rng.vec_f32(k * n, -1.0, 1.0);
    let mut c = vec![f32::NAN; m * n];
    let grid = (n.div_ceil(TPB), m.div_ceil(TPB));
    launch!(fast_matmul[grid, (TPB, TPB)](&a, &b, &mut c, m, k, n)).unwrap();
    let mut want = vec![0.0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (0..k)
                .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                .sum();
        }
    }
    common::compare("fast_matmul", &c, &want, 1e-4, 1e-4).unwrap();
}

#[test]
fn padded_tile_transpose_is_exact() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("transpose_tiled");
    let width = 1000 + rng.below(100) as usize;
    let height = 700 + rng.below(100) as usize;
    let input = rng.vec_f32(width * height, -1e3, 1e3);
    let mut output = vec![f32::NAN; width * height];
    let grid = (width.div_ceil(TILE), height.div_ceil(TILE));
    launch!(transpose_tiled[grid, (TILE, BLOCK_ROWS)](&input, &mut output, width, height)).unwrap();
    for y in 0..height {
        for x in 0..width {
            assert_eq!(
                output[x * height + y].to_bits(),
                input[y * width + x].to_bits(),
                "({x}, {y})"
            );
        }
    }
}

#[test]
fn stencil_with_shared_halo_matches_cpu() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("stencil5");
    let w = 300 + rng.below(50) as usize;
    let h = 200 + rng.below(50) as usize;
    let u = rng.vec_f32(w * h, -1.0, 1.0);
    let (c0, c1) = (rng.f32_in(0.2, 0.6), rng.f32_in(0.05, 0.2));
    let mut out = vec![f32::NAN; w * h];
    let grid = (w.div_ceil(EDGE), h.div_ceil(EDGE));
    launch!(stencil5[grid, (EDGE, EDGE)](&u, &mut out, w, h, c0, c1)).unwrap();
    let mut want = vec![0.0f64; w * h];
    for y in 0..h {
        for x in 0..w {
            let at = |x: usize, y: usize| u[y * w + x] as f64;
            want[y * w + x] = if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                at(x, y)
            } else {
                c0 as f64 * at(x, y)
                    + c1 as f64 * (at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y))
            };
        }
    }
    common::compare("stencil5", &out, &want, 1e-5, 1e-5).unwrap();
}

#[test]
fn local_arrays_sort_and_count_per_thread() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("local_arrays");
    let threads = 10_000 + rng.below(1000) as usize;
    let data: Vec<u32> = (0..threads * SORTED)
        .map(|_| rng.next_u64() as u32)
        .collect();
    let mut sorted = vec![u32::MAX; threads * SORTED];
    let mut hist = vec![u32::MAX; threads * BINS];
    launch!(local_arrays[threads.div_ceil(128), 128](&data, &mut sorted, &mut hist)).unwrap();
    for t in 0..threads {
        let mut want = data[t * SORTED..(t + 1) * SORTED].to_vec();
        want.sort_unstable();
        assert_eq!(
            &sorted[t * SORTED..(t + 1) * SORTED],
            &want[..],
            "thread {t}"
        );
        let mut counts = [0u32; BINS];
        for v in &want {
            counts[(v % BINS as u32) as usize] += 1;
        }
        assert_eq!(&hist[t * BINS..(t + 1) * BINS], &counts[..], "thread {t}");
    }
}

#[test]
fn const_tables_read_from_constant_memory() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("const_tables");
    let n = 50_000 + rng.below(1000) as usize;
    let x = rng.vec_f32(n + TAPS.len() - 1, -1.0, 1.0);
    let bytes: Vec<u8> = (0..4 * n).map(|_| rng.below(256) as u8).collect();
    let mut y = vec![f32::NAN; n];
    let mut bits = vec![u32::MAX; n];
    launch!(const_tables[n.div_ceil(256), 256](&x, &bytes, &mut y, &mut bits)).unwrap();
    let want: Vec<f64> = (0..n)
        .map(|i| {
            (0..TAPS.len())
                .map(|k| TAPS[k] as f64 * x[i + k] as f64)
                .sum()
        })
        .collect();
    common::compare("const_tables", &y, &want, 1e-5, 1e-5).unwrap();
    for i in 0..n {
        let want: u32 = bytes[4 * i..4 * i + 4].iter().map(|b| b.count_ones()).sum();
        assert_eq!(bits[i], want, "bits[{i}]");
    }
}

#[test]
fn local_array_index_out_of_bounds_is_an_err() {
    let _gpu = require_gpu!();
    let mut out = vec![0i32; 1];
    let err = launch!(local_out_of_bounds[1, 32](&mut out, 7))
        .unwrap_err()
        .to_string();
    let site = format!(
        "tests/gpu/arrays.rs:{}",
        line_of(concat!("local array site", ": index"))
    );
    assert!(err.contains(&site), "expected {site} in: {err}");
    assert!(
        err.contains("index out of bounds: the len is 4 but the index is 7"),
        "{err}"
    );
    launch!(local_out_of_bounds[1, 32](&mut out, 3)).unwrap();
    assert_eq!(out[0], 1);
}

/// Without a GPU: every kernel here lowers to NVVM IR, with its arrays in the right
/// memory.
#[test]
fn the_kernels_lower_with_arrays_in_their_memories() {
    let ir = |source: &'static cudajit::__private::FnSource| {
        kernel_device::nvvm_ir_for_kernel(source, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", source.name))
            .nvvm_ir
    };
    assert!(ir(block_sum::source()).contains("addrspace(3) global [256 x float] undef"));
    let matmul = ir(fast_matmul::source());
    assert_eq!(
        matmul
            .matches("addrspace(3) global [16 x [16 x float]]")
            .count(),
        2
    );
    assert!(ir(transpose_tiled::source()).contains("addrspace(3) global [32 x [33 x float]]"));
    assert!(ir(stencil5::source()).contains("addrspace(3) global [18 x [18 x float]]"));
    assert!(ir(local_arrays::source()).contains("alloca [8 x i32]"));
    let tables = ir(const_tables::source());
    assert!(
        tables.contains("addrspace(4) constant [7 x float]"),
        "{tables}"
    );
    assert!(tables.contains("addrspace(4) constant [256 x i8] [i8 0, i8 1, i8 1, i8 2"));
    ir(local_out_of_bounds::source());
}

/// Views of device arrays as launch arguments: the kernel sees exactly the range (its
/// `len()` and its first element), elements outside it stay as they were; range copies
/// between arrays and to the host move exactly their elements.
#[test]
fn views_are_launch_arguments_and_copy_their_range() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("views");
    let n = 1000 + rng.below(500) as usize;
    let (lo, hi) = (rng.below(300) as usize, n - rng.below(300) as usize);
    let a = rng.vec_f32(n, -10.0, 10.0);
    let b = rng.vec_f32(n, -10.0, 10.0);
    let (da, db) = (
        cudajit::to_device(&a).unwrap(),
        cudajit::to_device(&b).unwrap(),
    );
    let poison = vec![f32::NAN; n];
    let mut dc = cudajit::to_device(&poison).unwrap();
    {
        let mut out = dc.view_mut(lo..hi).unwrap();
        let len = hi - lo;
        launch!(super::vecadd[len.div_ceil(128), 128](
            da.view(lo..hi).unwrap(),
            &db.view(lo..hi).unwrap(),
            &mut out
        ))
        .unwrap();
    }
    let c = dc.to_host().unwrap();
    for i in 0..n {
        if (lo..hi).contains(&i) {
            assert_eq!(c[i], a[i] + b[i], "element {i}");
        } else {
            assert!(c[i].is_nan(), "element {i} outside the view was written");
        }
    }
    // A view too short for the grid is a panic naming the view's length.
    let err = launch!(super::vecadd[1, 128](
        da.view(0..200).unwrap(),
        db.view(0..10).unwrap(),
        dc.view_mut(0..200).unwrap()
    ));
    let err = match err {
        Err(e) => e,
        Ok(()) => cudajit::synchronize().unwrap_err(),
    }
    .to_string();
    assert!(err.contains("the len is 10 but the index is"), "{err}");
    // Range copies.
    assert_eq!(da.view(lo..hi).unwrap().to_host().unwrap(), &a[lo..hi]);
    let mut dd = cudajit::to_device(&poison).unwrap();
    let at = n - (hi - lo);
    dd.copy_from_view(at, &da.view(lo..hi).unwrap()).unwrap();
    let d = dd.to_host().unwrap();
    assert_eq!(&d[at..], &a[lo..hi]);
    assert!(d[..at].iter().all(|v| v.is_nan()));
    assert!(dd
        .copy_from_view(at + 1, &da.view(lo..hi).unwrap())
        .is_err());
    assert!(dd.view(..).unwrap().len() == n && da.view(n + 1..).is_err());
}

/// Numba's `cuda.reduce`-style kernel with its sizes as `const` items of the body (a
/// `let` cannot size a shared array): block sums through a shared array of `N`.
#[kernel]
fn block_sums_body_consts(a: &[f32], sums: &mut [f32]) {
    const N: usize = 128;
    const HALF: usize = N / 2;
    const WEIGHTS: [f32; 2] = [1.0, 0.5];
    let partial = shared_array::<[f32; N]>();
    let t = thread_idx().x as usize;
    let i = grid(1);
    partial[t] = if i < a.len() { a[i] * WEIGHTS[0] } else { 0.0 };
    sync_threads();
    let mut stride = HALF;
    while stride > 0 {
        if t < stride {
            partial[t] += partial[t + stride];
        }
        sync_threads();
        stride /= 2;
    }
    if t == 0 {
        sums[block_idx().x as usize] = partial[0] * WEIGHTS[1] * 2.0;
    }
}

#[test]
fn const_items_in_a_kernel_body_size_shared_arrays() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("block_sums_body_consts");
    let n: usize = 1000;
    let a: Vec<f32> = (0..n).map(|_| rng.below(100) as f32).collect();
    let blocks = n.div_ceil(128);
    let mut sums = vec![f32::NAN; blocks];
    launch!(block_sums_body_consts[blocks, 128](&a, &mut sums)).unwrap();
    let want: Vec<f32> = a.chunks(128).map(|c| c.iter().sum()).collect();
    assert_eq!(sums, want);
}

/// Numba's `cuda.reduce` shape: a 2-D shared array passed to a `#[device]` function as
/// `&mut [[f32; 33]; 4]` (and a local 2-D array as `&[[u32; 2]; 2]`), read and written
/// there.
#[device]
fn two_d_partial_sum(sm: &mut [[f32; 33]; 4], t: usize) -> f32 {
    sm[1][t] = sm[0][t] * 2.0;
    sm[0][t] + sm[1][t] + sm[3][t]
}

#[device]
fn two_d_corner(m: &[[u32; 2]; 2]) -> u32 {
    m[1][1]
}

#[kernel]
fn two_d_to_device_fn(a: &[f32], out: &mut [f32], ids: &mut [u32]) {
    let sm = shared_array::<[[f32; 33]; 4]>();
    let t = thread_idx().x as usize;
    let i = grid(1);
    if t < 33 {
        sm[0][t] = a[i];
        sm[3][t] = 1.0;
    }
    sync_threads();
    if t < 33 {
        out[i] = two_d_partial_sum(sm, t);
    }
    let local = [[1u32, 2], [3, i as u32]];
    ids[i] = two_d_corner(&local);
}

#[test]
fn two_d_arrays_pass_to_device_functions() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("two_d_to_device_fn");
    let blocks = 3;
    let n = blocks * 64;
    let a: Vec<f32> = (0..n).map(|_| rng.below(1000) as f32).collect();
    let mut out = vec![f32::NAN; n];
    let mut ids = vec![u32::MAX; n];
    launch!(two_d_to_device_fn[blocks, 64](&a, &mut out, &mut ids)).unwrap();
    for i in 0..n {
        if i % 64 < 33 {
            assert_eq!(out[i], a[i] * 3.0 + 1.0, "out[{i}]");
        } else {
            assert!(out[i].is_nan(), "out[{i}] written");
        }
        assert_eq!(ids[i], i as u32, "ids[{i}]");
    }
}
