//! TMA in NVVM IR: the tensor-map kernel parameter and the bulk tensor copies as
//! inline PTX (libnvvm's LLVM 7 has no intrinsics for them).
//!
//! A map is passed as nvcc passes a `const __grid_constant__ CUtensorMap`: a `byval`
//! pointer parameter of a 128-byte type, `align 64`, named in a `grid_constant`
//! annotation. libnvvm 13 then declares `.param .align 64 .b8 k_param_0[128]` and takes
//! the parameter's own address (`cvta.param`), which is what `cp.async.bulk.tensor`
//! needs: without the annotation it copies the map to local memory and hands the copy's
//! address to the instruction, which the TMA unit cannot read. Checked with libnvvm 13.0
//! and ptxas for sm_90 and sm_90a (`tests/tma.rs`).

/// The tensor map's IR type (the driver's `CUtensorMap`: 16 words, 128 bytes).
pub const TENSOR_MAP_TYPE: &str = "%cudajit.tensor_map = type { [16 x i64] }";

/// A kernel parameter holding a map.
pub fn map_param(name: &str) -> String {
    format!("{} byval align 64 %{name}", map_param_type())
}

/// The LLVM type of a map parameter (in a kernel's function type).
pub const fn map_param_type() -> &'static str {
    "%cudajit.tensor_map*"
}

/// The 1-based LLVM parameter positions of `kernel`'s tensor maps (`proc::abi`'s slots).
pub fn grid_constant_positions(kernel: &crate::ir::Function) -> Vec<usize> {
    use crate::proc::abi::{param_slots, ArgSlot};
    let slots = kernel
        .params
        .iter()
        .flat_map(|p| param_slots(&p.ty).unwrap_or_default());
    slots
        .enumerate()
        .filter(|(_, slot)| *slot == ArgSlot::TensorMap)
        .map(|(k, _)| k + 1)
        .collect()
}

/// The `!nvvm.annotations` operand marking a kernel's map parameters as grid constants:
/// `function` is the kernel as a typed constant (`void (..)* @k`), `params` the map
/// parameters' 1-based positions, `list` the metadata id of the position list. Returns
/// the annotation and the list's definition.
pub fn grid_constant(function: &str, params: &[usize], list: usize) -> (String, String) {
    let positions: Vec<String> = params.iter().map(|p| format!("i32 {p}")).collect();
    (
        format!("!{{{function}, !\"grid_constant\", !{list}}}"),
        format!("!{list} = !{{{}}}", positions.join(", ")),
    )
}

/// One bulk tensor copy of `coords.len()` axes as an inline-asm call: its operands are
/// `lead` (`(constraint, typed value)`), the coordinates (`i32`s, innermost first), then
/// `trail`; `ptx` writes the instruction from the coordinate list `{$k, ..}` and the
/// number of the first trailing operand.
fn bulk_tensor_copy(
    lead: &[(&str, String)],
    coords: &[&str],
    trail: &[(&str, String)],
    ptx: impl Fn(&str, usize) -> String,
) -> String {
    let first = lead.len();
    let names: Vec<String> = (first..first + coords.len())
        .map(|i| format!("${i}"))
        .collect();
    let instruction = ptx(&format!("{{{}}}", names.join(", ")), first + coords.len());
    let mut constraints: Vec<&str> = lead.iter().map(|(c, _)| *c).collect();
    let mut args: Vec<String> = lead.iter().map(|(_, v)| v.clone()).collect();
    for c in coords {
        constraints.push("r");
        args.push(format!("i32 {c}"));
    }
    for (c, v) in trail {
        constraints.push(c);
        args.push(v.clone());
    }
    format!(
        "call void asm sideeffect \"{instruction}\", \"{},~{{memory}}\"({})",
        constraints.join(","),
        args.join(", ")
    )
}

/// Global → shared: the box at `coords` (innermost first, `i32`s) of the map at generic
/// address `map` (`i64`) into the shared tile at `tile` (32-bit shared address),
/// completing its bytes on the mbarrier at `bar` (32-bit shared address).
pub fn load_box(tile: &str, map: &str, coords: &[&str], bar: &str) -> String {
    let rank = coords.len();
    bulk_tensor_copy(
        &[("r", format!("i32 {tile}")), ("l", format!("i64 {map}"))],
        coords,
        &[("r", format!("i32 {bar}"))],
        |c, last| {
            format!("cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {c}], [${last}];")
        },
    )
}

/// [`load_box`] into every block of the cluster whose rank is a bit of the 16-bit
/// `mask` (`i16`, PTX's `ctaMask`): the box lands at `tile`'s offset in each of their
/// shared memories and completes on the mbarrier at `bar`'s offset in each (sm_90a).
pub fn load_box_multicast(tile: &str, map: &str, coords: &[&str], bar: &str, mask: &str) -> String {
    let rank = coords.len();
    bulk_tensor_copy(
        &[("r", format!("i32 {tile}")), ("l", format!("i64 {map}"))],
        coords,
        &[("r", format!("i32 {bar}")), ("h", format!("i16 {mask}"))],
        |c, bar_at| {
            let mask_at = bar_at + 1;
            format!("cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [$0], [$1, {c}], [${bar_at}], ${mask_at};")
        },
    )
}

/// Shared → global: the shared tile at `tile` to the box at `coords` of the map at
/// `map`, in the thread's current bulk group.
pub fn store_box(map: &str, coords: &[&str], tile: &str) -> String {
    let rank = coords.len();
    bulk_tensor_copy(
        &[("l", format!("i64 {map}"))],
        coords,
        &[("r", format!("i32 {tile}"))],
        |c, last| {
            format!("cp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group [$0, {c}], [${last}];")
        },
    )
}

/// Closes the thread's bulk group (the stores since the last commit).
pub const COMMIT_GROUP: &str =
    "call void asm sideeffect \"cp.async.bulk.commit_group;\", \"~{memory}\"()";

/// Waits until at most `pending` of the thread's bulk groups are still reading their
/// shared sources (`.read`: the tile may be overwritten, the global writes may still
/// be in flight) or, without `.read`, still running.
pub fn wait_group(pending: u32, read_only: bool) -> String {
    let read = if read_only { ".read" } else { "" };
    format!(
        "call void asm sideeffect \"cp.async.bulk.wait_group{read} {pending};\", \"~{{memory}}\"()"
    )
}

/// Orders this thread's generic-proxy shared writes before later async-proxy (TMA)
/// accesses: before a store of a tile the threads wrote, and after an mbarrier init
/// that a copy will complete.
pub const FENCE_PROXY_ASYNC_SHARED: &str =
    "call void asm sideeffect \"fence.proxy.async.shared::cta;\", \"~{memory}\"()";

/// Fetches the map at `map` into the descriptor cache ahead of its first copy.
pub fn prefetch(map: &str) -> String {
    format!("call void asm sideeffect \"prefetch.tensormap [$0];\", \"l,~{{memory}}\"(i64 {map})")
}
