//! Bounds checks a launch proves (the NVVM backend writes a kernel whose indices are
//! bounded by its grid a second time without those checks, and the host launches that
//! copy when the grid and the slices' lengths prove them): a launch that proves them
//! computes what the checked kernel computes, and one that does not (a slice shorter
//! than the grid, a larger grid) panics exactly as the checked kernel does. On the
//! simulator, which checks in place, the same tests are the reference behaviour.

use super::common;
use cudajit::prelude::*;

/// One value per thread, through a barrier (the block scan's shape): `x[i]` and
/// `out[i]` are bounded by the grid alone.
#[kernel(block_dim = 128)]
fn doubled_through_a_barrier(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    let v = x[i];
    sync_threads();
    out[i] = 2.0 * v;
}

/// The index in `u32` arithmetic, widened; four elements per thread; no fixed block.
#[kernel]
fn four_per_thread(x: &[u32], out: &mut [u32]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    for k in 0..4 {
        out[4 * t + k] = x[4 * t + k] + k as u32;
    }
}

/// Asserts that `launched` failed with the out-of-bounds panic for a slice of `len`
/// elements, at `index` when given.
fn assert_out_of_bounds(launched: cudajit::Result<()>, len: usize, index: Option<usize>) {
    let err = launched.unwrap_err().to_string();
    let mut want = format!("index out of bounds: the len is {len} but the index is ");
    if let Some(index) = index {
        want.push_str(&index.to_string());
    }
    assert!(err.contains(&want), "{err}");
}

fn doubled(x: &[f32]) -> Vec<f32> {
    x.iter().map(|v| 2.0 * v).collect()
}

#[test]
fn a_launch_that_proves_its_checks_computes_what_the_checks_would() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("launch proof doubled");
    let blocks = 3 + rng.below(20) as u32;
    let n = blocks as usize * 128;
    // Exactly the grid's threads, and longer slices than the grid (the tail untouched).
    for len in [n, n + 1 + rng.below(300) as usize] {
        let x = rng.vec_f32(len, -1.0, 1.0);
        let mut out = vec![f32::NAN; len];
        launch!(doubled_through_a_barrier[blocks, 128](&x, &mut out)).unwrap();
        assert_eq!(out[..n], doubled(&x[..n]), "len {len}");
        assert!(out[n..].iter().all(|v| v.is_nan()), "len {len}");
    }
}

#[test]
fn a_short_output_still_panics_at_its_index_after_the_barrier() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("launch proof short out");
    let blocks = 2 + rng.below(8) as u32;
    let n = blocks as usize * 128;
    let x = rng.vec_f32(n, -1.0, 1.0);
    // One short: only the grid's last thread is out of bounds, so the message is exact.
    let mut out = vec![f32::NAN; n - 1];
    let launched = launch!(doubled_through_a_barrier[blocks, 128](&x, &mut out));
    assert_out_of_bounds(launched, n - 1, Some(n - 1));
}

#[test]
fn a_short_input_or_a_larger_grid_panics_at_the_input() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("launch proof short input");
    let blocks = 2 + rng.below(8) as u32;
    let n = blocks as usize * 128;
    let short = n - 1 - rng.below(100) as usize;
    let x = rng.vec_f32(short, -1.0, 1.0);
    let mut out = vec![f32::NAN; n];
    let launched = launch!(doubled_through_a_barrier[blocks, 128](&x, &mut out));
    assert_out_of_bounds(launched, short, None);
    // Slices the size of the grid, one block too many: the same check fails.
    let x = rng.vec_f32(n, -1.0, 1.0);
    let launched = launch!(doubled_through_a_barrier[blocks + 1, 128](&x, &mut out));
    assert_out_of_bounds(launched, n, None);
}

#[test]
fn an_index_from_u32_block_arithmetic_is_proven_or_checked_by_the_launch() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("launch proof four per thread");
    let (blocks, threads) = (1 + rng.below(16) as u32, 32 * (1 + rng.below(8) as u32));
    let n = 4 * (blocks * threads) as usize;
    let x: Vec<u32> = (0..n).map(|_| rng.below(1 << 20) as u32).collect();
    let mut out = vec![u32::MAX; n];
    launch!(four_per_thread[blocks, threads](&x, &mut out)).unwrap();
    for (i, got) in out.iter().enumerate() {
        assert_eq!(*got, x[i] + (i % 4) as u32, "element {i}");
    }
    // Three elements short: the last thread's `k = 1` store is the first out of bounds.
    let mut out = vec![u32::MAX; n - 3];
    let launched = launch!(four_per_thread[blocks, threads](&x, &mut out));
    assert_out_of_bounds(launched, n - 3, Some(n - 3));
}

