//! The kernel-side TMA calls (Hopper's bulk tensor copies through a `&TensorMap<T, N>`
//! parameter), once for every stage: their rows of the intrinsic table, what they need
//! of the target, and the run-time checks of each copy with their panic texts (the NVVM
//! writer prints them, the simulator evaluates [`check_copy`]). The map's own rules
//! (layout, swizzle, which coordinates the hardware accepts) are [`super::tma`]'s.
//!
//! | call | PTX |
//! | --- | --- |
//! | `tma_load(map, tile, coords, bars, i)` | `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes` |
//! | `tma_load_multicast(map, tile, coords, bars, i, mask)` | the same `.multicast::cluster [..], mask` (sm_90a) |
//! | `tma_store(map, coords, tile)` | `cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group` |
//! | `bulk_commit_group()` | `cp.async.bulk.commit_group` |
//! | `bulk_wait_group_read::<N>()` | `cp.async.bulk.wait_group.read N` |
//! | `tma_prefetch(map)` | `prefetch.tensormap` |
//!
//! `coords` is an `[i32; N]` in the map's row-major order (axis 0 outermost), as the
//! host's `TensorMap` takes shapes and boxes; the tile is a shared `&mut [T]` (`&[T]`
//! for a store) of the map's element type: another type does not compile. A store's
//! map is a `&TensorMapMut<T, N>` (built on the host from the array's `&mut`), so that
//! no kernel writes an array the host lent as read-only. Each copy
//! checks, once: the tile is in shared memory, aligned for the map's swizzle, and holds
//! the box's shared bytes (the map's tile word, `TensorMapLayout::tile_word`); a load's
//! innermost coordinate starts the box a multiple of 16 bytes into the row, a store's
//! coordinates are not negative (the H200 stops the kernel with
//! `CUDA_ERROR_ILLEGAL_INSTRUCTION` otherwise: `docs/hopper.md`).
//!
//! A multicast load lands the box at the tile's shared offset in every block of the
//! cluster whose rank (`cluster_block_rank()`) is a bit of its `u16` mask, and
//! completes the box's bytes on the mbarrier at `bars[i]`'s offset in each of them. The
//! copy checks hold for every destination (the offsets are the same); the mask is
//! checked against `cluster_size()` ([`check_mask`]): the GPU does not report a bit
//! beyond the cluster. Without a cluster launch a block is a cluster of one, whose
//! only mask is 1.

use super::intrinsics::{Effect, Form, IntrinsicDef, Param, Ret, Signature};
use super::target::TargetNeed;
use crate::ir::{Intrinsic, ScalarType, TmaOp};

use ScalarType as S;

/// The element types a map (and so a copy's tile) can have: `tma::supported`'s.
pub const MAP_ELEMS: &[ScalarType] = &[
    S::I8,
    S::U8,
    S::I16,
    S::U16,
    S::I32,
    S::U32,
    S::I64,
    S::U64,
    S::F16,
    S::BF16,
    S::F32,
    S::F64,
];

const LOAD_PARAMS: &[Param] = &[
    Param::TensorMapOfT,
    Param::MutSliceOfT,
    Param::MapCoords,
    Param::Barriers,
    Param::Scalar(S::Usize),
];
const MULTICAST_PARAMS: &[Param] = &[
    Param::TensorMapOfT,
    Param::MutSliceOfT,
    Param::MapCoords,
    Param::Barriers,
    Param::Scalar(S::Usize),
    Param::Scalar(S::U16),
];
// A store writes the tensor: only through a map built from the array's `&mut`.
const STORE_PARAMS: &[Param] = &[
    Param::WritableTensorMapOfT,
    Param::MapCoords,
    Param::SliceOfT,
];

const fn tma_row(
    name: &'static str,
    op: TmaOp,
    types: &'static [ScalarType],
    params: &'static [Param],
) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic: Intrinsic::Tma(op),
        sig: Signature {
            types,
            params,
            ret: Ret::Unit,
        },
        // Reads and writes the memory its operands name (the tile, the tensor, the
        // barrier's word), or orders the thread's bulk copies: never moved or removed.
        effect: Effect::Memory,
        nvvm: "",
    }
}

