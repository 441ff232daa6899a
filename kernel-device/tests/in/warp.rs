// Warp operations: lane registers, every shuffle on 32- and 64-bit integers and floats,
// votes, matches and the warp reductions.

#[kernel]
fn lanes(out: &mut [u32]) {
    let i = grid(1);
    out[i] = lane_id() + warp_size() + lanemask_lt() + active_mask();
}

#[kernel]
fn shuffles(a: &mut [i32], b: &mut [u64], c: &mut [f32], d: &mut [f64], e: &mut [usize]) {
    let i = grid(1);
    let full = 0xffff_ffff;
    a[i] = shfl_sync(full, a[i], 0) + shfl_up_sync(full, a[i], 1);
    b[i] = shfl_down_sync(full, b[i], 2) ^ shfl_xor_sync(full, b[i], 16);
    c[i] = shfl_sync(full, c[i], 31) + shfl_xor_sync(full, c[i], 1);
    d[i] = shfl_up_sync(full, d[i], 4) + shfl_down_sync(full, d[i], 8);
    e[i] = shfl_xor_sync(full, e[i], 3);
}

#[kernel]
fn votes(flags: &[bool], keys: &[i64], out: &mut [u32]) {
    let i = grid(1);
    let p = flags[i];
    let mut r = ballot_sync(0xffff_ffff, p);
    r += all_sync(0xffff_ffff, p) as u32 + any_sync(0xffff_ffff, p) as u32;
    r += eq_sync(0xffff_ffff, p) as u32;
    r += match_any_sync(0xffff_ffff, keys[i]) + match_any_sync(0xffff_ffff, keys[i] as f32);
    let (mask, same) = match_all_sync(0xffff_ffff, keys[i] as u32);
    out[i] = r + mask + same as u32;
}

#[kernel]
fn reductions(a: &mut [i32], b: &mut [u64], c: &mut [f32], d: &mut [f64]) {
    let i = grid(1);
    a[i] = warp_reduce_sum(a[i]) + warp_reduce_min(a[i]) + warp_reduce_max(a[i]);
    b[i] = warp_reduce_sum(b[i]) + warp_reduce_max(b[i]);
    c[i] = warp_reduce_sum(c[i]) + warp_reduce_max(c[i]);
    d[i] = warp_reduce_min(d[i]);
}
