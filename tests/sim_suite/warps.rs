//! Warp-level code: masks of shuffles and `sync_warp`, lanes of one warp exchanging through memory, the pre-Volta warp-synchronous idiom.

use cudajit::prelude::*;

// ---- 11. a shuffle with the full mask inside a divergent branch -----------------------
#[kernel]
fn b11(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 16 {
        b[t] = shfl_down_sync(0xffff_ffff, a[t], 1);
    }
}
#[kernel]
fn f11(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = shfl_down_sync(0xffff_ffff, a[t], 1);
    if t < 16 {
        b[t] = v;
    }
}
pair!(shuffle_mask_names_inactive_lanes: b11 / f11 [1, 32]);

// ---- 12. lanes of one warp exchange through shared memory without sync_warp ----------
#[kernel]
fn b12(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    b[t] = s[t ^ 1];
}
#[kernel]
fn f12(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_warp(0xffff_ffff);
    b[t] = s[t ^ 1];
}
pair!(warp_exchange_without_sync_warp: b12 / f12 [1, 32]);

// ---- 13. the pre-Volta "warp-synchronous" last steps of a reduction -----------------
#[kernel]
fn b13(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    if t < 32 {
        s[t] += s[t + 32];
        s[t] += s[(t + 16) % 64];
        s[t] += s[(t + 8) % 64];
    }
    if t == 0 {
        b[0] = s[0];
    }
}
#[kernel]
fn f13(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_threads();
    if t < 32 {
        let mut v = s[t] + s[t + 32];
        v += shfl_down_sync(0xffff_ffff, v, 16);
        v += shfl_down_sync(0xffff_ffff, v, 8);
        if t == 0 {
            b[0] = v;
        }
    }
}
pair!(warp_synchronous_reduction: b13 / f13 [1, 64]);

// ---- 37. a shuffle whose source lane is outside the mask -----------------------------
#[kernel]
fn b37(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 16 {
        b[t] = shfl_down_sync(0xffff, a[t], 1);
    }
}
#[kernel]
fn f37(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 16 {
        b[t] = shfl_sync(0xffff, a[t], ((t + 1) % 16) as u32);
    }
}
pair!(shuffle_source_outside_mask: b37 / f37 [1, 32]);

// ---- 38. sync_warp with a mask that leaves out lanes that exchange ------------------
#[kernel]
fn b38(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    if t < 16 {
        sync_warp(0xffff);
    } else {
        sync_warp(0xffff_0000);
    }
    b[t] = s[31 - t];
}
#[kernel]
fn f38(a: &mut [u32], b: &mut [u32]) {
    let s = shared_array::<[u32; 32]>();
    let t = thread_idx().x as usize;
    s[t] = a[t];
    sync_warp(0xffff_ffff);
    b[t] = s[31 - t];
}
pair!(sync_warp_mask_misses_partner: b38 / f38 [1, 32]);

// ==== traps: correct kernels a naive detector would flag ====================

// T10. warp exchange with sync_warp, then a shuffle reduction.
trap!(warp_exchange_with_sync_warp: f12 [1, 32]);

// T14. half-warps each shuffle with their own 16-lane mask.
#[kernel]
fn t14(a: &mut [u32], b: &mut [u32]) {
    let t = thread_idx().x as usize;
    let mask = if t < 16 {
        0x0000_ffffu32
    } else {
        0xffff_0000u32
    };
    let v = shfl_xor_sync(mask, a[t], 1);
    sync_warp(mask);
    b[t] = v;
}
trap!(tiled_half_warp_masks: t14 [1, 32]);
