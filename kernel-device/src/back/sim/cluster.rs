//! Thread-block clusters on the simulator: the blocks of a cluster run as one
//! scheduled group (`sched`), `cluster_sync()` is a barrier of the whole cluster, and
//! `peer_read` / `peer_write` reach the shared memory of another block of the group.
//!
//! What no GPU tool reports, checked here with the cluster's barrier generations (how
//! many `cluster_sync()`s the cluster has passed): an access of a peer's shared memory
//! and an access of the peer's own threads to the same element, at least one a write,
//! with no `cluster_sync()` between them (a [`Fault::Race`] naming both sites); a peer
//! access of a block that already exited; and a block that exits while a peer accessed
//! its shared memory after the last `cluster_sync()` it passed (the PTX ISA requires a
//! cluster barrier between a block's last remote access and its peer's exit: the
//! exited block's shared memory may be given to another block).

use super::detect::Space;
use super::fault::{Access, AccessKind, Fault, R};
use super::lanes::lanes;
use super::pointer::{offset_of, ptr_add, region_of};
use super::warp::{Frame, Preempt, Warp};
use crate::ir::{checks, ClusterOp, Expr, Handle};
use crate::proc::cluster::{rank_of, RANK_MESSAGE, SPACE_MESSAGE};

impl Warp<'_, '_> {
    /// `cluster_*`, `peer_read` and `peer_write` for the lanes of `m`.
    pub fn cluster_intrinsic(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        op: ClusterOp,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        let shape = self.launch.cluster;
        let out = self.slot_of(fr, e);
        let axis = |a: crate::ir::Axis| a as usize;
        let value = match op {
            ClusterOp::BlockRank => u64::from(rank_of(self.block, shape)),
            ClusterOp::Size => shape.iter().map(|&c| u64::from(c)).product(),
            ClusterOp::BlockIdx(a) => u64::from(self.block[axis(a)] % shape[axis(a)]),
            ClusterOp::Dim(a) => u64::from(shape[axis(a)]),
            ClusterOp::Sync => {
                self.arrive(fr, e, super::launch::BarrierKind::Cluster, m, 0)?;
                return Ok(());
            }
            ClusterOp::PeerRead | ClusterOp::PeerWrite => {
                return self.peer_lanes(fr, e, op, args, m)
            }
        };
        for lane in lanes(m) {
            fr.set(out, lane, value);
        }
        Ok(())
    }

    fn peer_lanes(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        op: ClusterOp,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        let loc = self.func(fr.func).loc_of(e);
        let slots: Vec<u32> = args.iter().map(|a| self.slot_of(fr, *a)).collect();
        let out = self.slot_of(fr, e);
        let elem = match op {
            ClusterOp::PeerRead => self.func(fr.func).exprs[e].ty.clone(),
            _ => self.func(fr.func).exprs[args[3]].ty.clone(),
        };
        let Some(elem) = elem.scalar() else {
            return Err(Box::new(Fault::Launch(format!(
                "a peer access of `{elem}`"
            ))));
        };
        let bytes = elem.size_bytes();
        let size: u32 = self.launch.cluster.iter().product();
        let first = m.trailing_zeros() as usize;
        let target = ptr_add(
            fr.get(slots[0], first),
            fr.get(slots[2], first).saturating_mul(u64::from(bytes)),
        );
        self.preempt(fr.func, loc, m, Preempt::Always, target)?;
        for lane in lanes(m) {
            let (p, len, i) = (
                fr.get(slots[0], lane),
                fr.get(slots[0] + 1, lane),
                fr.get(slots[2], lane),
            );
            if self.func(fr.func).options.bounds_check && i >= len {
                self.panic_at(
                    fr,
                    loc,
                    lane,
                    checks::substitute(checks::INDEX_MESSAGE, i, len),
                );
                continue;
            }
            let at = ptr_add(p, i.saturating_mul(u64::from(bytes)));
            let (region, offset) = (region_of(at), offset_of(at));
            if self.launch.regions.get(region).map(|r| r.space) != Some(Space::Shared) {
                self.panic_at(fr, loc, lane, checks::substitute(SPACE_MESSAGE, i, len));
                continue;
            }
            let rank = fr.get(slots[1], lane) & 0xffff_ffff;
            let (Some(view), Some(me)) = (self.cluster, self.cluster_index) else {
                return Err(Box::new(Fault::Launch(
                    "a peer access outside a cluster".into(),
                )));
            };
            let peer = (rank < u64::from(size))
                .then(|| view.peer(me, rank as u32))
                .flatten();
            let Some(peer) = peer else {
                self.panic_at(
                    fr,
                    loc,
                    lane,
                    checks::substitute(RANK_MESSAGE, rank, u64::from(size)),
                );
                continue;
            };
            let kind = if op == ClusterOp::PeerRead {
                AccessKind::Read
            } else {
                AccessKind::Write
            };
            let access = Access {
                thread: self.thread(lane),
                kind,
                site: self.site(fr.func, loc),
            };
            let launch = self.launch;
            let peer_block = view.blocks[peer];
            view.peer_access(me, peer, (region, offset), access, || {
                format!(
                    "{} of block {peer_block:?}",
                    launch.describe(region, offset)
                )
            })?;
            let buffer = match view.regions[peer].get(region).and_then(|r| r.as_deref()) {
                Some(b) if b.contains(offset, u64::from(bytes)) => b,
                _ => {
                    return Err(Box::new(Fault::OutOfBounds {
                        kind,
                        location: self.launch.describe(region, offset),
                        site: self.site(fr.func, loc),
                        thread: self.thread(lane),
                    }))
                }
            };
            if op == ClusterOp::PeerRead {
                fr.set(out, lane, buffer.load(offset as usize, bytes));
            } else {
                buffer.store(offset as usize, bytes, fr.get(slots[3], lane));
                self.changed_memory();
                // The peer's detector: the element is written (not uninitialised).
                if let Some(det) = view.dets.and_then(|d| d[peer].as_ref()) {
                    let base = self.launch.regions[region].base;
                    det.borrow_mut().peer_wrote(
                        super::detect::RegionId(region as u32),
                        offset.saturating_sub(base),
                        bytes,
                        super::detect::SiteId::new(fr.func, loc),
                    );
                }
            }
        }
        Ok(())
    }

    /// The cluster's check of an access of this block's own shared memory.
    pub(super) fn cluster_own_access(
        &self,
        region: usize,
        offset: u64,
        kind: AccessKind,
        lane: usize,
        site: super::fault::Site,
    ) -> R<()> {
        let (Some(view), Some(me)) = (self.cluster, self.cluster_index) else {
            return Ok(());
        };
        if !view.checked || self.launch.regions.get(region).map(|r| r.space) != Some(Space::Shared)
        {
            return Ok(());
        }
        let access = Access {
            thread: self.thread(lane),
            kind,
            site,
        };
        let launch = self.launch;
        let block = self.block;
        view.own_access(me, (region, offset), access, || {
            format!("{} of block {block:?}", launch.describe(region, offset))
        })
    }
}
