//! Check elision: the indices into arrays of known length (`tile[ty + r + 1][tx + 1]`
//! on a `[[f32; 34]; 34]`) that the value ranges prove below the length for every
//! value they take. They are recorded in [`crate::ir::Function::unchecked_indices`];
//! the NVVM writer writes no check for them and the simulator performs none, so a
//! wrong decision here shows up as a memory fault in the simulator's fuzz test instead
//! of passing silently.
//!
//! Slices carved from dynamic shared memory (`let tile = smem.take::<T>(count)`) have a
//! length known too: `take` panics unless all `count` elements fit, so after it the
//! slice is exactly `count` long. Their indices (`tile[..]`, and the tile offsets of
//! `ldmatrix`/`stmatrix`/`cp_async`/`load_vec`/`store_vec`, with the width the access
//! spans, and the one element an mbarrier operation or a wgmma descriptor names) are
//! elided the same way: the swizzled tile loops of a tensor-core GEMM then have no
//! check at all, as nvcc's have none. (A check that can fail costs more than its
//! compare: on a value ptxas takes for divergent, its branch to a panic that never
//! returns puts the rest of the kernel off the uniform datapath, so an FA3 consumer's
//! Q-descriptor checks before its key loop cost that loop 15% of its instructions.)

use std::collections::HashSet;

use super::ranges::Ranges;
use crate::ir::visit::exprs_in_block;
use crate::ir::visit::places_in_block;
use crate::ir::{
    Expr, ExprKind, Function, Handle, Intrinsic, MbarrierOp, Module, Place, PlaceRoot, Projection,
    ScalarType, Type, WgmmaOp,
};

/// The index expressions of `function`'s places that index an array or a shared tile,
/// and the tile offsets of its intrinsics, that `ranges` proves below the length.
pub fn proven_array_indices(
    module: &Module,
    function: &Function,
    ranges: Ranges<'_>,
) -> HashSet<Handle<Expr>> {
    let mut proven = HashSet::new();
    places_in_block(function, &function.body, &mut |place| {
        for (index, len) in array_indices(module, function, place) {
            if ranges.always_below(index, len) {
                proven.insert(index);
            }
        }
        // `tile[i]`: the local itself, or (read through the slice) its pointee.
        let root = match place.root {
            PlaceRoot::Local(l) => Some(l),
            PlaceRoot::Pointee(h) => match function.exprs.get(h).map(|e| &e.kind) {
                Some(ExprKind::Local(l)) => Some(*l),
                _ => None,
            },
            PlaceRoot::Global(_) => None,
        };
        if let (Some(l), Some(Projection::Index(index))) = (root, place.projections.first()) {
            let tile = shared_tile(function, ranges, l);
            if tile.is_some_and(|(_, len)| ranges.always_below(*index, len)) {
                proven.insert(*index);
            }
        }
    });
    exprs_in_block(function, &function.body, &mut |_, expr| {
        if let Some(index) = proven_tile_offset(function, ranges, expr) {
            proven.insert(index);
        }
    });
    proven
}

/// The element type and the least length of local `l` when it is a slice carved by
/// `take` from dynamic shared memory (its one `let`).
fn shared_tile(
    function: &Function,
    ranges: Ranges<'_>,
    l: Handle<crate::ir::Local>,
) -> Option<(ScalarType, u64)> {
    let init = ranges.let_init(l)?;
    match &function.exprs.get(init)?.kind {
        ExprKind::DynamicSharedTake { elem, count, .. } => {
            Some((*elem, ranges.interval(*count)?.min))
        }
        _ => None,
    }
}

/// The offset argument of a tile access by an intrinsic (`ldmatrix(tile, offset)`,
/// `cp_async(tile, offset, ..)`, ...) when `offset + width - 1`, the last element it
/// touches, is below the length of a shared tile for every value it takes.
fn proven_tile_offset(
    function: &Function,
    ranges: Ranges<'_>,
    expr: &Expr,
) -> Option<Handle<Expr>> {
    let ExprKind::Intrinsic { intrinsic, args } = &expr.kind else {
        return None;
    };
    let (tile, offset) = (*args.first()?, *args.get(1)?);
    let ExprKind::Local(l) = function.exprs.get(tile)?.kind else {
        return None;
    };
    let (elem, len) = shared_tile(function, ranges, l)?;
    let size = u64::from(elem.size_bytes());
    let width = match intrinsic {
        Intrinsic::Ldmatrix { .. } | Intrinsic::Stmatrix { .. } => 16 / size,
        Intrinsic::CpAsync { bytes, .. } => u64::from(*bytes) / size,
        Intrinsic::LoadVec { lanes } | Intrinsic::StoreVec { lanes } => u64::from(*lanes),
        // `bars[index]`, `tile[index]..`: the writers check the index alone.
        Intrinsic::Mbarrier(op) if *op != MbarrierOp::FenceInit => 1,
        Intrinsic::Wgmma(WgmmaOp::Descriptor) => 1,
        _ => return None,
    };
    let last = ranges
        .interval(offset)?
        .max
        .checked_add(width.checked_sub(1)?)?;
    (last < len).then_some(offset)
}

/// Each index of `place` that indexes an array, with the array's length, as far as
/// the place's type can be followed.
fn array_indices(module: &Module, function: &Function, place: &Place) -> Vec<(Handle<Expr>, u64)> {
    let mut ty = match place.root {
        PlaceRoot::Local(l) => function.locals.get(l).map(|l| l.ty.clone()),
        PlaceRoot::Global(g) => module.globals.get(g).map(|g| g.ty.clone()),
        PlaceRoot::Pointee(h) => function.exprs.get(h).map(|e| match &e.ty {
            Type::Ref { pointee, .. } => (**pointee).clone(),
            other => other.clone(),
        }),
    };
    let mut found = Vec::new();
    for projection in &place.projections {
        ty = match (projection, ty.take()) {
            (Projection::Index(index), Some(Type::Array { elem, len })) => {
                found.push((*index, len));
                Some(*elem)
            }
            (
                Projection::Index(_),
                Some(slice @ (Type::Slice { .. } | Type::StructSlice { .. })),
            ) => slice.index_result(),
            (Projection::Field(i), Some(Type::Tuple(items))) => items.get(*i as usize).cloned(),
            (Projection::Field(i), Some(Type::Struct(def))) => {
                def.fields.get(*i as usize).map(|f| f.ty.clone())
            }
            _ => None,
        };
    }
    found
}