/// The rows (`bulk_wait_group_read`'s with `pending` 0: [`row_key`]), chained into
/// `intrinsics::all`.
pub static TMA_INTRINSICS: &[IntrinsicDef] = &[
    tma_row("tma_load", TmaOp::Load, MAP_ELEMS, LOAD_PARAMS),
    tma_row(
        "tma_load_multicast",
        TmaOp::LoadMulticast,
        MAP_ELEMS,
        MULTICAST_PARAMS,
    ),
    tma_row("tma_store", TmaOp::Store, MAP_ELEMS, STORE_PARAMS),
    tma_row("bulk_commit_group", TmaOp::CommitGroup, &[], &[]),
    tma_row(
        "bulk_wait_group_read",
        TmaOp::WaitGroupRead { pending: 0 },
        &[],
        &[],
    ),
    tma_row(
        "tma_prefetch",
        TmaOp::Prefetch,
        MAP_ELEMS,
        &[Param::TensorMapOfT],
    ),
];

/// The key of `i`'s row: one row for every `bulk_wait_group_read::<N>`.
pub fn row_key(i: Intrinsic) -> Intrinsic {
    match i {
        Intrinsic::Tma(TmaOp::WaitGroupRead { .. }) => {
            Intrinsic::Tma(TmaOp::WaitGroupRead { pending: 0 })
        }
        other => other,
    }
}

/// The most bulk groups `bulk_wait_group_read::<N>` may leave pending (PTX takes an
/// immediate; 7 is CUTLASS's deepest store pipeline).
pub const MAX_PENDING_GROUPS: u64 = 7;

/// What the TMA intrinsics of `module` need of the target: sm_90 for any copy,
/// sm_90a exactly for a multicast.
pub fn module_needs(module: &crate::ir::Module) -> Vec<TargetNeed> {
    let mut needs = super::target::need_if_used(module, super::tma::TARGET_NEED, |i| {
        matches!(i, Intrinsic::Tma(_))
    });
    needs.extend(super::target::need_if_used(
        module,
        super::tma::MULTICAST_TARGET_NEED,
        |i| i == Intrinsic::Tma(TmaOp::LoadMulticast),
    ));
    needs
}

// The panics of a copy; `{0}` and `{1}` are its two operands (`ir::checks::substitute`).
/// The tile is not in shared memory (operands: its length, 0).
pub const SPACE_MESSAGE: &str =
    "a TMA copy's tile must be in shared memory: a slice of {0} elements is not";
/// The tile's start (its byte offset in shared memory) and the alignment it needs.
pub const ALIGN_MESSAGE: &str = "a TMA copy's shared tile at byte {0} is not {1}-byte aligned, as the map's swizzle needs: declare it with `shared_array_aligned::<A, {1}>()`";
/// The tile's bytes and the box's bytes in shared memory.
pub const BYTES_MESSAGE: &str = "a TMA copy's shared tile of {0} bytes is too small for the map's box, which lands in {1} bytes";
/// A load's innermost coordinate and the element size.
pub const INNER_MESSAGE: &str = "a TMA box's innermost coordinate must start it a multiple of 16 bytes into the row: {0:i64} elements of {1} bytes is not";
/// A store's axis (row-major) and its negative coordinate.
pub const NEGATIVE_MESSAGE: &str =
    "a TMA store's box must not start before the tensor: axis {0} starts at {1:i64}";

/// A multicast's mask (`{0}`) and the cluster's size in blocks (`{1}`).
pub const MASK_MESSAGE: &str = "a TMA multicast's block mask {0} must name 1 or more blocks of the cluster of {1} blocks (bit k is the block of rank k, below bit {1})";

/// The panic of a multicast with `mask` in a cluster of `cluster_size` blocks: no
/// block named, or a bit at or beyond the cluster's size.
pub fn check_mask(mask: u16, cluster_size: u32) -> Option<(&'static str, u64, u64)> {
    let beyond = u32::from(mask).checked_shr(cluster_size).unwrap_or(0);
    (mask == 0 || beyond != 0).then_some((MASK_MESSAGE, u64::from(mask), u64::from(cluster_size)))
}

/// The alignment and the shared bytes a map's tile word says a tile needs.
pub fn unpack_tile_word(word: u64) -> (u64, u64) {
    (word >> 32, word & 0xffff_ffff)
}

