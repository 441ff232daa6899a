//! The block's asynchronous copies in flight, as data: what `super::BlockDetector`
//! holds; the checks on them are `super::async_copies`'.

use super::region::RegionId;
use super::site::SiteId;

/// One end of a copy: `bytes` bytes at `offset` of `region` (relative to its start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyEnd {
    pub region: RegionId,
    pub offset: u64,
    pub bytes: u32,
}

impl CopyEnd {
    pub(super) fn overlaps(&self, region: RegionId, offset: u64, bytes: u32) -> bool {
        self.region == region
            && offset < self.offset + u64::from(self.bytes)
            && self.offset < offset + u64::from(bytes)
    }
}

/// A copy issued and not yet landed.
#[derive(Clone, Copy, Debug)]
pub struct InFlightCopy {
    /// Unique in the block while in flight (chosen by the interpreter).
    pub id: u64,
    /// The issuing thread, linear in the block.
    pub tid: u32,
    pub dst: CopyEnd,
    /// `None` when nothing is read (a zero-filling copy with `valid` 0) or the source
    /// is memory no thread writes.
    pub src: Option<CopyEnd>,
    pub site: SiteId,
    pub kind: InFlightKind,
}

/// What is in flight: a copy, or a read of a shared tile that a later wait retires
/// (`src`; `dst` is empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InFlightKind {
    /// A `cp_async` (retired by a `cp_async_wait*`).
    CpAsync,
    // Hopper: wgmma
    /// A wgmma's read of an operand tile (retired by a `wgmma_wait_group`).
    WgmmaRead,
    // Hopper: TMA
    /// A `tma_store`'s read of its tile (retired by a `bulk_wait_group_read`).
    TmaStoreRead,
}

/// The copies in flight in one block.
#[derive(Debug, Default)]
pub struct InFlightCopies {
    pub(super) copies: Vec<InFlightCopy>,
}

impl InFlightCopies {
    pub fn clear(&mut self) {
        self.copies.clear();
    }
}
