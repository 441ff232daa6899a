//! A TMA multicast landing in a block of the cluster (`back::sim::tma_multicast`):
//! the destination block's shadow records the box's bytes as written by a stand-in
//! thread of that block, one per issuing thread (stamp thread indices
//! from [`FIRST_WRITER`], past every real thread's), and the copy's `complete_tx`
//! releases that thread's write to the destination's mbarrier. So a thread of the
//! destination reads the tile ordered after the bytes only when it waited for the
//! barrier's phase (or passed a block barrier after a thread that did): a read
//! before that, or an access the landing overwrites without a barrier between, is a
//! race naming the multicast's site and issuing thread.

use super::in_flight::CopyEnd;
use super::shadow::Stamp;
use super::{BlockDetector, Detector, RegionId, SiteId};
use crate::back::sim::fault::{Access, AccessKind, Fault, ThreadId};
use crate::ir::MemoryScope;

/// The first stamp thread index that stands for another block's multicast (a block
/// has at most 1024 threads).
pub(super) const FIRST_WRITER: u16 = 1024;

impl Detector {
    /// The stand-in thread index of `issuer`'s multicasts (the last one when more
    /// issuers than indices: their reports may then name the wrong issuer).
    fn multicast_writer_index(&self, issuer: ThreadId) -> u16 {
        let mut writers = self
            .multicast_writers
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let k = match writers.iter().position(|&w| w == issuer) {
            Some(k) => k,
            None if writers.len() < usize::from(u16::MAX - FIRST_WRITER) => {
                writers.push(issuer);
                writers.len() - 1
            }
            None => writers.len() - 1,
        };
        FIRST_WRITER + k as u16
    }

    /// The issuing thread a stamp of a multicast stand-in stands for.
    pub(super) fn multicast_writer(&self, stamp: &Stamp) -> Option<ThreadId> {
        let k = stamp.tid.checked_sub(FIRST_WRITER)?;
        let writers = self
            .multicast_writers
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        writers.get(usize::from(k)).copied()
    }
}

impl BlockDetector<'_> {
    /// `issuer` (a thread of another block of the cluster) multicast a box into
    /// `tile` of this block's shared memory at `site`, completing on the mbarrier at
    /// byte `bar.1` of `bar.0` (offsets relative to their regions). Checks the
    /// landing against this block's accesses of the tile, records it, and releases
    /// it to the barrier.
    #[allow(clippy::result_large_err)]
    pub fn multicast_landed(
        &mut self,
        issuer: ThreadId,
        tile: CopyEnd,
        bar: (RegionId, u64),
        site: SiteId,
    ) -> Result<(), Fault> {
        let d = self.detector;
        let writer = u32::from(d.multicast_writer_index(issuer));
        let block = self.block;
        let time = self.clock.now();
        let stamp = Stamp::new(
            block,
            writer,
            time,
            site,
            AccessKind::Write,
            MemoryScope::Block,
        );
        let Some(region) = d.regions.get(tile.region.0 as usize) else {
            return Ok(());
        };
        let elem = u64::from(region.elem_bytes.max(1));
        let clock = &self.clock;
        let pending = &mut self.pending_uninitialised;
        let Some(cells) = self.shared.get_mut(tile.region.0 as usize) else {
            return Ok(());
        };
        let last = tile.offset + u64::from(tile.bytes.max(1)) - 1;
        for cell in tile.offset / elem..=last / elem {
            let Some(c) = cells.get_mut(cell as usize) else {
                continue;
            };
            c.forget_other_blocks(block);
            let unwritten = !c.written();
            let ordered = |p: &Stamp| clock.ordered(p, block, writer, |b| d.grid_sync_time(b));
            let Err(conflict) = c.record(stamp, ordered) else {
                continue;
            };
            let write = Access {
                thread: issuer,
                kind: AccessKind::Write,
                site: d.site(site),
            };
            // A read of memory no thread had written, that this landing writes: the
            // read came before the copy. The read of unwritten memory the block's end
            // would report, when this landing writes it, is this one too.
            let read_first = conflict.prior.kind() == AccessKind::Read && unwritten;
            let first_cell = tile.offset / elem;
            if read_first
                && pending.as_ref().is_some_and(|(r, at, _)| {
                    *r == tile.region && (first_cell..=last / elem).contains(at)
                })
            {
                *pending = None;
            }
            let location = format!(
                "{} (a TMA multicast from another block of the cluster landing there)",
                d.location(tile.region, cell)
            );
            if read_first {
                return Err(Fault::ReadBeforeWrite {
                    location,
                    read: d.access_of(&conflict.prior),
                    write,
                });
            }
            return Err(Fault::Race {
                location,
                first: d.access_of(&conflict.prior),
                second: write,
            });
        }
        let bar_elem = d
            .regions
            .get(bar.0 .0 as usize)
            .map_or(1, |r| u64::from(r.elem_bytes.max(1)));
        let released = self
            .in_block
            .entry((bar.0 .0, bar.1 / bar_elem))
            .or_default();
        let at = released.entry(writer as u16).or_insert(0);
        *at = (*at).max(time);
        Ok(())
    }
}
