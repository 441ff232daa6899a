//! A warp's TMA stores whose tile reads are in flight: the state `super::warp::Warp`
//! holds, apart from the operations on it (`super::tma`), so that the warp names no
//! operation. The groups are PTX's bulk async-groups: `bulk_commit_group` closes the
//! thread's uncommitted stores into a group (possibly empty), and
//! `bulk_wait_group_read::<N>` retires every committed group but the `N` newest.

use super::lanes::LANES;
use crate::ir::{ScalarType, SourceLoc};

/// A store issued by one lane whose read of its tile no wait retired yet.
#[derive(Clone, Debug)]
pub(super) struct PendingStore {
    /// The detector's in-flight record.
    pub(super) id: u64,
    pub(super) lane: usize,
    /// `None` until the thread commits it.
    pub(super) group: Option<u64>,
    /// The tile's elements the store read (simulated addresses), and their type.
    pub(super) reads: Vec<u64>,
    pub(super) elem: ScalarType,
    pub(super) func: usize,
    pub(super) loc: SourceLoc,
}

/// A warp's stores in flight and each lane's count of committed bulk groups.
#[derive(Debug, Default)]
pub struct BulkStores {
    pub(super) pending: Vec<PendingStore>,
    pub(super) groups: [u64; LANES],
    pub(super) issued: u64,
}

impl BulkStores {
    /// `bulk_commit_group` by `lane`: its uncommitted stores become its next group.
    pub(super) fn commit(&mut self, lane: usize) {
        let group = self.groups[lane];
        self.groups[lane] += 1;
        for store in &mut self.pending {
            if store.lane == lane && store.group.is_none() {
                store.group = Some(group);
            }
        }
    }

    /// `bulk_wait_group_read::<pending>` by the lanes of `m`: the stores it retires,
    /// taken out of the warp's, in issue order.
    pub(super) fn retire(&mut self, m: u32, pending: u8) -> Vec<PendingStore> {
        let limit = |lane: usize| {
            (m & (1 << lane) != 0).then(|| self.groups[lane].saturating_sub(u64::from(pending)))
        };
        let limits: [Option<u64>; LANES] = std::array::from_fn(limit);
        let (retired, staying) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|s| limits[s.lane].is_some_and(|l| s.group.is_some_and(|g| g < l)));
        self.pending = staying;
        retired
    }
}
