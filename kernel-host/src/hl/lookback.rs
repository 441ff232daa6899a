//! The single-pass scan: decoupled look-back (Merrill & Garland, "Single-pass Parallel
//! Prefix Scan with Decoupled Look-back", 2016), written in the kernel subset. Each
//! element is read once and written once, so the scan runs near the copy bandwidth.
//! This module launches it (`scan_into`) in one of three layouts: `lookback_classic`
//! (the default: one block per tile, the fastest measured), this module's resident
//! blocks (`kernel`, described here) and `lookback_pipelined`; the others are
//! benchmark variants (`set_scan_layout`).
//!
//! A block takes the next tile from a counter (so every tile before it belongs to a
//! block that already started: on a GPU, and on the simulator, whose workers take
//! blocks in order and run each to its end), loads the tile striped (coalesced) into
//! shared memory, scans each thread's `items` consecutive elements and the block by
//! warp shuffles, and publishes the tile's aggregate. Warp 0 then looks back over
//! windows of 32 earlier tiles, waiting for each to publish its aggregate or its
//! inclusive prefix, and folds them (in tile order: the operator need not commute)
//! until it meets an inclusive prefix; it publishes its own, and the block writes the
//! tile out. Blocks stay resident (as many as fit the GPU) and take tiles until none
//! are left, each fetching its next ticket while it scans the current tile. No wait
//! can deadlock: the earliest unfinished tile belongs to a block that is scanning it
//! (a block scans its tiles in ticket order), and everything before it is published.
//!
//! Tile states: a 32-bit element and its state share one `u64` word (`(epoch << 2 |
//! flag) << 32 | bits`, flag 1 for an aggregate, 2 for an inclusive prefix), published
//! by one `atomic_exch` and read by one `atomic_or(.., 0)` (the subset has no atomic
//! load): no fences, as CUB does. A 64-bit element's value cannot share a word with its
//! status, so it lives in three arrays: a status word per tile (`epoch << 2 | flag`) and
//! the two values as `u64` bits. A value is written by `atomic_exch`, then
//! `threadfence()`, then the status by `atomic_exch`; readers read the status, then
//! `threadfence()`, then the value: CUDA's release/acquire pattern. Every access to a
//! tile state is an atomic (coherent in L2: no plain load can meet a stale L1 line, and
//! the simulator's race detector sees the fence-then-atomic release it knows).
//!
//! The states are kept between calls (`scratch`): the epoch (one per call) tells this
//! call's statuses from older ones, and the counter is never reset (the host passes the
//! tickets it has issued before), so a call clears nothing.
//!
//! Shuffles move 32- and 64-bit words: other element types use the three-pass scan.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use kernel_device::source::FnSource;

use super::lookback_text::lookback_text;
use super::scan_text::ScanShape;
use super::{lookback_classic, lookback_pipelined, scratch, synth, Target};
use crate::error::{Error, Result};
use crate::launch::args::{KernelArg, SliceArg, SliceArgMut};
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

/// Consecutive elements per thread on a GPU for 64-bit elements (tiles of 4096 with
/// 256 threads: 34 KB of shared memory).
pub(super) const GPU_ITEMS: usize = 16;
/// For 32-bit elements: tiles of 8192 (33 KB of shared memory, six blocks per
/// multiprocessor). Fewer tiles mean shorter look-back chains, which bound the scan: on
/// the H100 (2^28 u32, one run at c921eec) tiles of 4096 took 1075 us, of 5120 969 us,
/// of 6144 901 us, of 7168 873 us, of 8192 842 us (0.95x CUB's 883 us, 85.7% of copy).
pub(super) const GPU_ITEMS_32: usize = 32;
/// The most items per thread whose tile fits the 48 KB of static shared memory a
/// kernel may have, with its padding: 44 for 32-bit elements, 22 for 64-bit ones.
fn max_items<T>() -> usize {
    44 * 4 / std::mem::size_of::<T>()
}

/// Elements per thread on a GPU for `T`: the default, or the benchmark knob's value
/// (within what shared memory holds).
fn gpu_items<T>() -> usize {
    let default = if std::mem::size_of::<T>() == 4 {
        GPU_ITEMS_32
    } else {
        GPU_ITEMS
    };
    match ITEMS_ON_GPU.load(Ordering::Relaxed) {
        0 => default,
        items => items.min(max_items::<T>()),
    }
}
/// On the simulator: small tiles, so that the edge lengths cross many tiles and the
/// look-back runs over several windows (the text is the same, with this constant).
const SIM_ITEMS: usize = 2;
/// Statuses carry the epoch in their top 30 bits.
const EPOCHS: u32 = 1 << 30;

/// Elements per thread on a GPU other than [`GPU_ITEMS`] (0: the default). See
/// [`set_scan_items_per_thread`].
static ITEMS_ON_GPU: AtomicUsize = AtomicUsize::new(0);

