//! Shared and dynamic shared memory, indices, barriers, fences, atomics, warp
//! operations and grid-wide sync compile.
use cudajit::prelude::*;

#[kernel]
fn simt(data: &mut [f32], counts: &mut [u32], n: usize) {
    let tid = thread_idx().x as usize;
    let (gx, gy) = grid(2);
    let _shape = (block_idx().y, block_dim().z, grid_dim().x, grid_size(3));
    let tile = shared_array::<[f32; 256]>();
    let t2: &mut [[u32; 33]; 32] = shared_array();
    tile[tid] = data[gx + gy];
    t2[0][tid % 33] = 1;
    sync_threads();
    let c = sync_threads_count(tid < n);
    let all = sync_threads_and(tid < n) || sync_threads_or(tid == 0);
    sync_warp(u32::MAX);
    threadfence_block();
    threadfence();
    threadfence_system();
    let mut smem = dynamic_shared();
    let vals = smem.take::<f32>(n);
    vals[0] = 1.0;
    let old = atomic_add(counts, 0, c) + atomic_max(counts, 1, 3) + atomic_cas(counts, 2, 0, 1);
    let _f = atomic_add(data, 0, 1.0) + atomic_exch_block(data, 1, 2.0);
    let _w = atomic_inc(counts, 3, 10) + atomic_or_system(counts, 4, 1);
    let lane = lane_id() + warp_size() + lanemask_lt() + active_mask();
    let v = shfl_down_sync(u32::MAX, data[0], 1) + shfl_xor_sync(u32::MAX, 1.0f32, 1);
    let vote = all_sync(u32::MAX, all) && any_sync(u32::MAX, true) || eq_sync(u32::MAX, false);
    let ballot = ballot_sync(u32::MAX, vote) + match_any_sync(u32::MAX, lane);
    let (mask, same) = match_all_sync(u32::MAX, old);
    let sum = warp_reduce_sum(v) + warp_reduce_max(tile[tid]);
    grid_sync();
    if same {
        data[tid] = sum + (ballot + mask) as f32;
    }
}

fn main() {}
