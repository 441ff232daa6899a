//! Remainders of a loop variable by a constant, kept as counters: in
//! `for kt in 0..k_tiles { .. (kt + 2) % 3 .. kt % 3 .. }` (a software pipeline's
//! stages) each remainder becomes a `u32` local that steps `0, 1, 2, 0, ..` with the
//! loop, so the loop computes no remainder at all. A 64-bit remainder by a constant is
//! a 64×64-bit multiply-high on the GPU (about 12 instructions; libnvvm's LLVM 7 does
//! not see that the loop variable stays small), the counter is an add, a compare and a
//! select in 32 bits.
//!
//! The rewrite is sound for every execution, not only for small values:
//! - the loop steps by one upwards (`start..end` or `start..=end`, no `step_by`, not
//!   reversed) from a constant start, and its variable is immutable, so iteration `i`
//!   (counting from 0) has `var = start + i`;
//! - the dividend is `var + c` for a constant `c` (through `+`/`-` of literals and
//!   immutable `let`s), and the value ranges ([`super::ranges`]) bound every step of
//!   that computation without wrapping (`kt + 2` with `kt < k / 64`, bounded here:
//!   the value ranges keep no bound for `k / 64` of an unknown `k`, which launch proofs
//!   would only turn into a condition that never holds), so its value is exactly
//!   `var + c` and no overflow check is skipped;
//! - the counter is stepped first thing in the body, before any `continue`, from the
//!   value the iteration before the first would have, so in iteration `i` it holds
//!   `(start + c + i) % C`.
//!
//! The remainder expression is rewritten in place (to the counter, widened); what it
//! read is left unread. The pass runs before the other stages, which then see ordinary
//! locals, `let`s and assignments (the simulator runs the result, so the fuzz tests it).

use std::collections::HashMap;

use super::ranges::{mask, RangeFacts, Ranges};
use crate::ir::visit::{exprs_in_block, stmts_in_function};
use crate::ir::{
    BinaryOp, Block, Expr, ExprKind, Function, Handle, Literal, Local, LoopId, Place, ScalarType,
    SourceLoc, Stmt, Type,
};

/// One remainder to replace: `(var + offset) % divisor` at `expr`.
struct Remainder {
    expr: Handle<Expr>,
    divisor: u64,
    /// `(start + offset) % divisor`: the counter's value in the first iteration.
    first: u64,
}

/// Replaces the remainders by constants of the loop variables of `func` with counters.
pub fn rewrite(func: &mut Function, block_dim: Option<[u32; 3]>) {
    let plans = {
        let facts = RangeFacts::new(func, block_dim);
        plan(func, facts.of(func))
    };
    if plans.is_empty() {
        return;
    }
    let mut spliced: HashMap<LoopId, (Vec<Stmt>, Vec<Stmt>)> = HashMap::new();
    for (id, remainders) in plans {
        let mut before = Vec::new();
        let mut at_top = Vec::new();
        // One counter per (divisor, first value): `kt % 3` read twice shares one.
        let mut counters: HashMap<(u64, u64), Handle<Local>> = HashMap::new();
        for r in remainders {
            let loc = func.loc_of(r.expr);
            let counter = *counters.entry((r.divisor, r.first)).or_insert_with(|| {
                let (init, step) = counter_stmts(func, r.divisor, r.first, loc);
                before.push(init.0);
                at_top.push(step);
                init.1
            });
            let wide = func.exprs[r.expr]
                .ty
                .scalar()
                .expect("an integer remainder");
            func.exprs[r.expr].kind = if wide == ScalarType::U32 {
                ExprKind::Local(counter)
            } else {
                let read = func.add_expr(local_expr(counter), loc);
                ExprKind::Cast {
                    operand: read,
                    to: wide,
                }
            };
        }
        spliced.insert(id, (before, at_top));
    }
    splice(&mut func.body, &mut spliced);
    for index in 0..func.exprs.len() {
        match &mut func.exprs[Handle::new(index)].kind {
            ExprKind::If {
                then_block,
                else_block,
                ..
            } => {
                splice(then_block, &mut spliced);
                if let Some(b) = else_block {
                    splice(b, &mut spliced);
                }
            }
            ExprKind::Loop { body, .. } | ExprKind::Block(body) => splice(body, &mut spliced),
            _ => {}
        }
    }
}

