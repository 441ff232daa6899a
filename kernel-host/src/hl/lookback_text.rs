//! Warp 0's look-back in the text of the resident and pipelined scan kernels: how tile
//! states are published and polled (packed words for 32-bit elements, fenced arrays
//! for 64-bit ones) and the loop over windows of 32 earlier tiles.

use super::scan_text::{spin_limit, window_fold, window_loop};
use crate::memory::elem::DeviceScalar;

/// The expressions turning a value `X` of the 32/64-bit element type `t` into its bits
/// (a `u32` for 32-bit types, a `u64` for 64-bit ones), and such bits `X` back.
fn bits_of(t: &str) -> (String, String) {
    match t {
        "u64" | "u32" => ("X".into(), "X".into()),
        "f32" | "f64" => ("X.to_bits()".into(), format!("{t}::from_bits(X)")),
        "i32" => ("X as u32".into(), "X as i32".into()),
        // i64, isize, usize: 64-bit integers.
        _ => ("X as u64".into(), format!("X as {t}")),
    }
}

/// How the kernel publishes and reads tile states.
///
/// A 32-bit element travels with its state in one `u64` word of `cj_aggregates`
/// (`(epoch << 2 | flag) << 32 | bits`, CUB's trick): publishing is one `atomic_exch`
/// and reading one `atomic_or(.., 0)`, no fences, since nothing else need be ordered
/// with the word. A 64-bit element cannot share a word with its flag: its value goes
/// to `cj_aggregates` or `cj_inclusive`, then `threadfence()`, then the status word to
/// `cj_status`; a reader reads the status, fences, then reads the value.
struct TileStateText {
    packed: bool,
    to_bits: String,
    /// The loop body that polls tile `cj_p` into `cj_state` (0 while unpublished).
    poll: String,
    /// Declares `cj_value`: tile `cj_p`'s value for the state polled (the identity for
    /// lanes past tile 0).
    read_value: String,
}

impl TileStateText {
    fn of<T: DeviceScalar>() -> Self {
        let t = T::SCALAR.rust_name();
        let (to_bits, from_bits) = bits_of(t);
        let packed = std::mem::size_of::<T>() == 4;
        let (poll, read_value) = if packed {
            (
                "cj_word = atomic_or(cj_aggregates, cj_p, 0u64);
                        let cj_high = (cj_word >> 32) as u32;
                        cj_state = if cj_high >> 2 == cj_epoch { cj_high & 3 } else { 0 };"
                    .to_string(),
                format!(
                    "let cj_value = if cj_valid {{ {} }} else {{ cj_identity }};",
                    from_bits.replace("X", "(cj_word as u32)")
                ),
            )
        } else {
            let read =
                |array: &str| from_bits.replace("X", &format!("atomic_or({array}, cj_p, 0u64)"));
            (
                "let cj_status_word = atomic_or(cj_status, cj_p, 0u32);
                        cj_state = if cj_status_word >> 2 == cj_epoch { cj_status_word & 3 } else { 0 };"
                    .to_string(),
                format!(
                    "threadfence();
                let cj_value = if !cj_valid {{
                    cj_identity
                }} else if cj_state == 2 {{
                    {}
                }} else {{
                    {}
                }};",
                    read("cj_inclusive"),
                    read("cj_aggregates")
                ),
            )
        };
        TileStateText {
            packed,
            to_bits,
            poll,
            read_value,
        }
    }

    /// The statements publishing `value` as tile `tile`'s aggregate (`flag` 1) or
    /// inclusive prefix (`flag` 2).
    fn publish(&self, tile: &str, value: &str, flag: u32) -> String {
        let bits = self.to_bits.replace("X", value);
        if self.packed {
            format!(
                "atomic_exch(cj_aggregates, {tile}, ((((cj_epoch << 2) | {flag}u32) as u64) << 32) | ({bits} as u64));"
            )
        } else {
            let array = if flag == 2 {
                "cj_inclusive"
            } else {
                "cj_aggregates"
            };
            format!(
                "atomic_exch({array}, {tile}, {bits});
                threadfence();
                atomic_exch(cj_status, {tile}, (cj_epoch << 2) | {flag}u32);"
            )
        }
    }
}

/// Warp 0's part of a tile (`cj_tile`, its aggregate `cj_total`): publish the
/// aggregate, look back over earlier tiles for the prefix, publish the inclusive
/// prefix, and leave the prefix in `cj_prefix_sm[0]`.
///
/// Tile values travel as their bits through atomics (`atomic_exch` to publish,
/// `atomic_or(.., 0)` to read): always coherent at the GPU's L2, where a plain load
/// could in principle meet a stale L1 line of a neighbouring tile's.
pub(super) fn lookback_text<T: DeviceScalar>(opn: &str) -> String {
    let states = TileStateText::of::<T>();
    let publish_total_inclusive = states.publish("0", "cj_total", 2);
    let publish_aggregate = states.publish("cj_tile", "cj_total", 1);
    let publish_through = states.publish("cj_tile", "cj_through", 2);
    let TileStateText {
        poll, read_value, ..
    } = &states;
    let window_fold = window_fold(opn);
    let window_loop = window_loop("if cj_valid { 0u32 } else { 2u32 }");
    let spin_limit = spin_limit();
    // The packed word polled last, kept for its value.
    let word_decl = if states.packed {
        "let mut cj_word = 0u64;"
    } else {
        ""
    };
    format!(
        "    if cj_warp == 0 {{
        let mut cj_prefix = cj_identity;
        if cj_tile == 0 {{
            if cj_lane == 0 {{
                {publish_total_inclusive}
            }}
        }} else {{
            if cj_lane == 0 {{
                {publish_aggregate}
            }}
            {window_loop}
                {word_decl}
                let mut cj_spins = 0u32;
                let mut cj_waiting = true;
                while cj_waiting {{
                    // Only lanes still without a state poll again: a published state
                    // stays valid for this call.
                    if cj_state == 0 {{
                        {poll}
                    }}
                    {spin_limit}
                }}
                {read_value}
                {window_fold}
            }}
            if cj_lane == 0 {{
                let cj_through = {opn}(cj_prefix, cj_total);
                {publish_through}
            }}
        }}
        if cj_lane == 0 {{
            cj_prefix_sm[0] = cj_prefix;
        }}
    }}"
    )
}
