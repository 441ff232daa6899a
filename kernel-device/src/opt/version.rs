//! Bounds-check versioning as IR (see [`crate::ir::guard`]): in a bounds-checked
//! kernel (and, for the alignment of its `cp_async`s alone, a loop of any kernel), each run of simple statements whose checks a guard can decide ([`check_plan`])
//! and each `for` loop with a run-time trip count whose affine indices a guard can
//! decide before the loop ([`check_plan::Planner::plan_loop`]) becomes a
//! [`Stmt::Versioned`]: the guard, a fast copy without the decided checks and the code
//! as written (cold: it runs only when the guard fails). Loops also get their unroll
//! hints here ([`super::unroll`]).
//!
//! Why: a check is a branch to a thread exit, and libnvvm's LLVM 7 neither hoists a
//! load above such a branch nor vectorises or batches loads across it, so a loop of
//! checked loads issues them one by one; the fast copy has straight-line loads again.
//! A loop's guard is computed once: run guards inside the body would be paid on every
//! iteration (the register-tiled SGEMM's prefetch spent 9% of its time on them).
//!
//! What is versioned where: runs, in kernels only (device functions are inlined into
//! loops where LLVM's unswitching of the checks does better: a versioned xoroshiro128+
//! step kept its state in memory, Monte-Carlo π ran 6x slower); nothing inside a run's
//! copies; no loop inside a loop's copies (no code is written more than twice), nor
//! inside a predicated prefetch, nor a reversed loop or an inclusive 64-bit one.

use std::collections::{HashMap, HashSet};

use super::check_plan::{self, Planner};
use super::ranges::RangeFacts;
use super::unroll::{may_stay_rolled, unrolls_like_unchecked, CHECKED_CALL_UNROLL};
use crate::ir::copy::Copier;
use crate::ir::{
    Block, Expr, ExprKind, Function, FunctionKind, Guard, Handle, Module, Stmt, Type, Unroll,
    VersionKind, Versioned,
};

/// Where a block is written.
#[derive(Clone, Copy, Default)]
struct Scope {
    /// Inside a versioned run's copies (or a run the planner left alone): as written.
    plain: bool,
    /// Inside a checked copy, which runs only when its guard fails.
    cold: bool,
    /// Inside a versioned loop's copies.
    in_loop_copy: bool,
    /// Inside a predicated prefetch.
    predicated: bool,
}

/// Versions `func` (of `module`, as it was before any function was versioned), whose
/// ranges are `facts`; `proven`: the indices whose checks are decided where they are
/// (no guard plans them), all in `func.unchecked_indices`.
pub fn version_function(
    module: &Module,
    facts: &RangeFacts,
    func: &mut Function,
    proven: HashSet<Handle<Expr>>,
) {
    let copy_ends = if func.options.bounds_check && func.kind == FunctionKind::Kernel {
        check_plan::copy_source_ends(func)
    } else {
        HashMap::new()
    };
    let mut versioner = Versioner {
        module,
        facts,
        func,
        proven,
        copy_ends,
    };
    let body = std::mem::take(&mut versioner.func.body);
    versioner.func.body = versioner.block(body, Scope::default());
}

struct Versioner<'m, 'f> {
    module: &'m Module,
    facts: &'m RangeFacts,
    func: &'f mut Function,
    proven: HashSet<Handle<Expr>>,
    /// The last source element of each `cp_async` (see [`check_plan::copy_source_ends`]).
    copy_ends: HashMap<Handle<Expr>, Handle<Expr>>,
}

impl Versioner<'_, '_> {
    fn versions_runs(&self, scope: Scope) -> bool {
        self.func.options.bounds_check && self.func.kind == FunctionKind::Kernel && !scope.plain
    }

