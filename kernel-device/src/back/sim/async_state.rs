//! A warp's asynchronous copies in flight: the state `super::warp::Warp` holds, apart
//! from the operations on it (`super::async_copy`), so that the warp names no operation.

use super::lanes::LANES;
use crate::ir::{ScalarType, SourceLoc};

/// A copy issued by one lane and not yet landed.
#[derive(Clone, Debug)]
pub(super) struct PendingCopy {
    pub(super) id: u64,
    pub(super) lane: usize,
    /// `None` until the thread commits it.
    pub(super) group: Option<u64>,
    pub(super) dst: u64,
    pub(super) elem: ScalarType,
    /// The elements to write, zero-filled, as read from the source at the issue.
    pub(super) values: Vec<u64>,
    pub(super) func: usize,
    pub(super) loc: SourceLoc,
}

/// A warp's copies in flight and each lane's count of committed groups.
#[derive(Debug, Default)]
pub struct AsyncCopies {
    pub(super) pending: Vec<PendingCopy>,
    pub(super) groups: [u64; LANES],
    pub(super) issued: u64,
}