/// The remainders each `for` loop of `func` can keep as counters.
fn plan(func: &Function, ranges: Ranges<'_>) -> Vec<(LoopId, Vec<Remainder>)> {
    let mut plans = Vec::new();
    stmts_in_function(func, &mut |stmt| {
        let Stmt::ForRange {
            id,
            var,
            start,
            end,
            inclusive,
            step: None,
            reverse: false,
            body,
            ..
        } = stmt
        else {
            return;
        };
        if func.locals[*var].mutable {
            return;
        }
        let Some(start) = ranges.interval(*start).filter(|s| s.min == s.max) else {
            return;
        };
        let Some(top) = func.locals[*var].ty.scalar().map(mask) else {
            return;
        };
        // The variable's largest value: below `end` (at most `end` when inclusive).
        let last = match end_max(func, ranges, *end, top) {
            Some(m) if *inclusive => m,
            Some(m) => m.saturating_sub(1),
            None => top,
        };
        let var_range = (start.min, last.max(start.min));
        let mut remainders = Vec::new();
        exprs_in_block(func, body, &mut |h, e| {
            if let Some(r) = remainder_of(func, ranges, *var, var_range, h, e) {
                remainders.push(r);
            }
        });
        if !remainders.is_empty() {
            plans.push((*id, remainders));
        }
    });
    plans
}

/// The largest value of `end`: its range, or `top / d` for `x / d` (a literal `d`,
/// through an immutable `let`): `k / 64` of an unknown `k` ends a loop of tiles.
fn end_max(func: &Function, ranges: Ranges<'_>, end: Handle<Expr>, top: u64) -> Option<u64> {
    if let Some(i) = ranges.interval(end) {
        return Some(i.max);
    }
    match func.expr(end).kind {
        ExprKind::Local(l) if !func.locals[l].mutable => {
            end_max(func, ranges, ranges.let_init(l)?, top)
        }
        ExprKind::Binary {
            op: BinaryOp::Div,
            rhs,
            ..
        } => ranges
            .interval(rhs)
            .filter(|d| d.min > 0)
            .map(|d| top / d.min),
        _ => None,
    }
}

/// `e` (at `h`) as a remainder of `var + c` by a constant the counter can replace;
/// `var` takes values in `var_range` (inclusive).
fn remainder_of(
    func: &Function,
    ranges: Ranges<'_>,
    var: Handle<Local>,
    (var_min, var_max): (u64, u64),
    h: Handle<Expr>,
    e: &Expr,
) -> Option<Remainder> {
    let ExprKind::Binary {
        op: BinaryOp::Rem,
        lhs,
        rhs,
    } = e.kind
    else {
        return None;
    };
    let divisor = ranges.interval(rhs).filter(|d| d.min == d.max)?.min;
    // The counter is a u32; a remainder by 1 is 0 and by a power of two a mask already.
    if divisor < 3 || divisor > u64::from(u32::MAX) || divisor.is_power_of_two() {
        return None;
    }
    let chain = offset_from(func, ranges, lhs)?;
    if chain.local != var || func.locals[var].ty != e.ty {
        return None;
    }
    // Every step of `var + offset` in the type: no wrap (its value is exactly
    // `var + offset`) and no overflow (no check is skipped).
    let top = i128::from(mask(e.ty.scalar()?));
    if i128::from(var_min) + chain.lowest < 0 || i128::from(var_max) + chain.highest > top {
        return None;
    }
    let first = (i128::from(var_min) + chain.offset).rem_euclid(i128::from(divisor));
    Some(Remainder {
        expr: h,
        divisor,
        first: u64::try_from(first).ok()?,
    })
}

/// `local + offset`, with the least and greatest offset of any step on the way.
#[derive(Clone, Copy)]
struct OffsetChain {
    local: Handle<Local>,
    offset: i128,
    lowest: i128,
    highest: i128,
}

impl OffsetChain {
    fn plus(self, c: i128) -> OffsetChain {
        let offset = self.offset + c;
        OffsetChain {
            offset,
            lowest: self.lowest.min(offset),
            highest: self.highest.max(offset),
            ..self
        }
    }
}

