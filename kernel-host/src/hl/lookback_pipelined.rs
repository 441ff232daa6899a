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
use super::scan_text::ScanShape;
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
    let shape = ScanShape::of::<T>("cj_scan2", op, items, exclusive);
    let ScanShape {
        tile,
        padded,
        name,
        opn,
        ..
    } = &shape;
    let lookback = lookback_text::<T>(opn);
    let prologue = shape.prologue("u64", 2 * padded, 2);
    let first_ticket = shape.first_ticket();
    // Loads tile `cj_load_tile` into the buffer at `cj_load_base`.
    let load = format!(
        "let cj_load_start = cj_load_tile * {tile};
    {}",
        shape.load(
            "cj_load_start",
            &format!("cj_load_start + {tile} <= cj_n"),
            "cj_load_base + "
        )
    );
    let warp_scan = shape.warp_scan("cj_base + ");
    let block_totals = shape.block_totals();
    let rescan_and_store =
        shape.rescan_and_store(&format!("cj_start + {tile} <= cj_n"), "cj_base + ");
    let text = format!(
        "{prologue}
    {first_ticket}
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
    {warp_scan}
    // The next tile, in the other slot (nobody reads it before the barrier below).
    if cj_tid == 0 {{
        cj_tile_sm[1 - cj_slot] = (cj_next - cj_issued) as u32;
    }}
    sync_threads();
    cj_slot = 1 - cj_slot;
    let cj_following = cj_tile_sm[cj_slot] as usize;
    let cj_other = {padded} - cj_base;
    {block_totals}
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
    {rescan_and_store}
    cj_base = cj_other;
    cj_tile = cj_following;
    }}
}}",
    );
    synth::kernel_with_bounds(&name, text, &[op], Some(MIN_BLOCKS_PER_SM))
}