    fn block(&mut self, block: Block, scope: Scope) -> Block {
        let tail = block.tail;
        if let Some(t) = tail {
            self.expr(t, scope);
        }
        if !self.versions_runs(scope) {
            let stmts = block
                .stmts
                .into_iter()
                .map(|s| self.stmt(s, scope))
                .collect();
            return Block { stmts, tail };
        }
        let mut stmts = Vec::new();
        let mut pending = block.stmts.into_iter().peekable();
        while let Some(stmt) = pending.next() {
            if !self.is_simple(&stmt) {
                stmts.push(self.stmt(stmt, scope));
                continue;
            }
            let mut run = vec![stmt];
            while let Some(next) = pending.next_if(|s| self.is_simple(s)) {
                run.push(next);
            }
            self.run(run, scope, &mut stmts);
        }
        Block { stmts, tail }
    }

    fn is_simple(&self, stmt: &Stmt) -> bool {
        let none = HashSet::new();
        let ranges = self.facts.of(self.func);
        Planner::new(self.func, self.module, &none, &ranges).is_simple(stmt)
    }

    /// A run of simple statements: versioned when a guard decides enough of its checks.
    fn run(&mut self, run: Vec<Stmt>, scope: Scope, out: &mut Vec<Stmt>) {
        let plan = {
            let ranges = self.facts.of(self.func);
            Planner::new(self.func, self.module, &self.proven, &ranges)
                .with_copy_ends(&self.copy_ends)
                .plan(&run)
        };
        let plain = Scope {
            plain: true,
            ..scope
        };
        let Some(plan) = plan else {
            out.extend(run.into_iter().map(|s| self.stmt(s, plain)));
            return;
        };
        let original = Block {
            stmts: run,
            tail: None,
        };
        let (guard, fast) = self.fast_copy(&plan, &original, plain);
        let cold = Scope {
            cold: true,
            ..plain
        };
        let checked = self.block_as_is(original, cold);
        out.push(Stmt::Versioned(Box::new(Versioned {
            guard,
            fast,
            checked,
            kind: VersionKind::Run,
        })));
    }

    /// The statements of `block`, each rewritten in `scope` (no runs versioned here).
    fn block_as_is(&mut self, block: Block, scope: Scope) -> Block {
        let stmts = block
            .stmts
            .into_iter()
            .map(|s| self.stmt(s, scope))
            .collect();
        Block {
            stmts,
            tail: block.tail,
        }
    }

    /// A copy of `original` (and of the plan's guard) without the checks the plan
    /// decides, rewritten in `scope`.
    fn fast_copy(
        &mut self,
        plan: &check_plan::Plan,
        original: &Block,
        scope: Scope,
    ) -> (Guard, Block) {
        let guard = Guard {
            ops: plan.ops.clone(),
            block_uniform: plan.block_uniform,
        };
        let mut copier = Copier::new(self.func, &plan.decided);
        let copy = copier.block(original);
        let copies: Vec<_> = copier.copies().collect();
        for (copy, original) in copies {
            self.facts.record_copy(copy, original);
            if self.proven.contains(&original) || plan.decided.contains(&original) {
                self.proven.insert(copy);
            }
        }
        let fast = if scope.plain {
            self.block_as_is(copy, scope)
        } else {
            self.block(copy, scope)
        };
        (guard, fast)
    }

    fn stmt(&mut self, stmt: Stmt, scope: Scope) -> Stmt {
        match stmt {
            Stmt::Let { init, .. } => {
                init.into_iter().for_each(|h| self.expr(h, scope));
                stmt
            }
            Stmt::Assign {
                ref place, value, ..
            } => {
                crate::ir::visit::visit_place_exprs(place, &mut |h| self.expr(h, scope));
                self.expr(value, scope);
                stmt
            }
            Stmt::Expr(h) => {
                self.expr(h, scope);
                stmt
            }
            // print
            Stmt::Print(ref p) => {
                p.args.iter().for_each(|h| self.expr(*h, scope));
                stmt
            }
            Stmt::While { id, cond, body } => {
                self.expr(cond, scope);
                let body = self.block(body, scope);
                Stmt::While { id, cond, body }
            }
            Stmt::ForRange { .. } => self.for_range(stmt, scope),
            // Only this stage builds these, once.
            Stmt::Versioned(_) | Stmt::PredicatedPrefetch(_) => stmt,
        }
    }

