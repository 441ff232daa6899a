//! Shared-memory mbarriers on the simulator, with the protocol checks no GPU tool has.
//!
//! A barrier's state (expected and pending arrivals, outstanding transaction bytes,
//! phase: `proc::mbarrier::BarrierState`) lives in its own `u64` of shared memory, so it
//! starts and ends with the block and a waiter spinning on `mbarrier_try_wait_parity`
//! sees it change. Ordering is the hardware's: an arrival (and a `complete_tx`) is a
//! fence then an atomic on the barrier, a wait an atomic on it, so the detector's
//! release/acquire through atomics orders the producer's writes before the consumer's
//! reads only when the consumer waited for the right phase; `mbarrier_init` is a plain
//! write, which other threads must see through a barrier (`sync_threads`).
//!
//! Misuse is a [`Fault::Mbarrier`] naming the barrier and the sites: an operation on
//! an uninitialised barrier, an init of a barrier in use (both inits' sites), more
//! arrivals than the count in one phase, a block that ends with a phase that has
//! expected transaction bytes outstanding (the site that expected them). A wait that
//! no thread can end is the scheduler's deadlock, whose report
//! (`super::mbarrier_state::MbarrierRegistry::waited_for`) completes
//! with the barrier's counts.

use std::sync::Arc;

use super::detect::{RegionId, SiteId, Space};
use super::fault::{AccessKind, Fault, R};
use super::lanes::lanes;
use super::launch::Launch;
use super::mbarrier_state::Record;
use super::memory::Buffer;
use super::pointer::{offset_of, ptr_add, region_of, LOCAL_REGION};
use super::warp::{Frame, Preempt, Warp};
use crate::ir::{checks, Expr, Handle, MbarrierOp, MemoryScope, SourceLoc};
use crate::proc::mbarrier::{BarrierState, MAX_ARRIVALS, SPACE_MESSAGE};

impl Warp<'_, '_> {
    /// Where one lane's `slice[index]` of a shared-memory slice lives (`slots`: the
    /// slice's and the index's), or `None` after that lane panicked: the index past the
    /// end (bounds checks on), or the slice not in shared memory (`space_message`). The
    /// check that barriers and wgmma descriptors (both name a shared element) share.
    pub(super) fn shared_element(
        &mut self,
        fr: &Frame,
        loc: SourceLoc,
        lane: usize,
        (slice, index): (u32, u32),
        elem_bytes: u64,
        space_message: &str,
    ) -> Option<u64> {
        let (p, len, i) = (
            fr.get(slice, lane),
            fr.get(slice + 1, lane),
            fr.get(index, lane),
        );
        if self.func(fr.func).options.bounds_check && i >= len {
            let message = checks::substitute(checks::INDEX_MESSAGE, i, len);
            self.panic_at(fr, loc, lane, message);
            return None;
        }
        let at = ptr_add(p, i.saturating_mul(elem_bytes));
        let region = region_of(at);
        let shared = region != LOCAL_REGION as usize
            && self.launch.regions.get(region).map(|r| r.space) == Some(Space::Shared);
        if !shared {
            self.panic_at(fr, loc, lane, checks::substitute(space_message, i, len));
            return None;
        }
        Some(at)
    }

    /// `mbarrier_*` and `fence_mbarrier_init` for the lanes of `m` (operands evaluated).
    pub fn mbarrier_intrinsic(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        op: MbarrierOp,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        let func = self.func(fr.func);
        let loc = func.loc_of(e);
        if op == MbarrierOp::FenceInit {
            self.preempt(fr.func, loc, m, Preempt::Always, u64::MAX)?;
            self.fence(m, MemoryScope::Block);
            return Ok(());
        }
        let (bars, index) = (self.slot_of(fr, args[0]), self.slot_of(fr, args[1]));
        let operand = args.get(2).map(|h| self.slot_of(fr, *h));
        let out = self.slot_of(fr, e);
        let first = m.trailing_zeros() as usize;
        let target = ptr_add(fr.get(bars, first), fr.get(index, first).saturating_mul(8));
        // Which thread's operation comes first is the schedule's; a waiter yields at
        // the barrier's address, so a wait that never ends is seen as a spin.
        self.preempt(fr.func, loc, m, Preempt::Always, target)?;
        for lane in lanes(m) {
            let Some(p) = self.shared_element(fr, loc, lane, (bars, index), 8, SPACE_MESSAGE)
            else {
                continue;
            };
            let value = operand.map_or(0, |s| fr.get(s, lane)) as u32;
            self.mbarrier_lane(fr, loc, lane, op, p, value, out)?;
        }
        Ok(())
    }

