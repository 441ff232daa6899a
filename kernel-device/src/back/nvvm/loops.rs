//! `for` loops over integer ranges, with `.rev()` and `.step_by(n)`, with std's
//! iterator semantics: bounds and step are evaluated once; the loop variable is a copy
//! of a hidden cursor (the body cannot change the iteration); forward ranges count
//! their trips up front (so that libnvvm unrolls them), the others end at the last
//! element without the cursor moving past it; either way nothing overflows
//! (`0..=u32::MAX`, `(250u8..=255).step_by(3)`, `(0..=u32::MAX).rev().step_by(1 << 31)`
//! all terminate after the right elements). The elements are `ir::range`'s (first
//! element, the range's last, the count `(hi - start) / step + 1`), which the optimiser
//! and the simulator compute with; this file emits the same rule as instructions.

use super::state::{FunctionWriter, Val};
use super::state::{LoopHint, RangeSpec};
use super::{types, Error};
use crate::ir::{Block, Handle, Local, LoopId};

/// A `for` loop's bounds and step, evaluated (LLVM values).
pub struct RangeBounds {
    pub scalar: crate::ir::ScalarType,
    pub start: String,
    pub end: String,
    /// usize; `None`: 1.
    pub step: Option<String>,
}

impl RangeBounds {
    /// The loop `id` over these bounds.
    pub fn of<'a, 's>(
        &'s self,
        id: LoopId,
        var: Handle<Local>,
        range: RangeSpec,
        body: &'a Block,
    ) -> EvaluatedLoop<'a, 's> {
        EvaluatedLoop {
            id,
            var,
            range,
            scalar: self.scalar,
            start: &self.start,
            end: &self.end,
            step: self.step.as_deref(),
            body,
        }
    }
}

/// A `for` loop whose bounds and step are evaluated (LLVM values): what writing the loop,
/// once or as two versions, needs.
pub struct EvaluatedLoop<'a, 's> {
    pub id: LoopId,
    pub var: Handle<Local>,
    pub range: RangeSpec,
    pub scalar: crate::ir::ScalarType,
    pub start: &'s str,
    pub end: &'s str,
    /// usize; `None`: 1.
    pub step: Option<&'s str>,
    pub body: &'a Block,
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    pub fn for_range(
        &mut self,
        id: LoopId,
        var: Handle<Local>,
        range: RangeSpec,
        body: &'a Block,
    ) -> Result<(), Error> {
        let Some(bounds) = self.range_bounds(var, &range)? else {
            return Ok(());
        };
        self.range_loop(&bounds.of(id, var, range, body))
    }

    /// A `for` loop's variable type, start, end and step (in that order), evaluated;
    /// `None` when one of them diverges.
    pub fn range_bounds(
        &mut self,
        var: Handle<Local>,
        range: &RangeSpec,
    ) -> Result<Option<RangeBounds>, Error> {
        let local = self.ir_local(var)?;
        let scalar = local
            .ty
            .scalar()
            .filter(|s| s.is_integer())
            .ok_or_else(|| self.error(format!("range over `{}`", local.ty)))?;
        let Val::V(start) = self.expr(range.start)? else {
            return Ok(None);
        };
        let Val::V(end) = self.expr(range.end)? else {
            return Ok(None);
        };
        let step = match range.step {
            Some(h) => {
                let Val::V(step) = self.expr(h)? else {
                    return Ok(None);
                };
                // std's `assert!(step != 0)`; a literal step needs no run-time check.
                if step.parse::<i64>().map_or(true, |c| c == 0) {
                    let nonzero = self.def("step.nonzero", format!("icmp ne i64 {step}, 0"));
                    self.panic_unless(&nonzero, h, "assertion failed: step != 0", ("0", "0"))?;
                }
                Some(step)
            }
            None => None,
        };
        Ok(Some(RangeBounds {
            scalar,
            start,
            end,
            step,
        }))
    }

