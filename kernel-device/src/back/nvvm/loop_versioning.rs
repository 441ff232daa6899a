//! Printing loop versioning (`Stmt::Versioned` of `VersionKind::Loop`, built by
//! `opt::version`): a `for` loop with a run-time trip count whose body indexes with
//! affine functions of its variable is written twice,
//!
//! ```text
//!   guard: every such index < its length on every iteration   (pure: no load, no panic)
//!   br guard, fast, checked
//!   fast:    the loop without those checks          (its other checks kept)
//!   checked: the loop as written
//! ```
//!
//! the guard computed once, before the loop, from each index's values at the loop's
//! first two elements (see `opt::check_plan::Planner::plan_loop`), and from the
//! alignment of the fast copy's `cp_async`s where the loop does not change it (a
//! misaligned copy is tested even without bounds checks: see `async_copy`). Why: a check
//! whose index changes with the loop's variable cannot leave the loop, and the run
//! versioning inside the body (see [`super::versioning`]) pays for its guard on every
//! iteration: the register-tiled SGEMM's prefetch of the next k tile spent ~40
//! instructions and a branch per tile on it, 9% of the kernel's time. Either copy
//! computes exactly what the loop computes: the guard only reads values, and when it
//! fails every check runs where it was written.
//!
//! Only loops of kernels (device functions are inlined where this writer cannot see),
//! forward ranges (not `..=` over a 64-bit type), outside other versioned code.

