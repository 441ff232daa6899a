//! The block's asynchronous copies in flight (`cp_async` issued, not yet retired by a
//! `cp_async_wait*`), and the protocol checks on them. A copy's bytes land only when
//! its thread's wait retires it (the interpreter writes them then, as a write of the
//! issuing thread at the `cp_async` site, so that the happens-before rules order it
//! like any write: another thread must wait for a barrier after the wait). Until then:
//! - any access to its destination (by any thread of the block, the issuer included)
//!   is a race with the copy: the GPU may or may not have written those bytes yet;
//! - a write to its source is a race with the copy's read of it;
//! - a thread that ends with a copy in flight never synchronised with its bytes.
//!
//! Reports are [`Fault::Race`]s naming both sites, the copy first, with the location
//! saying which rule broke; the last is [`Fault::UnwaitedAsyncCopy`].
//!
//! Reads of a shared tile that a later wait retires are in flight the same way, with
//! only a source: a wgmma's operands (until its `wgmma_wait_group`) and a `tma_store`'s
//! tile (until a `bulk_wait_group_read` retires its bulk group: the hardware reads the
//! tile at some point before that, so a write to it in between may change what lands).

use super::in_flight::{InFlightCopy, InFlightKind};
use super::{BlockDetector, WarpAccess};
use crate::back::sim::fault::{Access, AccessKind, Fault};
use crate::back::sim::lanes::lanes;

impl BlockDetector<'_> {
    /// A thread issued a copy.
    pub fn copy_started(&mut self, copy: InFlightCopy) {
        self.in_flight.push(copy);
    }

    /// A wait retired copy `id`: call before writing its bytes.
    pub fn copy_landed(&mut self, id: u64) {
        self.in_flight.remove(id);
    }

    fn copy_access(&self, copy: &InFlightCopy, kind: AccessKind) -> Access {
        let d = self.detector;
        Access {
            thread: d.thread_id(self.block, copy.tid),
            kind,
            site: d.site(copy.site),
        }
    }

    /// An access (before the ordinary race checks): a race with a copy in flight?
    #[allow(clippy::result_large_err)]
    pub(super) fn check_in_flight(&self, warp: u32, access: &WarpAccess<'_>) -> Result<(), Fault> {
        if self.in_flight.copies().is_empty() {
            return Ok(());
        }
        // The distinct ends first: only an access that touches one walks the copies
        // (below), to name the first copy it races with.
        let write = access.kind != AccessKind::Read;
        let touched = lanes(access.lanes).any(|lane| {
            self.in_flight
                .touched(access.region, access.offsets[lane], access.bytes, write)
        });
        if !touched {
            return Ok(());
        }
        let d = self.detector;
        let elem = d
            .regions
            .get(access.region.0 as usize)
            .map_or(1, |r| u64::from(r.elem_bytes.max(1)));
        for lane in lanes(access.lanes) {
            let offset = access.offsets[lane];
            for copy in self.in_flight.copies() {
                let (end, copy_kind, rule) = if copy.dst.overlaps(
                    access.region,
                    offset,
                    access.bytes,
                ) {
                    let rule = if access.kind == AccessKind::Read {
                        "the destination of a cp_async still in flight, read before a cp_async_wait retired the copy (and, for another thread's copy, a sync_threads() after it)"
                    } else {
                        "the destination of a cp_async still in flight, written by an ordinary store before a cp_async_wait retired the copy"
                    };
                    (copy.dst, AccessKind::Write, rule)
                } else if access.kind != AccessKind::Read
                    && copy
                        .src
                        .is_some_and(|s| s.overlaps(access.region, offset, access.bytes))
                {
                    let src = copy.src.expect("checked");
                    let rule = match copy.kind {
                        InFlightKind::CpAsync => "the source of a cp_async still in flight, overwritten before a cp_async_wait retired the copy",
                        // Hopper: wgmma
                        InFlightKind::WgmmaRead => "a shared tile a wgmma still reads, overwritten before a wgmma_wait_group retired the wgmma's group",
                        // Hopper: TMA
                        InFlightKind::TmaStoreRead => "a shared tile a tma_store still reads, overwritten before a bulk_wait_group_read retired the store's bulk group (and, for another thread's store, a sync_threads() after that wait)",
                    };
                    (src, AccessKind::Read, rule)
                } else {
                    continue;
                };
                let _ = end;
                let tid = warp * 32 + lane as u32;
                return Err(Fault::Race {
                    location: format!("{} ({rule})", d.location(access.region, offset / elem)),
                    first: self.copy_access(copy, copy_kind),
                    second: Access {
                        thread: d.thread_id(self.block, tid),
                        kind: access.kind,
                        site: d.site(access.site),
                    },
                });
            }
        }
        Ok(())
    }

    /// The block ended: a copy still in flight was never waited for.
    #[allow(clippy::result_large_err)]
    pub(super) fn check_all_landed(&mut self) -> Result<(), Fault> {
        let Some(copy) = self.in_flight.copies().first().copied() else {
            return Ok(());
        };
        self.in_flight.clear();
        let d = self.detector;
        let elem_of = |region: super::RegionId| {
            d.regions
                .get(region.0 as usize)
                .map_or(1, |r| u64::from(r.elem_bytes.max(1)))
        };
        // Hopper: TMA
        if copy.kind == InFlightKind::TmaStoreRead {
            let src = copy.src.unwrap_or(copy.dst);
            return Err(Fault::UnwaitedBulkStore {
                location: d.location(src.region, src.offset / elem_of(src.region)),
                site: d.site(copy.site),
                thread: d.thread_id(self.block, copy.tid),
            });
        }
        // Hopper: wgmma
        if copy.kind == InFlightKind::WgmmaRead {
            return Err(Fault::Wgmma {
                site: d.site(copy.site),
                thread: d.thread_id(self.block, copy.tid),
                problem: "the block ended with this wgmma's group never retired by a wgmma_wait_group (a wgmma_commit_group and wgmma_wait_group_0 are missing): its accumulator is undefined on the GPU".into(),
            });
        }
        Err(Fault::UnwaitedAsyncCopy {
            location: d.location(copy.dst.region, copy.dst.offset / elem_of(copy.dst.region)),
            site: d.site(copy.site),
            thread: d.thread_id(self.block, copy.tid),
        })
    }
}
