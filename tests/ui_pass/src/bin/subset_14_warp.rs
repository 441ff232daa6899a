//! README "The kernel subset", warp operations: lane and mask queries, the four
//! shuffles for every 32- and 64-bit scalar, votes, ballot, match and whole-warp
//! reductions. One kernel per construct.
use cudajit::prelude::*;

#[kernel]
fn lane_and_mask_queries(out: &mut [u32]) {
    out[0] = lane_id() + warp_size() + lanemask_lt() + active_mask();
}

#[kernel]
fn shfl_sync_every_word(
    a: &mut [i32],
    b: &mut [u32],
    c: &mut [i64],
    d: &mut [u64],
    e: &mut [isize],
    f: &mut [usize],
    g: &mut [f32],
    h: &mut [f64],
) {
    a[0] = shfl_sync(u32::MAX, a[0], 0);
    b[0] = shfl_sync(u32::MAX, b[0], 0);
    c[0] = shfl_sync(u32::MAX, c[0], 0);
    d[0] = shfl_sync(u32::MAX, d[0], 0);
    e[0] = shfl_sync(u32::MAX, e[0], 0);
    f[0] = shfl_sync(u32::MAX, f[0], 0);
    g[0] = shfl_sync(u32::MAX, g[0], 0);
    h[0] = shfl_sync(u32::MAX, h[0], 0);
}

#[kernel]
fn shfl_up_down_xor_sync(a: &mut [f32], b: &mut [i64]) {
    a[0] = shfl_up_sync(u32::MAX, a[0], 1)
        + shfl_down_sync(u32::MAX, a[1], 1)
        + shfl_xor_sync(u32::MAX, a[2], 1);
    b[0] = shfl_up_sync(u32::MAX, b[0], 2)
        + shfl_down_sync(u32::MAX, b[1], 2)
        + shfl_xor_sync(u32::MAX, b[2], 2);
}

#[kernel]
fn vote_all_any_eq_sync(out: &mut [bool]) {
    let p = thread_idx().x % 2 == 0;
    out[0] = all_sync(u32::MAX, p);
    out[1] = any_sync(u32::MAX, p);
    out[2] = eq_sync(u32::MAX, p);
}

#[kernel]
fn ballot_sync_mask(out: &mut [u32]) {
    out[0] = ballot_sync(u32::MAX, thread_idx().x < 8);
}

#[kernel]
fn match_any_and_all_sync(out: &mut [u32], flags: &mut [bool]) {
    out[0] = match_any_sync(u32::MAX, out[1]);
    let (mask, same) = match_all_sync(u32::MAX, out[2]);
    out[3] = mask;
    flags[0] = same;
}

#[kernel]
fn warp_reduce_sum_min_max(a: &mut [f32], b: &mut [u32]) {
    a[0] = warp_reduce_sum(a[0]) + warp_reduce_min(a[1]) + warp_reduce_max(a[2]);
    b[0] = warp_reduce_sum(b[0]) + warp_reduce_min(b[1]) + warp_reduce_max(b[2]);
}

fn main() {}