    /// The loop itself, its bounds and step evaluated (see [`Self::for_range`]).
    pub fn range_loop(&mut self, l: &EvaluatedLoop<'a, '_>) -> Result<(), Error> {
        let EvaluatedLoop {
            id,
            var,
            ref range,
            scalar,
            start,
            end,
            step,
            body,
        } = *l;
        let ty = types::scalar(scalar);
        let signed = scalar.is_signed_integer();
        let (start, end) = (start.to_string(), end.to_string());
        let cond_l = self.label("for.cond");
        let body_l = self.label("for.body");
        let end_l = self.label("for.end");
        let cursor = self.alloca("for.counter", ty);
        if step.is_none() && !range.reverse {
            self.count_up(l, &cursor, [&cond_l, &body_l, &end_l])?;
        } else if !range.reverse && !(range.inclusive && scalar.bits() == 64) {
            self.count_trips(l, &cursor, [&cond_l, &body_l, &end_l])?;
        } else {
            let bits = scalar.bits();
            // The range's last element (meaningless, and unused, when it is empty).
            let hi = if range.inclusive {
                end.clone()
            } else {
                self.def("for.hi", format!("add {ty} {end}, -1"))
            };
            let pred = match (range.inclusive, signed) {
                (true, true) => "sgt",
                (true, false) => "ugt",
                (false, true) => "sge",
                (false, false) => "uge",
            };
            let empty = self.def("for.empty", format!("icmp {pred} {ty} {start}, {end}"));
            let done = self.alloca("for.done", "i1");
            self.store("i1", &empty, &done);
            let (first, last) = if range.reverse {
                (&hi, &start)
            } else {
                (&start, &hi)
            };
            self.store(ty, first, &cursor);
            let step_t = self.step_in(ty, bits, step);
            self.start_block(&cond_l);
            let d = self.load("for.isdone", "i1", &done);
            self.terminate(format!("br i1 {d}, label %{end_l}, label %{body_l}"));
            self.start_block(&body_l);
            let cur = self.load("for.i", ty, &cursor);
            if let Some((addr, vty)) = self.slot(var)? {
                self.store(&vty, &cur, &addr);
            }
            let is_last = match &step {
                // The distance left to the last element, as an unsigned number (the
                // cursor never passes it), widened to compare with the usize step.
                Some(s) => {
                    let (a, b) = if range.reverse {
                        (&cur, last)
                    } else {
                        (last, &cur)
                    };
                    let rem = self.def("for.rem", format!("sub {ty} {a}, {b}"));
                    let rem = if bits < 64 {
                        self.def("for.rem", format!("zext {ty} {rem} to i64"))
                    } else {
                        rem
                    };
                    self.def("for.last", format!("icmp ult i64 {rem}, {s}"))
                }
                None => self.def("for.last", format!("icmp eq {ty} {cur}, {last}")),
            };
            self.store("i1", &is_last, &done);
            let op = if range.reverse { "sub" } else { "add" };
            let next = self.def("for.next", format!("{op} {ty} {cur}, {step_t}"));
            self.store(ty, &next, &cursor);
        }
        let hint = match range.unroll {
            crate::ir::Unroll::Auto => None,
            crate::ir::Unroll::Rolled => Some(LoopHint::Rolled),
            crate::ir::Unroll::Full => Some(LoopHint::Full),
            crate::ir::Unroll::Times(n) => Some(LoopHint::Times(n)),
        };
        self.loop_body(id, body, [&cond_l, &end_l], None, hint)
    }

    /// A forward stepped range, or an inclusive one narrower than 64 bits, as a counted
    /// loop that LLVM's unroller recognises (the done-flag lowering keeps libnvvm from
    /// unrolling grid-stride loops): the trip count is computed once, in i64, without
    /// overflow (`(end - start - 1) / step + 1`, or `(end - start) / step + 1` when
    /// inclusive, the difference taken as an unsigned number), then a down-counting
    /// trip counter ends the loop while the cursor advances by the step (wrapping only
    /// past the last element, whose successor is never used). Inclusive 64-bit ranges
    /// keep the done flag: `0..=u64::MAX` has 2^64 elements, which no i64 counts.
    fn count_trips(
        &mut self,
        l: &EvaluatedLoop<'a, '_>,
        cursor: &str,
        [cond_l, body_l, end_l]: [&str; 3],
    ) -> Result<(), Error> {
        let (ty, bits, start, var) = (types::scalar(l.scalar), l.scalar.bits(), l.start, l.var);
        let count = self.trip_count(l);
        let trips = self.alloca("for.trips", "i64");
        self.store("i64", &count, &trips);
        self.store(ty, start, cursor);
        let step_t = self.step_in(ty, bits, l.step);
        self.start_block(cond_l);
        let left = self.load("for.left", "i64", &trips);
        let more = self.def("for.more", format!("icmp ne i64 {left}, 0"));
        self.terminate(format!("br i1 {more}, label %{body_l}, label %{end_l}"));
        self.start_block(body_l);
        let left = self.def("for.left", format!("add i64 {left}, -1"));
        self.store("i64", &left, &trips);
        let cur = self.load("for.i", ty, cursor);
        if let Some((addr, vty)) = self.slot(var)? {
            self.store(&vty, &cur, &addr);
        }
        let next = self.def("for.next", format!("add {ty} {cur}, {step_t}"));
        self.store(ty, &next, cursor);
        Ok(())
    }

