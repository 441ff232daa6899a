//! The single-pass scan with the next tile's loads in flight during the look-back
//! (32-bit elements): each block keeps two tile buffers in shared memory. While warp 0
//! looks back for tile k's prefix, the other warps (and then warp 0) load tile k + 1
//! into the other buffer, so the look-back's waits overlap the next tile's memory
//! traffic instead of leaving the block idle. The tile's local scan, the look-back and
//! the write-out are `lookback::kernel`'s.
//!
//! Two buffers of 4224 (padded) 4-byte elements take 34 KB of shared memory: six
//! blocks per multiprocessor.

use kernel_device::source::FnSource;

use super::lookback_text::lookback_text;
use super::synth;
use crate::memory::elem::DeviceScalar;

/// Resident blocks per multiprocessor the kernel is fitted to (shared memory: six).
pub(super) const MIN_BLOCKS_PER_SM: u32 = 6;

/// The pipelined kernel for `op` on the 32-bit `T`, `items` elements per thread.
pub(super) fn kernel<T: DeviceScalar>(
    op: &'static FnSource,
    items: usize,
    exclusive: bool,
) -> synth::Kernel {
    let t = T::SCALAR.rust_name();
    let opn = synth::callee(op, t);
    let block = synth::BLOCK as usize;
    let warps = block / 32;
    let tile = items * block;
    // One padding slot per 32 elements: thread-consecutive reads hit distinct banks.
    let padded = tile + tile / 32;
    let kind = if exclusive { "exclusive" } else { "inclusive" };
    let name = format!("cj_scan2_{kind}_{items}_{t}_{}", op.name);
    let step = if exclusive {
        "cj_sm[cj_s] = cj_run;
        cj_run = OP(cj_run, cj_x);"
    } else {
        "cj_run = OP(cj_run, cj_x);
        cj_sm[cj_s] = cj_run;"
    }
    .replace("OP", &opn);
    let lookback = lookback_text::<T>(&opn);
    // Loads tile `cj_load_tile` into the buffer at `cj_load_base`.
    let load = format!(
        "let cj_load_start = cj_load_tile * {tile};
    if cj_load_start + {tile} <= cj_n {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            cj_sm[cj_load_base + cj_j + cj_j / 32] = cj_in[cj_load_start + cj_j];
        }}
    }} else {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            let cj_i = cj_load_start + cj_j;
            cj_sm[cj_load_base + cj_j + cj_j / 32] = if cj_i < cj_n {{ cj_in[cj_i] }} else {{ cj_identity }};
        }}
    }}"
    );
    let text = format!(
        "fn {name}(cj_in: &[{t}], cj_out: &mut [{t}], cj_status: &mut [u32], cj_aggregates: &mut [u64], cj_inclusive: &mut [u64], cj_counter: &mut [u64], cj_issued: u64, cj_epoch: u32, cj_identity: {t}) {{
    let cj_sm = shared_array::<[{t}; {buffers}]>();
    let cj_warp_totals = shared_array::<[{t}; {warps}]>();
    let cj_tile_sm = shared_array::<[u32; 2]>();
    let cj_prefix_sm = shared_array::<[{t}; 1]>();
    let cj_tid = thread_idx().x as usize;
    let cj_lane = cj_tid % 32;
    let cj_warp = cj_tid / 32;
    let cj_full = 0xffff_ffffu32;
    let cj_n = cj_in.len();
    let cj_tiles = (cj_n + {tile} - 1) / {tile};
    if cj_tid == 0 {{
        cj_tile_sm[0] = (atomic_add(cj_counter, 0, 1u64) - cj_issued) as u32;
    }}
    sync_threads();
    let mut cj_slot = 0usize;
    let mut cj_tile = cj_tile_sm[0] as usize;
    // The buffer holding tile `cj_tile`: 0 or {padded}.
    let mut cj_base = 0usize;
    if cj_tile < cj_tiles {{
        let cj_load_tile = cj_tile;
        let cj_load_base = 0usize;
        {load}
    }}
    // A block scans tiles until the counter runs past the last one.
    while cj_tile < cj_tiles {{
    // The ticket after this tile, taken now (only thread 0 waits for it, below).
    let mut cj_next = 0u64;
    if cj_tid == 0 {{
        cj_next = atomic_add(cj_counter, 0, 1u64);
    }}
    sync_threads();
    let cj_start = cj_tile * {tile};
    // The thread's consecutive elements folded in order.
    let cj_first = cj_tid * {items};
    let mut cj_v = cj_identity;
    for cj_k in 0..{items}usize {{
        let cj_j = cj_first + cj_k;
        cj_v = {opn}(cj_v, cj_sm[cj_base + cj_j + cj_j / 32]);
    }}
    // Inclusive scan across the warp: lane l folds lane l - d's value on its left.
    let mut cj_d = 1u32;
    while cj_d < 32 {{
        let cj_up = shfl_up_sync(cj_full, cj_v, cj_d);
        if cj_lane as u32 >= cj_d {{
            cj_v = {opn}(cj_up, cj_v);
        }}
        cj_d <<= 1;
    }}
    let cj_prev = shfl_up_sync(cj_full, cj_v, 1u32);
    let cj_warp_excl = if cj_lane == 0 {{ cj_identity }} else {{ cj_prev }};
    if cj_lane == 31 {{
        cj_warp_totals[cj_warp] = cj_v;
    }}
    // The next tile, in the other slot (nobody reads it before the barrier below).
    if cj_tid == 0 {{
        cj_tile_sm[1 - cj_slot] = (cj_next - cj_issued) as u32;
    }}
    sync_threads();
    cj_slot = 1 - cj_slot;
    let cj_following = cj_tile_sm[cj_slot] as usize;
    let cj_other = {padded} - cj_base;
    let mut cj_before = cj_identity;
    let mut cj_total = cj_identity;
    for cj_w in 0..{warps}usize {{
        let cj_x = cj_warp_totals[cj_w];
        if cj_w < cj_warp {{
            cj_before = {opn}(cj_before, cj_x);
        }}
        cj_total = {opn}(cj_total, cj_x);
    }}
    {lookback}
    // Every warp (warp 0 after its look-back) loads the next tile into the other
    // buffer, which the previous tile's write-out finished reading before the barrier
    // at the top of this iteration.
    if cj_following < cj_tiles {{
        let cj_load_tile = cj_following;
        let cj_load_base = cj_other;
        {load}
    }}
    sync_threads();
    // The thread's elements again, from the prefix of everything before them.
    let mut cj_run = {opn}(cj_prefix_sm[0], {opn}(cj_before, cj_warp_excl));
    for cj_k in 0..{items}usize {{
        let cj_j = cj_first + cj_k;
        let cj_s = cj_base + cj_j + cj_j / 32;
        let cj_x = cj_sm[cj_s];
        {step}
    }}
    sync_threads();
    if cj_start + {tile} <= cj_n {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            cj_out[cj_start + cj_j] = cj_sm[cj_base + cj_j + cj_j / 32];
        }}
    }} else {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            let cj_i = cj_start + cj_j;
            if cj_i < cj_n {{
                cj_out[cj_i] = cj_sm[cj_base + cj_j + cj_j / 32];
            }}
        }}
    }}
    cj_base = cj_other;
    cj_tile = cj_following;
    }}
}}",
        buffers = 2 * padded,
    );
    synth::kernel_with_bounds(&name, text, &[op], Some(MIN_BLOCKS_PER_SM))
}
