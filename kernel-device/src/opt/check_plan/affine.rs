//! Strided guards: an index that is affine in a literal loop's variable is checked at
//! the loop's first two elements instead of at every element (see
//! [`GuardOp::CheckStrided`] for why two comparisons decide them all).
//!
//! Why: a stencil reads `t[ty + r + 1][tx + 1]` and `input[(y0 + ty + r) * nx + x]` for
//! `r` in `(0..32).step_by(8)`; checking each of the four rows made the guard's values
//! live across the run and its barrier, and the kernel went from 29 to 46 registers
//! (five resident blocks per SM instead of eight).

use std::collections::BTreeSet;

use super::{CheckKey, GuardOp, Length, Planner};
use crate::ir::{BinaryOp, Expr, ExprKind, Handle, Local, ScalarType, UnaryOp};

/// Loops of fewer elements gain nothing: two comparisons are what they cost anyway.
const MIN_STRIDED_TRIPS: usize = 3;

impl Planner<'_> {
    /// Plans `index < len` as a strided check over the innermost literal loop whose
    /// variable the index depends on, if the index is affine in it. `false` leaves the
    /// check to the per-element plan.
    pub(super) fn plan_strided(
        &mut self,
        index: Handle<Expr>,
        len: &Length,
        deps: &BTreeSet<Handle<Local>>,
    ) -> bool {
        let Some(pos) = self.loops.iter().rposition(|l| deps.contains(&l.var)) else {
            return false;
        };
        let (var, trips, current) = {
            let l = &self.loops[pos];
            (l.var, l.elems.len(), l.current)
        };
        if trips < MIN_STRIDED_TRIPS
            || self.offset_only_in(index, var)
            || !self.affine_in(index, var, Some(pos))
        {
            return false;
        }
        let key = self.key_without(index, deps, var);
        match current {
            0 => self.record_first(key, index),
            1 => {
                let Some(&slot) = self.strided.get(&(key.clone(), false)) else {
                    return false;
                };
                if self.strided.insert((key, true), slot).is_none() {
                    self.plan.ops.push(GuardOp::CheckStrided {
                        index,
                        len: len.clone(),
                        slot,
                        trips: trips as u64,
                    });
                    self.count_compare();
                    let op = self.plan.ops.len() - 1;
                    self.merge_pair(op, slot, index, len, None, trips as u64);
                }
            }
            _ => {}
        }
        true
    }

    /// Whether `h`, as a function of `var` (the variable of `self.loops[pos]`, or of the
    /// run-time loop being guarded when `pos` is `None`) with every other value fixed, is `a + b * var` in wrapping 64-bit arithmetic: every node
    /// that depends on `var` is a 64-bit integer made by `+`, `-`, negation, or `*` by
    /// something independent of `var`, from `var` itself (or a cast of it whose values
    /// over the loop's elements are still evenly spaced) and pre-executed `let`s.
    pub(super) fn affine_in(
        &self,
        h: Handle<Expr>,
        var: Handle<Local>,
        pos: Option<usize>,
    ) -> bool {
        let depends = |h: Handle<Expr>| self.pure(h).is_none_or(|k| k.deps.contains(&var));
        if !depends(h) {
            return true;
        }
        let e = self.expr(h);
        if e.ty
            .scalar()
            .is_none_or(|s| !s.is_integer() || s.bits() != 64)
        {
            return false;
        }
        match &e.kind {
            ExprKind::Local(l) if *l == var => true,
            ExprKind::Local(l) => self
                .let_inits
                .get(l)
                .is_some_and(|init| self.affine_in(*init, var, pos)),
            ExprKind::Cast { operand, .. } => {
                matches!(self.expr(*operand).kind, ExprKind::Local(l) if l == var)
                    && self.cast_keeps_spacing(*operand, e.ty.scalar(), pos)
            }
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => self.affine_in(*operand, var, pos),
            ExprKind::Binary {
                op: BinaryOp::Add | BinaryOp::Sub,
                lhs,
                rhs,
            } => self.affine_in(*lhs, var, pos) && self.affine_in(*rhs, var, pos),
            ExprKind::Binary {
                op: BinaryOp::Mul,
                lhs,
                rhs,
            } => match (depends(*lhs), depends(*rhs)) {
                (true, false) => self.affine_in(*lhs, var, pos),
                (false, true) => self.affine_in(*rhs, var, pos),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether the loop variable `operand`'s elements, cast to 64-bit `to`, are still an
    /// arithmetic progression modulo 2^64 (a zero- or sign-extension of a progression
    /// that does not wrap in the narrower type). A run-time range's elements never wrap
    /// (`pos` `None`): they lie between its bounds.
    fn cast_keeps_spacing(
        &self,
        operand: Handle<Expr>,
        to: Option<ScalarType>,
        pos: Option<usize>,
    ) -> bool {
        let (Some(from), Some(_)) = (self.expr(operand).ty.scalar(), to) else {
            return false;
        };
        if !from.is_integer() {
            return false;
        }
        let Some(pos) = pos else {
            return true;
        };
        let widen = |bits: u64| {
            if from.is_signed_integer() {
                crate::proc::consteval::int_value(from, bits) as u64
            } else {
                bits
            }
        };
        let values: Vec<u64> = self.loops[pos].elems.iter().map(|b| widen(*b)).collect();
        let [first, second, ..] = values[..] else {
            return false;
        };
        let step = second.wrapping_sub(first);
        values
            .iter()
            .enumerate()
            .all(|(k, v)| v.wrapping_sub(first) == step.wrapping_mul(k as u64))
    }

    /// The key of `index`'s check at the current values of the loop variables it
    /// depends on other than `var`: the check is made again for each of them.
    pub(super) fn key_without(
        &self,
        index: Handle<Expr>,
        deps: &BTreeSet<Handle<Local>>,
        var: Handle<Local>,
    ) -> CheckKey {
        let others = deps
            .iter()
            .filter(|v| **v != var)
            .map(|v| (*v, self.known.get(v).and_then(|k| k.constant).unwrap_or(0)))
            .collect();
        (index, others)
    }

    /// On the first walk of a strided or across check: `index`'s value there, recorded
    /// once per `key` in a slot of its own, which the second walk's check compares
    /// against.
    pub(super) fn record_first(&mut self, key: CheckKey, index: Handle<Expr>) {
        if self.strided.contains_key(&(key.clone(), false)) {
            return;
        }
        let slot = self.strided.len();
        self.strided.insert((key, false), slot);
        self.plan.ops.push(GuardOp::Record { index, slot });
        self.merge_record(self.plan.ops.len() - 1, slot, index);
        self.count_compare();
    }

    pub(super) fn count_compare(&mut self) {
        self.compares += 1;
        if self.compares > super::MAX_GUARD_CHECKS {
            self.abandoned = true;
        }
    }
}