/// The first check one copy fails, as a panic text and its operands: the tile at byte
/// `tile_offset` of shared memory, `tile_bytes` long; the map's `tile_word`; elements of
/// `elem_bytes`; `coords` in row-major order (axis 0 outermost). The NVVM writer
/// prints the same checks in the same order.
pub fn check_copy(
    tile_offset: u64,
    tile_bytes: u64,
    tile_word: u64,
    elem_bytes: u64,
    coords: &[i64],
    store: bool,
) -> Option<(&'static str, u64, u64)> {
    let (align, smem_bytes) = unpack_tile_word(tile_word);
    if tile_offset % align.max(1) != 0 {
        return Some((ALIGN_MESSAGE, tile_offset, align));
    }
    if tile_bytes < smem_bytes {
        return Some((BYTES_MESSAGE, tile_bytes, smem_bytes));
    }
    let inner = *coords.last()?;
    if (inner * elem_bytes as i64) % 16 != 0 {
        return Some((INNER_MESSAGE, inner as u64, elem_bytes));
    }
    if store {
        if let Some(axis) = coords.iter().position(|&c| c < 0) {
            return Some((NEGATIVE_MESSAGE, axis as u64, coords[axis] as u64));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::checks::substitute;
    use crate::proc::tma::{Swizzle, TensorMapLayout};

    fn layout(swizzle: Swizzle) -> TensorMapLayout {
        TensorMapLayout {
            elem: S::BF16,
            rank: 2,
            global_dims: [100, 40, 1, 1, 1],
            global_strides: [208, 0, 0, 0],
            box_dims: [64, 16, 1, 1, 1],
            swizzle,
            oob_fill: Default::default(),
            l2_promotion: Default::default(),
        }
    }

    #[test]
    fn the_copy_checks_agree_with_the_maps_own_rules() {
        let map = layout(Swizzle::B128);
        let word = map.tile_word();
        assert_eq!(unpack_tile_word(word), (1024, 2048));
        assert_eq!(check_copy(0, 2048, word, 2, &[3, 64], false), None);
        // Each rule of `proc::tma`, and its text with the operands.
        for (offset, bytes, coords, store) in [
            (512u64, 2048u64, [0i64, 0], false),
            (0, 2046, [0, 0], false),
            (0, 2048, [0, 10], false),
            (0, 2048, [-3, 8], true),
        ] {
            let inner_order = [coords[1], coords[0]];
            let expected_rule = Swizzle::B128
                .check_tile_address(offset)
                .and(crate::proc::tma::check_tile_bytes(bytes, map.smem_bytes()))
                .and(if store {
                    map.check_store_coords(&inner_order)
                } else {
                    map.check_load_coords(&inner_order)
                });
            let (text, a, b) = check_copy(offset, bytes, word, 2, &coords, store).unwrap();
            assert!(expected_rule.is_err(), "{coords:?}");
            let message = substitute(text, a, b);
            assert!(!message.contains('{'), "{message}");
        }
        assert_eq!(
            substitute(NEGATIVE_MESSAGE, 0, -3i64 as u64),
            "a TMA store's box must not start before the tensor: axis 0 starts at -3"
        );
        // A load may start before the tensor (the hardware fills the outside).
        assert_eq!(check_copy(0, 2048, word, 2, &[-3, -8], false), None);
    }

    #[test]
    fn a_multicast_mask_names_blocks_of_the_cluster_only() {
        for size in 1..=16u32 {
            for mask in [0u16, 1, 2, 3, 0b1010, 0x8000, u16::MAX] {
                let inside = mask != 0 && (u32::from(mask) >> size) == 0;
                let failure = check_mask(mask, size);
                assert_eq!(failure.is_none(), inside, "mask {mask:#x}, size {size}");
                if let Some((text, a, b)) = failure {
                    let message = substitute(text, a, b);
                    assert!(
                        message.contains(&format!("mask {mask} "))
                            && message.contains(&format!("cluster of {size} blocks")),
                        "{message}"
                    );
                }
            }
        }
        // A launch without a cluster: a block is a cluster of one.
        assert!(check_mask(1, 1).is_none() && check_mask(2, 1).is_some());
    }
}