/// `h` as `local + offset`, through `+`/`-` of literals and immutable `let`s.
fn offset_from(func: &Function, ranges: Ranges<'_>, h: Handle<Expr>) -> Option<OffsetChain> {
    let expr = func.expr(h);
    let top = mask(expr.ty.scalar()?);
    let literal = |h: Handle<Expr>| match func.expr(h).kind {
        ExprKind::Literal(Literal::Int(bits)) => Some(i128::from(bits & top)),
        _ => None,
    };
    match expr.kind {
        ExprKind::Local(l) => match ranges.let_init(l) {
            Some(init) if !func.locals[l].mutable => offset_from(func, ranges, init),
            _ => Some(OffsetChain {
                local: l,
                offset: 0,
                lowest: 0,
                highest: 0,
            }),
        },
        ExprKind::Binary {
            op: BinaryOp::Add,
            lhs,
            rhs,
        } => match (literal(lhs), literal(rhs)) {
            (Some(c), None) => offset_from(func, ranges, rhs).map(|o| o.plus(c)),
            (None, Some(c)) => offset_from(func, ranges, lhs).map(|o| o.plus(c)),
            _ => None,
        },
        ExprKind::Binary {
            op: BinaryOp::Sub,
            lhs,
            rhs,
        } => {
            let c = literal(rhs)?;
            offset_from(func, ranges, lhs).map(|o| o.plus(-c))
        }
        _ => None,
    }
}

/// A `u32` counter of `(var + c) % divisor`: its `let` (the value before the first
/// iteration) and its step, the body's first statement.
fn counter_stmts(
    func: &mut Function,
    divisor: u64,
    first: u64,
    loc: SourceLoc,
) -> ((Stmt, Handle<Local>), Stmt) {
    let counter = func.locals.append(Local {
        name: format!("rem{divisor}.counter"),
        ty: Type::Scalar(ScalarType::U32),
        mutable: true,
        loc,
    });
    let before_first = (first + divisor - 1) % divisor;
    let init = func.add_expr(u32_literal(before_first), loc);
    let read = func.add_expr(local_expr(counter), loc);
    let last = func.add_expr(u32_literal(divisor - 1), loc);
    let wraps = func.add_expr(
        Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::Eq,
                lhs: read,
                rhs: last,
            },
            ty: Type::Scalar(ScalarType::Bool),
        },
        loc,
    );
    let zero = func.add_expr(u32_literal(0), loc);
    let read_again = func.add_expr(local_expr(counter), loc);
    let one = func.add_expr(u32_literal(1), loc);
    let next = func.add_expr(
        Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::Add,
                lhs: read_again,
                rhs: one,
            },
            ty: Type::Scalar(ScalarType::U32),
        },
        loc,
    );
    let stepped = func.add_expr(
        Expr {
            kind: ExprKind::If {
                cond: wraps,
                then_block: tail_block(zero),
                else_block: Some(tail_block(next)),
            },
            ty: Type::Scalar(ScalarType::U32),
        },
        loc,
    );
    let let_stmt = Stmt::Let {
        local: counter,
        init: Some(init),
    };
    let step = Stmt::Assign {
        place: Place::local(counter, loc),
        op: None,
        value: stepped,
    };
    ((let_stmt, counter), step)
}

fn tail_block(tail: Handle<Expr>) -> Block {
    Block {
        stmts: Vec::new(),
        tail: Some(tail),
    }
}

fn u32_literal(value: u64) -> Expr {
    Expr {
        kind: ExprKind::Literal(Literal::Int(value)),
        ty: Type::Scalar(ScalarType::U32),
    }
}

fn local_expr(local: Handle<Local>) -> Expr {
    Expr {
        kind: ExprKind::Local(local),
        ty: Type::Scalar(ScalarType::U32),
    }
}

/// Puts each planned loop's counters before it and their steps at the top of its body.
fn splice(block: &mut Block, spliced: &mut HashMap<LoopId, (Vec<Stmt>, Vec<Stmt>)>) {
    let mut stmts = Vec::with_capacity(block.stmts.len());
    for mut stmt in std::mem::take(&mut block.stmts) {
        match &mut stmt {
            Stmt::ForRange { id, body, .. } => {
                if let Some((before, at_top)) = spliced.remove(id) {
                    stmts.extend(before);
                    body.stmts.splice(0..0, at_top);
                }
                splice(body, spliced);
            }
            Stmt::While { body, .. } | Stmt::PredicatedPrefetch(body) => splice(body, spliced),
            Stmt::Versioned(v) => {
                splice(&mut v.fast, spliced);
                splice(&mut v.checked, spliced);
            }
            Stmt::Let { .. } | Stmt::Assign { .. } | Stmt::Expr(_) | Stmt::Print(_) => {}
        }
        stmts.push(stmt);
    }
    block.stmts = stmts;
}
