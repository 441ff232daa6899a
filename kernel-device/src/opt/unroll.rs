//! The unroll hints the optimiser gives `for` loops (`Stmt::ForRange::unroll`, when
//! the source gave none) of bounds-checked code: unrolled four times where a body's
//! inlined checks keep libnvvm from unrolling at run time ([`unrolls_like_unchecked`]),
//! kept rolled in a versioned statement's checked copy ([`may_stay_rolled`]).

use std::collections::HashSet;

use crate::ir::{self, visit, Block, Expr, Handle, Local, Stmt};

/// Whether a loop of a checked copy (which runs only when its guard fails) may be kept
/// rolled, whatever its `#[unroll]` asks: unrolled, the checks' operands kept the
/// stencil's cold path at 40 registers against the fast path's 29, and a kernel's
/// register count is its worst point's (32 with the loop rolled). Not when `var` (or
/// a `let` of the body, which may depend on it) indexes a local array: rolled, that
/// index is a variable, which sends the whole array (SGEMM's accumulator tile, shared
/// with the fast copy) to local memory.
pub fn may_stay_rolled(func: &ir::Function, var: Handle<Local>, body: &Block) -> bool {
    let mut varying = HashSet::from([var]);
    visit::lets_in_block(func, body, &mut |local, _| {
        varying.insert(local);
    });
    let mut rolled = true;
    visit::places_in_block(func, body, &mut |place| {
        if matches!(place.root, ir::PlaceRoot::Local(_)) {
            rolled &= !place
                .projections
                .iter()
                .any(|p| matches!(p, ir::Projection::Index(i) if mentions(func, *i, &varying)));
        }
    });
    rolled
}

/// Whether expression `h` reads one of `locals`.
fn mentions(func: &ir::Function, h: Handle<Expr>, locals: &HashSet<Handle<Local>>) -> bool {
    let Some(e) = func.exprs.get(h) else {
        return false;
    };
    let mut found = match &e.kind {
        ir::ExprKind::Local(l) => locals.contains(l),
        ir::ExprKind::Load(p) | ir::ExprKind::AddressOf { place: p, .. } => {
            matches!(p.root, ir::PlaceRoot::Local(l) if locals.contains(&l))
        }
        _ => false,
    };
    visit::visit_children(&e.kind, |c| found |= mentions(func, c, locals));
    found
}

/// How many iterations a trip of a loop chosen by [`unrolls_like_unchecked`] runs:
/// what libnvvm picks for the same loop without bounds checks.
pub const CHECKED_CALL_UNROLL: u32 = 4;

/// The most IR expressions (the body's and its callees', which are inlined) of a loop
/// [`unrolls_like_unchecked`] unrolls: small bodies, as LLVM's runtime unrolling.
const UNROLL_BODY_LIMIT: usize = 400;

/// Whether a `for` loop with a run-time trip count should be unrolled by
/// [`CHECKED_CALL_UNROLL`] because its body calls device functions: their bounds checks,
/// once inlined, are exits of the loop, and libnvvm's LLVM 7 does not unroll a loop
/// with more than one exit at run time, while it unrolls the same loop without checks
/// four times (Monte-Carlo π's xoroshiro128+ draws ran 14% slower rolled). The
/// checks, loop-invariant there, are then hoisted out of the unrolled loop as before.
/// Only small bodies without loops or barriers of their own, as LLVM would choose.
pub fn unrolls_like_unchecked(
    func: &ir::Function,
    module: &ir::Module,
    end: Handle<Expr>,
    body: &Block,
) -> bool {
    if matches!(func.expr(end).kind, ir::ExprKind::Literal(_)) {
        return false;
    }
    let mut calls = Vec::new();
    let mut size = 0;
    if !simple_loop_body(func, body, &mut calls, &mut size) || calls.is_empty() {
        return false;
    }
    let mut seen = HashSet::new();
    while let Some(callee) = calls.pop() {
        if !seen.insert(callee) {
            continue;
        }
        let callee_fn = &module.functions[callee];
        if !simple_loop_body(callee_fn, &callee_fn.body, &mut calls, &mut size) {
            return false;
        }
    }
    size <= UNROLL_BODY_LIMIT
}

/// Counts `block`'s expressions into `size` and collects its callees; false if it has
/// a loop or a barrier.
fn simple_loop_body(
    func: &ir::Function,
    block: &Block,
    calls: &mut Vec<Handle<ir::Function>>,
    size: &mut usize,
) -> bool {
    let mut simple = true;
    let mut visit = |h: Handle<Expr>| simple &= simple_expr(func, h, calls, size);
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let { init, .. } => init.iter().for_each(|h| visit(*h)),
            Stmt::Assign { place, value, .. } => {
                if let ir::PlaceRoot::Pointee(h) = place.root {
                    visit(h);
                }
                for p in &place.projections {
                    if let ir::Projection::Index(i) = p {
                        visit(*i);
                    }
                }
                visit(*value);
            }
            Stmt::Expr(h) => visit(*h),
            Stmt::While { .. }
            | Stmt::ForRange { .. }
            | Stmt::Versioned(_)
            | Stmt::PredicatedPrefetch(_)
            // print
            | Stmt::Print(_) => return false,
        }
    }
    if let Some(tail) = block.tail {
        visit(tail);
    }
    simple
}

fn simple_expr(
    func: &ir::Function,
    h: Handle<Expr>,
    calls: &mut Vec<Handle<ir::Function>>,
    size: &mut usize,
) -> bool {
    *size += 1;
    let Some(e) = func.exprs.get(h) else {
        return false;
    };
    match &e.kind {
        ir::ExprKind::Loop { .. } => return false,
        ir::ExprKind::Intrinsic { intrinsic, .. }
            if !super::effects::may_be_duplicated(*intrinsic) =>
        {
            return false
        }
        ir::ExprKind::Call { function, .. } => calls.push(*function),
        ir::ExprKind::If {
            cond,
            then_block,
            else_block,
        } => {
            if !simple_expr(func, *cond, calls, size)
                || !simple_loop_body(func, then_block, calls, size)
                || !else_block
                    .as_ref()
                    .is_none_or(|b| simple_loop_body(func, b, calls, size))
            {
                return false;
            }
        }
        ir::ExprKind::Block(b) => {
            if !simple_loop_body(func, b, calls, size) {
                return false;
            }
        }
        _ => {}
    }
    let mut simple = true;
    visit::visit_children(&e.kind, |c| simple &= simple_expr(func, c, calls, size));
    simple
}
