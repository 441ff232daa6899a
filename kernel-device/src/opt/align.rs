//! Alignment facts of indices, for the alignment test of `cp.async` (a misaligned copy
//! is an error the context does not survive, so the test stays even without bounds
//! checks): which additive terms of an index are provably multiples of a power of two,
//! so that the test needs only the others.
//!
//! `a_src + p * 32 * k + next * 64 + chunk * 8` copying 16 bytes of bf16 (8 elements) is
//! aligned exactly when the slice's base plus `a_src`'s own unproven terms are: the
//! other terms are multiples of 8 whatever `p`, `k`, `next` and `chunk` are. Every
//! copy of a tile loop then tests the same loop-invariant value, which LLVM computes
//! once and whose repeated branches it folds, instead of one test of a different
//! address per copy (eight branches per k-stage of the tensor-core GEMMs, each a block
//! boundary that ptxas schedules apart).
//!
//! Terms are found through immutable `let`s (one definition, never assigned), so an
//! unproven term, lowered again where the copy is, has the value it had in the index.

use super::ranges::Ranges;
use super::terms::{additive_terms, stable_init, Split, Term};
use crate::ir::{BinaryOp, Expr, ExprKind, Function, Handle, Literal, Local, Type};

/// How many low bits of the unsigned integer `h` are known to be zero (64 for zero).
pub fn known_zero_bits(func: &Function, ranges: &Ranges<'_>, h: Handle<Expr>) -> u32 {
    known_zero_bits_within(func, ranges, h, DEPTH)
}

/// The most expressions one question follows (lets nest, but not without end).
const DEPTH: u32 = 32;

fn known_zero_bits_within(
    func: &Function,
    ranges: &Ranges<'_>,
    h: Handle<Expr>,
    depth: u32,
) -> u32 {
    if depth == 0 {
        return 0;
    }
    if let Some(v) = ranges.interval(h).filter(|i| i.min == i.max).map(|i| i.min) {
        return v.trailing_zeros();
    }
    let Some(expr) = func.exprs.get(h) else {
        return 0;
    };
    let bits = |x| known_zero_bits_within(func, ranges, x, depth - 1);
    let width = match expr.ty {
        Type::Scalar(s) if s.is_integer() => s.bits(),
        _ => return 0,
    };
    let known = match &expr.kind {
        ExprKind::Literal(Literal::Int(v)) => v.trailing_zeros(),
        ExprKind::Local(l) => match stable_init(func, ranges, *l) {
            Some(init) => bits(init),
            None => 0,
        },
        // A wrapping `+ - *` keeps the low bits that its operands' low bits decide.
        ExprKind::Binary { op, lhs, rhs } => match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::BitOr | BinaryOp::BitXor => {
                bits(*lhs).min(bits(*rhs))
            }
            BinaryOp::Mul => bits(*lhs).saturating_add(bits(*rhs)),
            BinaryOp::BitAnd => bits(*lhs).max(bits(*rhs)),
            BinaryOp::Shl => match func.exprs.get(*rhs).map(|e| &e.kind) {
                Some(ExprKind::Literal(Literal::Int(s))) if *s < u64::from(width) => {
                    bits(*lhs).saturating_add(*s as u32)
                }
                _ => 0,
            },
            _ => 0,
        },
        // Zero- or sign-extending, or truncating, keeps the low bits.
        ExprKind::Cast { operand, to } if to.is_integer() => match func.exprs.get(*operand) {
            Some(e) if matches!(e.ty, Type::Scalar(s) if s.is_integer()) => bits(*operand),
            _ => 0,
        },
        _ => 0,
    };
    known.min(width)
}

/// The additive terms of index `h` (followed through immutable `let`s) that are not
/// provably multiples of `2^zero_bits`: their sum has the index's low `zero_bits` bits.
/// `None` when an unproven term is not a 64-bit pure function of immutable locals and
/// literals (lowering it again could see another value), or when every term is
/// unproven (nothing to gain).
pub fn unproven_terms(
    func: &Function,
    ranges: &Ranges<'_>,
    h: Handle<Expr>,
    zero_bits: u32,
) -> Option<Vec<Handle<Expr>>> {
    let mut dropped = false;
    let terms = additive_terms(func, ranges, h, LET_SUMS, &mut |e| {
        let multiple = known_zero_bits(func, ranges, e) >= zero_bits;
        dropped |= multiple;
        multiple
    });
    if !dropped || !terms.iter().all(|t| wide_and_stable(func, t)) {
        return None;
    }
    Some(terms.iter().map(|t| t.expr).collect())
}

/// The terms of the sum `h` (through immutable `let`s of sums), when it has several
/// and each can be lowered again ([`is_stable`]): a copy's source written as one
/// `getelementptr` per term lets LLVM step the term its loop changes (`next * 32`)
/// from loop-invariant pointers (`a + a_src + p * rows * k`), as nvcc's code steps
/// its pointers, instead of adding the whole 64-bit index to the base every k-step.
pub fn address_terms(
    func: &Function,
    ranges: &Ranges<'_>,
    h: Handle<Expr>,
) -> Option<Vec<Handle<Expr>>> {
    let terms = additive_terms(func, ranges, h, LET_SUMS, &mut |_| false);
    (terms.len() > 1 && terms.iter().all(|t| wide_and_stable(func, t)))
        .then(|| terms.iter().map(|t| t.expr).collect())
}

/// Sums split through immutable `let`s, each term as written (no literal factor
/// distributed: a term is lowered again as the expression it is).
const LET_SUMS: Split = Split {
    through_lets: true,
    literal_factors: false,
};

/// Whether term `t` (of scale 1) is a 64-bit integer that lowers again to its value.
fn wide_and_stable(func: &Function, t: &Term) -> bool {
    matches!(func.exprs.get(t.expr).map(|e| &e.ty), Some(Type::Scalar(s)) if s.size_bytes() == 8)
        && is_stable(func, t.expr, DEPTH)
}

/// Whether `h` computes a 64-bit unsigned integer from immutable locals and literals
/// with `+ - * & | ^ <<` alone: lowered again it gives the value it had, and cannot
/// panic (no division).
fn is_stable(func: &Function, h: Handle<Expr>, depth: u32) -> bool {
    let Some(expr) = func.exprs.get(h) else {
        return false;
    };
    if depth == 0 || !matches!(expr.ty, Type::Scalar(s) if s.is_integer()) {
        return false;
    }
    match &expr.kind {
        ExprKind::Literal(Literal::Int(_)) => true,
        ExprKind::Local(l) => !func.locals[*l].mutable,
        ExprKind::Binary { op, lhs, rhs } => {
            matches!(
                op,
                BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::BitAnd
                    | BinaryOp::BitOr
                    | BinaryOp::BitXor
                    | BinaryOp::Shl
            ) && is_stable(func, *lhs, depth - 1)
                && is_stable(func, *rhs, depth - 1)
        }
        _ => false,
    }
}

/// The locals the pure expression `h` reads.
pub fn locals_read(func: &Function, h: Handle<Expr>, out: &mut Vec<Handle<Local>>) {
    let Some(expr) = func.exprs.get(h) else {
        return;
    };
    if let ExprKind::Local(l) = expr.kind {
        out.push(l);
        return;
    }
    crate::ir::visit::visit_children(&expr.kind, |c| locals_read(func, c, out));
}
