//! `#[kernel(block_dim = ..)]`: a kernel compiled for one block shape (`block_dim()` a
//! constant, `thread_idx()` below it, so indices into shared tiles that stay in bounds
//! for every thread carry no check) computes the reference (the SIMT suite's 5-point
//! stencil, `block_dim = (32, 8)`, whose every shared index is proven in bounds);
//! a launch with another block is an `Err` naming `block_dim`; an index that can still
//! leave its array keeps its check and panics as Rust would.

use super::bench_simt::checked::stencil5;
use super::common;
use cudajit::prelude::*;

const TILE: usize = 32;
const ROWS: usize = 8;

/// Each thread reads its right neighbour's slot: thread 31 of a 32-thread block reads
/// past the 32-element array, so this index keeps its check even with the block known.
#[kernel(block_dim = 32)]
fn right_neighbour(out: &mut [u32]) {
    let row = shared_array::<[u32; 32]>();
    let tx = thread_idx().x as usize;
    row[tx] = tx as u32 * 3;
    sync_threads();
    out[tx] = row[tx + 1];
}

fn blur_reference(input: &[f32], nx: usize, ny: usize) -> Vec<f64> {
    let at = |x: isize, y: isize| -> f64 {
        if x < 0 || y < 0 || x >= nx as isize || y >= ny as isize {
            0.0
        } else {
            f64::from(input[y as usize * nx + x as usize])
        }
    };
    let mut out = vec![0.0; nx * ny];
    for y in 0..ny as isize {
        for x in 0..nx as isize {
            let around = at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1);
            out[y as usize * nx + x as usize] = 0.5 * at(x, y) + 0.125 * around;
        }
    }
    out
}

#[test]
fn a_kernel_compiled_for_its_block_computes_the_reference() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("block_dim blur");
    let (tiles_x, tiles_y) = if gpu.is_simulator() { (3, 2) } else { (67, 45) };
    let (nx, ny) = (tiles_x * TILE, tiles_y * TILE);
    let input = rng.vec_f32(nx * ny, -1.0, 1.0);
    let mut out = vec![f32::NAN; nx * ny];
    let grid = (tiles_x as u32, tiles_y as u32);
    launch!(stencil5[grid, (TILE as u32, ROWS as u32)](&input, &mut out, nx, ny)).unwrap();
    let want = blur_reference(&input, nx, ny);
    for (i, (got, want)) in out.iter().zip(&want).enumerate() {
        assert!(
            (f64::from(*got) - want).abs() <= 1e-6,
            "element {i} (x {}, y {}): {got} vs {want}",
            i % nx,
            i / nx
        );
    }
}

#[test]
fn a_launch_with_another_block_is_an_error_naming_block_dim() {
    let _gpu = require_gpu!();
    let input = vec![1.0f32; 64 * 64];
    let mut out = vec![f32::NAN; 64 * 64];
    for block in [(16u32, 16u32), (32, 4), (8, 32)] {
        let err = launch!(stencil5[(2u32, 2u32), block](&input, &mut out, 64usize, 64usize))
            .unwrap_err()
            .to_string();
        assert!(err.contains("block_dim"), "{err}");
        assert!(err.contains("32 x 8 x 1"), "{err}");
    }
    assert!(
        out.iter().all(|v| v.is_nan()),
        "a refused launch wrote its output"
    );
}

#[test]
fn an_index_that_can_leave_its_array_still_panics() {
    let _gpu = require_gpu!();
    let mut out = vec![u32::MAX; 32];
    let err = launch!(right_neighbour[1, 32](&mut out))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("index out of bounds: the len is 32 but the index is 32"),
        "{err}"
    );
    // Threads 0..31 read an existing slot before thread 31's panic ended the launch.
    for (tx, v) in out.iter().enumerate().take(31) {
        assert!(
            *v == (tx as u32 + 1) * 3 || *v == u32::MAX,
            "thread {tx}: {v}"
        );
    }
}