    fn for_range(&mut self, stmt: Stmt, scope: Scope) -> Stmt {
        let Stmt::ForRange {
            id,
            var,
            start,
            end,
            inclusive,
            step,
            reverse,
            unroll,
            body,
        } = stmt
        else {
            return stmt;
        };
        for h in [Some(start), Some(end), step].into_iter().flatten() {
            self.expr(h, scope);
        }
        let bits = self.func.locals[var].ty.scalar().map_or(64, |s| s.bits());
        let loop_versions = self.versions_runs(scope)
            && !scope.cold
            && !scope.in_loop_copy
            && !scope.predicated
            && !reverse
            && !(inclusive && bits == 64);
        let plan = loop_versions
            .then(|| {
                let ranges = self.facts.of(self.func);
                Planner::new(self.func, self.module, &self.proven, &ranges)
                    .with_copy_ends(&self.copy_ends)
                    .plan_loop(var, &body)
            })
            .flatten()
            .or_else(|| self.alignment_plan(&body, scope, reverse, inclusive && bits == 64));
        let for_loop = |unroll, body| Stmt::ForRange {
            id,
            var,
            start,
            end,
            inclusive,
            step,
            reverse,
            unroll,
            body,
        };
        let Some(plan) = plan else {
            let unroll = self.unroll_hint(unroll, var, end, &body, scope.cold);
            let body = self.block(body, scope);
            return for_loop(unroll, body);
        };
        let in_copy = Scope {
            in_loop_copy: true,
            ..scope
        };
        let cold = Scope {
            cold: true,
            ..in_copy
        };
        let fast_unroll = self.unroll_hint(unroll, var, end, &body, false);
        let checked_unroll = self.unroll_hint(unroll, var, end, &body, true);
        let (guard, fast_body) = self.fast_copy(&plan, &body, in_copy);
        let checked_body = self.block(body, cold);
        Stmt::Versioned(Box::new(Versioned {
            guard,
            fast: Block {
                stmts: vec![for_loop(fast_unroll, fast_body)],
                tail: None,
            },
            checked: Block {
                stmts: vec![for_loop(checked_unroll, checked_body)],
                tail: None,
            },
            kind: VersionKind::Loop,
        }))
    }

    /// A kernel without bounds checks still tests each `cp_async`'s alignment (a
    /// misaligned copy is an error the context does not survive): a loop with copies
    /// gets a guard with no steps of its own, to which the NVVM writer adds the
    /// alignment of the copies that the loop does not change (see its
    /// `copies_aligned_before`), so that its fast copy tests none.
    fn alignment_plan(
        &self,
        body: &Block,
        scope: Scope,
        reverse: bool,
        wide_inclusive: bool,
    ) -> Option<check_plan::Plan> {
        if self.func.options.bounds_check
            || self.func.kind != FunctionKind::Kernel
            || scope.plain
            || scope.cold
            || scope.in_loop_copy
            || scope.predicated
            || reverse
            || wide_inclusive
        {
            return None;
        }
        let mut copies = false;
        crate::ir::visit::exprs_in_block(self.func, body, &mut |_, e| {
            copies |= matches!(
                e.kind,
                ExprKind::Intrinsic {
                    intrinsic: crate::ir::Intrinsic::CpAsync { .. },
                    ..
                }
            );
        });
        if !copies {
            return None;
        }
        let none = HashSet::new();
        let ranges = self.facts.of(self.func);
        let block_uniform =
            Planner::new(self.func, self.module, &none, &ranges).loop_may_be_versioned(body)?;
        Some(check_plan::Plan {
            block_uniform,
            ..Default::default()
        })
    }