    /// One lane's mbarrier operation `op` on the barrier at `p` (in shared memory, in
    /// bounds) with operand `value`, its result (if any) into slot `out`. Also what a
    /// TMA load does when its bytes land (`CompleteTx`, `super::tma`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mbarrier_lane(
        &mut self,
        fr: &mut Frame,
        loc: SourceLoc,
        lane: usize,
        op: MbarrierOp,
        p: u64,
        value: u32,
        out: u32,
    ) -> R<()> {
        {
            let (region, offset) = (region_of(p), offset_of(p));
            let kind = if op == MbarrierOp::Init {
                AccessKind::Write
            } else {
                AccessKind::Atomic
            };
            let buffer = self.buffer(fr, loc, lane, region, offset, 8, kind)?;
            let word = buffer.load(offset as usize, 8);
            let here = (self.site(fr.func, loc), self.thread(lane));
            let key = (self.block, p);
            let location = self.launch.describe(region, offset);
            let misuse = |problem: String| {
                Box::new(Fault::Mbarrier {
                    location: location.clone(),
                    site: here.0.clone(),
                    thread: here.1,
                    problem,
                })
            };
            let registry = &self.launch.mbarriers;
            let record = registry.with(|r| r.get(&key).cloned());
            let state = BarrierState::decode(word);
            match (op, state) {
                (MbarrierOp::Init, Some(_)) => {
                    let first = record.map_or_else(
                        || "earlier".to_string(),
                        |r| format!("at {} by {}", r.init.0, r.init.1),
                    );
                    return Err(misuse(format!(
                        "`mbarrier_init` of a barrier already initialised {first} (one thread initialises it, once, before any use)"
                    )));
                }
                (MbarrierOp::Init, None) if value == 0 || value > MAX_ARRIVALS => {
                    return Err(misuse(format!(
                        "`mbarrier_init` with count {value}: the count must be 1 to {MAX_ARRIVALS}"
                    )));
                }
                (MbarrierOp::Init, None) => {}
                (_, None) => {
                    return Err(misuse(format!(
                        "{} on a barrier no thread initialised (call `mbarrier_init` once, then `fence_mbarrier_init()` and `sync_threads()`, before any thread uses it)",
                        op_name(op)
                    )));
                }
                (_, Some(_)) => {}
            }
            let releases = matches!(
                op,
                MbarrierOp::Arrive | MbarrierOp::ArriveExpectTx | MbarrierOp::CompleteTx
            );
            if releases {
                // An arrival releases what the thread did before it (PTX `.release`).
                self.fence(1 << lane, MemoryScope::Block);
            }
            match state {
                // A wait acquires the phase's arrivals and publishes nothing.
                Some(state) if op == MbarrierOp::TryWaitParity => {
                    let done = state.phase_done(value);
                    self.observe_wait(region, offset, lane, (fr.func, loc), done)?;
                }
                _ => self.observe(
                    region,
                    offset,
                    8,
                    kind,
                    MemoryScope::Block,
                    lane,
                    fr.func,
                    loc,
                )?,
            }
            let next = match state {
                None => BarrierState::new(value),
                Some(state) if op == MbarrierOp::TryWaitParity => {
                    let done = state.phase_done(value);
                    fr.set(out, lane, u64::from(done));
                    registry.with(|r| r.get_mut(&key).map(|rec| rec.waited = !done));
                    return Ok(());
                }
                Some(state) if op == MbarrierOp::CompleteTx => state.complete_tx(value),
                Some(state) => {
                    let state = if op == MbarrierOp::ArriveExpectTx {
                        state.expect_tx(value)
                    } else {
                        state
                    };
                    fr.set(out, lane, u64::from(state.phase));
                    state.arrive().ok_or_else(|| {
                        misuse(format!(
                            "an arrival more than the {} of the phase (the count given to `mbarrier_init`{})",
                            state.expected,
                            record.as_ref().map_or(String::new(), |r| format!(" at {}", r.init.0))
                        ))
                    })?
                }
            };
            buffer.store(offset as usize, 8, next.encode());
            self.changed_memory();
            registry.with(|r| {
                let fresh = Record {
                    location: location.clone(),
                    init: here.clone(),
                    expected_tx: None,
                    state: next,
                    waited: false,
                    multicast: None,
                };
                // An init starts a new record (one of an earlier schedule may be there).
                if op == MbarrierOp::Init {
                    r.insert(key, fresh.clone());
                }
                let rec = r.entry(key).or_insert(fresh);
                rec.state = next;
                if op == MbarrierOp::ArriveExpectTx {
                    rec.expected_tx = Some(here.clone());
                }
            });
        }
        Ok(())
    }
}

