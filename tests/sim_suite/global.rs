//! Global memory across threads and blocks: plain counters and histograms, blocks that read each other's output, index folding, grid-wide synchronisation.

use cudajit::prelude::*;

// ---- 3. a global counter incremented without an atomic ---------------------------
#[kernel]
fn b03(a: &mut [u32], b: &mut [u32]) {
    if a[grid(1)] % 2 == 0 {
        b[0] += 1;
    }
}
#[kernel]
fn f03(a: &mut [u32], b: &mut [u32]) {
    if a[grid(1)] % 2 == 0 {
        atomic_add(b, 0, 1);
    }
}
pair!(counter_without_atomic: b03 / f03 [2, 64]);

// ---- 6. every block writes one global element --------------------------------------
#[kernel]
fn b06(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x == 0 {
        b[0] = a[block_idx().x as usize];
    }
}
#[kernel]
fn f06(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x == 0 {
        b[block_idx().x as usize] = a[block_idx().x as usize];
    }
}
pair!(blocks_write_one_element: b06 / f06 [4, 32]);

// ---- 7. every thread writes the same value to one element (benign? not in the model)
#[kernel]
fn b07(a: &mut [u32], b: &mut [u32]) {
    b[0] = 7;
    a[grid(1)] = 1;
}
#[kernel]
fn f07(a: &mut [u32], b: &mut [u32]) {
    if grid(1) == 0 {
        b[0] = 7;
    }
    a[grid(1)] = 1;
}
pair!(same_value_writes: b07 / f07 [2, 64]);

// ---- 22. blocks read other blocks' results without grid_sync --------------------------
#[kernel]
fn b22(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    b[i] = a[i] * 2;
    sync_threads();
    a[i] = b[(i + 64) % 128];
}
#[kernel]
fn f22(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    b[i] = a[i] * 2;
    grid_sync();
    a[i] = b[(i + 64) % 128];
}
pair!(cross_block_read_without_grid_sync: b22 / f22 [2, 64]);

// ---- 30. reversing a global array in place across blocks -------------------------------
#[kernel]
fn b30(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let v = a[127 - i];
    a[i] = v;
    b[i] = 0;
}
#[kernel]
fn f30(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    b[i] = a[127 - i];
}
pair!(in_place_reverse_across_blocks: b30 / f30 [2, 64]);

// ---- 33. a global histogram with plain increments ----------------------------------------
#[kernel]
fn b33(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    b[(a[i] % 8) as usize] += 1;
}
#[kernel]
fn f33(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    atomic_add(b, (a[i] % 8) as usize, 1);
}
pair!(global_histogram_without_atomics: b33 / f33 [2, 64]);

// ---- 39. a block reads another block's shared-memory-derived output mid-flight --------
#[kernel]
fn b39(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[i];
    sync_threads();
    b[i] = s[31 - t];
    if block_idx().x == 1 {
        a[t] = b[t];
    }
}
#[kernel]
fn f39(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[i];
    sync_threads();
    b[i] = s[31 - t];
    if block_idx().x == 1 {
        a[128 + t] = b[32 + t];
    }
}
pair!(block_reads_other_blocks_output: b39 / f39 [2, 32]);

// ==== traps: correct kernels a naive detector would flag ====================

// T2. Numba's heat equation: early return, then grid_sync in a loop.
#[kernel]
fn t02(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let n = 100;
    if i >= n {
        return;
    }
    for step in 0..4 {
        if step % 2 == 0 {
            let left = if i > 0 { a[i - 1] } else { 0 };
            b[i] = a[i] / 2 + left / 4;
        } else {
            let left = if i > 0 { b[i - 1] } else { 0 };
            a[i] = b[i] / 2 + left / 4;
        }
        grid_sync();
    }
}
trap!(heat_equation_with_early_return: t02 [4, 32]);

// T5. disjoint writes through a permutation (7 is odd, so i*7 % 256 is one-to-one).
#[kernel]
fn t05(a: &mut [u32], b: &mut [u32]) {
    let i = grid(1);
    let j = (i * 7 + 3) % 256;
    b[j] = a[i] * 2;
}
trap!(disjoint_writes_through_permutation: t05 [4, 64]);

// T6. disjoint 2-D strided writes: row-major with a padded pitch.
#[kernel]
fn t06(a: &mut [u32], b: &mut [u32]) {
    let (x, y) = (thread_idx().x as usize, block_idx().x as usize);
    let pitch = 17;
    if x < 16 {
        b[y * pitch + x] = a[y * 16 + x];
    }
}
trap!(disjoint_padded_pitch: t06 [8, 32]);

// T9. an atomic histogram in global memory across blocks.
trap!(atomic_histogram: f33 [4, 64]);