/// Sets the single-pass scan's elements per thread on a GPU (tiles of 256 times as
/// many; at most what 48 KB of shared memory holds), or 0 for the default (24 for
/// 32-bit elements, 16 for 64-bit ones). For benchmarks; not a stable API.
#[doc(hidden)]
pub fn set_scan_items_per_thread(items: usize) {
    ITEMS_ON_GPU.store(items, Ordering::Relaxed);
}

/// Resident blocks per multiprocessor that ptxas fits the scan's registers to (32 a
/// thread): the waits of a block's look-back are hidden by the other blocks' loads.
const MIN_BLOCKS_PER_SM: u32 = 8;

/// Blocks of the scan kept on each multiprocessor of a GPU: its 256 threads use 32
/// registers and 17 KB of shared memory, so eight (2048 threads) fit. 0: one block per
/// tile (a grid of as many blocks as tiles). See [`set_scan_blocks_per_sm`].
static BLOCKS_PER_SM: AtomicU32 = AtomicU32::new(MIN_BLOCKS_PER_SM);

/// Sets how many blocks of the single-pass scan run on each multiprocessor (each scans
/// tiles until none are left), or 0 for one block per tile. For benchmarks comparing
/// the two; not a stable API.
#[doc(hidden)]
pub fn set_scan_blocks_per_sm(blocks: u32) {
    BLOCKS_PER_SM.store(blocks, Ordering::Relaxed);
}

/// The scan kernel's layout (a benchmark knob): 0 `lookback_classic` (the default),
/// 1 this module's resident blocks, 2 `lookback_pipelined`. See [`set_scan_layout`].
static LAYOUT: AtomicU32 = AtomicU32::new(0);

/// Picks the single-pass scan's kernel: 0 one block per tile with fenced tile states
/// (the default, fastest measured), 1 resident blocks taking tiles from the counter
/// with packed state words, 2 the same loading the next tile during the look-back
/// (32-bit elements of at most 16 items per thread; else 1). For benchmarks comparing
/// them; not a stable API.
#[doc(hidden)]
pub fn set_scan_layout(layout: u32) {
    LAYOUT.store(layout, Ordering::Relaxed);
}

/// The scan's grid before it is cut to the tile count: every block stays resident and
/// takes tiles from the counter, so a block is launched once, not once per tile, and
/// fetches its next ticket while it scans. The simulator: 4 blocks, so that the tests
/// see blocks scan several tiles each.
fn resident_blocks(target: &Target<'_>, fit: u32) -> u32 {
    if target.device.is_simulator() {
        return 4;
    }
    match BLOCKS_PER_SM.load(Ordering::Relaxed) {
        0 => u32::MAX,
        per_sm => target
            .device
            .multiprocessor_count()
            .saturating_mul(per_sm.min(fit)),
    }
}

/// Whether the single-pass scan handles `T`: the shuffles take 32/64-bit scalars.
pub(super) fn handles<T: DeviceScalar>() -> bool {
    matches!(std::mem::size_of::<T>(), 4 | 8) && T::SCALAR.rust_name() != "bool"
}

/// A scan's kept tile states on one (device, stream).
struct TileStates<T: DeviceScalar> {
    status: DeviceArray<u32>,
    /// Each tile's aggregate and inclusive prefix as the bits of a `T` in a `u64` word
    /// (see `bits_of`).
    aggregates: DeviceArray<u64>,
    inclusive: DeviceArray<u64>,
    counter: DeviceArray<u64>,
    /// Tickets the counter handed out in earlier calls.
    issued: u64,
    /// The last call's epoch (0: none yet; the arrays start zeroed).
    epoch: u32,
    _elem: std::marker::PhantomData<T>,
}

impl<T: DeviceScalar> TileStates<T> {
    fn new(target: &Target<'_>, tiles: usize) -> Result<Self> {
        let d = &target.device;
        Ok(TileStates {
            status: DeviceArray::zeros_on(d, tiles)?,
            aggregates: DeviceArray::zeros_on(d, tiles)?,
            inclusive: DeviceArray::zeros_on(d, tiles)?,
            counter: DeviceArray::zeros_on(d, 1)?,
            issued: 0,
            epoch: 0,
            _elem: std::marker::PhantomData,
        })
    }
}

