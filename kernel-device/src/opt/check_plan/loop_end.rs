//! Indices that a `for` loop's end proves in bounds (`for i in 0..s.len() { s[i] }`),
//! found before any run is planned: the loop's checks of them go without a guard.

use std::collections::HashSet;

use crate::ir::visit::{assigned_in_block, lets_in_block, places_in_block};
use crate::ir::{
    Block, Expr, ExprKind, Function, Handle, Local, Place, PlaceRoot, Projection, Type,
};

/// The indices of `body` that a `for var in start..end` loop (any step, either
/// direction, not `..=`) proves in bounds: `s[var]` where `end` is `s.len()` (directly
/// or through an immutable `let n = s.len()`), the slice `s` a local the function never
/// assigns, and `var` not assigned in the body. Every element of such a range is below `end`, and
/// `s.len()` is the length the check would compare with, so the check never fails.
pub fn indices_below_loop_end(
    func: &Function,
    var: Handle<Local>,
    end: Handle<Expr>,
    inclusive: bool,
    body: &Block,
) -> Vec<Handle<Expr>> {
    let mut found = Vec::new();
    if inclusive {
        return found;
    }
    let Some(slice) = slice_of_len(func, end, 0) else {
        return found;
    };
    let mut assigned = HashSet::new();
    assigned_in_block(func, body, &mut assigned);
    let mut anywhere = HashSet::new();
    assigned_in_block(func, &func.body, &mut anywhere);
    if anywhere.contains(&slice) || assigned.contains(&var) {
        return found;
    }
    places_in_block(func, body, &mut |place: &Place| {
        let (PlaceRoot::Pointee(root), Some(Projection::Index(index))) =
            (place.root, place.projections.first())
        else {
            return;
        };
        let is_local = |h: Handle<Expr>, l: Handle<Local>| matches!(func.exprs.get(h).map(|e| &e.kind), Some(ExprKind::Local(x)) if *x == l);
        let root_is_slice = matches!(
            func.exprs.get(root).map(|e| &e.ty),
            Some(Type::Slice { .. })
        );
        if root_is_slice && is_local(root, slice) && is_local(*index, var) {
            found.push(*index);
        }
    });
    found
}

/// The slice local `s` when `h` is `s.len()`, or an immutable local initialised (by its
/// only `let`) to such an expression.
fn slice_of_len(func: &Function, h: Handle<Expr>, depth: u32) -> Option<Handle<Local>> {
    match &func.exprs.get(h)?.kind {
        ExprKind::Len(s) => match func.exprs.get(*s)?.kind {
            ExprKind::Local(l) => Some(l),
            _ => None,
        },
        ExprKind::Local(n) if depth < 4 && !func.locals.get(*n)?.mutable => {
            let mut init = None;
            let mut lets = 0;
            lets_in_block(func, &func.body, &mut |local, i| {
                if local == *n {
                    lets += 1;
                    init = i;
                }
            });
            if lets == 1 {
                slice_of_len(func, init?, depth + 1)
            } else {
                None
            }
        }
        _ => None,
    }
}
