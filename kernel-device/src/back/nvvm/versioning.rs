//! Printing bounds-check versioning (`Stmt::Versioned`, built by `opt::version`, which
//! says what is versioned and why): a run of statements is written twice,
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

use super::state::{FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{Block, Expr, GuardOp, Handle, Length, VersionKind, Versioned};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// A block's statements, then its tail's value.
    pub fn block(&mut self, block: &'a Block) -> Result<Val, Error> {
        for stmt in &block.stmts {
            self.stmt(stmt)?;
        }
        match block.tail {
            Some(tail) => self.expr(tail),
            None => Ok(Val::Unit),
        }
    }

    /// A versioned statement (built by `opt::version`).
    pub(super) fn versioned(&mut self, v: &'a Versioned) -> Result<(), Error> {
        if v.kind == VersionKind::Loop {
            return self.versioned_loop(v);
        }
        let write_fast = |w: &mut Self| w.block(&v.fast).map(|_| ());
        let write_checked = |w: &mut Self| w.block(&v.checked).map(|_| ());
        match self.guard(&v.guard.ops, None)? {
            Some(guard) => self.versions(&guard, "run", write_fast, write_checked),
            // Every planned check was decided at compile time: only the fast copy.
            None => write_fast(self),
        }
    }

    /// `br guard, fast, checked`, then the two copies, `checked` cold (it runs only
    /// when the guard fails), both continuing at one join.
    pub(super) fn versions(
        &mut self,
        guard: &str,
        name: &str,
        write_fast: impl FnOnce(&mut Self) -> Result<(), Error>,
        write_checked: impl FnOnce(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let fast_l = self.label(&format!("{name}.fast"));
        let checked_l = self.label(&format!("{name}.checked"));
        let join_l = self.label(&format!("{name}.join"));
        self.terminate(format!(
            "br i1 {guard}, label %{fast_l}, label %{checked_l}, !prof {}",
            super::state::LIKELY_TRUE_BRANCH_WEIGHTS
        ));
        self.start_block(&fast_l);
        let fast_sites = self.w.panic_sites.len();
        write_fast(self)?;
        self.branch_to(&join_l);
        self.start_block(&checked_l);
        // The checks both copies keep report through the same panic sites.
        let outer = std::mem::replace(
            &mut self.w.reusable_sites,
            fast_sites..self.w.panic_sites.len(),
        );
        let written = write_checked(self);
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
        // debug info: the guard runs before the statement, so it carries the
        // statement's line, not its indices' (a breakpoint on an index's line must not
        // stop in the guard, before the lines above it have run).
        let pinned = self.pin_loc();
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
        self.unpin_loc(pinned);
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
}