use super::state::RangeSpec;
use super::state::{FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{Block, LoopBound, Stmt, VersionKind, Versioned};

/// A versioned loop's values, computed before its guard.
pub struct LoopValues {
    /// The first element and the one after it, in the variable's type.
    pub start: String,
    pub second: String,
    /// The range's end, in the variable's type, and the type's bits; its step and
    /// element count (i64).
    end: String,
    bits: u32,
    step: String,
    trips: String,
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// A versioned loop (`VersionKind::Loop`): its bounds evaluated once, the guard,
    /// then the fast and the checked loop over the same bounds.
    pub(super) fn versioned_loop(&mut self, v: &'a Versioned) -> Result<(), Error> {
        self.versioned_loop_then(v, &[])
    }

    /// [`Self::versioned_loop`], each copy followed by its own copy of `tail`, the
    /// statements after the loop (see [`Self::kernel_body`]).
    fn versioned_loop_then(&mut self, v: &'a Versioned, tail: &'a [Stmt]) -> Result<(), Error> {
        let write_tail = |w: &mut Self| tail.iter().try_for_each(|stmt| w.stmt(stmt));
        let (Some(fast), Some(checked)) = (for_loop(&v.fast), for_loop(&v.checked)) else {
            return Err(self.error("a versioned loop without its loops"));
        };
        let Some(bounds) = self.range_bounds(checked.var, &checked.range)? else {
            return write_tail(self);
        };
        let fast = bounds.of(fast.id, fast.var, fast.range, fast.body);
        let checked = bounds.of(checked.id, checked.var, checked.range, checked.body);
        let l = &checked;
        let ty = types::scalar(l.scalar);
        let bits = l.scalar.bits();
        let step_t = self.step_in(ty, bits, l.step);
        let values = LoopValues {
            start: l.start.to_string(),
            second: self.def("loop.second", format!("add {ty} {}, {step_t}", l.start)),
            end: l.end.to_string(),
            bits,
            step: l.step.unwrap_or("1").to_string(),
            trips: self.trip_count(l),
        };
        // Computed first: the guard's steps store the loop's first elements in its
        // variables, which the copies' alignment must not read (it reads none).
        let aligned = self.copies_aligned_before(fast.var, fast.body)?;
        let guard = match (self.guard(&v.guard.ops, Some(&values))?, aligned) {
            (Some(g), Some(a)) => Some(self.def("loop.guard", format!("and i1 {g}, {a}"))),
            (g, a) => g.or(a),
        };
        let guard = match guard {
            Some(g) if v.guard.block_uniform => Some(self.block_guard(&g, &values.trips)),
            other => other,
        };
        match guard {
            Some(guard) => self.versions(
                &guard,
                "loop",
                |w| {
                    w.range_loop(&fast)?;
                    write_tail(w)
                },
                |w| {
                    w.range_loop(&checked)?;
                    write_tail(w)
                },
            ),
            None => {
                self.range_loop(&fast)?;
                write_tail(self)
            }
        }
    }

    /// A kernel's body. Its last block-uniform versioned loop at the top level (a
    /// tensor-core GEMM's or attention's k-loop) is written with the statements after it
    /// (the epilogue) copied into each version, so that the two copies of the loop
    /// never join while their values are live: at a join after the loop the fast copy's
    /// accumulators (a GEMM's 128 floats per thread) and the checked copy's meet in one
    /// set of registers, and ptxas then allocates and schedules the fast loop for both.
    /// The checked tf32 GEMM ran 1.070x its nvcc twin with the join and 1.022x with its
    /// own epilogue (its PTX edited so by hand, H200, `bench/probes/ptx_gemm_ab.py`,
    /// bench/results/2026-11-30-h200-02b09a8-owntail-ab.txt; 1.017x in the bench once
    /// written so, `…-3987a0e-tc.txt`); the bf16 and int8 GEMMs did not move. The last
    /// such loop only: the tail is written twice, not once per loop.
    /// A barrier in the tail is still met by the whole block: where the loop has
    /// iterations the block's vote sends every thread to one copy, and where it has none
    /// every thread takes the checked one (a correct kernel's threads all meet the loop's
    /// barriers or none do: `Planner::plan_loop`).
    pub(super) fn kernel_body(&mut self, body: &'a Block) -> Result<Val, Error> {
        let last = body
            .stmts
            .iter()
            .enumerate()
            .rev()
            .find_map(|(at, stmt)| match stmt {
                Stmt::Versioned(v) if v.kind == VersionKind::Loop && v.guard.block_uniform => {
                    Some((at, v))
                }
                _ => None,
            });
        let Some((at, v)) = last.filter(|_| body.tail.is_none()) else {
            return self.block(body);
        };
        for stmt in &body.stmts[..at] {
            self.stmt(stmt)?;
        }
        self.versioned_loop_then(v, &body.stmts[at + 1..])?;
        Ok(Val::Unit)
    }

    /// `guard` on every thread of the block, where the loop has iterations (see
    /// `Planner::plan_loop`: then every thread of the block has some); the checked copy
    /// where it has none (either copy then runs nothing).
    ///
    /// Why a constant there, and the vote re-read by `vote.sync.all`: ptxas keeps a
    /// loop's branches free of convergence barriers only when it can prove every lane of
    /// the warp enters the loop together. The thread's own guard on the zero-trip path,
    /// or a branch on `bar.red`'s predicate (which ptxas does not know is uniform), let
    /// it assume a split warp: each k-loop of the tensor-core GEMMs then paid a
    /// `BSSY`/`BSYNC` around its prefetch and a `WARPSYNC` before its barrier, which
    /// their nvcc twins do not (bench/results/2026-11-30-sass-*-kern23-*.txt).
    fn block_guard(&mut self, guard: &str, trips: &str) -> String {
        let slot = self.alloca("loop.guard", "i1");
        self.store("i1", "false", &slot);
        let vote_l = self.label("loop.vote");
        let voted_l = self.label("loop.voted");
        let runs = self.def("loop.runs", format!("icmp ne i64 {trips}, 0"));
        self.terminate(format!("br i1 {runs}, label %{vote_l}, label %{voted_l}"));
        self.start_block(&vote_l);
        let all = self.all_threads_of_block(guard);
        let all = self.warp_uniform(&all);
        self.store("i1", &all, &slot);
        self.branch_to(&voted_l);
        self.start_block(&voted_l);
        self.load("loop.guard", "i1", &slot)
    }

    /// Whether an index affine in a versioned loop's variable, `first` at its first
    /// element and `second` at its second, is below `len` on every iteration that
    /// reaches it: `first < len` and `(n - 1) * (second - first) <= len - 1 - first`
    /// without wrapping, `n` the number of such iterations (the loop's, or fewer under
    /// a `bound`). Then no value wraps, the values rise, and the last is below `len`.
    pub fn across_ok(
        &mut self,
        values: &LoopValues,
        bound: Option<&LoopBound>,
        [first, second]: [&str; 2],
        len: &str,
    ) -> Result<String, Error> {
        let mut ok = self.def("across.first", format!("icmp ult i64 {first}, {len}"));
        let stride = self.def("across.stride", format!("sub i64 {second}, {first}"));
        let mut count = values.trips.clone();
        if let Some(b) = bound {
            let (n, no_wrap) = self.bounded_iterations(values, b)?;
            let fewer = self.def("across.fewer", format!("icmp ult i64 {n}, {count}"));
            count = self.def(
                "across.count",
                format!("select i1 {fewer}, i64 {n}, i64 {count}"),
            );
            if let Some(no_wrap) = no_wrap {
                ok = self.def("across.ok", format!("and i1 {ok}, {no_wrap}"));
            }
        }
        let some = self.def("across.some", format!("icmp ne i64 {count}, 0"));
        let last = self.def("across.last", format!("add i64 {count}, -1"));
        let k = self.def("across.k", format!("select i1 {some}, i64 {last}, i64 0"));
        let umul = "llvm.umul.with.overflow.i64";
        self.w
            .declare(umul, format!("declare {{i64, i1}} @{umul}(i64, i64)"));
        let product = self.def(
            "across.mul",
            format!("call {{i64, i1}} @{umul}(i64 {stride}, i64 {k})"),
        );
        let span = self.def(
            "across.span",
            format!("extractvalue {{i64, i1}} {product}, 0"),
        );
        let wraps = self.def(
            "across.wraps",
            format!("extractvalue {{i64, i1}} {product}, 1"),
        );
        let room = self.def("across.room", format!("sub i64 {len}, {first}"));
        let room = self.def("across.room", format!("add i64 {room}, -1"));
        let fits = self.def("across.fits", format!("icmp ule i64 {span}, {room}"));
        let exact = self.def("across.exact", format!("xor i1 {wraps}, true"));
        let fits = self.def("across.fits", format!("and i1 {fits}, {exact}"));
        Ok(self.def("across.ok", format!("and i1 {ok}, {fits}")))
    }

    /// `value` of integer type `ty` (`bits` wide) as an i64, zero-extended.
    fn zext_to_i64(&mut self, name: &str, ty: &str, bits: u32, value: &str) -> String {
        if bits < 64 {
            self.def(name, format!("zext {ty} {value} to i64"))
        } else {
            value.to_string()
        }
    }

    /// How many of a loop's first iterations pass `v + c < e` (`<=`): as many as the
    /// elements `start + i * step` with `start + c + i * step < e` (all zero-extended
    /// from `v`'s type), when `v + c` cannot wrap. With the condition that keeps it from
    /// wrapping in `v`'s type (`end <= top - c`, `ir::guard::no_wrap_below`), when `c`
    /// is not 0.
    fn bounded_iterations(
        &mut self,
        values: &LoopValues,
        bound: &LoopBound,
    ) -> Result<(String, Option<String>), Error> {
        let Val::V(limit) = self.expr(bound.limit)? else {
            return Err(self.error("a loop bound without a value"));
        };
        // `v`, its range and `e` (the comparison's operands agree) widened alike.
        let (bits, ty) = (values.bits, format!("i{}", values.bits));
        let limit = self.zext_to_i64("bound.limit", &ty, bits, &limit);
        let start = self.zext_to_i64("bound.start", &ty, bits, &values.start);
        let end = self.zext_to_i64("bound.end", &ty, bits, &values.end);
        let c = bound.offset;
        let lo = self.def("bound.lo", format!("add i64 {start}, {}", c as i64));
        let (pred, slack) = if bound.inclusive {
            ("uge", 0)
        } else {
            ("ugt", -1)
        };
        let some = self.def("bound.some", format!("icmp {pred} i64 {limit}, {lo}"));
        let diff = self.def("bound.diff", format!("sub i64 {limit}, {lo}"));
        let diff = self.def("bound.diff", format!("add i64 {diff}, {slack}"));
        let steps = self.def("bound.steps", format!("udiv i64 {diff}, {}", values.step));
        let n = self.def("bound.n", format!("add i64 {steps}, 1"));
        let n = self.def("bound.n", format!("select i1 {some}, i64 {n}, i64 0"));
        let no_wrap = (c != 0).then(|| match crate::ir::guard::no_wrap_below(bound) {
            Some(last) => self.def(
                "bound.nowrap",
                format!("icmp ule i64 {end}, {}", last as i64),
            ),
            None => "false".to_string(),
        });
        Ok((n, no_wrap))
    }
}

/// The parts of one copy of a versioned loop.
struct CopyOfLoop<'a> {
    id: crate::ir::LoopId,
    var: crate::ir::Handle<crate::ir::Local>,
    range: RangeSpec,
    body: &'a crate::ir::Block,
}

fn for_loop(block: &crate::ir::Block) -> Option<CopyOfLoop<'_>> {
    let [Stmt::ForRange {
        id,
        var,
        start,
        end,
        inclusive,
        step,
        reverse,
        unroll,
        body,
    }] = block.stmts.as_slice()
    else {
        return None;
    };
    Some(CopyOfLoop {
        id: *id,
        var: *var,
        range: RangeSpec {
            start: *start,
            end: *end,
            inclusive: *inclusive,
            step: *step,
            reverse: *reverse,
            unroll: *unroll,
        },
        body,
    })
}
