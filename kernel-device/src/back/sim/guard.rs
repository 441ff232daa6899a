//! Versioned statements ([`crate::ir::Versioned`]): the guard's steps for each lane,
//! then the fast copy for the lanes where it holds and the checked copy for the others.
//! The fast copy runs without the checks the guard decided, so a guard that holds
//! where an index is out of bounds shows up as a memory fault, not a silent pass.

use std::collections::HashMap;

use super::fault::R;
use super::lanes::lanes;
use super::plan::Home;
use super::scalar;
use super::warp::{Frame, Warp};
use crate::ir::guard::{across_ok, bounded_iterations, strided_ok};
use crate::ir::range::RangeElements;
use crate::ir::{Expr, Guard, GuardOp, Handle, Length, ScalarType, Stmt, VersionKind, Versioned};

/// A versioned loop's values for each lane: its first element, the one after it (in
/// the variable's type), its end and step, and its element count.
struct LoopValues {
    start: [u64; 32],
    second: [u64; 32],
    end: [u64; 32],
    step: [u64; 32],
    trips: [u64; 32],
}

impl Warp<'_, '_> {
    pub(super) fn exec_versioned(&mut self, fr: &mut Frame, v: &Versioned, mask: u32) -> R<u32> {
        match v.kind {
            VersionKind::Run => {
                let (m, fast) = self.guard(fr, &v.guard, mask, None)?;
                let ran_fast = self.exec_some(fr, &v.fast, fast)?;
                let ran_checked = self.exec_some(fr, &v.checked, m & !fast)?;
                Ok(ran_fast | ran_checked)
            }
            VersionKind::Loop => {
                let [Stmt::ForRange {
                    var,
                    start,
                    end,
                    step,
                    inclusive,
                    ..
                }, ..] = v.checked.stmts.as_slice()
                else {
                    return self.exec_some(fr, &v.checked, mask);
                };
                let m = self.for_bounds(fr, [*start, *end], *step, mask)?;
                let ty = self.func(fr.func).locals[*var]
                    .ty
                    .scalar()
                    .unwrap_or(ScalarType::U64);
                let (ss, es) = (self.slot_of(fr, *start), self.slot_of(fr, *end));
                let step_slot = step.map(|h| self.slot_of(fr, h));
                let mut values = LoopValues {
                    start: [0; 32],
                    second: [0; 32],
                    end: [0; 32],
                    step: [1; 32],
                    trips: [0; 32],
                };
                for lane in lanes(m) {
                    let (s, e) = (fr.get(ss, lane), fr.get(es, lane));
                    let by = step_slot.map_or(1, |slot| fr.get(slot, lane));
                    let elements = RangeElements::new(
                        scalar::int_value(ty, s),
                        scalar::int_value(ty, e),
                        *inclusive,
                        by,
                        false,
                    );
                    values.start[lane] = s;
                    values.second[lane] = scalar::truncate(ty, s.wrapping_add(by));
                    values.end[lane] = e;
                    values.step[lane] = by;
                    values.trips[lane] = elements.count;
                }
                let (m, mut fast) = self.guard(fr, &v.guard, m, Some(&values))?;
                if v.guard.block_uniform {
                    // The block's vote where the loop has iterations, as the GPU's
                    // `__syncthreads_and` before the loop.
                    let runs = lanes(m)
                        .filter(|&lane| values.trips[lane] != 0)
                        .fold(0u32, |acc, lane| acc | 1 << lane);
                    if runs != 0 {
                        let release = self.arrive(
                            fr,
                            *start,
                            super::launch::BarrierKind::Block,
                            runs,
                            fast & runs,
                        )?;
                        fast = if release.all {
                            fast | runs
                        } else {
                            fast & !runs
                        };
                    }
                }
                let ran_fast = self.exec_loop_copy(fr, &v.fast, fast)?;
                let ran_checked = self.exec_loop_copy(fr, &v.checked, m & !fast)?;
                Ok(ran_fast | ran_checked)
            }
        }
    }

    fn exec_some(&mut self, fr: &mut Frame, block: &crate::ir::Block, mask: u32) -> R<u32> {
        if mask == 0 {
            return Ok(0);
        }
        self.exec_block(fr, block, mask)
    }

    /// One copy of a versioned loop, its bounds already evaluated.
    fn exec_loop_copy(&mut self, fr: &mut Frame, block: &crate::ir::Block, mask: u32) -> R<u32> {
        match block.stmts.as_slice() {
            [stmt] if mask != 0 => self.exec_for(fr, stmt, mask, true),
            _ => Ok(mask),
        }
    }

