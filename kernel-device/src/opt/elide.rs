//! Check elision: the indices into arrays of known length (`tile[ty + r + 1][tx + 1]`
//! on a `[[f32; 34]; 34]`) that the value ranges prove below the length for every
//! value they take. They are recorded in [`crate::ir::Function::unchecked_indices`];
//! the NVVM writer writes no check for them and the simulator performs none, so a
//! wrong decision here shows up as a memory fault in the simulator's fuzz test instead
//! of passing silently.

use std::collections::HashSet;

use super::ranges::Ranges;
use crate::ir::visit::places_in_block;
use crate::ir::{Expr, Function, Handle, Module, Place, PlaceRoot, Projection, Type};

/// The index expressions of `function`'s places that index an array (not a slice) and
/// that `ranges` proves below its length.
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
    });
    proven
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
