//! `#[kernel(block_dim = ..)]`: a kernel compiled for one block shape (`block_dim()` a
//! constant, `thread_idx()` below it, so indices into shared tiles that stay in bounds
//! for every thread carry no check) computes what the same kernel computes without it;
//! a launch with another block is an `Err` naming `block_dim`; an index that can still
//! leave its array keeps its check and panics as Rust would.

use super::common;
use cudajit::prelude::*;

const TILE: usize = 32;
const ROWS: usize = 8;

/// A 5-point average over a 34x34 shared tile (zero outside the grid), 32x8 threads
/// per 32x32 tile, 4 rows each: every shared index is provably in bounds.
#[kernel(block_dim = (32, 8))]
fn blur_tiles(input: &[f32], out: &mut [f32], nx: usize, ny: usize) {
    let t = shared_array::<[[f32; 34]; 34]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let x0 = block_idx().x as usize * 32;
    let y0 = block_idx().y as usize * 32;
    for r in (0..32).step_by(8) {
        t[ty + r + 1][tx + 1] = input[(y0 + ty + r) * nx + x0 + tx];
    }
    if ty == 0 {
        t[0][tx + 1] = if y0 > 0 {
            input[(y0 - 1) * nx + x0 + tx]
        } else {
            0.0
        };
    }
    if ty == 1 {
        t[33][tx + 1] = if y0 + 32 < ny {
            input[(y0 + 32) * nx + x0 + tx]
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
    // `block_dim()` is the constant 32 x 8 here.
    let rows = 32 / block_dim().y as usize;
    for k in 0..rows {
        let ly = ty + k * 8 + 1;
        let around = t[ly - 1][tx + 1] + t[ly + 1][tx + 1] + t[ly][tx] + t[ly][tx + 2];
        out[(y0 + ly - 1) * nx + x0 + tx] = 0.5 * t[ly][tx + 1] + 0.125 * around;
    }
}

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
    launch!(blur_tiles[grid, (TILE as u32, ROWS as u32)](&input, &mut out, nx, ny)).unwrap();
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
        let err = launch!(blur_tiles[(2u32, 2u32), block](&input, &mut out, 64usize, 64usize))
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
