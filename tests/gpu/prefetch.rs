//! Guarded prefetches (`if r + 1 < rows { next[j] = input[..]; }`), which the NVVM
//! writer turns into predicated loads: the values are those of the branchy code, an
//! index that would be out of bounds only when the condition is false is never
//! checked (the last row's prefetch), and one out of bounds while it holds panics.

use super::common;
use cudajit::prelude::*;

/// Each thread sums its 4 elements of every row, loading the next row's 4 while it
/// sums the current one; `$check` chooses the build (checked or not) of one body.
macro_rules! row_sums {
    ($name:ident, $check:literal) => {
        #[kernel(boundscheck = $check)]
        fn $name(input: &[f32], out: &mut [f32], rows: usize, width: usize) {
            let t = thread_idx().x as usize;
            let mut next = [0.0f32; 4];
            for j in 0..4 {
                next[j] = input[4 * t + j];
            }
            for r in 0..rows {
                let cur = next;
                if r + 1 < rows {
                    for j in 0..4 {
                        next[j] = input[(r + 1) * width + 4 * t + j];
                    }
                }
                out[r * (width / 4) + t] = cur[0] + cur[1] + cur[2] + cur[3];
            }
        }
    };
}

row_sums!(row_sums_prefetched, true);
row_sums!(row_sums_prefetched_unchecked, false);

fn reference(input: &[f32], rows: usize, width: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(rows * width / 4);
    for r in 0..rows {
        for t in 0..width / 4 {
            let x = &input[r * width + 4 * t..r * width + 4 * t + 4];
            out.push(x[0] + x[1] + x[2] + x[3]);
        }
    }
    out
}

#[test]
fn prefetched_rows_sum_as_on_the_host() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("prefetch rows");
    let (rows, width) = (5 + rng.below(20) as usize, 4 * (1 + rng.below(64) as usize));
    let input = rng.vec_f32(rows * width, -1.0, 1.0);
    let want = reference(&input, rows, width);
    let threads = (width / 4) as u32;
    let mut out = vec![f32::NAN; rows * width / 4];
    launch!(row_sums_prefetched[1, threads](&input, &mut out, rows, width)).unwrap();
    assert_eq!(out, want, "checked, {rows} rows of {width}");
    let mut out = vec![f32::NAN; rows * width / 4];
    // SAFETY: every index is below input.len() (rows * width) and out.len().
    unsafe {
        launch!(row_sums_prefetched_unchecked[1, threads](&input, &mut out, rows, width)).unwrap()
    };
    assert_eq!(out, want, "unchecked, {rows} rows of {width}");
}

#[test]
fn a_prefetch_out_of_bounds_while_its_condition_holds_panics() {
    let _gpu = require_gpu!();
    let mut rng = common::Rng::fresh("prefetch out of bounds");
    let (rows, width) = (6usize, 64usize);
    // The last row is cut short: row 4's prefetch of it reads past the end.
    let input = rng.vec_f32((rows - 1) * width + width / 2, -1.0, 1.0);
    let mut out = vec![f32::NAN; rows * width / 4];
    let err = launch!(row_sums_prefetched[1, 16u32](&input, &mut out, rows, width))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("index out of bounds: the len is {}", input.len())),
        "{err}"
    );
    // Rows before the one whose prefetch failed are complete.
    let want = reference(&input, rows - 2, width);
    assert_eq!(&out[..want.len()], &want[..]);
}
