//! The defect detector: shadow memory and happens-before tracking per block and per
//! grid (races, unwritten shared memory).
//!
//! # How the interpreter drives it
//!
//! One [`Detector`] per launch (shared by every worker thread; a launch starts fresh).
//! Each worker runs a block through a [`BlockDetector`] (`detector.block(idx)`, reused
//! for the worker's next block with [`BlockDetector::reset`]), and reports to it:
//! - every access to global or shared memory, one lane ([`BlockDetector::access_lane`])
//!   or a warp's lanes at once ([`BlockDetector::access`]), with byte offsets relative
//!   to the start of the [`Region`] the access falls in;
//! - [`BlockDetector::barrier`] when a block barrier (`sync_threads*`) releases;
//! - [`BlockDetector::warp_sync`] when `sync_warp(mask)` or a warp collective (shuffle,
//!   vote, match, warp reduction) executes, with the lanes it synchronises;
//! - [`BlockDetector::fence`] for `threadfence*`;
//! - [`BlockDetector::grid_sync`] on every block when `grid_sync()` releases the grid
//!   (after all blocks arrived, before any continues).
//!
//! Threads are numbered inside the block as CUDA forms warps: linear
//! `tid = x + y*dx + z*dx*dy`, warp `tid / 32`, lane `tid % 32`.
//!
//! # The ordering rules (what is a race)
//!
//! Two accesses to one location by different threads conflict when at least one writes
//! and they are not both atomic (atomics of different blocks conflict when either is
//! `_block`-scoped: those are only indivisible within a block). A conflict is a race
//! unless the first happens before the second:
//! - same block: a block barrier between them; or, for lanes of one warp, a warp sync
//!   naming both lanes (directly or through a chain of warp syncs). Lanes of a warp are
//!   NOT ordered by executing in lockstep: since Volta, CUDA schedules them
//!   independently, so without `sync_warp` (or a collective) two lanes of one warp
//!   race just as two warps do. The simulator runs them in lockstep, the detector
//!   reports what a Volta+ GPU may do.
//! - different blocks: a `grid_sync()` between them; or release/acquire through an
//!   atomic: a thread's `threadfence()` (device or system scope) followed by its atomic
//!   on location X releases everything its block did before the fence, and any later
//!   atomic on X (by any thread) acquires it for its block (CUDA's threadFenceReduction
//!   "last block" pattern). Release and acquire are tracked per block, not per thread,
//!   which can only hide a race, never invent one.
//! - same block, any two threads: release/acquire through an atomic, as between
//!   blocks but at thread granularity and with any scope (PTX `.cta` suffices
//!   inside a block): a thread's fence of any scope (`threadfence_block()` too)
//!   followed by its atomic on X releases its accesses before the fence (and what it
//!   acquired), and a later atomic on X (global or shared) by a thread of the block
//!   acquires them. Without the fence, the flag orders nothing: message passing
//!   without a fence is a race.
//!
//! Reads (and atomics) of shared memory that no thread of the block wrote are
//! [`Fault::UninitialisedRead`].
//!
//! # Precision
//!
//! Shadow memory has one cell per element of a region (`Region::elem_bytes`): two
//! threads writing different bytes of one element would be reported as a race, so the
//! interpreter makes `elem_bytes` the narrowest access it makes to the region. A cell
//! remembers the last write and the last two reads by distinct threads, so a race with
//! an older read may go unreported (FastTrack's trade); a reported race is always real
//! under the rules above.

// async copies
pub mod async_copies;
mod clock;
pub mod in_flight;
// Hopper: TMA multicast
mod multicast;
mod region;
mod shadow;
mod site;
#[cfg(test)]
mod tests;
// async copies
#[cfg(test)]
mod tests_async;
#[cfg(test)]
mod tests_kernels;

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::ir::MemoryScope;