/// Scans `input` into `out` (same length, not empty) in one pass.
pub(super) fn scan_into<T: DeviceScalar>(
    target: &Target<'_>,
    input: &DeviceArray<T>,
    out: &mut DeviceArray<T>,
    op: &'static FnSource,
    identity: T,
    exclusive: bool,
) -> Result<()> {
    let items = if target.device.is_simulator() {
        SIM_ITEMS
    } else {
        gpu_items::<T>()
    };
    let tile = items * synth::BLOCK as usize;
    let tiles = input.len().div_ceil(tile);
    // Tickets are relative to the call's first as u32: tiles plus one past the end per
    // block must fit.
    let tiles_u32 = u32::try_from(tiles)
        .ok()
        .filter(|&t| t < u32::MAX / 2)
        .ok_or_else(|| Error::ArgumentMismatch {
            kernel: "cudajit::scan".into(),
            detail: format!(
                "{} elements exceed the {} a scan takes",
                input.len(),
                (tile as u64) << 31
            ),
        })?;
    let packed = std::mem::size_of::<T>() == 4;
    let layout = LAYOUT.load(Ordering::Relaxed);
    let classic = layout == 0;
    let (kernel, grid) = match layout {
        _ if classic => (
            lookback_classic::kernel::<T>(op, items, exclusive),
            tiles_u32.max(1),
        ),
        2 if packed && items <= 16 => (
            lookback_pipelined::kernel::<T>(op, items, exclusive),
            tiles_u32
                .min(resident_blocks(
                    target,
                    lookback_pipelined::MIN_BLOCKS_PER_SM,
                ))
                .max(1),
        ),
        _ => (
            kernel::<T>(op, items, exclusive),
            tiles_u32
                .min(resident_blocks(target, MIN_BLOCKS_PER_SM))
                .max(1),
        ),
    };
    // Classic blocks take one ticket each; resident blocks one per tile and one past
    // the last tile each.
    let tickets = if classic {
        u64::from(grid)
    } else {
        u64::from(tiles_u32) + u64::from(grid)
    };
    let key = scratch::Key::new::<TileStates<T>>(&target.device, target.stream);
    let mut states = match scratch::take::<TileStates<T>>(key) {
        Some(s) if s.status.len() >= tiles && s.epoch + 1 < EPOCHS => s,
        _ => TileStates::new(target, tiles)?,
    };
    states.epoch += 1;
    let mut args = [
        SliceArg::<T>::into_kernel_arg(input),
        SliceArgMut::<T>::into_kernel_arg(out),
        SliceArgMut::<u32>::into_kernel_arg(&mut states.status),
        SliceArgMut::<u64>::into_kernel_arg(&mut states.aggregates),
        SliceArgMut::<u64>::into_kernel_arg(&mut states.inclusive),
        SliceArgMut::<u64>::into_kernel_arg(&mut states.counter),
        KernelArg::scalar(states.issued),
        KernelArg::scalar(states.epoch),
        KernelArg::scalar(identity),
    ];
    crate::launch::launch(kernel.source, kernel.cache, target.config(grid), &mut args)?;
    // Kept only after a launch that was queued: a failed one may have left the
    // counter short of its tickets.
    states.issued += tickets;
    scratch::put(key, states);
    Ok(())
}

/// The single-pass kernel for `op` on `T`, `items` elements per thread.
pub(super) fn kernel<T: DeviceScalar>(
    op: &'static FnSource,
    items: usize,
    exclusive: bool,
) -> synth::Kernel {
    let shape = ScanShape::of::<T>("cj_scan3", op, items, exclusive);
    let ScanShape {
        tile,
        padded,
        name,
        opn,
        ..
    } = &shape;
    let w = "u64";
    let load = shape.load("cj_start", "cj_whole", "");
    let warp_scan = shape.warp_scan("");
    let block_totals = shape.block_totals();
    let rescan_and_store = shape.rescan_and_store("cj_whole", "");
    let lookback = lookback_text::<T>(opn);
    let prologue = shape.prologue(w, *padded, 2);
    let first_ticket = shape.first_ticket();
    let text = format!(
        "{prologue}
    {first_ticket}
    // A block scans tiles until the counter runs past the last one.
    while cj_tile < cj_tiles {{
    // The next ticket, taken now so that its round trip overlaps this tile's work
    // (only thread 0 waits for it, at the end).
    let mut cj_next = 0u64;
    if cj_tid == 0 {{
        cj_next = atomic_add(cj_counter, 0, 1u64);
    }}
    let cj_start = cj_tile * {tile};
    let cj_whole = cj_start + {tile} <= cj_n;
    {load}
    sync_threads();
    {warp_scan}
    sync_threads();
    {block_totals}
{lookback}    sync_threads();
    {rescan_and_store}
    // The tile's reads of `cj_sm` end before the next tile's loads; the next ticket
    // goes to the other slot, so no thread can still be reading the one it replaces.
    cj_slot = 1 - cj_slot;
    if cj_tid == 0 {{
        cj_tile_sm[cj_slot] = (cj_next - cj_issued) as u32;
    }}
    sync_threads();
    cj_tile = cj_tile_sm[cj_slot] as usize;
    }}
}}"
    );
    synth::kernel_with_bounds(&name, text, &[op], Some(MIN_BLOCKS_PER_SM))
}
