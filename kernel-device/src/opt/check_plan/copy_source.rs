//! The global source of a `cp_async` in a guarded loop: its bounds check (`index +
//! lanes <= src.len()`, every iteration) decided by the loop's guard, so that the fast
//! copy of a tensor-core k-loop issues its copies as nvcc's does, with the alignment
//! check alone (which stays: a misaligned copy is an error the context does not
//! survive). The same for `load_vec`/`store_vec` (`index + lanes <= slice.len()`), in
//! loops and in runs: a GEMM's or attention's epilogue stores its accumulators in
//! pairs, and each pair's check, left in place, kept the slice's length and the panic
//! path live across the main loop (attention D64's checked key loop had 56 more
//! register moves than the unchecked one, at 255 registers).
//!
//! A guard compares an index with a length (`index < len`), so a copy of `lanes`
//! elements is planned as two indices: the first element it reads, and its last,
//! `index + (lanes - 1)`, an expression made for the guard alone (in no block). Both
//! must be decided: the last alone would pass where `index` wraps past `u64::MAX`; the
//! first bounds the last (a length is at most `isize::MAX`, so `index + lanes - 1`
//! cannot wrap once `index < len`).

use std::collections::HashMap;

use super::{Length, Planner};
use crate::ir::visit::exprs_in_block;
use crate::ir::{BinaryOp, Expr, ExprKind, Function, Handle, Intrinsic, Literal, Type};

/// For each `cp_async` call of `func` that reads a whole chunk (not zero-filling) from a
/// slice, and each `load_vec`/`store_vec`, the expression of the last element it
/// reads or writes, added to `func` for the guards. Calls of one element map to their
/// index itself.
pub fn copy_source_ends(func: &mut Function) -> HashMap<Handle<Expr>, Handle<Expr>> {
    let mut calls = Vec::new();
    exprs_in_block(func, &func.body, &mut |h, e| {
        let ExprKind::Intrinsic { intrinsic, args } = &e.kind else {
            return;
        };
        if let Some((slice, index, bytes)) = checked_range(*intrinsic, args, &func.exprs) {
            calls.push((h, bytes, slice, index));
        }
    });
    let mut ends = HashMap::new();
    for (call, bytes, src, index) in calls {
        let Some(Type::Slice { elem, .. }) = func.exprs.get(src).map(|e| &e.ty) else {
            continue;
        };
        let lanes = u64::from(bytes) / u64::from(elem.size_bytes().max(1));
        let end = if lanes <= 1 {
            index
        } else {
            let loc = func.loc_of(call);
            let ty = func.exprs[index].ty.clone();
            let last = func.add_expr(
                Expr {
                    kind: ExprKind::Literal(Literal::Int(lanes - 1)),
                    ty: ty.clone(),
                },
                loc,
            );
            func.add_expr(
                Expr {
                    kind: ExprKind::Binary {
                        op: BinaryOp::Add,
                        lhs: index,
                        rhs: last,
                    },
                    ty,
                },
                loc,
            )
        };
        ends.insert(call, end);
    }
    ends
}

/// The slice, index and bytes of the one range check of a call that `copy_source_ends`
/// plans: a whole-chunk `cp_async` source, or a vector load or store.
fn checked_range(
    intrinsic: Intrinsic,
    args: &[Handle<Expr>],
    exprs: &crate::ir::Arena<Expr>,
) -> Option<(Handle<Expr>, Handle<Expr>, u32)> {
    match intrinsic {
        Intrinsic::CpAsync {
            bytes,
            zero_fill: false,
            ..
        } => Some((*args.get(2)?, *args.get(3)?, u32::from(bytes))),
        Intrinsic::LoadVec { lanes } | Intrinsic::StoreVec { lanes } => {
            let (slice, index) = (*args.first()?, *args.get(1)?);
            let Type::Slice { elem, .. } = &exprs.get(slice)?.ty else {
                return None;
            };
            Some((slice, index, u32::from(lanes) * elem.size_bytes()))
        }
        _ => None,
    }
}

impl Planner<'_> {
    /// Plans the range check of a vector load or store (`args`: slice, index, ..), as a
    /// copy's source: its first and last elements below the slice's length.
    pub(super) fn plan_vector_range(&mut self, call: Handle<Expr>, args: &[Handle<Expr>]) {
        let (Some(&slice), Some(&index)) = (args.first(), args.get(1)) else {
            return;
        };
        self.plan_range(call, slice, index);
    }

    /// Plans the source check of the `cp_async` call `call` (arguments `args`) across
    /// the guarded loop: its first and last elements below the source's length.
    pub(super) fn plan_copy_source(&mut self, call: Handle<Expr>, args: &[Handle<Expr>]) {
        let (Some(&src), Some(&index)) = (args.get(2), args.get(3)) else {
            return;
        };
        self.plan_range(call, src, index);
    }

    /// Plans `index..=end` of `src` for the call `call` whose last element is `end`.
    fn plan_range(&mut self, call: Handle<Expr>, src: Handle<Expr>, index: Handle<Expr>) {
        let Some(&end) = self.copy_ends.and_then(|ends| ends.get(&call)) else {
            return;
        };
        if self.pure(src).is_none() {
            self.impure.insert(index);
            return;
        }
        let before = self.plan.checks;
        self.plan_check(index, Length::OfSlice(src));
        if end != index {
            self.plan_check(end, Length::OfSlice(src));
        }
        // One check in the code, however many comparisons decide it: a run of one
        // vector store gains nothing from a guard (`Planner::plan` wants two checks).
        self.plan.checks = self.plan.checks.min(before + 1);
        self.copy_sources.push((index, end));
    }

    /// A copy's source index stays decided only if its last element is too; the last
    /// element, in no block, leaves the decided set (it has no check to drop).
    /// (A copy is walked several times: once per walk of the body and per element of
    /// the literal loops around it, so the pairs repeat.)
    pub(super) fn keep_whole_copies(&mut self) {
        let pairs = std::mem::take(&mut self.copy_sources);
        let partial: Vec<Handle<Expr>> = pairs
            .iter()
            .filter(|(_, end)| !self.plan.decided.contains(end))
            .map(|(index, _)| *index)
            .collect();
        for index in partial {
            self.plan.decided.remove(&index);
        }
        for (index, end) in pairs {
            if end != index {
                self.plan.decided.remove(&end);
            }
        }
    }
}