use super::config::LaunchShape;
use super::fault::{Access, AccessKind, Fault, Site, ThreadId};
use super::lanes::lanes;
use clock::BlockClock;
use in_flight::InFlightCopies;
pub use region::RegionId;
use shadow::{Cell, ChunkGuard, Conflict, GlobalShadow, Stamp, SyncVars};
pub use site::SiteId;

/// Which memory an access touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
}

/// Memory the kernel names: a slice argument, a shared array (one instance per block),
/// the dynamic shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// As the kernel names it: the parameter or shared array (`out`, `tile`), shown in
    /// backquotes in reports.
    pub name: String,
    pub space: Space,
    /// The region's size in bytes.
    pub bytes: u64,
    /// The element size: the unit of indices in reports and of shadow cells (see the
    /// module docs: the narrowest access the kernel makes to the region).
    pub elem_bytes: u32,
    /// A shared array of arrays' lengths, outermost first (`[[f32; 16]; 8]`: `[8, 16]`),
    /// so that reports say `tile[3][4]`; empty for a flat index.
    pub dims: Vec<u64>,
    /// False for memory no thread writes (read-only slices, constant tables): no race is
    /// possible there, so the detector skips it. Shared regions are always tracked.
    pub tracked: bool,
}

/// A warp's lanes accessing one region at one site: lane `l` (a bit of `lanes`)
/// touches `bytes` bytes at `offsets[l]`.
#[derive(Clone, Copy, Debug)]
pub struct WarpAccess<'a> {
    pub region: RegionId,
    pub kind: AccessKind,
    /// For atomics: the scope they are indivisible in (ignored for reads and writes).
    pub scope: MemoryScope,
    pub bytes: u32,
    pub lanes: u32,
    pub offsets: &'a [u64; 32],
    pub site: SiteId,
}

/// Per-launch detector state, shared by every worker thread.
pub struct Detector {
    grid: [u32; 3],
    block: [u32; 3],
    threads_per_block: u32,
    regions: Vec<Region>,
    /// Each function's source file, by function index.
    files: Vec<String>,
    /// Global shadow per region (`None` for shared or untracked regions).
    global: Vec<Option<GlobalShadow>>,
    sync_vars: SyncVars,
    /// Whether any atomic released yet: until one has, atomics skip the acquire lookup.
    any_release: AtomicBool,
    /// Each block's clock at its latest grid sync (allocated at the first one).
    grid_sync_times: std::sync::OnceLock<Box<[std::sync::atomic::AtomicU32]>>,
    grid_sync_init: Mutex<()>,
    /// Report a read of unwritten shared memory when the block ends (or when another
    /// thread's unordered write to it shows which barrier is missing), not at once.
    defer_uninitialised: bool,
    // Hopper: TMA multicast
    /// The threads of other blocks whose multicast copies landed in a block's shared
    /// memory, by stamp thread index (`multicast::FIRST_WRITER` on).
    multicast_writers: Mutex<Vec<ThreadId>>,
}

impl fmt::Debug for Detector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Detector")
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("regions", &self.regions.len())
            .finish_non_exhaustive()
    }
}

impl Detector {
    /// A fresh detector for one launch. [`RegionId`]s index `regions`; `files` holds
    /// each function's source file, by the function index of [`SiteId`].
    pub fn new(shape: &LaunchShape, regions: Vec<Region>, files: Vec<String>) -> Detector {
        let global = regions
            .iter()
            .map(|r| {
                (r.space == Space::Global && r.tracked)
                    .then(|| GlobalShadow::new(r.bytes.div_ceil(u64::from(r.elem_bytes.max(1)))))
            })
            .collect();
        let [x, y, z] = shape.block;
        Detector {
            grid: shape.grid,
            block: shape.block,
            threads_per_block: x * y * z,
            regions,
            files,
            global,
            sync_vars: SyncVars::default(),
            any_release: AtomicBool::new(false),
            grid_sync_times: std::sync::OnceLock::new(),
            grid_sync_init: Mutex::new(()),
            defer_uninitialised: false,
            multicast_writers: Mutex::new(Vec::new()),
        }
    }

