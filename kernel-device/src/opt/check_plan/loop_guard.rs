//! The guard of a `for` loop with a run-time trip count (the analysis half of
//! the NVVM writer's `loop_versioning`): the checks of its body whose indices are affine
//! in the loop's variable, decided once before the loop from each index's values at the
//! loop's first two elements.
//!
//! The body is walked twice, with the variable at the first element and then at the
//! second; on the first walk each such index is recorded, on the second compared with
//! its length across every iteration (`GuardOp::CheckAcross`). Unlike a run, the body
//! may contain anything: `if`s, barriers, nested loops. A check inside them is planned
//! as if it ran on every iteration (sound: the guard may fail where no check would),
//! except under an `if v + c < e` (or `<=`, or inside an `&&`), whose iterations the
//! guard counts: the prefetch of a tiled loop (`if k0 + 8 < n { .. a[.. + k0 + 8 ..] }`)
//! would leave its matrix on the last iteration, where it does not run. Checks inside
//! nested run-time loops are not planned (the loop writes them as usual), nor are the
//! indices that read memory or locals the body assigns.

use std::collections::{BTreeSet, HashSet};

use super::{GuardOp, Length, LoopBound, Planner};
use crate::ir::visit::assigned_in_block;
use crate::ir::{
    BinaryOp, Block, Expr, ExprKind, Function, Handle, Intrinsic, Local, LogicalOp, ScalarType,
    Stmt,
};

/// The run-time loop being guarded.
pub(super) struct Across {
    var: Handle<Local>,
    /// 0 on the walk at the loop's first element, 1 at its second.
    phase: u8,
    /// The bounds of the `if`s around the place being walked, outermost first.
    bounds: Vec<LoopBound>,
    /// Checks planned across the loop.
    planned: usize,
    /// Statements walked so far (see [`MAX_WALKED`]).
    walked: usize,
}

/// The most statements the two walks of a loop's body may visit (literal loops are
/// walked once per element): beyond, the loop is written once, as it is.
const MAX_WALKED: usize = 1 << 16;

