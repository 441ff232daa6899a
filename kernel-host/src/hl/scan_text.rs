//! The parts of the single-pass scan kernels' texts that the three layouts
//! (`lookback_classic`, `lookback`'s resident blocks, `lookback_pipelined`) share: the
//! kernel's shape (name, tile, padding, the per-element step), the striped tile load,
//! the block-wide scan of a tile in shared memory, the write-out, and warp 0's fold of
//! one look-back window. Each layout writes only what differs: how a block gets its
//! tiles and how it polls earlier tiles' states.
//!
//! Shared memory holds a tile with one padding slot per 32 elements (`cj_j + cj_j /
//! 32`), so thread-consecutive reads hit distinct banks; `base` is the buffer's first
//! slot (the pipelined layout alternates between two buffers, the others have one:
//! `""`).

use kernel_device::source::FnSource;

use super::synth;
use crate::memory::elem::DeviceScalar;

/// Spins on one window before a block stops waiting and publishes what it has (a wrong
/// prefix): reached only when an earlier block ended without publishing because one of
/// its threads panicked, and then the launch reports that panic; a waiting block must
/// not hang the GPU instead. A live earlier tile publishes within microseconds on a GPU
/// (2^20 spins take about a second) and well within the limit on the simulator.
/// (The subset has no `panic!` to report the wait itself, and the texts index unchecked.)
pub(super) const SPIN_LIMIT: u32 = 1 << 20;

/// What every layout's kernel text is written from.
pub(super) struct ScanShape {
    /// The element type's Rust name.
    pub t: &'static str,
    /// The operator's name as the kernel calls it.
    pub opn: String,
    pub block: usize,
    pub warps: usize,
    /// Elements per tile (`items` per thread).
    pub tile: usize,
    /// Shared-memory slots of one tile buffer, padding included.
    pub padded: usize,
    pub items: usize,
    /// The kernel's name: the layout's `prefix`, the kind, the sizes, the type and `op`.
    pub name: String,
    /// One element of a thread's rescan: `cj_run` folded with `cj_x` and stored at
    /// `cj_sm[cj_s]`, before (inclusive) or after (exclusive) the fold.
    pub step: String,
}

impl ScanShape {
    pub fn of<T: DeviceScalar>(
        prefix: &str,
        op: &'static FnSource,
        items: usize,
        exclusive: bool,
    ) -> Self {
        let t = T::SCALAR.rust_name();
        let opn = synth::callee(op, t);
        let block = synth::BLOCK as usize;
        let tile = items * block;
        let kind = if exclusive { "exclusive" } else { "inclusive" };
        let step = if exclusive {
            "cj_sm[cj_s] = cj_run;
        cj_run = OP(cj_run, cj_x);"
        } else {
            "cj_run = OP(cj_run, cj_x);
        cj_sm[cj_s] = cj_run;"
        }
        .replace("OP", &opn);
        ScanShape {
            t,
            name: format!("{prefix}_{kind}_{items}_{t}_{}", op.name),
            opn,
            block,
            warps: block / 32,
            tile,
            padded: tile + tile / 32,
            items,
            step,
        }
    }

    /// The kernel's signature (tile values as `w` words in the state arrays) and its
    /// opening: shared memory for `sm_slots` elements of tiles and `tile_slots` tile
    /// numbers, and the thread's place. The caller's text continues the body and
    /// closes it.
    pub fn prologue(&self, w: &str, sm_slots: usize, tile_slots: usize) -> String {
        let ScanShape { t, name, warps, .. } = self;
        format!(
            "fn {name}(cj_in: &[{t}], cj_out: &mut [{t}], cj_status: &mut [u32], cj_aggregates: &mut [{w}], cj_inclusive: &mut [{w}], cj_counter: &mut [u64], cj_issued: u64, cj_epoch: u32, cj_identity: {t}) {{
    let cj_sm = shared_array::<[{t}; {sm_slots}]>();
    let cj_warp_totals = shared_array::<[{t}; {warps}]>();
    let cj_tile_sm = shared_array::<[u32; {tile_slots}]>();
    let cj_prefix_sm = shared_array::<[{t}; 1]>();
    let cj_tid = thread_idx().x as usize;
    let cj_lane = cj_tid % 32;
    let cj_warp = cj_tid / 32;
    let cj_full = 0xffff_ffffu32;"
        )
    }

    /// The resident layouts' first ticket: `cj_tiles` tiles of `cj_n` elements, the
    /// block's first tile `cj_tile` (from the counter, through `cj_tile_sm[0]`) and the
    /// slot `cj_slot` the next ticket goes to the other of.
    pub fn first_ticket(&self) -> String {
        let tile = self.tile;
        format!(
            "let cj_n = cj_in.len();
    let cj_tiles = (cj_n + {tile} - 1) / {tile};
    if cj_tid == 0 {{
        cj_tile_sm[0] = (atomic_add(cj_counter, 0, 1u64) - cj_issued) as u32;
    }}
    sync_threads();
    let mut cj_slot = 0usize;
    let mut cj_tile = cj_tile_sm[0] as usize;"
        )
    }