    /// A `for` loop's unroll hint when the source gave none (see [`super::unroll`]).
    fn unroll_hint(
        &self,
        unroll: Unroll,
        var: crate::ir::Handle<crate::ir::Local>,
        end: Handle<Expr>,
        body: &Block,
        cold: bool,
    ) -> Unroll {
        if unroll != Unroll::Auto {
            return unroll;
        }
        if cold {
            if may_stay_rolled(self.func, var, body) {
                return Unroll::Rolled;
            }
        } else if self.func.options.bounds_check
            && unrolls_like_unchecked(self.func, self.module, end, body)
        {
            return Unroll::Times(CHECKED_CALL_UNROLL);
        }
        Unroll::Auto
    }

    /// Rewrites the blocks inside expression `h` (in place: each expression is written
    /// in one place).
    fn expr(&mut self, h: Handle<Expr>, scope: Scope) {
        let Some(e) = self.func.exprs.get(h) else {
            return;
        };
        match &e.kind {
            ExprKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let cond = *cond;
                let prefetch = else_block.is_none()
                    && matches!(e.ty, Type::Unit)
                    && !scope.predicated
                    && super::prefetch::is_predicated_prefetch(self.func, then_block);
                self.expr(cond, scope);
                let then_scope = Scope {
                    predicated: scope.predicated || prefetch,
                    ..scope
                };
                let ExprKind::If {
                    then_block,
                    else_block,
                    ..
                } = &mut self.func.exprs[h].kind
                else {
                    return;
                };
                let (then_block, else_block) = (std::mem::take(then_block), else_block.take());
                let mut then_block = self.block(then_block, then_scope);
                if prefetch {
                    record_predicated_loads(self.func, &then_block, cond);
                    then_block = Block {
                        stmts: vec![Stmt::PredicatedPrefetch(then_block)],
                        tail: None,
                    };
                }
                let else_block = else_block.map(|b| self.block(b, scope));
                if let ExprKind::If {
                    then_block: t,
                    else_block: e,
                    ..
                } = &mut self.func.exprs[h].kind
                {
                    *t = then_block;
                    *e = else_block;
                }
            }
            ExprKind::Loop { .. } | ExprKind::Block(_) => {
                let (ExprKind::Loop { body, .. } | ExprKind::Block(body)) =
                    &mut self.func.exprs[h].kind
                else {
                    return;
                };
                let body = std::mem::take(body);
                let body = self.block(body, scope);
                if let ExprKind::Loop { body: b, .. } | ExprKind::Block(b) =
                    &mut self.func.exprs[h].kind
                {
                    *b = body;
                }
            }
            ExprKind::Break { value, .. } | ExprKind::Return(value) => {
                if let Some(v) = *value {
                    self.expr(v, scope);
                }
            }
            kind => {
                let mut children = Vec::new();
                crate::ir::visit::visit_children(kind, |c| children.push(c));
                for c in children {
                    self.expr(c, scope);
                }
            }
        }
    }
}

/// Lists each load a predicated prefetch's `body` assigns (in its loops and versioned
/// copies too) under the `if`'s condition `cond`, in `Function::predicated_loads`: the
/// NVVM writer then loads it under the condition instead of branching.
fn record_predicated_loads(func: &mut Function, body: &Block, cond: Handle<Expr>) {
    for stmt in &body.stmts {
        match stmt {
            Stmt::Assign {
                op: None, value, ..
            } => {
                func.predicated_loads.insert(*value, cond);
            }
            Stmt::ForRange { body, .. } => record_predicated_loads(func, body, cond),
            Stmt::Versioned(v) => {
                record_predicated_loads(func, &v.fast, cond);
                record_predicated_loads(func, &v.checked, cond);
            }
            // `opt::prefetch` admits nothing else in a prefetch.
            _ => {}
        }
    }
}