    /// A range's step (an i64) in the variable's type `ty` of `bits` bits: wrapping,
    /// and only used while it fits between the cursor and the last element.
    pub fn step_in(&mut self, ty: &str, bits: u32, step: Option<&str>) -> String {
        match step {
            Some(s) if bits < 64 => self.def("for.step", format!("trunc i64 {s} to {ty}")),
            Some(s) => s.to_string(),
            None => "1".to_string(),
        }
    }

    /// The number of elements of a forward range (not an inclusive 64-bit one), as an
    /// i64: `(end - start - 1) / step + 1` (`(end - start) / step + 1` when inclusive),
    /// the difference taken as an unsigned number, or 0 when the range is empty.
    pub fn trip_count(&mut self, l: &EvaluatedLoop<'a, '_>) -> String {
        let (ty, bits) = (types::scalar(l.scalar), l.scalar.bits());
        let (signed, inclusive) = (l.scalar.is_signed_integer(), l.range.inclusive);
        let (start, end, step) = (l.start, l.end, l.step);
        let pred = match (inclusive, signed) {
            (true, true) => "sle",
            (true, false) => "ule",
            (false, true) => "slt",
            (false, false) => "ult",
        };
        let nonempty = self.def("for.nonempty", format!("icmp {pred} {ty} {start}, {end}"));
        let diff = self.def("for.diff", format!("sub {ty} {end}, {start}"));
        let diff = if bits < 64 {
            self.def("for.diff", format!("zext {ty} {diff} to i64"))
        } else {
            diff
        };
        // The number of steps after the first element.
        let span = if inclusive {
            diff
        } else {
            self.def("for.span", format!("add i64 {diff}, -1"))
        };
        let steps = match step {
            Some(s) => self.def("for.steps", format!("udiv i64 {span}, {s}")),
            None => span,
        };
        let count = self.def("for.count", format!("add i64 {steps}, 1"));
        self.def(
            "for.count",
            format!("select i1 {nonempty}, i64 {count}, i64 0"),
        )
    }

    /// The plain `start..end` / `start..=end` loop, up to the body: an exclusive range
    /// compares the cursor with `end`; an inclusive one keeps a done flag set when it
    /// yields `end`.
    fn count_up(
        &mut self,
        l: &EvaluatedLoop<'a, '_>,
        cursor: &str,
        [cond_l, body_l, end_l]: [&str; 3],
    ) -> Result<(), Error> {
        let (ty, signed, inclusive) = (
            types::scalar(l.scalar),
            l.scalar.is_signed_integer(),
            l.range.inclusive,
        );
        let (start, end, var) = (l.start, l.end, l.var);
        self.store(ty, start, cursor);
        let done = if inclusive {
            let done = self.alloca("for.done", "i1");
            let pred = if signed { "sgt" } else { "ugt" };
            let empty = self.def("for.empty", format!("icmp {pred} {ty} {start}, {end}"));
            self.store("i1", &empty, &done);
            Some(done)
        } else {
            None
        };
        self.start_block(cond_l);
        match &done {
            Some(done) => {
                let d = self.load("for.isdone", "i1", done);
                self.terminate(format!("br i1 {d}, label %{end_l}, label %{body_l}"));
            }
            None => {
                let cur = self.load("for.cur", ty, cursor);
                let pred = if signed { "slt" } else { "ult" };
                let more = self.def("for.more", format!("icmp {pred} {ty} {cur}, {end}"));
                self.terminate(format!("br i1 {more}, label %{body_l}, label %{end_l}"));
            }
        }
        self.start_block(body_l);
        let cur = self.load("for.i", ty, cursor);
        if let Some((addr, vty)) = self.slot(var)? {
            self.store(&vty, &cur, &addr);
        }
        if let Some(done) = &done {
            let last = self.def("for.last", format!("icmp eq {ty} {cur}, {end}"));
            self.store("i1", &last, done);
        }
        let next = self.def("for.next", format!("add {ty} {cur}, 1"));
        self.store(ty, &next, cursor);
        Ok(())
    }
}
