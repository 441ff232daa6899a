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

/// The copies in flight in one block, and for each region the span that all their
/// ends there cover: most accesses (an mbarrier spin, a tile no copy touches) fall
/// outside every span and need no copy-by-copy test. A block holds hundreds of
/// in-flight wgmma operand reads (one per thread), which made that test most of a
/// wgmma kernel's simulated time.
#[derive(Debug, Default)]
pub struct InFlightCopies {
    copies: Vec<InFlightCopy>,
    /// `(region, first byte, end)` per region some end of a copy lies in.
    spans: Vec<(RegionId, u64, u64)>,
}

impl InFlightCopies {
    pub fn clear(&mut self) {
        self.copies.clear();
        self.spans.clear();
    }

    pub(super) fn copies(&self) -> &[InFlightCopy] {
        &self.copies
    }

    pub(super) fn push(&mut self, copy: InFlightCopy) {
        self.cover(copy.dst);
        if let Some(src) = copy.src {
            self.cover(src);
        }
        self.copies.push(copy);
    }

    /// Removes copy `id`; the spans shrink to what the remaining copies cover.
    pub(super) fn remove(&mut self, id: u64) {
        self.copies.retain(|c| c.id != id);
        self.spans.clear();
        for i in 0..self.copies.len() {
            let copy = self.copies[i];
            self.cover(copy.dst);
            if let Some(src) = copy.src {
                self.cover(src);
            }
        }
    }

    /// Whether `bytes` bytes at each of `offsets` in `region` may touch some copy's end:
    /// `false` means no copy-by-copy test can find one.
    pub(super) fn may_touch(&self, region: RegionId, first: u64, end: u64) -> bool {
        self.spans
            .iter()
            .any(|&(r, lo, hi)| r == region && first < hi && lo < end)
    }

    /// Widens `end.region`'s span over `end` (an empty end too: `CopyEnd::overlaps`
    /// counts an access that straddles its offset).
    fn cover(&mut self, end: CopyEnd) {
        let (lo, hi) = (end.offset, end.offset + u64::from(end.bytes));
        match self.spans.iter_mut().find(|(r, _, _)| *r == end.region) {
            Some((_, first, last)) => {
                *first = (*first).min(lo);
                *last = (*last).max(hi);
            }
            None => self.spans.push((end.region, lo, hi)),
        }
    }
}
