//! Bounds-check versioning as IR: [`Versioned`] runs a fast copy of some code, without
//! the checks its [`Guard`] decides, when the guard holds, and the code as written
//! otherwise. The optimiser (`opt::version`) builds these statements; the NVVM writer
//! prints them and the simulator runs them, so a wrong guard shows up in the
//! simulator's fuzz test as an unchecked out-of-bounds access.
//!
//! A guard's steps only compute values: evaluating one reads no memory and cannot
//! panic. Its comparisons are defined here once ([`strided_ok`], [`across_ok`],
//! [`bounded_iterations`], in wrapping `u64` arithmetic), and the NVVM writer emits the
//! same arithmetic as instructions.

use super::{Block, Expr, Handle, Local};

/// Code written twice: `fast` when `guard` holds, `checked` (cold) otherwise.
#[derive(Clone, Debug)]
pub struct Versioned {
    pub guard: Guard,
    /// The code without the checks the guard decides (a deep copy: fresh expression
    /// handles, its decided indices in `Function::unchecked_indices`).
    pub fast: Block,
    /// The code as written; it runs only when the guard fails.
    pub checked: Block,
    pub kind: VersionKind,
}

/// What a [`Versioned`] statement's copies hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionKind {
    /// A straight-line run of statements.
    Run,
    /// One `for` loop each (`Stmt::ForRange`), sharing their `start`, `end` and `step`
    /// expressions: these are evaluated once, before the guard, whose steps may use the
    /// loop's first two elements and its trip count.
    Loop,
}

/// The pure checks that choose a [`Versioned`] statement's copy.
#[derive(Clone, Debug, Default)]
pub struct Guard {
    pub ops: Vec<GuardOp>,
    /// A loop's guard whose body has `sync_threads()`: every thread of the block must
    /// take the same copy, so the threads' guards are and-ed (where the loop has
    /// iterations) before the loop.
    pub block_uniform: bool,
}

impl Guard {
    /// Whether the guard compares anything at run time (if not, only the fast copy is
    /// ever taken: every check it decides was decided at compile time).
    pub fn compares(&self) -> bool {
        self.ops.iter().any(|op| {
            matches!(
                op,
                GuardOp::Check { .. } | GuardOp::CheckStrided { .. } | GuardOp::CheckAcross { .. }
            )
        })
    }
}

/// The length an index is compared with.
#[derive(Clone, Debug)]
pub enum Length {
    Const(u64),
    /// The length of the slice `expr` (a pure expression).
    OfSlice(Handle<Expr>),
}

/// One step of a guard, in order.
#[derive(Clone, Debug)]
pub enum GuardOp {
    /// Evaluate `init` and store it in `local` (its `let` runs again, identically).
    PreLet {
        local: Handle<Local>,
        init: Handle<Expr>,
    },
    /// Store the element `bits` (of the variable's type) in a loop variable.
    SetVar { local: Handle<Local>, bits: u64 },
    /// `index < len` must hold.
    Check { index: Handle<Expr>, len: Length },
    /// Evaluate `index` (at a literal loop's first element) and keep it as `slot`.
    Record { index: Handle<Expr>, slot: usize },
    /// At the loop's second element: `index` is affine in the loop's variable (wrapping
    /// 64-bit arithmetic), so its `trips` values are `first + k * (this - first)` modulo
    /// 2^64, `first` being the value kept in `slot`: see [`strided_ok`].
    CheckStrided {
        index: Handle<Expr>,
        len: Length,
        slot: usize,
        trips: u64,
    },
    /// Store a versioned loop's first element (`second`: its first plus its step) in
    /// its variable.
    SetLoopVar { local: Handle<Local>, second: bool },
    /// At the versioned loop's second element: `index` is affine in the loop's
    /// variable, so over the iterations that reach it (all of them, or those `bound`
    /// lets through) it takes the values `first + k * (this - first)`, `first` kept in
    /// `slot`: see [`across_ok`].
    CheckAcross {
        index: Handle<Expr>,
        len: Length,
        slot: usize,
        bound: Option<LoopBound>,
    },
}

/// An `if v + offset < limit` (`<=` when `inclusive`) around a check inside a guarded
/// loop over `v`: `limit` a value the guard computes, the same on every iteration.
#[derive(Clone, Debug)]
pub struct LoopBound {
    pub offset: u64,
    pub limit: Handle<Expr>,
    pub inclusive: bool,
    /// The largest value of `v`'s type (`u32::MAX` for a `u32` k loop): `v + offset`
    /// wraps past it, so the count holds only while `end <= top - offset`.
    pub top: u64,
}

/// Whether the `trips` values `first + k * (second - first)` (wrapping) are all below
/// `len`: `first < len`, `step <= (2^63 - 1) / k` and `first + k * step < len`, with
/// `k = max(trips - 1, 1)`. A length is at most `isize::MAX`, so then nothing wraps.
pub fn strided_ok(first: u64, second: u64, len: u64, trips: u64) -> bool {
    let k = trips.saturating_sub(1).max(1);
    let step = second.wrapping_sub(first);
    let last = first.wrapping_add(step.wrapping_mul(k));
    first < len && step <= (i64::MAX as u64) / k && last < len
}

/// Whether an index affine in a loop's variable, `first` at its first element and
/// `second` at its second, is below `len` on each of `count` iterations:
/// `first < len` and `(count - 1) * (second - first) <= len - 1 - first` without
/// wrapping.
pub fn across_ok(first: u64, second: u64, len: u64, count: u64) -> bool {
    let stride = second.wrapping_sub(first);
    let k = count.saturating_sub(1);
    let (span, wraps) = stride.overflowing_mul(k);
    let room = len.wrapping_sub(first).wrapping_sub(1);
    first < len && span <= room && !wraps
}

/// How many of a loop's first iterations pass `v + offset < limit` (`<=` when
/// `inclusive`), for the elements `start + i * step` (every value zero-extended from
/// `v`'s type); and whether `v + offset` cannot wrap in that type (`end <= top -
/// offset`), which the count assumes.
pub fn bounded_iterations(
    bound: &LoopBound,
    limit: u64,
    [start, end, step]: [u64; 3],
) -> (u64, bool) {
    let lo = start.wrapping_add(bound.offset);
    let (some, slack) = if bound.inclusive {
        (limit >= lo, 0u64)
    } else {
        (limit > lo, u64::MAX)
    };
    let diff = limit.wrapping_sub(lo).wrapping_add(slack);
    let n = if some { diff / step.max(1) + 1 } else { 0 };
    (n, no_wrap_below(bound).is_some_and(|last| end <= last))
}

/// The largest loop end under which `v + offset` cannot wrap in `v`'s type.
pub fn no_wrap_below(bound: &LoopBound) -> Option<u64> {
    bound.top.checked_sub(bound.offset)
}
