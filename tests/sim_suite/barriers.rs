//! Barriers: reached by only some threads, different barriers, trip counts that
//! differ, threads that exit before one. A thread that exits (`return`, or running to
//! the end of the kernel) counts as arrived at every later barrier, as PTX `exit`
//! says; what goes wrong when a branch skips a barrier is what the skipping threads do
//! without it, or a later, different barrier.

use cudajit::prelude::*;

// ---- 8. a barrier in a branch half the block takes: the other half reads the tile
// without waiting for it (the barrier itself is released when that half exits) ------
#[kernel]
fn b08(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    if t < 32 {
        s[t] = a[t];
        s[t + 32] = a[t + 32];
        sync_threads();
    }
    b[t] = s[63 - t];
}
#[kernel]
fn f08(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    if t < 32 {
        s[t] = a[t];
        s[t + 32] = a[t + 32];
    }
    sync_threads();
    b[t] = s[63 - t];
}
pair!(barrier_in_half_taken_branch: b08 / f08 [1, 64]);

// ---- 9. a barrier in a branch that splits a warp -----------------------------------
#[kernel]
fn b09(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t % 2 == 0 {
        sync_threads();
    }
    b[t] = a[t];
}
pair!(barrier_in_warp_divergent_branch: b09 / f08 [1, 64]);

// ---- 10. two different barriers in if / else -------------------------------------------
#[kernel]
fn b10(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 32 {
        b[t] = a[t];
        sync_threads();
    } else {
        sync_threads();
        b[t] = a[t];
    }
}
pair!(different_barriers_in_if_else: b10 / f08 [1, 64]);

// ---- 29. a barrier in a loop whose trip count depends on the thread -------------------
#[kernel]
fn b29(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    for _ in 0..(1 + t / 32) {
        sync_threads();
    }
    // Warp 0 waits here while warp 1 still waits at the loop's barrier.
    sync_threads();
    b[t] = a[t];
}
#[kernel]
fn f29(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    for _ in 0..2 {
        sync_threads();
    }
    b[t] = a[t];
}
pair!(barrier_in_thread_dependent_loop: b29 / f29 [1, 64]);

// ==== traps: correct kernels a naive detector would flag ====================

// T1. early return before sync_threads (whole warps and part of one).
#[kernel]
fn t01(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 128]>();
    let t = thread_idx().x as usize;
    if t >= 70 {
        return;
    }
    s[t] = a[t];
    sync_threads();
    b[t] = s[69 - t];
}
trap!(early_return_before_barrier: t01 [1, 128]);

// T13. sync_threads_count with some threads returned early.
#[kernel]
fn t13(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t >= 50 {
        return;
    }
    let n = sync_threads_count(a[t] % 2 == 0);
    b[t] = n;
}
trap!(barrier_count_after_early_return: t13 [1, 64]);

// T15. whole warps skip a barrier and run to the end of the kernel: they exit, which
// releases the barrier for the others (PTX `exit`), as on the GPU.
#[kernel]
fn t15(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    if t < 64 {
        s[t] = a[t];
        sync_threads();
        b[t] = s[63 - t];
    } else {
        b[t] = a[t] * 2;
    }
}
trap!(warps_skipping_a_barrier_to_the_end_exit: t15 [1, 128]);
