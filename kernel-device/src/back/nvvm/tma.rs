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
    format!("%cudajit.tensor_map* byval align 64 %{name}")
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

/// The coordinate operands `{$first, ..}` of an `N`-d copy, innermost first.
fn coord_operands(first: usize, rank: usize) -> String {
    let names: Vec<String> = (first..first + rank).map(|i| format!("${i}")).collect();
    format!("{{{}}}", names.join(", "))
}

fn coord_args(coords: &[&str]) -> String {
    coords.iter().map(|c| format!(", i32 {c}")).collect()
}

/// Global → shared: the box at `coords` (innermost first, `i32`s) of the map at generic
/// address `map` (`i64`) into the shared tile at `tile` (32-bit shared address),
/// completing its bytes on the mbarrier at `bar` (32-bit shared address).
pub fn load_box(tile: &str, map: &str, coords: &[&str], bar: &str) -> String {
    let rank = coords.len();
    let c = coord_operands(2, rank);
    format!(
        "call void asm sideeffect \"cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {c}], [${}];\", \"r,l{},r,~{{memory}}\"(i32 {tile}, i64 {map}{}, i32 {bar})",
        2 + rank,
        ",r".repeat(rank),
        coord_args(coords)
    )
}

/// Shared → global: the shared tile at `tile` to the box at `coords` of the map at
/// `map`, in the thread's current bulk group.
pub fn store_box(map: &str, coords: &[&str], tile: &str) -> String {
    let rank = coords.len();
    let c = coord_operands(1, rank);
    format!(
        "call void asm sideeffect \"cp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group [$0, {c}], [${}];\", \"l{},r,~{{memory}}\"(i64 {map}{}, i32 {tile})",
        1 + rank,
        ",r".repeat(rank),
        coord_args(coords)
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
