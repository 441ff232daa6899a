//! Spin-waits: on flags nobody sets, across barriers the spinner never reaches, and ones that terminate.

use cudajit::prelude::*;

// ---- 26. a spin on a flag that nobody sets ---------------------------------------------
#[kernel]
fn b26(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x == 0 {
        while atomic_add(b, 0, 0) == 0 {}
        a[0] = 1;
    }
}
#[kernel]
fn f26(a: &mut [u32], b: &mut [u32]) {
    if thread_idx().x == 33 {
        atomic_exch(b, 0, 1);
    }
    if thread_idx().x == 0 {
        while atomic_add(b, 0, 0) == 0 {}
        a[0] = 1;
    }
}
pair!(spin_nobody_ends: b26 / f26 [1, 64]);

// ---- 27. the flag is set after a barrier the spinning thread never reaches ------------
#[kernel]
fn b27(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        while atomic_add(b, 0, 0) == 0 {}
    }
    sync_threads();
    if t == 33 {
        atomic_exch(b, 0, 1);
    }
    a[t as usize] = 1;
}
#[kernel]
fn f27(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x;
    if t == 33 {
        atomic_exch(b, 0, 1);
    }
    if t == 0 {
        while atomic_add(b, 0, 0) == 0 {}
    }
    sync_threads();
    a[t as usize] = 1;
}
pair!(spin_across_a_barrier: b27 / f27 [1, 64]);

// ==== traps: correct kernels a naive detector would flag ====================

// T12. a spin-wait on a flag set by a later block.
#[kernel]
fn t12(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if block_idx().x == 0 && t == 0 {
        while atomic_add(b, 0, 0) < 3 {}
        threadfence();
        b[1] = a[200] + a[201] + a[202];
    } else if t == 0 {
        a[199 + block_idx().x as usize] = 1;
        threadfence();
        atomic_add(b, 0, 1);
    }
}
trap!(spin_waits_for_later_blocks: t12 [4, 32]);

// ---- 41. a per-lane spin lock whose holder never releases it ------------------------
#[kernel]
fn b41(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    while atomic_cas(b, 0, 0, 1) != 0 {}
    threadfence();
    b[1] += a[t];
}
pair!(per_lane_lock_never_released: b41 / t16 [1, 32]);

// ---- 42. a spin on a plain read of a flag another warp sets --------------------------
#[kernel]
fn b42(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        while b[0] == 0 {}
    }
    if t == 40 {
        b[0] = 1;
    }
    a[t] = 1;
}
pair!(spin_on_a_plain_read: b42 / f26 [1, 64]);

// T16. a spin lock taken per lane: lanes of one warp contend for it, loop until they
// get it, and release it (Volta's independent thread scheduling lets the holder
// release while its warp-mates spin).
#[kernel]
fn t16(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    while atomic_cas(b, 0, 0, 1) != 0 {}
    threadfence();
    b[1] += a[t];
    threadfence();
    atomic_exch(b, 0, 0);
}
trap!(per_lane_spin_lock_in_a_warp: t16 [2, 32]);