/// The canonical guarded kernel: the grid overshoots `c`, `if i < c.len()` bounds the
/// index, and the launch proves `a[i]`, `b[i]` when they are as long as `c` or the grid.
#[kernel]
fn guarded_sum(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

/// The same kernel again (a kernel of its own, whose first launch is this test's).
#[kernel]
fn guarded_sum_captured(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

fn sums(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// The same sum guarded CUDA's way: an early return past the data.
#[kernel]
fn early_exit_sum(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i >= c.len() {
        return;
    }
    c[i] = a[i] + b[i];
}

/// What launches `blocks` blocks of 128 threads of one of the guarded sums.
type SumLaunch = fn(u32, &[f32], &[f32], &mut [f32]) -> cudajit::Result<()>;

/// A first launch that proves the guarded checks compiles only the proven copy; the
/// first launch that does not (a short input) compiles the checked kernel then and
/// panics exactly where it would; proving launches go on computing the sums. For the
/// guard around the read and for the early return alike.
#[test]
fn a_guarded_kernel_runs_its_copy_first_and_its_checks_when_a_launch_needs_them() {
    let _gpu = require_gpu!();
    let kernels: [(&str, SumLaunch); 2] = [
        (
            "if i < c.len()",
            |blocks, a, b, c| launch!(guarded_sum[blocks, 128](a, b, c)),
        ),
        (
            "return past c.len()",
            |blocks, a, b, c| launch!(early_exit_sum[blocks, 128](a, b, c)),
        ),
    ];
    let mut rng = common::Rng::fresh("launch proof guarded");
    for (guard, sum) in kernels {
        let n = 1000 + rng.below(5000) as usize;
        let blocks = n.div_ceil(128) as u32;
        let a = rng.vec_f32(n, -1.0, 1.0);
        let b = rng.vec_f32(n, -1.0, 1.0);
        let mut c = vec![f32::NAN; n];
        sum(blocks, &a, &b, &mut c).unwrap();
        assert_eq!(c, sums(&a, &b), "{guard}");
        // `b` one short: the thread at `n - 1` reads past it, in the checked kernel.
        assert_out_of_bounds(sum(blocks, &a, &b[..n - 1], &mut c), n - 1, Some(n - 1));
        // Longer inputs than `c` prove the copy again.
        let long_a = rng.vec_f32(n + 17, -1.0, 1.0);
        let mut c = vec![f32::NAN; n];
        sum(blocks, &long_a, &b, &mut c).unwrap();
        assert_eq!(c, sums(&long_a[..n], &b), "{guard}");
    }
}

/// A launch captured into a graph that needs the checked kernel the first launch left
/// out compiles it there (the capture's private stream is not ordered with the module's
/// load), and the graph's replays run it: the short input's panic is reported by the
/// stream's `synchronize`, as the same launch outside a capture reports it.
#[test]
fn a_captured_launch_compiles_the_checked_kernel_the_first_launch_left_out() {
    let device = require_gpu!();
    if device.is_simulator() {
        eprintln!("skipped: the simulator checks in place and compiles nothing");
        return;
    }
    // A test binary built with ahead-of-time PTX (`cargo xtask gpu-bundle`) loads the
    // whole module at the first launch: the checked kernel is there all along.
    if option_env!("CUDAJIT_AOT_DIR").is_some()
        && std::env::var("CUDAJIT_AOT").as_deref() != Ok("0")
    {
        eprintln!("skipped: ahead-of-time PTX holds the checked kernel (CUDAJIT_AOT=0 runs this)");
        return;
    }
    let mut rng = common::Rng::fresh("launch proof captured");
    let n = 256 + rng.below(1000) as usize;
    let blocks = n.div_ceil(128) as u32;
    let stream = device.new_stream().unwrap();
    let (ha, hb) = (rng.vec_f32(n, -1.0, 1.0), rng.vec_f32(n, -1.0, 1.0));
    let a = DeviceArray::from_slice(&ha).unwrap();
    let b = DeviceArray::from_slice(&hb).unwrap();
    let short = DeviceArray::from_slice(&rng.vec_f32(n - 1, -1.0, 1.0)).unwrap();
    let mut c = DeviceArray::from_slice(&vec![f32::NAN; n]).unwrap();
    launch!(guarded_sum_captured[blocks, 128, &stream](&a, &b, &mut c)).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(c.to_host().unwrap(), sums(&ha, &hb));
    let graph = stream
        .capture(|s| {
            launch!(guarded_sum_captured[blocks, 128, s](&a, &short, &mut c))?;
            Ok(())
        })
        .unwrap();
    graph.launch(&stream).unwrap();
    assert_out_of_bounds(stream.synchronize(), n - 1, Some(n - 1));
}

/// A grid-stride loop (the saxpy example's): `i` stays below `y.len()` whatever the grid,
/// so a launch proves `x[i]` when `x` is as long as `y`.
#[kernel]
fn strided_saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    for i in (grid(1)..y.len()).step_by(grid_size(1)) {
        y[i] = a * x[i] + y[i];
    }
}

/// The grid-stride loop's copy runs for a grid much smaller than the data and for one
/// larger; a short `x` runs the checked kernel and panics at its first missing element.
#[test]
fn a_grid_stride_loop_runs_its_copy_and_its_checks_when_a_launch_needs_them() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("launch proof grid stride");
    let n = 3000 + rng.below(5000) as usize;
    let x = rng.vec_f32(n, -1.0, 1.0);
    let y0 = rng.vec_f32(n, -1.0, 1.0);
    let a = 0.5f32;
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| a * x + y).collect();
    for blocks in [3u32, 2 * n.div_ceil(128) as u32] {
        let mut y = y0.clone();
        launch!(strided_saxpy[blocks, 128](a, &x, &mut y)).unwrap();
        assert_eq!(y, want, "{blocks} blocks");
    }
    let mut y = y0.clone();
    let launched = launch!(strided_saxpy[4, 128](a, &x[..n - 1], &mut y));
    assert_out_of_bounds(launched, n - 1, Some(n - 1));
}