    /// Reads of unwritten shared memory are reported when the block ends
    /// ([`BlockDetector::finish`]), or as [`Fault::ReadBeforeWrite`] when a thread of
    /// the block writes the element later without a barrier between: the message then
    /// names the write too.
    pub fn defer_uninitialised_reads(mut self) -> Detector {
        self.defer_uninitialised = true;
        self
    }

    /// Forgets every access and synchronisation, as a new launch would: call before each
    /// further schedule of the same launch (blocks' states are made afresh too).
    pub fn reset(&self) {
        for shadow in self.global.iter().flatten() {
            shadow.clear();
        }
        self.sync_vars.clear();
        self.any_release.store(false, Ordering::Release);
        for t in self.grid_sync_times.get().into_iter().flatten() {
            t.store(0, Ordering::Relaxed);
        }
    }

    /// The state for running block `block` (blockIdx) on one worker thread.
    pub fn block(&self, block: [u32; 3]) -> BlockDetector<'_> {
        let shared = self
            .regions
            .iter()
            .map(|r| {
                if r.space == Space::Shared {
                    vec![Cell::EMPTY; r.bytes.div_ceil(u64::from(r.elem_bytes.max(1))) as usize]
                } else {
                    Vec::new()
                }
            })
            .collect();
        BlockDetector {
            detector: self,
            block: self.linear_block(block),
            clock: BlockClock::new(self.threads_per_block),
            shared,
            in_block: HashMap::new(),
            pending_uninitialised: None,
            in_flight: InFlightCopies::default(),
        }
    }

    fn linear_block(&self, [x, y, z]: [u32; 3]) -> u32 {
        x + y * self.grid[0] + z * self.grid[0] * self.grid[1]
    }

    fn thread_id(&self, block: u32, tid: u32) -> ThreadId {
        let [gx, gy, _] = self.grid;
        let [dx, dy, _] = self.block;
        ThreadId {
            block: [block % gx, block / gx % gy, block / (gx * gy)],
            thread: [tid % dx, tid / dx % dy, tid / (dx * dy)],
        }
    }

    fn site(&self, site: SiteId) -> Site {
        Site {
            file: (self.files.get(site.func as usize))
                .cloned()
                .unwrap_or_else(|| "<unknown>".into()),
            line: site.loc.line,
            column: site.loc.column,
        }
    }

    fn access_of(&self, stamp: &Stamp) -> Access {
        Access {
            thread: self
                .multicast_writer(stamp)
                .unwrap_or_else(|| self.thread_id(stamp.block, u32::from(stamp.tid))),
            kind: stamp.kind(),
            site: self.site(stamp.site()),
        }
    }

    fn race(&self, region: RegionId, cell: u64, conflict: &Conflict, access: &Stamp) -> Fault {
        Fault::Race {
            location: self.location(region, cell),
            first: self.access_of(&conflict.prior),
            second: self.access_of(access),
        }
    }

    /// "`out`[17] (global)", "shared `tile`[3][4]".
    fn location(&self, region: RegionId, cell: u64) -> String {
        let Some(r) = self.regions.get(region.0 as usize) else {
            return format!("region {}[{cell}]", region.0);
        };
        let mut index = String::new();
        let mut rest = cell;
        let mut strides: Vec<u64> = Vec::with_capacity(r.dims.len());
        let mut stride = 1u64;
        for &d in r.dims.iter().rev() {
            strides.push(stride);
            stride = stride.saturating_mul(d.max(1));
        }
        if strides.len() <= 1 {
            index = format!("[{cell}]");
        } else {
            for &s in strides.iter().rev() {
                index.push_str(&format!("[{}]", rest / s));
                rest %= s;
            }
        }
        match r.space {
            Space::Global => format!("`{}`{index} (global)", r.name),
            Space::Shared => format!("shared `{}`{index}", r.name),
        }
    }

    fn grid_sync_time(&self, block: u32) -> u32 {
        self.grid_sync_times
            .get()
            .and_then(|t| t.get(block as usize))
            .map_or(0, |t| t.load(Ordering::Relaxed))
    }
}

