//! Bounds checks that a launch proves: `x[i]` with `i = grid(1)` is in bounds for every
//! thread when `grid_dim.x * block_dim.x - 1 < x.len()`, which the host knows before it
//! launches. A bounds-checked kernel with such checks is written twice: as it is, and
//! as `<name>__launch_proven` without them. The host evaluates the conditions for each
//! launch (a few integer operations) and launches the second only when all of them hold,
//! so no check that could fail is ever left out, and the kernel pays nothing on the
//! device for knowing it: not even a uniform branch, which costs the barrier-bound block
//! scan 2% (a version guard inside one kernel cost it 3.5%, the checks themselves 6%).
//!
//! A check qualifies when its slice is a kernel parameter (its length is the argument's)
//! and the largest value its index can take is a function of the launch's grid and
//! block alone ([`super::ranges::Ranges::launch_max`]): special registers, constants
//! and `let`s of them, combined by operations that cannot wrap at that largest value.

use std::collections::HashMap;
use std::collections::HashSet;

use super::ranges::Ranges;
use crate::ir::visit::{blocks_in_function, exprs_in_block, exprs_in_expr, places_in_block};
use crate::ir::{
    Axis, BinaryOp, Block, Expr, ExprKind, Function, Handle, Local, LogicalOp, PlaceRoot,
    Projection, Stmt, Type,
};

/// The suffix of the symbol of a kernel's copy without its launch-proven checks.
pub const LAUNCH_PROVEN_SUFFIX: &str = "__launch_proven";

/// The largest value an unsigned index takes in a launch, as a function of the launch's
/// grid and block (in blocks and threads per axis).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    Const(u64),
    GridDim(Axis),
    BlockDim(Axis),
    Sum(Box<Bound>, Box<Bound>),
    Product(Box<Bound>, Box<Bound>),
    /// `bound - n`; below zero the bound is unknown.
    Minus(Box<Bound>, u64),
    Quotient(Box<Bound>, u64),
    ShiftRight(Box<Bound>, u32),
    Min(Box<Bound>, u64),
    /// The bound of an operation in a type whose largest value is `top`: past `top` the
    /// operation may wrap, and the bound is unknown.
    NoWrap(Box<Bound>, u64),
    /// The bound of an index read only under a guard `index < s.len()`, where `s` is
    /// kernel parameter `.1` (a slice): at most `s.len() - 1` as well. With `s` empty
    /// the guarded read never runs, and the bound is 0 (the smallest, so a condition on
    /// it still asks the indexed slice for an element).
    BelowLen(Box<Bound>, usize),
}

impl Bound {
    /// The bound's value for a launch of `grid` blocks of `block` threads whose slice
    /// parameter `p` has `len(p)` elements, or `None` when it is unknown for that launch
    /// (an operation could wrap, a length is not known).
    pub fn eval(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        len: &dyn Fn(usize) -> Option<u64>,
    ) -> Option<u64> {
        let axis = |dims: [u32; 3], a: &Axis| {
            u64::from(match a {
                Axis::X => dims[0],
                Axis::Y => dims[1],
                Axis::Z => dims[2],
            })
        };
        Some(match self {
            Bound::Const(c) => *c,
            Bound::GridDim(a) => axis(grid, a),
            Bound::BlockDim(a) => axis(block, a),
            Bound::Sum(a, b) => a
                .eval(grid, block, len)?
                .checked_add(b.eval(grid, block, len)?)?,
            Bound::Product(a, b) => a
                .eval(grid, block, len)?
                .checked_mul(b.eval(grid, block, len)?)?,
            Bound::Minus(a, n) => a.eval(grid, block, len)?.checked_sub(*n)?,
            Bound::Quotient(a, d) => a.eval(grid, block, len)?.checked_div(*d)?,
            Bound::ShiftRight(a, s) => a.eval(grid, block, len)?.checked_shr(*s)?,
            Bound::Min(a, c) => a.eval(grid, block, len)?.min(*c),
            Bound::NoWrap(a, top) => Some(a.eval(grid, block, len)?).filter(|v| v <= top)?,
            Bound::BelowLen(a, p) => a.eval(grid, block, len)?.min(len(*p)?.saturating_sub(1)),
        })
    }
}

/// One check the launch must prove: every index into parameter `param` (a slice, counted
/// among the kernel's parameters) is at most `max_index`, which must be below its length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchCondition {
    pub param: usize,
    pub max_index: Bound,
}