impl Planner<'_> {
    /// Whether a loop with body `body` may be written twice (see [`Self::plan_loop`]):
    /// `Some(block_uniform)`, true when its guard must be the whole block's.
    pub fn loop_may_be_versioned(&self, body: &Block) -> Option<bool> {
        // One walk of the body and its callees: collectives anywhere, block barriers in
        // the body itself (the writer can give those one copy per block) or in a callee.
        let (mut collective, mut warp, mut barrier, mut callee_barrier) =
            (false, false, false, false);
        let complete = intrinsics_reached(self.module, self.func, body, &mut |i, in_callee| {
            if crate::opt::effects::is_warp_collective(i) {
                warp = true;
            } else {
                collective |= crate::opt::effects::is_collective(i);
            }
            if i == Intrinsic::SyncThreads {
                *(if in_callee {
                    &mut callee_barrier
                } else {
                    &mut barrier
                }) = true;
            }
        });
        if collective || callee_barrier || !complete {
            return None;
        }
        // Every thread that runs an iteration must reach a barrier (see above), then the
        // guard can be the block's.
        let meets_barrier = barrier && every_iteration_meets_a_barrier(self.func, body);
        if barrier && !meets_barrier {
            return None;
        }
        // Warp operations (`ldmatrix`, `mma`, shuffles) part no lanes when the whole
        // block takes one copy: the tensor-core k-loop, whose `cp_async` sources are
        // the checks worth a guard, has a barrier at its top.
        if warp && !meets_barrier {
            return None;
        }
        Some(barrier)
    }

    /// The guard of `for var in ..` with body `body`, or `None` when it would decide no
    /// check that depends on `var`. Loops with warp-collective operations, a grid
    /// barrier or a reducing block barrier are not versioned: their lanes must meet in
    /// the same instruction, and a guard that fails for some lanes only would part them.
    /// Nor are loops whose barriers sit in called functions, or where an iteration may
    /// pass without meeting one.
    ///
    /// A loop with `sync_threads()` in its body gets one guard for the whole block
    /// (`Plan::block_uniform`: the writer ands the threads' guards with
    /// `__syncthreads_and` before the loop, where the loop runs at all): LLVM's
    /// `bar.sync` is aligned, every thread of the block must execute the same one, so
    /// the block's warps must not be split between the two copies (compute-sanitizer's
    /// synccheck reported fast_matmul's edge blocks when the guard was per thread). The
    /// added barrier is met by exactly the threads that meet the loop's first barrier:
    /// every thread with an iteration meets one at the top of the body, and a correct
    /// kernel has every thread of the block meet it, or none.
    pub fn plan_loop(mut self, var: Handle<Local>, body: &Block) -> Option<super::Plan> {
        self.plan.block_uniform = self.loop_may_be_versioned(body)?;
        let mut assigned = HashSet::new();
        assigned_in_block(self.func, body, &mut assigned);
        if assigned.contains(&var) {
            return None;
        }
        // Whatever the body assigns may differ on the next iteration.
        self.dirty = assigned;
        self.defined.insert(var);
        self.across = Some(Across {
            var,
            phase: 0,
            bounds: Vec::new(),
            planned: 0,
            walked: 0,
        });
        for phase in 0..2 {
            if let Some(a) = self.across.as_mut() {
                a.phase = phase;
            }
            self.plan.ops.push(GuardOp::SetLoopVar {
                local: var,
                second: phase == 1,
            });
            self.known.insert(
                var,
                super::Known {
                    constant: None,
                    deps: BTreeSet::from([var]),
                },
            );
            self.walk_block(body);
            if self.abandoned {
                return None;
            }
        }
        let impure = std::mem::take(&mut self.impure);
        self.plan.decided.retain(|h| !impure.contains(h));
        self.keep_whole_copies();
        self.drop_merged();
        let planned = self.across.as_ref().map_or(0, |a| a.planned);
        (planned > 0).then_some(self.plan)
    }

    /// Which walk of the guarded loop's body this is (0 or 1), if one is guarded.
    pub(super) fn across_phase(&self) -> Option<u8> {
        self.across.as_ref().map(|a| a.phase)
    }

    /// The variable of the run-time loop being guarded, if any.
    pub(super) fn across_var(&self) -> Option<Handle<Local>> {
        self.across.as_ref().map(|a| a.var)
    }

    fn walk_block(&mut self, block: &Block) {
        for st in &block.stmts {
            self.stmt(st);
            if self.abandoned {
                return;
            }
        }
        if let Some(t) = block.tail {
            self.visit(t);
        }
    }

    /// Counts a statement walked for a loop's guard: `true` (and the plan abandoned)
    /// past [`MAX_WALKED`]. A run's walk is bounded by its literal loops.
    pub(super) fn walked_too_far(&mut self) -> bool {
        if let Some(a) = self.across.as_mut() {
            a.walked += 1;
            if a.walked > MAX_WALKED {
                self.abandoned = true;
                return true;
            }
        }
        false
    }

    /// Control flow inside a guarded loop's body (a run has none): the blocks of an
    /// `if` (its `then` block under the bound its condition sets, if any) and of a
    /// block expression; a `loop`'s body is not walked (its trips are unknown).
    pub(super) fn visit_control(&mut self, h: Handle<Expr>) {
        if self.across.is_none() {
            self.abandoned = true;
            return;
        }
        match &self.expr(h).kind {
            ExprKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.visit(*cond);
                let bound = self.loop_bound(*cond);
                let pushed = bound.is_some();
                if let (Some(b), Some(a)) = (bound, self.across.as_mut()) {
                    a.bounds.push(b);
                }
                self.walk_block(then_block);
                if let (true, Some(a)) = (pushed, self.across.as_mut()) {
                    a.bounds.pop();
                }
                if let Some(b) = else_block {
                    self.walk_block(b);
                }
            }
            ExprKind::Block(b) => self.walk_block(b),
            ExprKind::Break { value: Some(v), .. } | ExprKind::Return(Some(v)) => self.visit(*v),
            _ => {}
        }
    }

    /// Plans `index < len` across the loop: affine in its variable, it is recorded on
    /// the first walk and compared on the second; otherwise it stays checked.
    pub(super) fn plan_across(
        &mut self,
        index: Handle<Expr>,
        len: Length,
        deps: &BTreeSet<Handle<Local>>,
    ) {
        let Some((var, phase, bound)) = self
            .across
            .as_ref()
            .map(|a| (a.var, a.phase, a.bounds.first().cloned()))
        else {
            return;
        };
        if !self.affine_in(index, var, None) {
            self.impure.insert(index);
            return;
        }
        let key = self.key_without(index, deps, var);
        self.plan.decided.insert(index);
        self.plan.checks += 1;
        if phase == 0 {
            self.record_first(key, index);
            return;
        }
        let Some(&slot) = self.strided.get(&(key.clone(), false)) else {
            self.impure.insert(index);
            return;
        };
        if self.strided.insert((key, true), slot).is_none() {
            self.plan.ops.push(GuardOp::CheckAcross {
                index,
                len: len.clone(),
                slot,
                bound: bound.clone(),
            });
            let op = self.plan.ops.len() - 1;
            self.merge_pair(op, slot, index, &len, Some(&bound), 0);
            if let Some(a) = self.across.as_mut() {
                a.planned += 1;
            }
        }
    }

    /// The bound an `if` condition sets on the guarded loop's variable `v`: `v + c < e`,
    /// `v < e`, `e > v + c`, their `<=` forms, or one of them inside an `&&`, where `c`
    /// is a literal, `e` a value the guard computes that no iteration changes, and `v`
    /// unsigned (a `u32` k loop, as nvcc's `int`, too): the guard counts with `v + c`
    /// zero-extended, and its count holds only while `v + c` does not wrap in `v`'s type
    /// (`LoopBound::top`, tested before the loop).
    fn loop_bound(&self, cond: Handle<Expr>) -> Option<LoopBound> {
        let var = self.across_var()?;
        let scalar = self.local_ty(var).scalar()?;
        if !scalar.is_integer() || scalar.is_signed_integer() {
            return None;
        }
        let (small, limit, inclusive) = match self.expr(cond).kind {
            ExprKind::Logical {
                op: LogicalOp::And,
                lhs,
                rhs,
            } => return self.loop_bound(lhs).or_else(|| self.loop_bound(rhs)),
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinaryOp::Lt => (lhs, rhs, false),
                BinaryOp::Le => (lhs, rhs, true),
                BinaryOp::Gt => (rhs, lhs, false),
                BinaryOp::Ge => (rhs, lhs, true),
                _ => return None,
            },
            _ => return None,
        };
        let offset = self.offset_from_var(small, var)?;
        let invariant = self.pure(limit)?.deps.is_empty();
        invariant.then_some(LoopBound {
            offset,
            limit,
            inclusive,
            top: crate::opt::ranges::mask(scalar),
        })
    }

    /// `c` when `h` is `var + c` in wrapping 64-bit arithmetic: `var`, a sum or
    /// difference of it and literals, or a `let` of one (`let next = kt + 4 - 1`, the
    /// stage a pipelined k-loop prefetches). A "negative" `c` wraps to a large one,
    /// which the guard's count refuses (`v + c` must not wrap).
    fn offset_from_var(&self, h: Handle<Expr>, var: Handle<Local>) -> Option<u64> {
        match self.expr(h).kind {
            ExprKind::Local(l) if l == var => Some(0),
            ExprKind::Local(l) => {
                let init = *self.let_inits.get(&l)?;
                self.offset_from_var(init, var)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let literal = |e| self.literal_int(e, ScalarType::Usize).map(|c| c as u64);
                match op {
                    BinaryOp::Add => match (literal(lhs), literal(rhs)) {
                        (None, Some(c)) => Some(self.offset_from_var(lhs, var)?.wrapping_add(c)),
                        (Some(c), None) => Some(self.offset_from_var(rhs, var)?.wrapping_add(c)),
                        _ => None,
                    },
                    BinaryOp::Sub => {
                        let c = literal(rhs)?;
                        Some(self.offset_from_var(lhs, var)?.wrapping_sub(c))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// Whether every iteration of `body` meets a block barrier: a `sync_threads()` statement
/// at its top level, and no `break`, `continue` or `return` anywhere in it.
fn every_iteration_meets_a_barrier(func: &Function, body: &Block) -> bool {
    let top_level = body.stmts.iter().any(|st| {
        matches!(st, Stmt::Expr(h) if matches!(
            func.exprs.get(*h).map(|e| &e.kind),
            Some(ExprKind::Intrinsic { intrinsic: Intrinsic::SyncThreads, .. })
        ))
    });
    let mut jumps = false;
    crate::ir::visit::exprs_in_block(func, body, &mut |_, e| {
        jumps |= matches!(
            e.kind,
            ExprKind::Break { .. } | ExprKind::Continue { .. } | ExprKind::Return(_)
        );
    });
    top_level && !jumps
}

/// Calls `f` on every intrinsic that `body` (`in_callee` false) or a function it calls,
/// directly or not (`in_callee` true), uses; `false` when a callee is missing (malformed
/// IR, which the writer reports).
fn intrinsics_reached(
    module: &crate::ir::Module,
    func: &Function,
    body: &Block,
    f: &mut dyn FnMut(Intrinsic, bool),
) -> bool {
    let mut callees = Vec::new();
    let mut seen = HashSet::new();
    let mut next = Some((func, body, false));
    while let Some((current, block, in_callee)) = next {
        crate::ir::visit::exprs_in_block(current, block, &mut |_, e: &Expr| match e.kind {
            ExprKind::Intrinsic { intrinsic, .. } => f(intrinsic, in_callee),
            ExprKind::Call { function, .. } if seen.insert(function) => callees.push(function),
            _ => {}
        });
        next = match callees.pop() {
            Some(c) => match module.functions.get(c) {
                Some(callee) => Some((callee, &callee.body, true)),
                None => return false,
            },
            None => None,
        };
    }
    true
}