/// One block's detector state, owned by the worker running the block.
#[derive(Debug)]
pub struct BlockDetector<'d> {
    detector: &'d Detector,
    /// Linear block index.
    block: u32,
    clock: BlockClock,
    /// Shared shadow per region (empty for global ones). Cells stamped by another block
    /// are stale: this block's shared memory starts unwritten without clearing them.
    shared: Vec<Vec<Cell>>,
    /// Message passing inside the block: per atomic location (region, cell), what
    /// releases to it published (thread -> time of its fence).
    in_block: HashMap<(u32, u64), HashMap<u16, u32>>,
    /// The first read of unwritten shared memory, while reports are deferred.
    pending_uninitialised: Option<(RegionId, u64, Stamp)>,
    // async copies
    /// The `cp_async` copies issued and not yet retired by a wait.
    in_flight: InFlightCopies,
}

impl BlockDetector<'_> {
    /// Reuses this state for another block of the same launch.
    pub fn reset(&mut self, block: [u32; 3]) {
        self.block = self.detector.linear_block(block);
        self.clock.reset();
        self.in_block.clear();
        self.pending_uninitialised = None;
        self.in_flight.clear();
    }

    /// The block ended: a deferred read of unwritten shared memory that no later
    /// write explained is reported now.
    #[allow(clippy::result_large_err)]
    pub fn finish(&mut self) -> Result<(), Fault> {
        // async copies
        self.check_all_landed()?;
        match self.pending_uninitialised.take() {
            Some((region, cell, stamp)) => Err(self.uninitialised(region, cell, &stamp)),
            None => Ok(()),
        }
    }

    /// Whether a read of unwritten shared memory waits to be reported.
    pub fn has_pending_read(&self) -> bool {
        self.pending_uninitialised.is_some()
    }

    fn uninitialised(&self, region: RegionId, cell: u64, stamp: &Stamp) -> Fault {
        let d = self.detector;
        Fault::UninitialisedRead {
            location: d.location(region, cell),
            site: d.site(stamp.site()),
            thread: d.thread_id(self.block, u32::from(stamp.tid)),
        }
    }

    /// A block barrier released every thread of the block.
    pub fn barrier(&mut self) {
        self.clock.barrier();
    }

    // Hopper: clusters
    /// A `cluster_sync()` released this block with its cluster: a block barrier whose
    /// instant (every access before the barrier has it or an earlier one) the peers
    /// acquire through [`BlockDetector::acquire_block`]. Returns (linear block, instant).
    pub fn cluster_barrier(&mut self) -> (u32, u32) {
        (self.block, self.clock.barrier())
    }

    /// Block `block`'s accesses up to instant `time` happen before this block's from
    /// now on: `cluster_sync()` is a release by every thread of the cluster and an
    /// acquire by every thread (barrier.cluster.arrive.release / wait.acquire), for
    /// global memory as for shared.
    pub fn acquire_block(&mut self, block: u32, time: u32) {
        if block != self.block {
            let acquired = self.clock.acquired_mut().entry(block).or_insert(time);
            *acquired = (*acquired).max(time);
        }
    }

    /// `sync_warp(mask)` or a warp collective synchronised the lanes of `warp` in `lanes`.
    pub fn warp_sync(&mut self, warp: u32, lanes: u32) {
        let present = self.clock.lanes_of(warp);
        self.clock.warp_sync(warp, lanes & present, present);
    }

    /// The lanes in `lanes` of `warp` executed a fence of `scope`.
    pub fn fence(&mut self, warp: u32, lanes: u32, scope: MemoryScope) {
        self.clock.fence(warp, lanes, scope != MemoryScope::Block);
    }

    /// `grid_sync()` released the grid: call on every block before any continues.
    pub fn grid_sync(&mut self) {
        let time = self.clock.barrier();
        let d = self.detector;
        let times = match d.grid_sync_times.get() {
            Some(t) => t,
            None => {
                let _guard = d.grid_sync_init.lock().unwrap_or_else(|e| e.into_inner());
                let [x, y, z] = d.grid;
                let blocks = (x as usize) * (y as usize) * (z as usize);
                d.grid_sync_times.get_or_init(|| {
                    (0..blocks)
                        .map(|_| std::sync::atomic::AtomicU32::new(0))
                        .collect()
                })
            }
        };
        if let Some(t) = times.get(self.block as usize) {
            t.store(time, Ordering::Relaxed);
        }
    }

    /// The lanes of `access.lanes` of `warp` access memory, in lane order.
    // A fault ends the launch: the large `Err` is built once, never on the hot path.
    #[allow(clippy::result_large_err)]
    pub fn access(&mut self, warp: u32, access: &WarpAccess<'_>) -> Result<(), Fault> {
        let d = self.detector;
        let Some(region) = d.regions.get(access.region.0 as usize) else {
            return Ok(());
        };
        // async copies
        self.check_in_flight(warp, access)?;
        match region.space {
            Space::Shared => self.access_shared(warp, access, region)?,
            Space::Global => match d.global.get(access.region.0 as usize) {
                Some(Some(shadow)) => self.access_global(warp, access, region, shadow)?,
                _ => return Ok(()), // untracked: nothing writes it, nothing can race
            },
        }
        if access.kind == AccessKind::Atomic {
            for (cell, tid) in atomic_cells(warp, access, region) {
                self.synchronise_in_block((access.region.0, cell), tid);
            }
        }
        Ok(())
    }

    // Hopper: mbarriers
    /// Thread `tid` waited on the mbarrier at `offset` of shared `region`
    /// (`mbarrier_try_wait_parity`): an atomic access for the race rules that, when its
    /// phase is `done`, acquires what the phase's arrivals (and the earlier ones)
    /// released to the barrier, and publishes nothing. A wait that published its
    /// thread's clock would let the next arrival on the barrier by another thread
    /// acquire the waiter's earlier accesses, hiding a race that thread's missing wait
    /// elsewhere leaves (a producer refilling a stage without waiting on its `empty`
    /// barrier, acquiring the consumers' reads through `full` instead).
    #[allow(clippy::result_large_err)]
    pub fn mbarrier_wait(
        &mut self,
        tid: u32,
        region: RegionId,
        offset: u64,
        site: SiteId,
        done: bool,
    ) -> Result<(), Fault> {
        let d = self.detector;
        let Some(r) = d.regions.get(region.0 as usize) else {
            return Ok(());
        };
        let offsets = [offset; 32];
        let access = WarpAccess {
            region,
            kind: AccessKind::Atomic,
            scope: MemoryScope::Block,
            bytes: 8,
            lanes: 1 << (tid % 32),
            offsets: &offsets,
            site,
        };
        self.check_in_flight(tid / 32, &access)?;
        if r.space == Space::Shared {
            self.access_shared(tid / 32, &access, r)?;
        }
        if done {
            let key = (region.0, offset / u64::from(r.elem_bytes.max(1)));
            if let Some(published) = self.in_block.get(&key) {
                self.clock.thread_acquire(tid, published);
            }
        }
        Ok(())
    }

    /// An atomic of thread `tid` on `key`, inside its block (any scope orders there,
    /// as PTX's `.cta` does): acquires what earlier releases to `key` by threads of the
    /// block published, and releases if `tid` fenced before it.
    fn synchronise_in_block(&mut self, key: (u32, u64), tid: u32) {
        if !self.in_block.is_empty() {
            if let Some(published) = self.in_block.get(&key) {
                self.clock.thread_acquire(tid, published);
            }
        }
        if let Some(mine) = self.clock.thread_release(tid) {
            let var = self.in_block.entry(key).or_default();
            for (t, time) in mine {
                let e = var.entry(t).or_insert(0);
                *e = (*e).max(time);
            }
        }
    }

    /// Thread `tid` (linear in the block) accesses `bytes` bytes at `offset` in `region`.
    #[allow(clippy::too_many_arguments, clippy::result_large_err)]
    pub fn access_lane(
        &mut self,
        tid: u32,
        region: RegionId,
        offset: u64,
        bytes: u32,
        kind: AccessKind,
        scope: MemoryScope,
        site: SiteId,
    ) -> Result<(), Fault> {
        let offsets = [offset; 32];
        let access = WarpAccess {
            region,
            kind,
            scope,
            bytes,
            lanes: 1 << (tid % 32),
            offsets: &offsets,
            site,
        };
        self.access(tid / 32, &access)
    }

    #[allow(clippy::result_large_err)]
    fn access_shared(
        &mut self,
        warp: u32,
        access: &WarpAccess<'_>,
        region: &Region,
    ) -> Result<(), Fault> {
        let d = self.detector;
        let block = self.block;
        let clock = &self.clock;
        let cells = &mut self.shared[access.region.0 as usize];
        let pending = &mut self.pending_uninitialised;
        let mut result = Ok(());
        for_each_cell(
            (block, clock.now()),
            warp,
            access,
            region,
            |tid, stamp, cell| {
                let Some(c) = cells.get_mut(cell as usize) else {
                    return true;
                };
                c.forget_other_blocks(block);
                if access.kind != AccessKind::Write && !c.written() {
                    if !d.defer_uninitialised {
                        result = Err(Fault::UninitialisedRead {
                            location: d.location(access.region, cell),
                            site: d.site(access.site),
                            thread: d.thread_id(block, tid),
                        });
                        return false;
                    }
                    pending.get_or_insert((access.region, cell, stamp));
                }
                match c.record(stamp, |p| {
                    clock.ordered(p, block, tid, |b| d.grid_sync_time(b))
                }) {
                    Ok(()) => true,
                    Err(conflict) => {
                        let read_first = pending.as_ref().is_some_and(|(r, at, read)| {
                            *r == access.region && *at == cell && *read == conflict.prior
                        });
                        result = Err(if read_first {
                            *pending = None;
                            Fault::ReadBeforeWrite {
                                location: d.location(access.region, cell),
                                read: d.access_of(&conflict.prior),
                                write: d.access_of(&stamp),
                            }
                        } else {
                            d.race(access.region, cell, &conflict, &stamp)
                        });
                        false
                    }
                }
            },
        );
        result
    }

    #[allow(clippy::result_large_err)]
    fn access_global(
        &mut self,
        warp: u32,
        access: &WarpAccess<'_>,
        region: &Region,
        shadow: &GlobalShadow,
    ) -> Result<(), Fault> {
        let d = self.detector;
        let block = self.block;
        let clock = &self.clock;
        let mut result = Ok(());
        // Lanes mostly touch neighbouring cells: keep the chunk locked across them.
        let mut held: Option<(u64, ChunkGuard<'_>)> = None;
        for_each_cell(
            (block, clock.now()),
            warp,
            access,
            region,
            |tid, stamp, cell| {
                let (chunk, slot) = GlobalShadow::split(cell);
                if held.as_ref().is_none_or(|(c, _)| *c != chunk) {
                    held = None;
                    held = shadow.lock(chunk).map(|guard| (chunk, guard));
                }
                let Some((_, guard)) = held.as_mut() else {
                    return true;
                };
                match guard.record(slot, stamp, |p| {
                    clock.ordered(p, block, tid, |b| d.grid_sync_time(b))
                }) {
                    Ok(()) => true,
                    Err(conflict) => {
                        result = Err(d.race(access.region, cell, &conflict, &stamp));
                        false
                    }
                }
            },
        );
        drop(held);
        result?;
        if access.kind == AccessKind::Atomic {
            for (cell, tid) in atomic_cells(warp, access, region) {
                self.synchronise_through(access.region, cell, tid);
            }
        }
        Ok(())
    }

    // Hopper: clusters
    /// A peer block of the cluster wrote `bytes` at `offset` of this block's shared
    /// `region` (`peer_write`; `back::sim::cluster` checks its ordering against this
    /// block's accesses): the cells count as written, by a write at time 0, which
    /// every access of this block comes after.
    pub fn peer_wrote(&mut self, region: RegionId, offset: u64, bytes: u32, site: SiteId) {
        let Some(info) = self.detector.regions.get(region.0 as usize) else {
            return;
        };
        let elem = u64::from(info.elem_bytes.max(1));
        let stamp = Stamp::new(
            self.block,
            0,
            0,
            site,
            AccessKind::Write,
            MemoryScope::Block,
        );
        let Some(cells) = self.shared.get_mut(region.0 as usize) else {
            return;
        };
        let last = offset.saturating_add(u64::from(bytes.max(1)) - 1);
        for cell in offset / elem..=last / elem {
            if let Some(c) = cells.get_mut(cell as usize) {
                c.forget_other_blocks(self.block);
                c.written_by_peer(stamp);
            }
        }
    }

    /// A global atomic's memory effect happened (after [`BlockDetector::access_lane`]
    /// recorded it): acquires again what releases to its cell published. A release by
    /// another worker's block can land between that record and the memory effect; the
    /// atomic then reads the released value, so it must also acquire the release (a
    /// reader spinning on a flag saw the flag but not yet the release before).
    pub fn acquire_after_atomic(&mut self, region: RegionId, offset: u64) {
        let d = self.detector;
        let Some(r) = d.regions.get(region.0 as usize) else {
            return;
        };
        if r.space != Space::Global || !d.any_release.load(Ordering::Acquire) {
            return;
        }
        let cell = offset / u64::from(r.elem_bytes.max(1));
        d.sync_vars
            .acquire((region.0, cell), self.clock.acquired_mut());
    }

    /// An atomic on global `region` cell `cell` by `tid`: acquires what earlier releases
    /// to the cell published, and releases if `tid` fenced before it.
    fn synchronise_through(&mut self, region: RegionId, cell: u64, tid: u32) {
        let d = self.detector;
        let key = (region.0, cell);
        if d.any_release.load(Ordering::Acquire) {
            d.sync_vars.acquire(key, self.clock.acquired_mut());
        }
        if let Some(fenced_at) = self.clock.fenced_at(tid) {
            d.sync_vars
                .release(key, self.block, fenced_at, self.clock.acquired());
            d.any_release.store(true, Ordering::Release);
        }
    }
}

