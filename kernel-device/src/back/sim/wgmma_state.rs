//! A warp's warpgroup-MMA protocol state: what `super::warp::Warp` holds, apart from
//! the operations on it (`super::wgmma`), so that the warp names no operation.

use crate::ir::SourceLoc;

/// A wgmma issued and not yet retired by a wait.
#[derive(Clone, Debug)]
pub(super) struct PendingWgmma {
    /// `None` until the warp commits it.
    pub(super) group: Option<u64>,
    /// The detector's in-flight records of the tiles it reads.
    pub(super) reads: Vec<u64>,
}

/// A warp's wgmmas in flight, its committed groups, and whether a fence allows the
/// next wgmma.
#[derive(Debug, Default)]
pub struct WgmmaState {
    pub(super) pending: Vec<PendingWgmma>,
    pub(super) groups: u64,
    pub(super) issued: u64,
    pub(super) fenced: bool,
    /// The function and site of the warp's last `wgmma_wait_group_*`.
    pub(super) last_wait: Option<(usize, SourceLoc)>,
}
