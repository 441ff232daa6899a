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
use crate::ir::visit::{exprs_in_block, exprs_in_expr, places_in_block};
use crate::ir::{
    Axis, BinaryOp, Expr, ExprKind, Function, Handle, Local, PlaceRoot, Projection, Type,
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
}

impl Bound {
    /// The bound's value for a launch of `grid` blocks of `block` threads, or `None` when
    /// it is unknown for that launch (an operation could wrap).
    pub fn eval(&self, grid: [u32; 3], block: [u32; 3]) -> Option<u64> {
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
            Bound::Sum(a, b) => a.eval(grid, block)?.checked_add(b.eval(grid, block)?)?,
            Bound::Product(a, b) => a.eval(grid, block)?.checked_mul(b.eval(grid, block)?)?,
            Bound::Minus(a, n) => a.eval(grid, block)?.checked_sub(*n)?,
            Bound::Quotient(a, d) => a.eval(grid, block)?.checked_div(*d)?,
            Bound::ShiftRight(a, s) => a.eval(grid, block)?.checked_shr(*s)?,
            Bound::Min(a, c) => a.eval(grid, block)?.min(*c),
            Bound::NoWrap(a, top) => Some(a.eval(grid, block)?).filter(|v| v <= top)?,
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
    /// Whether a launch of `grid` blocks of `block` threads, with `len` elements in the
    /// parameter's slice, proves the check.
    pub fn holds(&self, grid: [u32; 3], block: [u32; 3], len: u64) -> bool {
        self.max_index
            .eval(grid, block)
            .is_some_and(|max| max < len)
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
    let guarded = compared_locals(kernel);
    let mut conditions: Vec<LaunchCondition> = Vec::new();
    let mut proven = HashSet::new();
    for (index, param) in indices {
        if reads_any(kernel, ranges, index, &guarded) {
            continue;
        }
        let Some(max_index) = ranges.launch_max(index) else {
            continue;
        };
        // A constant bound is decided at compile time or never: leave it to the writer.
        if matches!(max_index, Bound::Const(_)) {
            continue;
        }
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
    let ExprKind::Local(local) = kernel.exprs.get(*slice)?.kind else {
        return None;
    };
    kernel.params.iter().position(|p| {
        p.local == local && matches!(p.ty, Type::Slice { .. }) && !kernel.locals[local].mutable
    })
}

/// The locals an `if` condition compares with `<`, `<=`, `>` or `>=` (`if i < n`,
/// `if i >= n { return; }`): a kernel that guards its index that way is launched with
/// more threads than elements, and its launches would not prove the index. Writing a
/// copy for it would only lengthen the first compile.
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
