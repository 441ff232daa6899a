//! The single-pass scan as issue 12's first version wrote it (09b4576; measured on the
//! H100 at 1074 us for 2^28 u32, 1.205x CUB): one block per tile, tile states in three
//! arrays (status, aggregate, inclusive), each published value -> `threadfence()` ->
//! status. Kept as the default: the resident-block and packed-word layouts in
//! `lookback` measured slower (1206 us) on the H100, and stay as benchmark variants.
//! Its tokens are unchanged from that version (same PTX at the same tile size); the
//! tile is now 32 items per thread for 32-bit elements (842 us, 0.95x CUB).

use kernel_device::source::FnSource;

use super::scan_text::{spin_limit, window_fold, window_loop, ScanShape};
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
    let shape = ScanShape::of::<T>("cj_scan1", op, items, exclusive);
    let ScanShape {
        t,
        opn,
        tile,
        padded,
        name,
        ..
    } = &shape;
    // Tile values travel as their bits through atomics (`atomic_exch` to publish,
    // `atomic_or(.., 0)` to read): always coherent at the GPU's L2, where a plain load
    // after the fence could in principle meet a stale L1 line of a neighbouring tile's.
    let (w, to_bits, from_bits) = bits_of(t);
    let to_bits_total = to_bits.replace("X", "cj_total");
    let to_bits_through = to_bits.replace("X", "cj_through");
    let from_inclusive = from_bits.replace("X", &format!("atomic_or(cj_inclusive, cj_p, 0{w})"));
    let from_aggregate = from_bits.replace("X", &format!("atomic_or(cj_aggregates, cj_p, 0{w})"));
    let load = shape.load("cj_start", "cj_whole", "");
    let warp_scan = shape.warp_scan("");
    let block_totals = shape.block_totals();
    let window_fold = window_fold(opn);
    let window_loop = window_loop("2u32");
    let spin_limit = spin_limit();
    let prologue = shape.prologue(w, *padded, 1);
    let rescan_and_store = shape.rescan_and_store("cj_whole", "");
    let text = format!(
        "{prologue}
    if cj_tid == 0 {{
        cj_tile_sm[0] = (atomic_add(cj_counter, 0, 1u64) - cj_issued) as u32;
    }}
    sync_threads();
    let cj_tile = cj_tile_sm[0] as usize;
    let cj_n = cj_in.len();
    let cj_start = cj_tile * {tile};
    let cj_whole = cj_start + {tile} <= cj_n;
    {load}
    sync_threads();
    {warp_scan}
    sync_threads();
    {block_totals}
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
            {window_loop}
                let mut cj_spins = 0u32;
                let mut cj_waiting = true;
                while cj_waiting {{
                    if cj_valid {{
                        let cj_word = atomic_or(cj_status, cj_p, 0u32);
                        cj_state = if cj_word >> 2 == cj_epoch {{ cj_word & 3 }} else {{ 0 }};
                    }}
                    {spin_limit}
                }}
                threadfence();
                let cj_value = if !cj_valid {{
                    cj_identity
                }} else if cj_state == 2 {{
                    {from_inclusive}
                }} else {{
                    {from_aggregate}
                }};
                {window_fold}
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
    {rescan_and_store}
}}"
    );
    synth::kernel(&name, text, &[op])
}
