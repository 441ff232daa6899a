//! The single-pass scan as issue 12's first version wrote it (09b4576; measured on the
//! H100 at 1074 us for 2^28 u32, 1.205x CUB): one block per tile, tile states in three
//! arrays (status, aggregate, inclusive), each published value -> `threadfence()` ->
//! status. Kept as the default: the resident-block and packed-word layouts in
//! `lookback` measured slower (1206 us) on the H100, and stay as benchmark variants.
//! The text is unchanged from that version (same PTX at the same tile size); the
//! tile is now 32 items per thread for 32-bit elements (842 us, 0.95x CUB).

use kernel_device::source::FnSource;

use super::lookback_text::SPIN_LIMIT;
use super::synth;
use crate::memory::elem::DeviceScalar;

/// The expressions turning a value `X` of the 32/64-bit element type `t` into a `u64`
/// word, and such a word `X` back into a value.
fn bits_of(t: &str) -> (&'static str, String, String) {
    let (to, from) = match t {
        "u64" => ("X".into(), "X".into()),
        "u32" => ("X as u64".into(), "X as u32".into()),
        "f32" => (
            "X.to_bits() as u64".into(),
            "f32::from_bits(X as u32)".into(),
        ),
        "f64" => ("X.to_bits()".into(), "f64::from_bits(X)".into()),
        "i32" => ("X as u32 as u64".into(), "X as u32 as i32".into()),
        // i64, isize, usize: 64-bit integers.
        _ => ("X as u64".into(), format!("X as {t}")),
    };
    ("u64", to, from)
}

