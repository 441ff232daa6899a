//! The additive terms of an index: the one splitter of `a + b + c` that every stage
//! and writer reads (`align`'s alignment and pointer terms, the NVVM writer's 32-bit
//! shared tile addresses), so that they agree on what a term is.
//!
//! A split may follow immutable `let`s whose initialiser is a sum (the value of such
//! a local is its sum's, since it is never assigned), and may distribute a literal
//! factor over a sum: `(np * 16 + row) * 64` is the terms `np * 16` (scaled by 64) and
//! `row` (scaled by 64), the same value modulo 2^64 as wrapping arithmetic computes
//! it. Distributing lets a writer keep the tile offset `np * 16 * 64` (a constant once
//! `np`'s loop is unrolled) apart from the row term, whichever way the source spells
//! the index.

use super::ranges::Ranges;
use crate::ir::{BinaryOp, Expr, ExprKind, Function, Handle, Literal, Local, Stmt, Type, Unroll};
use std::collections::HashSet;

/// One term of a sum: `scale * expr`, wrapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    pub expr: Handle<Expr>,
    pub scale: u64,
}

/// What a split looks through.
#[derive(Clone, Copy, Debug, Default)]
pub struct Split {
    /// An immutable local whose one `let` is a sum is split into that sum's terms.
    pub through_lets: bool,
    /// `(a + b) * c` and `(a + b) << c` with a literal `c` are split into `a` and `b`,
    /// each scaled by `c` (or `1 << c`).
    pub literal_factors: bool,
}

/// The most expressions one split follows (lets nest, but not without end).
const DEPTH: u32 = 32;

/// The terms of the 64-bit integer sum `h`, left to right (`h` itself, scale 1, when
/// it is no sum). `settled(e)` is asked of each sum and term before it is split
/// (always at scale 1: a caller that settles terms does not ask for literal factors);
/// a settled expression is left out of the terms.
pub fn additive_terms(
    func: &Function,
    ranges: &Ranges<'_>,
    h: Handle<Expr>,
    split: Split,
    settled: &mut dyn FnMut(Handle<Expr>) -> bool,
) -> Vec<Term> {
    let mut terms = Vec::new();
    let mut walk = Walk {
        func,
        ranges,
        split,
        settled,
        terms: &mut terms,
    };
    walk.term(h, 1, DEPTH);
    terms
}

struct Walk<'s, 'f> {
    func: &'f Function,
    ranges: &'f Ranges<'f>,
    split: Split,
    settled: &'s mut dyn FnMut(Handle<Expr>) -> bool,
    terms: &'s mut Vec<Term>,
}

impl Walk<'_, '_> {
    fn term(&mut self, h: Handle<Expr>, scale: u64, depth: u32) {
        if scale == 1 && (self.settled)(h) {
            return;
        }
        if depth > 0 {
            if let Some(parts) = self.parts(h) {
                for (part, factor) in parts {
                    self.term(part, scale.wrapping_mul(factor), depth - 1);
                }
                return;
            }
        }
        self.terms.push(Term { expr: h, scale });
    }

    /// What `h` splits into, each with its factor: a sum's operands, a let's sum, or a
    /// sum times a literal; `None` when it is a term.
    fn parts(&self, h: Handle<Expr>) -> Option<Vec<(Handle<Expr>, u64)>> {
        let expr = self.func.exprs.get(h)?;
        if !matches!(expr.ty, Type::Scalar(s) if s.is_integer() && s.size_bytes() == 8) {
            return None;
        }
        match &expr.kind {
            ExprKind::Binary {
                op: BinaryOp::Add,
                lhs,
                rhs,
            } => Some(vec![(*lhs, 1), (*rhs, 1)]),
            ExprKind::Binary { op, lhs, rhs } if self.split.literal_factors => {
                let factor = match (op, self.literal(*rhs)?) {
                    (BinaryOp::Mul, c) => c,
                    (BinaryOp::Shl, c) if c < 64 => 1 << c,
                    _ => return None,
                };
                self.is_sum(*lhs).then(|| vec![(*lhs, factor)])
            }
            ExprKind::Local(l) if self.split.through_lets => {
                let init = self.stable_init(*l)?;
                self.is_sum(init).then(|| vec![(init, 1)])
            }
            _ => None,
        }
    }

    /// Whether `h` is a sum, or (when lets are followed) a local whose `let` is one.
    fn is_sum(&self, h: Handle<Expr>) -> bool {
        match self.func.exprs.get(h).map(|e| &e.kind) {
            Some(ExprKind::Binary {
                op: BinaryOp::Add, ..
            }) => true,
            Some(ExprKind::Local(l)) if self.split.through_lets => {
                self.stable_init(*l).is_some_and(|init| self.is_sum(init))
            }
            _ => false,
        }
    }

    fn literal(&self, h: Handle<Expr>) -> Option<u64> {
        match self.func.exprs.get(h)?.kind {
            ExprKind::Literal(Literal::Int(v)) => Some(v),
            _ => None,
        }
    }

    fn stable_init(&self, l: Handle<Local>) -> Option<Handle<Expr>> {
        stable_init(self.func, self.ranges, l)
    }
}

/// The initialiser of immutable local `l` when its one `let` defines it.
pub fn stable_init(func: &Function, ranges: &Ranges<'_>, l: Handle<Local>) -> Option<Handle<Expr>> {
    if func.locals[l].mutable {
        return None;
    }
    ranges.let_init(l)
}

/// The variables of `func`'s `for` loops that `#[unroll]` unrolls whole: a term that
/// reads only these and literals is a constant in each unrolled copy of the body (a
/// tile's offset, `np * 16 * 64`).
pub fn unrolled_loop_variables(func: &Function) -> HashSet<Handle<Local>> {
    let mut vars = HashSet::new();
    crate::ir::visit::stmts_in_function(func, &mut |stmt| {
        if let Stmt::ForRange {
            var,
            unroll: Unroll::Full,
            ..
        } = stmt
        {
            vars.insert(*var);
        }
    });
    vars
}

/// Whether `h` is a constant once the locals `constants` are: it reads nothing else
/// but literals and values the ranges pin to one value (`let rows = 128 / 8`), through
/// `+ - * << & | ^` and casts.
pub fn constant_given(
    func: &Function,
    ranges: &Ranges<'_>,
    h: Handle<Expr>,
    constants: &HashSet<Handle<Local>>,
) -> bool {
    if ranges.interval(h).is_some_and(|i| i.min == i.max) {
        return true;
    }
    let Some(expr) = func.exprs.get(h) else {
        return false;
    };
    let constant = |x| constant_given(func, ranges, x, constants);
    match &expr.kind {
        ExprKind::Literal(Literal::Int(_)) => true,
        ExprKind::Local(l) => constants.contains(l),
        ExprKind::Binary { op, lhs, rhs } => {
            matches!(
                op,
                BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Shl
                    | BinaryOp::BitAnd
                    | BinaryOp::BitOr
                    | BinaryOp::BitXor
            ) && constant(*lhs)
                && constant(*rhs)
        }
        ExprKind::Cast { operand, .. } => constant(*operand),
        _ => false,
    }
}