impl LaunchCondition {
    /// Whether a launch of `grid` blocks of `block` threads whose slice parameter `p`
    /// has `len(p)` elements proves the check.
    pub fn holds(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        len: &dyn Fn(usize) -> Option<u64>,
    ) -> bool {
        let max = self.max_index.eval(grid, block, len);
        max.zip(len(self.param)).is_some_and(|(max, len)| max < len)
    }
}

/// A kernel's copy without the checks its launches can prove, and the conditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchProof {
    pub kernel: String,
    /// The copy's symbol in the module (`<kernel>__launch_proven`).
    pub symbol: String,
    pub conditions: Vec<LaunchCondition>,
}

/// The conditions of `kernel`'s launch-provable checks and their index expressions (the
/// copy's `proven` set), or `None` when it has none.
pub fn plan(
    kernel: &Function,
    ranges: &Ranges<'_>,
) -> Option<(Vec<LaunchCondition>, HashSet<Handle<Expr>>)> {
    // The parameter each index indexes, for indices used only as the first projection of
    // a place rooted at an immutable slice parameter; `None` marks any other use.
    let mut uses: HashMap<Handle<Expr>, Option<usize>> = HashMap::new();
    places_in_block(kernel, &kernel.body, &mut |place| {
        let param = slice_param(kernel, &place.root);
        for (k, projection) in place.projections.iter().enumerate() {
            if let Projection::Index(index) = projection {
                let this = if k == 0 { param } else { None };
                let entry = uses.entry(*index).or_insert(this);
                if *entry != this {
                    *entry = None;
                }
            }
        }
    });
    let mut indices: Vec<(Handle<Expr>, usize)> = uses
        .into_iter()
        .filter_map(|(index, param)| Some((index, param?)))
        .collect();
    // Arena order: the conditions (and the written text) do not depend on hashing.
    indices.sort_by_key(|(index, _)| index.index());
    let compared = compared_locals(kernel);
    let guards = length_guards(kernel, ranges);
    let mut conditions: Vec<LaunchCondition> = Vec::new();
    let mut proven = HashSet::new();
    for (index, param) in indices {
        let max_index = if reads_any(kernel, ranges, index, &compared) {
            // The kernel compares the index itself: its grid overshoots the data, and
            // only a guard `i < s.len()` around the read bounds it (by `s`'s length).
            guarded_max(kernel, ranges, index, &guards)
        } else {
            match ranges.launch_max(index) {
                // A constant bound is decided at compile time or never: the writer's.
                Some(Bound::Const(_)) => None,
                Some(max_index) => Some(max_index),
                // A grid-stride loop's variable: below its range's end, a length.
                None => loop_max(kernel, ranges, index),
            }
        };
        let max_index = match max_index {
            // `if i < s.len() { s[i] }`, `for i in a..s.len() { s[i] }`: no launch fails
            // it, and libnvvm drops the check anyway; a kernel with only such reads gets
            // no copy (it would be the kernel again, compiled twice).
            Some(Bound::BelowLen(_, slice)) if slice == param => {
                proven.insert(index);
                continue;
            }
            Some(max_index) => max_index,
            None => continue,
        };
        proven.insert(index);
        let condition = LaunchCondition { param, max_index };
        if !conditions.contains(&condition) {
            conditions.push(condition);
        }
    }
    (!conditions.is_empty()).then_some((conditions, proven))
}

/// The position of the immutable slice parameter `root` reads, if it is one.
fn slice_param(kernel: &Function, root: &PlaceRoot) -> Option<usize> {
    let PlaceRoot::Pointee(slice) = root else {
        return None;
    };
    slice_param_read(kernel, *slice)
}

/// The position of the slice parameter `h` reads, when `h` reads one whose binding is
/// not `mut` (so it is the argument for the whole launch).
fn slice_param_read(kernel: &Function, h: Handle<Expr>) -> Option<usize> {
    let ExprKind::Local(local) = kernel.exprs.get(h)?.kind else {
        return None;
    };
    kernel.params.iter().position(|p| {
        p.local == local && matches!(p.ty, Type::Slice { .. }) && !kernel.locals[local].mutable
    })
}

/// The locals an `if` condition compares with `<`, `<=`, `>` or `>=` (`if i < n`,
/// `if i >= n { return; }`): a kernel that guards its index that way is launched with
/// more threads than elements, and the grid alone does not bound the index (only a
/// guard on a slice's length does: [`guarded_max`]).
fn compared_locals(kernel: &Function) -> HashSet<Handle<Local>> {
    let mut compared = HashSet::new();
    exprs_in_block(kernel, &kernel.body, &mut |_, e| {
        let ExprKind::If { cond, .. } = &e.kind else {
            return;
        };
        exprs_in_expr(kernel, *cond, &mut |_, c| {
            let ExprKind::Binary {
                op: BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
                lhs,
                rhs,
            } = &c.kind
            else {
                return;
            };
            for side in [lhs, rhs] {
                if let Some(ExprKind::Local(l)) = kernel.exprs.get(*side).map(|e| &e.kind) {
                    compared.insert(*l);
                }
            }
        });
    });
    compared
}

