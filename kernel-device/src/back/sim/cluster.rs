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

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::detect::{BlockDetector, Space};
use super::fault::{Access, AccessKind, Fault, R};
use super::lanes::lanes;
use super::memory::Buffer;
use super::pointer::{offset_of, ptr_add, region_of};
use super::warp::{Frame, Preempt, Warp};
use crate::ir::{checks, ClusterOp, Expr, Handle};
use crate::proc::cluster::{rank_of, RANK_MESSAGE, SPACE_MESSAGE};

type Regions = Vec<Option<Arc<Buffer>>>;

/// One element of a block's shared memory: (block's index in the group, region, byte).
type Element = (usize, usize, u64);

/// The cluster state of one scheduled group (its warps run on one host thread).
pub struct ClusterView<'l> {
    pub shape: [u32; 3],
    /// The group's blocks and their region tables, by index in the group.
    pub blocks: Vec<[u32; 3]>,
    pub regions: &'l [Regions],
    /// The group's block detectors (a peer write initialises the peer's element).
    pub dets: Option<&'l [Option<RefCell<BlockDetector<'l>>>]>,
    /// Whether accesses are checked (the launch's `detect` option).
    pub checked: bool,
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    /// Per block of the group: the `cluster_sync()`s its cluster has passed.
    generation: Vec<u64>,
    exited: Vec<bool>,
    /// Last write of each element and who did it (checked only for cross-block pairs).
    writes: HashMap<Element, (usize, u64, Access)>,
    /// Last peer read of each element.
    peer_reads: HashMap<Element, (usize, u64, Access)>,
    /// Per block: the latest peer access of its memory (generation, who).
    last_peer_access: Vec<Option<(u64, Access)>>,
}

impl<'l> ClusterView<'l> {
    pub fn new(
        shape: [u32; 3],
        blocks: Vec<[u32; 3]>,
        regions: &'l [Regions],
        checked: bool,
    ) -> Self {
        let n = blocks.len();
        ClusterView {
            shape,
            blocks,
            regions,
            dets: None,
            checked,
            state: RefCell::new(State {
                generation: vec![0; n],
                exited: vec![false; n],
                last_peer_access: vec![None; n],
                ..State::default()
            }),
        }
    }

    fn cluster_of(&self, b: usize) -> [u32; 3] {
        let block = self.blocks[b];
        [0, 1, 2].map(|a| block[a] / self.shape[a])
    }

    /// The group index of the block of rank `rank` in block `b`'s cluster.
    fn peer(&self, b: usize, rank: u32) -> Option<usize> {
        let origin = self.cluster_of(b);
        self.blocks.iter().position(|blk| {
            [0, 1, 2].map(|a| blk[a] / self.shape[a]) == origin && rank_of(*blk, self.shape) == rank
        })
    }

    /// The blocks of the group in `b`'s cluster.
    pub fn members(&self, b: usize) -> Vec<usize> {
        let c = self.cluster_of(b);
        (0..self.blocks.len())
            .filter(|&k| self.cluster_of(k) == c)
            .collect()
    }

    /// A `cluster_sync()` released the cluster of these blocks.
    pub fn passed_barrier(&self, blocks: &[usize]) {
        let mut s = self.state.borrow_mut();
        for &b in blocks {
            s.generation[b] += 1;
        }
    }

    /// Every thread of block `b` exited: a peer that accessed its memory after the
    /// last barrier it passed may still do so.
    pub fn block_exited(&self, b: usize) -> Result<(), Box<Fault>> {
        let mut s = self.state.borrow_mut();
        s.exited[b] = true;
        if !self.checked {
            return Ok(());
        }
        if let Some((generation, access)) = &s.last_peer_access[b] {
            if *generation >= s.generation[b] {
                return Err(Box::new(Fault::Cluster {
                    site: access.site.clone(),
                    thread: access.thread,
                    problem: format!(
                        "this {} of the shared memory of block {:?} has no cluster_sync() \
                         between it and that block's exit (the exited block's shared memory \
                         may be given to another block; put a cluster_sync() after the last \
                         peer access, before any block of the cluster returns)",
                        access.kind, self.blocks[b]
                    ),
                }));
            }
        }
        Ok(())
    }

    /// An access of block `b`'s own shared memory by one of its threads: a race with
    /// a peer's access of the same element since the last `cluster_sync()`.
    pub fn own_access(
        &self,
        b: usize,
        element: (usize, u64),
        access: Access,
        location: impl Fn() -> String,
    ) -> R<()> {
        let mut s = self.state.borrow_mut();
        let generation = s.generation[b];
        let key = (b, element.0, element.1);
        let conflict = |other: &Option<&(usize, u64, Access)>| {
            other
                .filter(|(by, g, _)| *by != b && *g == generation)
                .map(|(_, _, a)| a.clone())
        };
        let mut found = conflict(&s.writes.get(&key));
        if access.kind == AccessKind::Write && found.is_none() {
            found = conflict(&s.peer_reads.get(&key));
        }
        if let Some(first) = found {
            return Err(Box::new(Fault::Race {
                location: format!("{} (distributed shared memory)", location()),
                first,
                second: access,
            }));
        }
        if access.kind != AccessKind::Read {
            s.writes.insert(key, (b, generation, access));
        }
        Ok(())
    }

    /// A peer access by block `by` of element `element` of block `b`.
    fn peer_access(
        &self,
        by: usize,
        b: usize,
        element: (usize, u64),
        access: Access,
        location: impl Fn() -> String,
    ) -> R<()> {
        let mut s = self.state.borrow_mut();
        if s.exited[b] {
            return Err(Box::new(Fault::Cluster {
                site: access.site.clone(),
                thread: access.thread,
                problem: format!(
                    "{} of the shared memory of block {:?}, which already exited (a \
                     cluster_sync() after the last peer access, before the block returns, \
                     keeps its shared memory alive)",
                    access.kind, self.blocks[b]
                ),
            }));
        }
        if !self.checked {
            return Ok(());
        }
        let generation = s.generation[by];
        let key = (b, element.0, element.1);
        let conflict = |other: Option<&(usize, u64, Access)>| {
            other
                .filter(|(who, g, _)| *who != by && *g == generation)
                .map(|(_, _, a)| a.clone())
        };
        let mut found = conflict(s.writes.get(&key));
        if access.kind == AccessKind::Write && found.is_none() {
            found = conflict(s.peer_reads.get(&key));
        }
        if let Some(first) = found {
            return Err(Box::new(Fault::Race {
                location: format!("{} (distributed shared memory)", location()),
                first,
                second: access,
            }));
        }
        if access.kind == AccessKind::Write {
            s.writes.insert(key, (by, generation, access.clone()));
        } else {
            s.peer_reads.insert(key, (by, generation, access.clone()));
        }
        // A block reaching its own memory through a peer access needs no barrier
        // before its own exit.
        if by != b {
            s.last_peer_access[b] = Some((generation, access));
        }
        Ok(())
    }
}

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