/// The element each lane of an atomic `access` updates, with the lane's thread (linear
/// in the block), in lane order: what the release/acquire bookkeeping of atomics
/// (inside the block and through global memory) walks.
fn atomic_cells<'x>(
    warp: u32,
    access: &WarpAccess<'x>,
    region: &Region,
) -> impl Iterator<Item = (u64, u32)> + 'x {
    let (elem, offsets) = (u64::from(region.elem_bytes.max(1)), access.offsets);
    lanes(access.lanes).map(move |lane| (offsets[lane] / elem, warp * 32 + lane as u32))
}

/// Calls `f(tid, stamp, cell)` for every cell every lane of `access` touches, in lane
/// order, until it returns false.
fn for_each_cell(
    (block, time): (u32, u32),
    warp: u32,
    access: &WarpAccess<'_>,
    region: &Region,
    mut f: impl FnMut(u32, Stamp, u64) -> bool,
) {
    let elem = u64::from(region.elem_bytes.max(1));
    let span = u64::from(access.bytes.max(1)) - 1;
    let template = Stamp::new(block, 0, time, access.site, access.kind, access.scope);
    let mut lanes = access.lanes;
    while lanes != 0 {
        let lane = lanes.trailing_zeros();
        lanes &= lanes - 1;
        let tid = warp * 32 + lane;
        let offset = access.offsets[lane as usize];
        let stamp = template.with_tid(tid);
        for cell in offset / elem..=offset.saturating_add(span) / elem {
            if !f(tid, stamp, cell) {
                return;
            }
        }
    }
}
