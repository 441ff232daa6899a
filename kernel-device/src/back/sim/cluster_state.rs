//! The cluster state of one scheduled group of blocks on the simulator (the blocks of a
//! cluster, their shared-memory regions, the `cluster_sync()` generations and the last
//! remote accesses), which `cluster.rs` reads and updates for the warps' cluster
//! intrinsics and `sched` creates per group. Apart from `warp` so that the warp's state
//! can hold a view of it without the two importing each other.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::detect::BlockDetector;
use super::fault::{Access, AccessKind, Fault, R};
use super::memory::Buffer;
use crate::proc::cluster::rank_of;

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
    pub(super) fn peer(&self, b: usize, rank: u32) -> Option<usize> {
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

    /// Whether every thread of block `b` exited (a TMA multicast into it is a fault).
    pub(super) fn has_exited(&self, b: usize) -> bool {
        self.state.borrow().exited[b]
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
    pub(super) fn peer_access(
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
