//! Shared memory within a block: missing barriers between writers and readers, plain updates of shared cells, reads of unwritten elements.

use cudajit::prelude::*;

// ---- 1. tree reduction without the barrier between steps (GPUVerify's classic) ----
#[kernel]
fn b01(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    let mut k = 32;
    while k > 0 {
        if t < k {
            s[t] = s[t] + s[t + k];
        }
        k /= 2;
    }
    if t == 0 {
        b[0] = s[0];
    }
}
#[kernel]
fn f01(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    let mut k = 32;
    while k > 0 {
        if t < k {
            s[t] = s[t] + s[t + k];
        }
        sync_threads();
        k /= 2;
    }
    if t == 0 {
        b[0] = s[0];
    }
}
pair!(tree_reduction_without_barrier: b01 / f01 [1, 64]);

// ---- 2. stencil reads a neighbour's shared element without a barrier -------------
#[kernel]
fn b02(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    b[t] = s[(t + 1) % 64] + s[t];
}
#[kernel]
fn f02(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    b[t] = s[(t + 1) % 64] + s[t];
}
pair!(stencil_without_barrier: b02 / f02 [1, 64]);

// ---- 4. shared histogram with plain increments ------------------------------------
#[kernel]
fn b04(a: &mut [u32], b: &mut [u32]) {
    let h = shared_array::<[u32; 8]>();
    let t = thread_idx().x as usize;
    if t < 8 {
        h[t] = 0;
    }
    sync_threads();
    h[(a[t] % 8) as usize] += 1;
    sync_threads();
    if t < 8 {
        b[t] = h[t];
    }
}
#[kernel]
fn f04(a: &mut [u32], b: &mut [u32]) {
    let h = shared_array::<[u32; 8]>();
    let t = thread_idx().x as usize;
    if t < 8 {
        h[t] = 0;
    }
    sync_threads();
    atomic_add_block(h, (a[t] % 8) as usize, 1);
    sync_threads();
    if t < 8 {
        b[t] = h[t];
    }
}
pair!(shared_histogram_without_atomics: b04 / f04 [1, 64]);

// ---- 5. half the tile loaded, the whole tile read ---------------------------------
#[kernel]
fn b05(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    if t < 32 {
        s[t] = a[t];
    }
    sync_threads();
    b[t] = s[63 - t];
}
#[kernel]
fn f05(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    b[t] = s[63 - t];
}
pair!(partially_loaded_tile: b05 / f05 [1, 64]);

// ---- 20. in-place shift: write-after-read without a barrier ---------------------------
#[kernel]
fn b20(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 65]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    if t == 0 {
        s[64] = 0;
    }
    sync_threads();
    s[t] = s[t + 1];
    sync_threads();
    b[t] = s[t];
}
#[kernel]
fn f20(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 65]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    if t == 0 {
        s[64] = 0;
    }
    sync_threads();
    let v = s[t + 1];
    sync_threads();
    s[t] = v;
    sync_threads();
    b[t] = s[t];
}
pair!(in_place_shift_write_after_read: b20 / f20 [1, 64]);

// ---- 21. double buffering missing the barrier at the end of each step ---------------
#[kernel]
fn b21(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    let mut v = a[t];
    for _ in 0..3 {
        s[t] = v;
        sync_threads();
        v = s[(t + 1) % 64] + v;
    }
    b[t] = v;
}
#[kernel]
fn f21(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    let mut v = a[t];
    for _ in 0..3 {
        s[t] = v;
        sync_threads();
        v = s[(t + 1) % 64] + v;
        sync_threads();
    }
    b[t] = v;
}
pair!(loop_missing_trailing_barrier: b21 / f21 [1, 64]);

// ---- 24. an index that folds two threads onto one element ------------------------------
#[kernel]
fn b24(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t / 2] = a[t];
    sync_threads();
    b[t] = s[t / 2];
}
#[kernel]
fn f24(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    b[t] = s[t / 2];
}
pair!(index_folds_two_threads: b24 / f24 [1, 64]);

// ---- 25. a reader that runs before the writer, no barrier between -------------------
#[kernel]
fn b25(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 8]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        b[0] = s[5];
    }
    if t == 37 {
        s[5] = a[t];
    }
}
#[kernel]
fn f25(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 8]>();
    let t = thread_idx().x as usize;
    if t == 37 {
        s[5] = a[t];
    }
    sync_threads();
    if t == 0 {
        b[0] = s[5];
    }
}
pair!(read_before_write_no_barrier: b25 / f25 [1, 64]);

// ---- 31. a tile indexed by lane instead of thread: warps collide ----------------------
#[kernel]
fn b31(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t % 32] = a[t];
    sync_threads();
    b[t] = s[t % 32];
}
pair!(tile_indexed_by_lane: b31 / f24 [1, 64]);

// ---- 32. one warp reads another warp's partial sum without a barrier ------------------
#[kernel]
fn b32(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 2]>();
    let t = thread_idx().x as usize;
    let v = warp_reduce_sum(a[t]);
    if t % 32 == 0 {
        s[t / 32] = v;
    }
    if t == 0 {
        b[0] = s[0] + s[1];
    }
}
#[kernel]
fn f32_(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 2]>();
    let t = thread_idx().x as usize;
    let v = warp_reduce_sum(a[t]);
    if t % 32 == 0 {
        s[t / 32] = v;
    }
    sync_threads();
    if t == 0 {
        b[0] = s[0] + s[1];
    }
}
pair!(cross_warp_partials_without_barrier: b32 / f32_ [1, 64]);

// ---- 34. a device function that writes a shared scratch cell from every thread -------
#[device]
fn stash(s: &mut [u32], v: u32) -> u32 {
    s[0] = v;
    s[0]
}
#[kernel]
fn b34(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    b[t] = stash(&mut s[..], a[t]);
}
#[kernel]
fn f34(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    b[t] = stash(&mut s[t..], a[t]);
}
pair!(device_function_shares_scratch: b34 / f34 [1, 64]);

// ---- 35. a 2-D tile transposed without the barrier ---------------------------------------
#[kernel]
fn b35(a: &mut [u32], b: &mut [u32]) {
    let tile = shared_array::<[[u32; 8]; 8]>();
    let (x, y) = (thread_idx().x as usize, thread_idx().y as usize);
    tile[y][x] = a[y * 8 + x];
    b[y * 8 + x] = tile[x][y];
}
#[kernel]
fn f35(a: &mut [u32], b: &mut [u32]) {
    let tile = shared_array::<[[u32; 8]; 8]>();
    let (x, y) = (thread_idx().x as usize, thread_idx().y as usize);
    tile[y][x] = a[y * 8 + x];
    sync_threads();
    b[y * 8 + x] = tile[x][y];
}
pair!(tile_transpose_without_barrier: b35 / f35 [1, (8, 8)]);

// ---- 40. a second launch-long accumulation reads a partial from the wrong step -------
#[kernel]
fn b40(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    if t > 0 {
        s[t] += s[t - 1];
    }
    sync_threads();
    b[t] = s[t];
}
#[kernel]
fn f40(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    let prev = if t > 0 { s[t - 1] } else { 0 };
    sync_threads();
    s[t] += prev;
    sync_threads();
    b[t] = s[t];
}
pair!(scan_step_reads_updated_neighbour: b40 / f40 [1, 64]);

// ==== traps: correct kernels a naive detector would flag ====================

// T11. double buffering with both barriers.
trap!(double_buffer_with_barriers: f21 [1, 64]);
