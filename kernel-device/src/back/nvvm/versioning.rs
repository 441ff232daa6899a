//! Bounds-check versioning: each run of simple statements in a bounds-checked function
//! (see [`super::check_plan`]) whose indices the guard can compute is written twice,
//!
//! ```text
//!   guard: every planned index < its length        (pure: no load, no panic)
//!   br guard, fast, checked
//!   fast:    the run without the planned checks     (its other checks kept)
//!   checked: the run as written
//! ```
//!
//! Every local lives in a stack slot, so the two copies need no phis. The semantics are
//! exact either way: the guard only computes values, and a run whose guard fails runs
//! with every check, panicking where and as it would have. Why: a check is a branch to
//! a thread exit, and libnvvm's LLVM 7 neither hoists a load above such a branch nor
//! vectorises or batches loads across it, so a loop of checked loads issues them one
//! by one; the fast copy has straight-line loads again.

use std::collections::HashSet;

use super::function::{FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{self, visit, Block, Expr, Handle, Local, Stmt};
use crate::opt::check_plan::{GuardOp, Length, Planner};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// A block's statements, runs of simple ones versioned, then its tail's value.
    ///
    /// Device functions are written as they are: they are inlined into call sites this
    /// writer does not see, typically loops where the guard would be invariant, and
    /// there LLVM's unswitching of the checks themselves does better (a versioned
    /// xoroshiro128+ step kept its state in memory: Monte-Carlo π ran 6x slower).
    pub fn block(&mut self, block: &'a Block) -> Result<Val, Error> {
        if !self.func.options.bounds_check
            || self.plain_depth > 0
            || self.func.kind != crate::ir::FunctionKind::Kernel
        {
            return self.plain_block(block);
        }
        let no_proofs = std::collections::HashSet::new();
        let ranges = self.ranges;
        let planner = Planner::new(self.func, self.w.module, &no_proofs, &ranges);
        let stmts = &block.stmts;
        let mut i = 0;
        while i < stmts.len() {
            if !planner.is_simple(&stmts[i]) {
                self.stmt(&stmts[i])?;
                i += 1;
                continue;
            }
            let start = i;
            while i < stmts.len() && planner.is_simple(&stmts[i]) {
                i += 1;
            }
            self.run(&stmts[start..i])?;
        }
        match block.tail {
            Some(tail) => self.expr(tail),
            None => Ok(Val::Unit),
        }
    }

    /// A block written as it is, without versioning its runs.
    pub fn plain_block(&mut self, block: &'a Block) -> Result<Val, Error> {
        for stmt in &block.stmts {
            self.stmt(stmt)?;
        }
        match block.tail {
            Some(tail) => self.expr(tail),
            None => Ok(Val::Unit),
        }
    }

    /// One run of simple statements: guarded fast copy and checked copy, or as written.
    fn run(&mut self, stmts: &'a [Stmt]) -> Result<(), Error> {
        let ranges = self.ranges;
        let plan = Planner::new(self.func, self.w.module, &self.proven, &ranges).plan(stmts);
        self.plain_depth += 1;
        let result = match plan {
            None => stmts.iter().try_for_each(|s| self.stmt(s)),
            Some(plan) => self.versioned_run(stmts, plan),
        };
        self.plain_depth -= 1;
        result
    }

    fn versioned_run(
        &mut self,
        stmts: &'a [Stmt],
        plan: crate::opt::check_plan::Plan,
    ) -> Result<(), Error> {
        let write = |w: &mut Self| stmts.iter().try_for_each(|s| w.stmt(s));
        match self.guard(&plan.ops, None)? {
            Some(guard) => self.versions(&guard, "run", &plan.decided, write),
            // Every planned check was decided at compile time: only the fast copy.
            None => self.without_checks(&plan.decided, write),
        }
    }

    /// `br guard, fast, checked`, then `write` twice: in `fast` without the checks of
    /// `decided`, in `checked` as written (cold: it runs only when the guard fails),
    /// both continuing at one join.
    pub(super) fn versions(
        &mut self,
        guard: &str,
        name: &str,
        decided: &HashSet<Handle<Expr>>,
        mut write: impl FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let fast_l = self.label(&format!("{name}.fast"));
        let checked_l = self.label(&format!("{name}.checked"));
        let join_l = self.label(&format!("{name}.join"));
        self.terminate(format!(
            "br i1 {guard}, label %{fast_l}, label %{checked_l}, !prof {}",
            super::writer::LIKELY_TRUE_BRANCH_WEIGHTS
        ));
        self.start_block(&fast_l);
        let fast_sites = self.w.panic_sites.len();
        self.without_checks(decided, &mut write)?;
        self.branch_to(&join_l);
        self.start_block(&checked_l);
        // The checks both copies keep report through the same panic sites.
        let outer = std::mem::replace(
            &mut self.w.reusable_sites,
            fast_sites..self.w.panic_sites.len(),
        );
        self.cold_depth += 1;
        let written = write(self);
        self.cold_depth -= 1;
        self.w.reusable_sites = outer;
        written?;
        self.branch_to(&join_l);
        self.start_block(&join_l);
        Ok(())
    }

    /// The guard's steps written out; its condition, or `None` when it compares nothing.
    /// `across` has the values of the run-time loop a loop's guard is for.
    pub fn guard(
        &mut self,
        ops: &[GuardOp],
        across: Option<&super::loop_versioning::LoopValues>,
    ) -> Result<Option<String>, Error> {
        let mut guard: Option<String> = None;
        let mut recorded = std::collections::HashMap::new();
        for op in ops {
            match op {
                GuardOp::PreLet { local, init } => {
                    let Val::V(v) = self.expr(*init)? else {
                        return Err(self.error("a pure `let` initialiser has no value"));
                    };
                    if let Some((addr, ty)) = self.slot(*local)? {
                        self.store(&ty, &v, &addr);
                    }
                }
                GuardOp::SetVar { local, bits } => {
                    let s = self
                        .ir_local(*local)?
                        .ty
                        .scalar()
                        .ok_or_else(|| self.error("a loop variable that is not a scalar"))?;
                    if let Some((addr, ty)) = self.slot(*local)? {
                        self.store(&ty, &types::int_const(s, *bits), &addr);
                    }
                }
                GuardOp::SetLoopVar { local, second } => {
                    let Some(values) = across else {
                        return Err(self.error("a loop's guard step in a run's guard"));
                    };
                    let v = if *second {
                        values.second.clone()
                    } else {
                        values.start.clone()
                    };
                    if let Some((addr, ty)) = self.slot(*local)? {
                        self.store(&ty, &v, &addr);
                    }
                }
                GuardOp::Check { index, len } => {
                    let i = self.guard_index(*index)?;
                    let len = self.guard_len(len)?;
                    let ok = self.def("guard.ok", format!("icmp ult i64 {i}, {len}"));
                    guard = Some(self.guard_and(guard, ok));
                }
                GuardOp::Record { index, slot } => {
                    let first = self.guard_index(*index)?;
                    recorded.insert(*slot, first);
                }
                GuardOp::CheckStrided {
                    index,
                    len,
                    slot,
                    trips,
                } => {
                    let Some(first) = recorded.get(slot).cloned() else {
                        return Err(self.error("a strided guard without its first value"));
                    };
                    let second = self.guard_index(*index)?;
                    let len = self.guard_len(len)?;
                    let ok = self.strided_ok(&first, &second, &len, *trips);
                    guard = Some(self.guard_and(guard, ok));
                }
                GuardOp::CheckAcross {
                    index,
                    len,
                    slot,
                    bound,
                } => {
                    let (Some(values), Some(first)) = (across, recorded.get(slot).cloned()) else {
                        return Err(self.error("a loop's guard without its loop or first value"));
                    };
                    let second = self.guard_index(*index)?;
                    let len = self.guard_len(len)?;
                    let ok = self.across_ok(values, bound.as_ref(), [&first, &second], &len)?;
                    guard = Some(self.guard_and(guard, ok));
                }
            }
        }
        Ok(guard)
    }

    /// A planned index's value in the guard.
    fn guard_index(&mut self, index: Handle<Expr>) -> Result<String, Error> {
        match self.expr(index)? {
            Val::V(i) => Ok(i),
            _ => Err(self.error("a pure index has no value")),
        }
    }

    /// The length a planned index is compared with.
    fn guard_len(&mut self, len: &Length) -> Result<String, Error> {
        Ok(match len {
            Length::Const(n) => n.to_string(),
            Length::OfSlice(slice) => {
                let ty = types::value(self.ty_of(*slice)?).map_err(|e| self.error(e.0))?;
                let Val::V(s) = self.expr(*slice)? else {
                    return Err(self.error("a pure slice has no value"));
                };
                self.def("guard.len", format!("extractvalue {ty} {s}, 1"))
            }
        })
    }

    /// `first < len && second - first <= (len - 1 - first) / (trips - 1)`: every value
    /// of an affine index over the loop's `trips` elements is below `len`, without
    /// wrapping (see `GuardOp::CheckStrided`), written without the division as
    /// `first < len && step <= (2^63 - 1) / k && first + k * step < len` (`k = trips -
    /// 1`). The same condition: a length is at most `isize::MAX` (Rust's bound on a
    /// slice, and ours on a constant), so `k * step <= len - 1 - first` already implies
    /// the middle test, which in turn keeps `k * step` and the sum from wrapping.
    fn strided_ok(&mut self, first: &str, second: &str, len: &str, trips: u64) -> String {
        let k = trips.saturating_sub(1).max(1);
        let first_ok = self.def("guard.first", format!("icmp ult i64 {first}, {len}"));
        let step = self.def("guard.step", format!("sub i64 {second}, {first}"));
        let small = self.def(
            "guard.small",
            format!("icmp ule i64 {step}, {}", (i64::MAX as u64) / k),
        );
        let span = self.def("guard.span", format!("mul i64 {step}, {k}"));
        let last = self.def("guard.last", format!("add i64 {first}, {span}"));
        let last_ok = self.def("guard.lastok", format!("icmp ult i64 {last}, {len}"));
        let step_ok = self.def("guard.stepok", format!("and i1 {small}, {last_ok}"));
        self.def("guard.ok", format!("and i1 {first_ok}, {step_ok}"))
    }

    pub(super) fn guard_and(&mut self, guard: Option<String>, ok: String) -> String {
        match guard {
            None => ok,
            Some(g) => self.def("guard", format!("and i1 {g}, {ok}")),
        }
    }

    /// `write` without the checks of the indices in `decided`.
    fn without_checks(
        &mut self,
        decided: &HashSet<Handle<Expr>>,
        mut write: impl FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let before = self.proven.clone();
        self.proven.extend(decided.iter().copied());
        let result = write(self);
        self.proven = before;
        result
    }
}

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
            Stmt::While { .. } | Stmt::ForRange { .. } => return false,
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
            if !crate::opt::effects::may_be_duplicated(*intrinsic) =>
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