/// For each expression read only under `if i < s.len() { .. }` (also `s.len() > i`,
/// and each side of `&&`), or after `if i >= s.len() { return; }` in its block (also
/// `s.len() <= i`, and each side of `||`), the pairs (`i`, `s`'s position among the
/// parameters) of those guards; `i` a local and `s` a slice parameter, neither of them
/// `mut`, so neither changes after the guard.
fn length_guards(
    kernel: &Function,
    ranges: &Ranges<'_>,
) -> HashMap<Handle<Expr>, Vec<(Handle<Local>, usize)>> {
    let mut guards: HashMap<Handle<Expr>, Vec<(Handle<Local>, usize)>> = HashMap::new();
    blocks_in_function(kernel, &mut |block| {
        for (k, stmt) in block.stmts.iter().enumerate() {
            let Stmt::Expr(h) = stmt else {
                continue;
            };
            let Some(ExprKind::If {
                cond,
                then_block,
                else_block: None,
            }) = kernel.exprs.get(*h).map(|e| &e.kind)
            else {
                continue;
            };
            if !ends_in_return(kernel, then_block) {
                continue;
            }
            let mut pairs = Vec::new();
            length_guard_pairs(kernel, ranges, *cond, Polarity::Exits, &mut pairs);
            if pairs.is_empty() {
                continue;
            }
            let rest = Block {
                stmts: block.stmts[k + 1..].to_vec(),
                tail: block.tail,
            };
            guard_block(kernel, &rest, &pairs, &mut guards);
        }
    });
    exprs_in_block(kernel, &kernel.body, &mut |_, e| {
        let ExprKind::If {
            cond, then_block, ..
        } = &e.kind
        else {
            return;
        };
        let mut pairs = Vec::new();
        length_guard_pairs(kernel, ranges, *cond, Polarity::Enters, &mut pairs);
        if pairs.is_empty() {
            return;
        }
        guard_block(kernel, then_block, &pairs, &mut guards);
    });
    guards
}

/// Records `pairs` as guards of every expression in `block`, nested ones included.
fn guard_block(
    kernel: &Function,
    block: &Block,
    pairs: &[(Handle<Local>, usize)],
    guards: &mut HashMap<Handle<Expr>, Vec<(Handle<Local>, usize)>>,
) {
    exprs_in_block(kernel, block, &mut |h, _| {
        guards.entry(h).or_default().extend_from_slice(pairs);
    });
}

/// Whether a guard's block runs the guarded code (`if i < n { .. }`) or leaves it
/// (`if i >= n { return; }`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Polarity {
    Enters,
    Exits,
}

/// Whether `block`'s last statement (or its tail) is a `return`: what follows the `if`
/// that holds it runs only where the condition was false.
fn ends_in_return(kernel: &Function, block: &Block) -> bool {
    let last = match (block.tail, block.stmts.last()) {
        (Some(tail), _) => tail,
        (None, Some(Stmt::Expr(h))) => *h,
        _ => return false,
    };
    matches!(
        kernel.exprs.get(last).map(|e| &e.kind),
        Some(ExprKind::Return(None))
    )
}

/// The (`i`, slice parameter) pairs that `cond` implies `i < s.len()` of: where it is
/// true (`Enters`), or where it is false (`Exits`).
fn length_guard_pairs(
    kernel: &Function,
    ranges: &Ranges<'_>,
    cond: Handle<Expr>,
    polarity: Polarity,
    out: &mut Vec<(Handle<Local>, usize)>,
) {
    let Some(e) = kernel.exprs.get(cond) else {
        return;
    };
    let immutable_local = |h: Handle<Expr>| match kernel.exprs.get(h).map(|e| &e.kind) {
        Some(ExprKind::Local(l)) if !kernel.locals[*l].mutable => Some(*l),
        _ => None,
    };
    let slice_len = |h: Handle<Expr>| slice_len_param(kernel, ranges, h);
    // `i < n` where it is true, `i >= n` where it is false; `&&` and `||` likewise.
    let (below, joined) = match polarity {
        Polarity::Enters => (BinaryOp::Lt, LogicalOp::And),
        Polarity::Exits => (BinaryOp::Ge, LogicalOp::Or),
    };
    let mirrored = |op| match op {
        BinaryOp::Lt => BinaryOp::Gt,
        _ => BinaryOp::Le,
    };
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } if *op == below => {
            if let Some(pair) = immutable_local(*lhs).zip(slice_len(*rhs)) {
                out.push(pair);
            }
        }
        ExprKind::Binary { op, lhs, rhs } if *op == mirrored(below) => {
            if let Some(pair) = immutable_local(*rhs).zip(slice_len(*lhs)) {
                out.push(pair);
            }
        }
        ExprKind::Logical { op, lhs, rhs } if *op == joined => {
            length_guard_pairs(kernel, ranges, *lhs, polarity, out);
            length_guard_pairs(kernel, ranges, *rhs, polarity, out);
        }
        _ => {}
    }
}