    /// Striped loads of the tile starting at element `start` into the buffer at
    /// `base`: consecutive threads read consecutive elements (coalesced); a whole tile
    /// (`whole`) without bounds tests, so that all its loads are in flight at once.
    pub fn load(&self, start: &str, whole: &str, base: &str) -> String {
        let ScanShape { items, block, .. } = self;
        format!(
            "if {whole} {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            cj_sm[{base}cj_j + cj_j / 32] = cj_in[{start} + cj_j];
        }}
    }} else {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            let cj_i = {start} + cj_j;
            cj_sm[{base}cj_j + cj_j / 32] = if cj_i < cj_n {{ cj_in[cj_i] }} else {{ cj_identity }};
        }}
    }}"
        )
    }

    /// Each thread folds its `items` consecutive elements of the buffer at `base` into
    /// `cj_v`, scans that across its warp (`cj_warp_excl`: the fold of the lanes
    /// before it), and lane 31 leaves the warp's total in `cj_warp_totals`.
    pub fn warp_scan(&self, base: &str) -> String {
        let ScanShape { items, opn, .. } = self;
        format!(
            "// The thread's consecutive elements folded in order.
    let cj_first = cj_tid * {items};
    let mut cj_v = cj_identity;
    for cj_k in 0..{items}usize {{
        let cj_j = cj_first + cj_k;
        cj_v = {opn}(cj_v, cj_sm[{base}cj_j + cj_j / 32]);
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
    }}"
        )
    }

    /// After a barrier over [`Self::warp_scan`]'s totals: `cj_before`, the fold of the
    /// warps before this thread's, and `cj_total`, the tile's aggregate.
    pub fn block_totals(&self) -> String {
        let ScanShape { warps, opn, .. } = self;
        format!(
            "let mut cj_before = cj_identity;
    let mut cj_total = cj_identity;
    for cj_w in 0..{warps}usize {{
        let cj_x = cj_warp_totals[cj_w];
        if cj_w < cj_warp {{
            cj_before = {opn}(cj_before, cj_x);
        }}
        cj_total = {opn}(cj_total, cj_x);
    }}"
        )
    }

    /// Once the tile's prefix is in `cj_prefix_sm[0]` (after a barrier): each thread
    /// rescans its elements from the prefix of everything before them, and the block
    /// writes the tile starting at `cj_start` out, striped, whole when `whole`.
    pub fn rescan_and_store(&self, whole: &str, base: &str) -> String {
        let ScanShape {
            items,
            block,
            opn,
            step,
            ..
        } = self;
        format!(
            "// The thread's elements again, from the prefix of everything before them.
    let mut cj_run = {opn}(cj_prefix_sm[0], {opn}(cj_before, cj_warp_excl));
    for cj_k in 0..{items}usize {{
        let cj_j = cj_first + cj_k;
        let cj_s = {base}cj_j + cj_j / 32;
        let cj_x = cj_sm[cj_s];
        {step}
    }}
    sync_threads();
    if {whole} {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            cj_out[cj_start + cj_j] = cj_sm[{base}cj_j + cj_j / 32];
        }}
    }} else {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            let cj_i = cj_start + cj_j;
            if cj_i < cj_n {{
                cj_out[cj_i] = cj_sm[{base}cj_j + cj_j / 32];
            }}
        }}
    }}"
        )
    }
}

/// Opens warp 0's loop over look-back windows: lane `cj_lane` on tile `cj_p`, with
/// `cj_state` starting at `state` (a lane past tile 0 counts as an inclusive prefix),
/// and the spin counter of [`spin_limit`]. The caller polls, then closes the loop after
/// [`window_fold`].
pub(super) fn window_loop(state: &str) -> String {
    format!(
        "// Windows of 32 earlier tiles, lane l on tile `cj_end - 1 - l`; past tile 0
            // a lane holds the identity and counts as an inclusive prefix.
            let mut cj_end = cj_tile;
            let mut cj_more = true;
            let mut cj_gave_up = false;
            while cj_more {{
                let cj_valid = cj_lane < cj_end;
                let cj_p = if cj_valid {{ cj_end - 1 - cj_lane }} else {{ 0 }};
                let mut cj_state = {state};"
    )
}

/// The end of one poll of a window: the warp waits on while some lane has no state,
/// and gives up after [`SPIN_LIMIT`] polls (see there).
pub(super) fn spin_limit() -> String {
    format!(
        "cj_waiting = !all_sync(cj_full, cj_state != 0);
                    cj_spins += 1;
                    if cj_spins == {SPIN_LIMIT}u32 {{
                        cj_waiting = false;
                        cj_gave_up = true;
                    }}"
    )
}

/// Warp 0's fold of one look-back window, once every lane has a state (`cj_state`, 2
/// for an inclusive prefix) and a value (`cj_value`): the lanes up to the nearest
/// inclusive prefix folded in tile order into `cj_prefix`, and `cj_more` set when the
/// window had none (and the wait did not give up), moving `cj_end` one window back.
pub(super) fn window_fold(opn: &str) -> String {
    format!(
        "let cj_found = ballot_sync(cj_full, cj_state == 2);
                // Lanes beyond the nearest inclusive prefix add nothing.
                let mut cj_win = if (cj_lane as u32) <= cj_found.trailing_zeros() {{ cj_value }} else {{ cj_identity }};
                // Fold the window in tile order: lane l + e holds earlier tiles.
                let mut cj_e = 1u32;
                while cj_e < 32 {{
                    let cj_down = shfl_down_sync(cj_full, cj_win, cj_e);
                    if cj_lane as u32 + cj_e < 32 {{
                        cj_win = {opn}(cj_down, cj_win);
                    }}
                    cj_e <<= 1;
                }}
                let cj_window = shfl_sync(cj_full, cj_win, 0u32);
                cj_prefix = {opn}(cj_window, cj_prefix);
                cj_more = cj_found == 0 && !cj_gave_up;
                if cj_more {{
                    cj_end -= 32;
                }}"
    )
}
