//! The simulator's record of a launch's mbarriers: the state `super::launch::Launch`
//! holds, apart from the operations on it (`super::mbarrier`), so that the launch names
//! no operation.

use std::collections::HashMap;
use std::sync::Mutex;

use super::fault::{Site, ThreadId};
use crate::proc::mbarrier::BarrierState;

/// Who initialised a barrier and who last expected transaction bytes on it, by block
/// and address, for the reports that name two sites. The barrier's state is its word
/// in shared memory; this mirrors the last state seen, for the deadlock report.
#[derive(Default)]
pub struct MbarrierRegistry {
    inner: Mutex<HashMap<([u32; 3], u64), Record>>,
}

#[derive(Clone, Debug)]
pub(super) struct Record {
    pub(super) location: String,
    pub(super) init: (Site, ThreadId),
    pub(super) expected_tx: Option<(Site, ThreadId)>,
    pub(super) state: BarrierState,
    /// Whether the latest wait on it found its phase incomplete.
    pub(super) waited: bool,
    /// The latest TMA multicast of another block that completed bytes on it.
    pub(super) multicast: Option<(Site, ThreadId)>,
}

impl Record {
    /// What a report adds when the barrier's bytes ran ahead of its expectation
    /// (`tx` negative) after a peer's multicast completed them.
    pub(super) fn unexpected_multicast(&self) -> Option<String> {
        let (site, thread) = self.multicast.as_ref().filter(|_| self.state.tx < 0)?;
        Some(format!(
            "the TMA multicast at {site} by {thread} completed {} bytes on it that no `mbarrier_arrive_expect_tx` of this block announced (every destination block expects the box's bytes on its own barrier)",
            -self.state.tx
        ))
    }
}

impl MbarrierRegistry {
    pub(super) fn with<T>(&self, f: impl FnOnce(&mut HashMap<([u32; 3], u64), Record>) -> T) -> T {
        f(&mut self.inner.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// A clause for a deadlock report whose spinners yielded at `addr`, when that is a
    /// barrier: every barrier some thread waits on, with its counts and the transaction
    /// bytes outstanding (the one at fault is among them: a ring's other barriers wait
    /// behind it).
    pub fn waited_for(&self, addr: u64) -> Option<String> {
        self.with(|r| {
            if !r.keys().any(|(_, p)| *p == addr) {
                return None;
            }
            let mut waited: Vec<_> = r.iter().filter(|(_, rec)| rec.waited).collect();
            waited.sort_by_key(|((b, p), _)| (*b, *p));
            let each: Vec<String> = waited
                .iter()
                .map(|(_, rec)| {
                    let s = rec.state;
                    let multicast = rec
                        .unexpected_multicast()
                        .map_or(String::new(), |m| format!(" ({m})"));
                    format!(
                        "the mbarrier {} (initialised at {} with count {}), whose phase {} has {} of {} arrivals and {} transaction bytes outstanding{multicast}",
                        rec.location,
                        rec.init.0,
                        s.expected,
                        s.phase,
                        s.expected - s.pending,
                        s.expected,
                        s.tx
                    )
                })
                .collect();
            Some(format!(
                "; they wait for phases that never complete, on {} (a wait on the wrong parity, a missing arrival or an expect_tx that no copy completes)",
                each.join("; and on ")
            ))
        })
    }
}
