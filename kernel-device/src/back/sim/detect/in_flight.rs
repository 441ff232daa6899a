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

/// The copies in flight in one block, their destinations and sources indexed by
/// position. A block holds hundreds of in-flight copies and wgmma operand reads, and
/// every access tested against each of them was most of a wgmma kernel's simulated
/// time; the index finds the few ends near an access, and only an access that touches
/// one (a fault) walks the copies for its report.
#[derive(Debug, Default)]
pub struct InFlightCopies {
    copies: Vec<InFlightCopy>,
    dsts: EndIndex,
    srcs: EndIndex,
}

impl InFlightCopies {
    pub fn clear(&mut self) {
        self.copies.clear();
        self.dsts = EndIndex::default();
        self.srcs = EndIndex::default();
    }

    pub(super) fn copies(&self) -> &[InFlightCopy] {
        &self.copies
    }

    pub(super) fn push(&mut self, copy: InFlightCopy) {
        self.dsts.insert(copy.dst);
        if let Some(src) = copy.src {
            self.srcs.insert(src);
        }
        self.copies.push(copy);
    }

    /// Removes copy `id` (a no-op when none is in flight).
    pub(super) fn remove(&mut self, id: u64) {
        let Some(at) = self.copies.iter().position(|c| c.id == id) else {
            return;
        };
        let copy = self.copies.remove(at);
        self.dsts.remove(copy.dst);
        if let Some(src) = copy.src {
            self.srcs.remove(src);
        }
    }

    /// Whether an access of `bytes` bytes at `offset` of `region` (a write when
    /// `write`) overlaps a copy's destination, or a write a copy's source: the test of
    /// `super::async_copies`' report, on the index.
    pub(super) fn touched(&self, region: RegionId, offset: u64, bytes: u32, write: bool) -> bool {
        self.dsts.touches(region, offset, bytes)
            || (write && self.srcs.touches(region, offset, bytes))
    }
}

/// Copy ends sorted by region and offset, each with how many copies have it.
#[derive(Debug, Default)]
struct EndIndex {
    ends: Vec<(CopyEnd, u32)>,
    /// No end held since the index was last empty was longer (so an end overlapping
    /// an access starts at most this far before it).
    longest: u64,
}

fn position_key(end: &CopyEnd) -> (u32, u64, u32) {
    (end.region.0, end.offset, end.bytes)
}

impl EndIndex {
    fn insert(&mut self, end: CopyEnd) {
        match self
            .ends
            .binary_search_by_key(&position_key(&end), |(e, _)| position_key(e))
        {
            Ok(at) => self.ends[at].1 += 1,
            Err(at) => self.ends.insert(at, (end, 1)),
        }
        self.longest = self.longest.max(u64::from(end.bytes));
    }

    fn remove(&mut self, end: CopyEnd) {
        if let Ok(at) = self
            .ends
            .binary_search_by_key(&position_key(&end), |(e, _)| position_key(e))
        {
            self.ends[at].1 -= 1;
            if self.ends[at].1 == 0 {
                self.ends.remove(at);
            }
        }
        if self.ends.is_empty() {
            self.longest = 0;
        }
    }

    fn touches(&self, region: RegionId, offset: u64, bytes: u32) -> bool {
        // Ends that start from `longest` bytes before the access to its end; an empty
        // end counts when the access straddles its offset (`CopyEnd::overlaps`).
        let from = (region.0, offset.saturating_sub(self.longest), 0);
        let first = self.ends.partition_point(|(e, _)| position_key(e) < from);
        let end = offset + u64::from(bytes);
        self.ends[first..]
            .iter()
            .take_while(|(e, _)| e.region == region && e.offset < end)
            .any(|(e, _)| e.overlaps(region, offset, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index answers as testing every copy in flight does (the former check), on
    /// random copies of mixed regions, lengths (empty ones too) and overlaps, as they
    /// are issued and retired in random order.
    #[test]
    fn the_index_finds_what_a_test_of_every_copy_finds() {
        let mut rng = fastrand::Rng::new();
        let seed = rng.get_seed();
        let end = |rng: &mut fastrand::Rng| CopyEnd {
            region: RegionId(rng.u32(0..3)),
            offset: rng.u64(0..512),
            bytes: [0, 1, 4, 16, 128][rng.usize(0..5)],
        };
        let mut in_flight = InFlightCopies::default();
        for id in 0..2000u64 {
            if rng.bool() || in_flight.copies().is_empty() {
                in_flight.push(InFlightCopy {
                    id,
                    tid: 0,
                    dst: end(&mut rng),
                    src: rng.bool().then(|| end(&mut rng)),
                    site: SiteId::new(0, Default::default()),
                    kind: InFlightKind::CpAsync,
                });
            } else {
                let gone = in_flight.copies()[rng.usize(0..in_flight.copies().len())].id;
                in_flight.remove(gone);
            }
            let (region, offset) = (RegionId(rng.u32(0..3)), rng.u64(0..640));
            let (bytes, write) = ([1, 2, 4, 8, 16][rng.usize(0..5)], rng.bool());
            let every = in_flight.copies().iter().any(|c| {
                c.dst.overlaps(region, offset, bytes)
                    || (write && c.src.is_some_and(|s| s.overlaps(region, offset, bytes)))
            });
            assert_eq!(
                in_flight.touched(region, offset, bytes, write),
                every,
                "seed {seed}, step {id}: {bytes} bytes at {offset} of {region:?}"
            );
        }
    }
}