/// The slice parameter whose length `h` is: `s.len()`, or a non-`mut` local (through a
/// chain of `let`s) bound to it (`let n = s.len(); if i < n { .. }`).
fn slice_len_param(kernel: &Function, ranges: &Ranges<'_>, mut h: Handle<Expr>) -> Option<usize> {
    loop {
        match kernel.exprs.get(h)?.kind {
            ExprKind::Len(slice) => return slice_param_read(kernel, slice),
            ExprKind::Local(n) if !kernel.locals[n].mutable => h = ranges.let_init(n)?,
            _ => return None,
        }
    }
}

/// The bound of `index` where it is an immutable local, or a chain of `let`s of one,
/// that an enclosing `if i < s.len()` guards ([`length_guards`]): its launch's bound,
/// capped below `s.len()` (`vecadd`'s `if i < c.len() { c[i] = a[i] + b[i]; }`
/// proves `a[i]` when `a` is at least as long as the grid or as `c`).
fn guarded_max(
    kernel: &Function,
    ranges: &Ranges<'_>,
    index: Handle<Expr>,
    guards: &HashMap<Handle<Expr>, Vec<(Handle<Local>, usize)>>,
) -> Option<Bound> {
    let in_scope = guards.get(&index)?;
    let slice = let_chain(kernel, ranges, index)
        .into_iter()
        .find_map(|local| {
            let guard = in_scope.iter().find(|(guarded, _)| *guarded == local)?;
            Some(guard.1)
        })?;
    Some(Bound::BelowLen(Box::new(ranges.launch_max(index)?), slice))
}

/// The bound of `index` where it is the variable of `for i in start..s.len()` (or a
/// chain of `let`s of it), `s` a slice parameter: below `s.len()`, whatever the launch
/// (`for i in (grid(1)..y.len()).step_by(grid_size(1)) { y[i] = a * x[i] + y[i]; }`
/// proves `x[i]` when `x` is as long as `y`).
fn loop_max(kernel: &Function, ranges: &Ranges<'_>, index: Handle<Expr>) -> Option<Bound> {
    let end = let_chain(kernel, ranges, index)
        .into_iter()
        .find_map(|local| ranges.exclusive_loop_end(local))?;
    let slice = slice_len_param(kernel, ranges, end)?;
    Some(Bound::BelowLen(Box::new(Bound::Const(u64::MAX)), slice))
}

/// The locals `index` reads through a chain of `let`s of non-`mut` locals, nearest
/// first (`[j, i]` for `x[j]` after `let j = i;`); empty when it reads none directly.
fn let_chain(kernel: &Function, ranges: &Ranges<'_>, index: Handle<Expr>) -> Vec<Handle<Local>> {
    let mut chain = Vec::new();
    let mut read = Some(index);
    while let Some(ExprKind::Local(local)) = read.and_then(|r| kernel.exprs.get(r)).map(|e| &e.kind)
    {
        if kernel.locals[*local].mutable {
            break;
        }
        chain.push(*local);
        read = ranges.let_init(*local);
    }
    chain
}

/// Whether `h` reads one of `locals`, directly or through the `let`s it reads.
fn reads_any(
    kernel: &Function,
    ranges: &Ranges<'_>,
    h: Handle<Expr>,
    locals: &HashSet<Handle<Local>>,
) -> bool {
    let mut pending = vec![h];
    let mut seen = HashSet::new();
    let mut found = false;
    while let Some(next) = pending.pop() {
        if !seen.insert(next) {
            continue;
        }
        exprs_in_expr(kernel, next, &mut |_, e| {
            if let ExprKind::Local(l) = e.kind {
                found |= locals.contains(&l);
                pending.extend(ranges.let_init(l));
            }
        });
    }
    found
}