impl Warp<'_, '_> {
    /// Tells the detector that `lane` waited on the barrier at `offset` of `region`
    /// (`BlockDetector::mbarrier_wait`), its phase `done` or not.
    fn observe_wait(
        &self,
        region: usize,
        offset: u64,
        lane: usize,
        (func, loc): (usize, SourceLoc),
        done: bool,
    ) -> R<()> {
        let Some(det) = self.det else {
            return Ok(());
        };
        if !self.launch.observed.get(region).copied().unwrap_or(true) {
            return Ok(());
        }
        let Some(relative) = offset.checked_sub(self.launch.regions[region].base) else {
            return Ok(());
        };
        let tid = self.warp_index * super::lanes::LANES as u32 + lane as u32;
        det.borrow_mut()
            .mbarrier_wait(
                tid,
                RegionId(region as u32),
                relative,
                SiteId::new(func, loc),
                done,
            )
            .map_err(Box::new)
    }
}

fn op_name(op: MbarrierOp) -> &'static str {
    match op {
        MbarrierOp::Init => "`mbarrier_init`",
        MbarrierOp::Arrive => "`mbarrier_arrive`",
        MbarrierOp::ArriveExpectTx => "`mbarrier_arrive_expect_tx`",
        MbarrierOp::CompleteTx => "`mbarrier_complete_tx`",
        MbarrierOp::TryWaitParity => "`mbarrier_try_wait_parity`",
        MbarrierOp::FenceInit => "`fence_mbarrier_init`",
    }
}

/// After the blocks of a group ended: a barrier whose phase still expects transaction
/// bytes is an error (on the GPU, the bytes' waiter hangs or the next use of the
/// barrier sees a phase that never completes). Forgets the group's barriers.
pub fn check_at_exit(
    launch: &Launch,
    blocks: &[[u32; 3]],
    regions: &[Vec<Option<Arc<Buffer>>>],
) -> Result<(), Box<Fault>> {
    let records: Vec<(([u32; 3], u64), Record)> = launch.mbarriers.with(|r| {
        let mine: Vec<_> = r
            .keys()
            .filter(|(b, _)| blocks.contains(b))
            .copied()
            .collect();
        mine.into_iter()
            .filter_map(|k| r.remove(&k).map(|rec| (k, rec)))
            .collect()
    });
    let mut found: Option<Box<Fault>> = None;
    for ((block, p), record) in records {
        let Some(k) = blocks.iter().position(|b| *b == block) else {
            continue;
        };
        let Some(buffer) = regions[k].get(region_of(p)).and_then(|b| b.as_deref()) else {
            continue;
        };
        let Some(state) = BarrierState::decode(buffer.load(offset_of(p) as usize, 8)) else {
            continue;
        };
        if state.tx != 0 && found.is_none() {
            // Hopper: TMA multicast: bytes a peer's copy completed, never expected.
            let record = Record { state, ..record };
            if let Some(problem) = record.unexpected_multicast() {
                found = Some(Box::new(Fault::Mbarrier {
                    location: record.location,
                    site: record.init.0,
                    thread: record.init.1,
                    problem: format!(
                        "the block ended with phase {} of this barrier (initialised here) never completed: {problem}",
                        state.phase
                    ),
                }));
                continue;
            }
            let (site, thread) = record.expected_tx.unwrap_or(record.init);
            found = Some(Box::new(Fault::Mbarrier {
                location: record.location,
                site,
                thread,
                problem: format!(
                    "the block ended with {} transaction bytes of phase {} never completed (expected here with `mbarrier_arrive_expect_tx`; {} of {} arrivals made): the expected count and the bytes copied differ",
                    state.tx,
                    state.phase,
                    state.expected - state.pending,
                    state.expected
                ),
            }));
        }
    }
    found.map_or(Ok(()), Err)
}

#[cfg(test)]
#[path = "mbarrier_tests.rs"]
mod tests;
