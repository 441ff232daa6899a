//! `tma_load_multicast` on the simulator: the blocks of the cluster its mask names, and
//! the box landing in each of them, the issuing block included.
//!
//! In each destination the box's bytes are written into its tile at the issuer's tile
//! offset, and completed on its mbarrier at the issuer's barrier offset, when the copy
//! is issued; the destination's detector records them as a write of a stand-in for the
//! copy (not the issuing thread: the async proxy writes them), released to that barrier
//! (`detect::multicast`). So a thread that reads its block's tile before its own
//! barrier's phase completed, or before waiting for it, is a race (or a read before the
//! copy's write) naming the multicast, whichever came first, the issuing thread
//! included; bytes that no `expect_tx` of the destination announced leave its phase
//! with a negative count, which the deadlock report (a wait that never ends) or the
//! end-of-block check names with the multicast's site. A destination that already
//! exited, or whose barrier no thread has initialised, is a fault at the multicast: on
//! the GPU its shared memory may belong to another block by then.

use super::detect::in_flight::CopyEnd;
use super::detect::{RegionId, SiteId};
use super::fault::{Fault, R};
use super::pointer::{offset_of, region_of};
use super::warp::Warp;
use crate::ir::{checks, ScalarType, SourceLoc};
use crate::proc::mbarrier::BarrierState;
use crate::proc::tma_intrinsics::check_mask;

/// One multicast box, read once by the issuing lane: the tile and barrier pointers in
/// the issuing block (their offsets name the peer's), and the box's elements (shared
/// byte offset in the tile, value).
pub(super) struct Landing<'c> {
    pub(super) tile: u64,
    pub(super) bar: u64,
    pub(super) elements: &'c [(u64, u64)],
    pub(super) elem: ScalarType,
    pub(super) bytes: u32,
}

impl Warp<'_, '_> {
    /// The group indices of the blocks a multicast with `mask` lands in (this one
    /// included when its rank is a bit), or the panic text of a mask outside the
    /// cluster.
    pub(super) fn multicast_destinations(&self, mask: u16) -> Result<Vec<usize>, String> {
        let size: u32 = self.launch.cluster.iter().product();
        if let Some((text, a, b)) = check_mask(mask, size) {
            return Err(checks::substitute(text, a, b));
        }
        let (Some(view), Some(me)) = (self.cluster, self.cluster_index) else {
            return Err("a TMA multicast outside a scheduled cluster (a simulator fault)".into());
        };
        Ok((0..size)
            .filter(|&rank| mask & (1 << rank) != 0)
            .filter_map(|rank| view.peer(me, rank))
            .collect())
    }

    /// The box of `copy`, issued by `lane` at `loc`, lands in the block of group index
    /// `peer` (this block or another) and completes its bytes on that block's barrier.
    pub(super) fn land_in_block(
        &mut self,
        func: usize,
        loc: SourceLoc,
        lane: usize,
        peer: usize,
        copy: &Landing<'_>,
    ) -> R<()> {
        let (site, thread) = (self.site(func, loc), self.thread(lane));
        let Some(view) = self.cluster else {
            return Err(Box::new(Fault::Launch(
                "a multicast to a peer outside a cluster".into(),
            )));
        };
        let peer_block = view.blocks[peer];
        if view.has_exited(peer) {
            return Err(Box::new(Fault::Cluster {
                site,
                thread,
                problem: format!(
                    "a TMA multicast into block {peer_block:?}, which already exited: its tile and mbarrier are gone (a cluster_sync() after the copies are waited for, before any block of the cluster returns, keeps them alive)"
                ),
            }));
        }
        let buffer_of = |p: u64| {
            view.regions[peer]
                .get(region_of(p))
                .and_then(|b| b.as_deref())
        };
        let (Some(tile), Some(bars)) = (buffer_of(copy.tile), buffer_of(copy.bar)) else {
            return Err(Box::new(Fault::Launch(
                "a multicast's tile or barrier is not in the peer's shared memory".into(),
            )));
        };
        let bytes = copy.elem.size_bytes();
        for &(shared, value) in copy.elements {
            tile.store((offset_of(copy.tile) + shared) as usize, bytes, value);
        }
        let bar_at = offset_of(copy.bar);
        let bar_location = format!(
            "{} of block {peer_block:?}",
            self.launch.describe(region_of(copy.bar), bar_at)
        );
        let Some(state) = BarrierState::decode(bars.load(bar_at as usize, 8)) else {
            return Err(Box::new(Fault::Mbarrier {
                location: bar_location,
                site,
                thread,
                problem: format!(
                    "a TMA multicast completes its bytes on this barrier of block {peer_block:?}, which no thread of that block initialised yet (each destination block initialises its barrier, `fence_mbarrier_init()`, then a `cluster_sync()` before any peer's multicast)"
                ),
            }));
        };
        let next = state.complete_tx(copy.bytes);
        bars.store(bar_at as usize, 8, next.encode());
        self.changed_memory();
        self.launch.mbarriers.with(|r| {
            if let Some(rec) = r.get_mut(&(peer_block, copy.bar)) {
                rec.state = next;
                rec.multicast = Some((site.clone(), thread));
            }
        });
        let Some(det) = view.dets.and_then(|d| d[peer].as_ref()) else {
            return Ok(());
        };
        let relative = |p: u64| {
            let region = region_of(p);
            let base = self.launch.regions[region].base;
            (RegionId(region as u32), offset_of(p).saturating_sub(base))
        };
        let (tile_region, tile_offset) = relative(copy.tile);
        let span = copy.elements.iter().map(|&(s, _)| s).max().unwrap_or(0) + u64::from(bytes);
        let landed = CopyEnd {
            region: tile_region,
            offset: tile_offset,
            bytes: span as u32,
        };
        det.borrow_mut()
            .multicast_landed(thread, landed, relative(copy.bar), SiteId::new(func, loc))
            .map_err(Box::new)
    }
}