    /// Runs `guard`'s steps for the lanes of `mask`; returns the lanes that completed
    /// them (all: a guard cannot panic) and those where the guard holds.
    fn guard(
        &mut self,
        fr: &mut Frame,
        guard: &Guard,
        mask: u32,
        across: Option<&LoopValues>,
    ) -> R<(u32, u32)> {
        let mut m = mask;
        let mut holds = mask;
        let mut recorded: HashMap<usize, [u64; 32]> = HashMap::new();
        for op in &guard.ops {
            match op {
                GuardOp::PreLet { local, init } => {
                    let init = Some(*init);
                    m = self.exec_stmt(
                        fr,
                        &Stmt::Let {
                            local: *local,
                            init,
                        },
                        m,
                    )?;
                }
                GuardOp::SetVar { local, bits } => {
                    if let Home::Reg(slot) = self.home(fr, local.index()) {
                        for lane in lanes(m) {
                            fr.set(slot, lane, *bits);
                        }
                    }
                }
                GuardOp::SetLoopVar { local, second } => {
                    let (Some(values), Home::Reg(slot)) = (across, self.home(fr, local.index()))
                    else {
                        continue;
                    };
                    for lane in lanes(m) {
                        let v = if *second {
                            values.second[lane]
                        } else {
                            values.start[lane]
                        };
                        fr.set(slot, lane, v);
                    }
                }
                GuardOp::Check { index, len } => {
                    let (i, n);
                    (m, i) = self.guard_values(fr, *index, m)?;
                    (m, n) = self.guard_len(fr, len, m)?;
                    for lane in lanes(m).filter(|&lane| i[lane] >= n[lane]) {
                        holds &= !(1 << lane);
                    }
                }
                GuardOp::Record { index, slot } => {
                    let first;
                    (m, first) = self.guard_values(fr, *index, m)?;
                    recorded.insert(*slot, first);
                }
                GuardOp::CheckStrided {
                    index,
                    len,
                    slot,
                    trips,
                } => {
                    let first = recorded.get(slot).copied().unwrap_or([u64::MAX; 32]);
                    let (second, n);
                    (m, second) = self.guard_values(fr, *index, m)?;
                    (m, n) = self.guard_len(fr, len, m)?;
                    for lane in lanes(m) {
                        if !strided_ok(first[lane], second[lane], n[lane], *trips) {
                            holds &= !(1 << lane);
                        }
                    }
                }
                GuardOp::CheckAcross {
                    index,
                    len,
                    slot,
                    bound,
                } => {
                    let first = recorded.get(slot).copied().unwrap_or([u64::MAX; 32]);
                    let (second, n);
                    (m, second) = self.guard_values(fr, *index, m)?;
                    (m, n) = self.guard_len(fr, len, m)?;
                    let mut limits = [0u64; 32];
                    if let Some(b) = bound {
                        (m, limits) = self.guard_values(fr, b.limit, m)?;
                    }
                    for lane in lanes(m) {
                        let Some(values) = across else {
                            holds &= !(1 << lane);
                            continue;
                        };
                        let mut count = values.trips[lane];
                        let mut ok = true;
                        if let Some(b) = bound {
                            let loop_values =
                                [values.start[lane], values.end[lane], values.step[lane]];
                            let (n, no_wrap) = bounded_iterations(b, limits[lane], loop_values);
                            count = count.min(n);
                            ok = no_wrap;
                        }
                        if !(ok && across_ok(first[lane], second[lane], n[lane], count)) {
                            holds &= !(1 << lane);
                        }
                    }
                }
            }
        }
        Ok((m, holds & m))
    }

    /// `h`'s value in each lane of `mask`.
    fn guard_values(&mut self, fr: &mut Frame, h: Handle<Expr>, mask: u32) -> R<(u32, [u64; 32])> {
        let m = self.eval(fr, h, mask)?;
        let slot = self.slot_of(fr, h);
        let mut values = [0u64; 32];
        for lane in lanes(m) {
            values[lane] = fr.get(slot, lane);
        }
        Ok((m, values))
    }

    /// The length an index of a guard is compared with, in each lane of `mask`.
    fn guard_len(&mut self, fr: &mut Frame, len: &Length, mask: u32) -> R<(u32, [u64; 32])> {
        match len {
            Length::Const(n) => Ok((mask, [*n; 32])),
            Length::OfSlice(slice) => {
                let m = self.eval(fr, *slice, mask)?;
                let slot = self.slot_of(fr, *slice) + 1;
                let mut values = [0u64; 32];
                for lane in lanes(m) {
                    values[lane] = fr.get(slot, lane);
                }
                Ok((m, values))
            }
        }
    }
}