/// The single-pass kernel for `op` on `T`, `items` elements per thread.
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
    let name = format!("cj_scan1_{kind}_{items}_{t}_{}", op.name);
    let step = if exclusive {
        "cj_sm[cj_s] = cj_run;
        cj_run = OP(cj_run, cj_x);"
    } else {
        "cj_run = OP(cj_run, cj_x);
        cj_sm[cj_s] = cj_run;"
    }
    .replace("OP", &opn);
    // Tile values travel as their bits through atomics (`atomic_exch` to publish,
    // `atomic_or(.., 0)` to read): always coherent at the GPU's L2, where a plain load
    // after the fence could in principle meet a stale L1 line of a neighbouring tile's.
    let (w, to_bits, from_bits) = bits_of(t);
    let to_bits_total = to_bits.replace("X", "cj_total");
    let to_bits_through = to_bits.replace("X", "cj_through");
    let from_inclusive = from_bits.replace("X", &format!("atomic_or(cj_inclusive, cj_p, 0{w})"));
    let from_aggregate = from_bits.replace("X", &format!("atomic_or(cj_aggregates, cj_p, 0{w})"));
    let text = format!(
        "fn {name}(cj_in: &[{t}], cj_out: &mut [{t}], cj_status: &mut [u32], cj_aggregates: &mut [{w}], cj_inclusive: &mut [{w}], cj_counter: &mut [u64], cj_issued: u64, cj_epoch: u32, cj_identity: {t}) {{
    let cj_sm = shared_array::<[{t}; {padded}]>();
    let cj_warp_totals = shared_array::<[{t}; {warps}]>();
    let cj_tile_sm = shared_array::<[u32; 1]>();
    let cj_prefix_sm = shared_array::<[{t}; 1]>();
    let cj_tid = thread_idx().x as usize;
    let cj_lane = cj_tid % 32;
    let cj_warp = cj_tid / 32;
    let cj_full = 0xffff_ffffu32;
    if cj_tid == 0 {{
        cj_tile_sm[0] = (atomic_add(cj_counter, 0, 1u64) - cj_issued) as u32;
    }}
    sync_threads();
    let cj_tile = cj_tile_sm[0] as usize;
    let cj_n = cj_in.len();
    let cj_start = cj_tile * {tile};
    // Striped loads: consecutive threads read consecutive elements (coalesced); a
    // whole tile without bounds tests, so that all its loads are in flight at once.
    let cj_whole = cj_start + {tile} <= cj_n;
    if cj_whole {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            cj_sm[cj_j + cj_j / 32] = cj_in[cj_start + cj_j];
        }}
    }} else {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            let cj_i = cj_start + cj_j;
            cj_sm[cj_j + cj_j / 32] = if cj_i < cj_n {{ cj_in[cj_i] }} else {{ cj_identity }};
        }}
    }}
    sync_threads();
    // The thread's consecutive elements folded in order.
    let cj_first = cj_tid * {items};
    let mut cj_v = cj_identity;
    for cj_k in 0..{items}usize {{
        let cj_j = cj_first + cj_k;
        cj_v = {opn}(cj_v, cj_sm[cj_j + cj_j / 32]);
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
    sync_threads();
    let mut cj_before = cj_identity;
    let mut cj_total = cj_identity;
    for cj_w in 0..{warps}usize {{
        let cj_x = cj_warp_totals[cj_w];
        if cj_w < cj_warp {{
            cj_before = {opn}(cj_before, cj_x);
        }}
        cj_total = {opn}(cj_total, cj_x);
    }}
    if cj_warp == 0 {{
        let mut cj_prefix = cj_identity;
        if cj_tile == 0 {{
            if cj_lane == 0 {{
                atomic_exch(cj_inclusive, 0, {to_bits_total});
                threadfence();
                atomic_exch(cj_status, 0, (cj_epoch << 2) | 2u32);
            }}
        }} else {{
            if cj_lane == 0 {{
                atomic_exch(cj_aggregates, cj_tile, {to_bits_total});
                threadfence();
                atomic_exch(cj_status, cj_tile, (cj_epoch << 2) | 1u32);
            }}
            // Windows of 32 earlier tiles, lane l on tile `cj_end - 1 - l`; past tile 0
            // a lane holds the identity and counts as an inclusive prefix.
            let mut cj_end = cj_tile;
            let mut cj_more = true;
            let mut cj_gave_up = false;
            while cj_more {{
                let cj_valid = cj_lane < cj_end;
                let cj_p = if cj_valid {{ cj_end - 1 - cj_lane }} else {{ 0 }};
                let mut cj_state = 2u32;
                let mut cj_spins = 0u32;
                let mut cj_waiting = true;
                while cj_waiting {{
                    if cj_valid {{
                        let cj_word = atomic_or(cj_status, cj_p, 0u32);
                        cj_state = if cj_word >> 2 == cj_epoch {{ cj_word & 3 }} else {{ 0 }};
                    }}
                    cj_waiting = !all_sync(cj_full, cj_state != 0);
                    cj_spins += 1;
                    if cj_spins == {SPIN_LIMIT}u32 {{
                        cj_waiting = false;
                        cj_gave_up = true;
                    }}
                }}
                threadfence();
                let cj_value = if !cj_valid {{
                    cj_identity
                }} else if cj_state == 2 {{
                    {from_inclusive}
                }} else {{
                    {from_aggregate}
                }};
                let cj_found = ballot_sync(cj_full, cj_state == 2);
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
                }}
            }}
            if cj_lane == 0 {{
                let cj_through = {opn}(cj_prefix, cj_total);
                atomic_exch(cj_inclusive, cj_tile, {to_bits_through});
                threadfence();
                atomic_exch(cj_status, cj_tile, (cj_epoch << 2) | 2u32);
            }}
        }}
        if cj_lane == 0 {{
            cj_prefix_sm[0] = cj_prefix;
        }}
    }}
    sync_threads();
    // The thread's elements again, from the prefix of everything before them.
    let mut cj_run = {opn}(cj_prefix_sm[0], {opn}(cj_before, cj_warp_excl));
    for cj_k in 0..{items}usize {{
        let cj_j = cj_first + cj_k;
        let cj_s = cj_j + cj_j / 32;
        let cj_x = cj_sm[cj_s];
        {step}
    }}
    sync_threads();
    if cj_whole {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            cj_out[cj_start + cj_j] = cj_sm[cj_j + cj_j / 32];
        }}
    }} else {{
        for cj_k in 0..{items}usize {{
            let cj_j = cj_k * {block} + cj_tid;
            let cj_i = cj_start + cj_j;
            if cj_i < cj_n {{
                cj_out[cj_i] = cj_sm[cj_j + cj_j / 32];
            }}
        }}
    }}
}}"
    );
    synth::kernel(&name, text, &[op])
}
