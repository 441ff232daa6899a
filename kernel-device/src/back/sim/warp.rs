//! A warp: 32 lanes executing one function's IR in lockstep under an active mask.
//!
//! Every evaluation takes the mask of lanes that execute it and returns the mask of
//! lanes that completed it normally; the others left through `break`, `continue` or
//! `return` (recorded in the frame's loop and return masks) or never reached it. A
//! divergent `if` runs both sides with sub-masks and reconverges after it; a loop runs
//! while any lane is still in it. Values live in the frame's 32-lane slots (see
//! [`super::plan`]), written only for the lanes that computed them.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use super::detect::{BlockDetector, RegionId, SiteId};
use super::fault::{AccessKind, Fault, Site, ThreadId, R};
use super::lanes::{lanes, LANES};
use super::launch::{Arrival, Launch, Release};
use super::memory::Buffer;
use super::plan::{FnPlan, Home};
use crate::ir::{Expr, Function, Handle, MemoryScope, SourceLoc};

/// One activation of a function: its slots (slot-major, 32 lanes each), the masks of
/// lanes that left each loop by `break` / `continue`, and of lanes that returned.
pub struct Frame {
    pub func: usize,
    pub slots: Vec<u64>,
    pub loops: Vec<(u32, u32)>,
    pub returned: u32,
    /// Where this frame's local memory starts in each lane's local stack.
    pub base: usize,
    /// 0 for the kernel's own frame (a `return` there ends the thread).
    pub depth: u32,
    /// Per loop of an unscheduled warp: the spin check (see [`Warp::back_edge`]);
    /// empty until the frame has run [`LOOP_QUANTUM`] steps (no allocation for the
    /// short calls of a device function with a loop).
    pub spin: Vec<SpinCheck>,
    /// The warp's steps when the frame was pushed.
    pub started: u64,
}

/// An unscheduled warp's record of one loop's state at its back-edge: the steps at
/// the last check, the hash of the frame's state then, and how many checks in a row
/// found it unchanged.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpinCheck {
    at: u64,
    hash: u64,
    stale: u32,
}

/// Checks in a row (each at least [`LOOP_QUANTUM`] steps after the last) at which an
/// unscheduled warp's loop came back to the same state before it is reported as a
/// spin: about 2^20 steps that repeat themselves exactly.
pub const SPIN_CHECKS: u32 = 256;

impl Frame {
    #[inline]
    pub fn get(&self, slot: u32, lane: usize) -> u64 {
        self.slots[slot as usize * LANES + lane]
    }

    #[inline]
    pub fn set(&mut self, slot: u32, lane: usize, v: u64) {
        self.slots[slot as usize * LANES + lane] = v;
    }

    /// Slot `slot`'s 32 lanes.
    #[inline]
    pub fn reg(&self, slot: u32) -> &[u64; LANES] {
        let at = slot as usize * LANES;
        self.slots[at..at + LANES].try_into().expect("32 lanes")
    }

    #[inline]
    pub fn reg_mut(&mut self, slot: u32) -> &mut [u64; LANES] {
        let at = slot as usize * LANES;
        (&mut self.slots[at..at + LANES])
            .try_into()
            .expect("32 lanes")
    }

    /// Copies `width` slots from `from` to `to` for the lanes of `mask`.
    pub fn copy(&mut self, to: u32, from: u32, width: u32, mask: u32) {
        if to == from || mask == 0 {
            return;
        }
        for k in 0..width {
            let (t, f) = ((to + k) as usize * LANES, (from + k) as usize * LANES);
            if mask == u32::MAX {
                self.slots.copy_within(f..f + LANES, t);
            } else {
                for lane in lanes(mask) {
                    self.slots[t + lane] = self.slots[f + lane];
                }
            }
        }
    }
}

/// The barrier callback of a warp that may suspend (a coroutine's yielder).
pub type Suspend<'a> = &'a dyn Fn(Arrival) -> Release;

/// When a scheduled warp hands control back at a point where warps communicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preempt {
    /// Before every atomic and fence: which warp's goes first is the schedule's.
    Always,
    /// Before a plain access to global or shared memory: after a seeded random number
    /// (1..=32) of them, so warps interleave between any two accesses in some schedule.
    Access,
    /// At a loop's next iteration, after [`LOOP_QUANTUM`] steps without yielding: a
    /// loop that spins without touching memory still lets the others run.
    Loop,
}

/// Steps a scheduled warp runs in a loop before it yields anyway.
pub const LOOP_QUANTUM: u64 = 4096;

pub struct Warp<'a, 'd> {
    pub launch: &'a Launch,
    /// The block's region table (shared memory is per block).
    pub regions: &'a [Option<Arc<Buffer>>],
    pub block: [u32; 3],
    /// `thread_idx` of each lane.
    pub tid: [[u32; 3]; LANES],
    /// The warp's index in its block (its lanes are threads `32 * warp_index..`).
    pub warp_index: u32,
    /// Lanes that are threads of the block (a partial last warp has fewer).
    pub lanes: u32,
    /// Lanes whose thread returned from the kernel (or panicked).
    pub exited: u32,
    /// Lanes whose thread panicked: out of the warp for good, in no evaluator's output
    /// mask (see [`Warp::panic_at`]).
    pub panicked: u32,
    /// Per-lane local memory: lane `l`'s stack is `local[l * lane_bytes..]`.
    pub local: Vec<u8>,
    pub lane_bytes: usize,
    pub stack_top: usize,
    pub steps: u64,
    pub suspend: Option<Suspend<'a>>,
    /// Scheduled warps: plain accesses left before the next yield, the seeded random
    /// state that draws it, and the steps at the last yield.
    countdown: Cell<u32>,
    rng: Cell<u64>,
    yielded_at: Cell<u64>,
    /// The latest plain read of global or shared memory: address, function, site and
    /// the warp's steps then (what a spin report says the loop waits for).
    pub last_read: Cell<(u64, usize, SourceLoc, u64)>,
    /// Set by a block right before it runs a loop statement whose lanes may split
    /// (see [`super::diverge`]); taken by the loop.
    pub park_ok: bool,
    /// Lanes a loop parked: they spin while warp-mates that left the loop wait, so the
    /// block runs the rest for those first and the loop again for these.
    pub parked: u32,
    /// The block's detector state (None with detection off).
    pub det: Option<&'a RefCell<BlockDetector<'d>>>,
    pool: Vec<Vec<u64>>,
    // async copies
    /// The lanes' `cp_async` copies in flight (`back::sim::async_copy`).
    pub async_copies: super::async_state::AsyncCopies,
    // Hopper: wgmma
    /// The warp's wgmma groups and fence (`back::sim::wgmma`).
    pub wgmma: super::wgmma_state::WgmmaState,
    // Hopper: TMA
    /// The lanes' `tma_store` tile reads in flight and bulk groups (`back::sim::tma`).
    pub bulk_stores: super::tma_state::BulkStores,
    // Hopper: clusters
    /// The group's cluster state and this block's index in the group (a clustered
    /// launch's scheduled warps only).
    pub cluster: Option<&'a super::cluster_state::ClusterView<'d>>,
    pub cluster_index: Option<usize>,
}

/// A finished warp's allocations, reused by the next warp a worker runs.
#[derive(Debug, Default)]
pub struct WarpBuffers {
    local: Vec<u8>,
    pool: Vec<Vec<u64>>,
}

impl<'a, 'd> Warp<'a, 'd> {
    pub fn new(
        launch: &'a Launch,
        regions: &'a [Option<Arc<Buffer>>],
        block: [u32; 3],
        warp_index: u32,
        suspend: Option<Suspend<'a>>,
        det: Option<&'a RefCell<BlockDetector<'d>>>,
    ) -> Warp<'a, 'd> {
        Warp::reusing(
            launch,
            regions,
            block,
            warp_index,
            suspend,
            det,
            WarpBuffers::default(),
        )
    }

    /// As [`Warp::new`], reusing an earlier warp's buffers (see [`Warp::into_buffers`])
    /// instead of allocating them.
    pub fn reusing(
        launch: &'a Launch,
        regions: &'a [Option<Arc<Buffer>>],
        block: [u32; 3],
        warp_index: u32,
        suspend: Option<Suspend<'a>>,
        det: Option<&'a RefCell<BlockDetector<'d>>>,
        buffers: WarpBuffers,
    ) -> Warp<'a, 'd> {
        let [bx, by, bz] = launch.shape.block;
        let threads = bx * by * bz;
        let first_thread = warp_index * LANES as u32;
        let count = threads.saturating_sub(first_thread).min(LANES as u32);
        let lanes = if count == 32 {
            u32::MAX
        } else {
            (1u32 << count) - 1
        };
        let mut tid = [[0u32; 3]; LANES];
        // The first lane's index by division, the others by counting on from it.
        let mut at = [
            first_thread % bx,
            (first_thread / bx) % by,
            first_thread / (bx * by),
        ];
        for t in tid.iter_mut().take(count as usize) {
            *t = at;
            at[0] += 1;
            if at[0] == bx {
                at[0] = 0;
                at[1] += 1;
                if at[1] == by {
                    at[1] = 0;
                    at[2] += 1;
                }
            }
        }
        let lane_bytes = launch.local_bytes;
        let WarpBuffers { mut local, pool } = buffers;
        // Only the size matters: `push_frame` zeroes each frame's local memory, and
        // nothing reads past the stack's top.
        local.resize(lane_bytes * LANES, 0);
        Warp {
            launch,
            regions,
            block,
            tid,
            warp_index,
            lanes,
            exited: 0,
            panicked: 0,
            local,
            lane_bytes,
            stack_top: 0,
            steps: 0,
            suspend,
            countdown: Cell::new(1),
            rng: Cell::new(0),
            yielded_at: Cell::new(0),
            last_read: Cell::new((u64::MAX, 0, SourceLoc::default(), 0)),
            park_ok: false,
            parked: 0,
            det,
            pool,
            async_copies: Default::default(),
            // Hopper: wgmma
            wgmma: Default::default(),
            // Hopper: TMA
            bulk_stores: Default::default(),
            // Hopper: clusters
            cluster: None,
            cluster_index: None,
        }
    }

    /// The warp's local memory and frame slots, for the next warp of the worker.
    pub fn into_buffers(self) -> WarpBuffers {
        WarpBuffers {
            local: self.local,
            pool: self.pool,
        }
    }

    /// Seeds this warp's choices of when to yield (see [`Preempt::Access`]).
    pub fn seed_preemption(&mut self, seed: u64) {
        self.rng.set(seed);
        self.countdown.set(1 + (self.next_random() % 32) as u32);
    }

    fn next_random(&self) -> u64 {
        // splitmix64
        let x = self.rng.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
        self.rng.set(x);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Hands control back to the scheduler (for the lanes of `mask`, at `loc`) when
    /// `when` says so; nothing for a warp that runs unscheduled.
    #[inline]
    pub fn preempt(
        &self,
        func: usize,
        loc: SourceLoc,
        mask: u32,
        when: Preempt,
        addr: u64,
    ) -> R<()> {
        let Some(suspend) = self.suspend else {
            return Ok(());
        };
        match when {
            Preempt::Always => {}
            Preempt::Access => {
                let left = self.countdown.get();
                if left > 1 {
                    self.countdown.set(left - 1);
                    return Ok(());
                }
            }
            Preempt::Loop => {
                if self.steps - self.yielded_at.get() < LOOP_QUANTUM {
                    return Ok(());
                }
            }
        }
        self.countdown.set(1 + (self.next_random() % 32) as u32);
        self.yielded_at.set(self.steps);
        let release = suspend(Arrival {
            kind: super::launch::BarrierKind::Yield,
            func,
            expr: 0,
            loc: Some(loc),
            lanes: mask,
            votes: 0,
            steps: self.steps,
            addr,
        });
        match release.fault {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// A loop's back-edge (loop `ix` of the frame's function, at `loc`, the lanes of
    /// `live` going round again). A scheduled warp may yield here (see
    /// [`Preempt::Loop`]). An unscheduled warp (a kernel without barriers, atomics or
    /// fences, whose warps run to their end one after another) cannot hand over
    /// control, so a spin on a plain read of a flag that a thread not yet run would set
    /// would never end: every [`LOOP_QUANTUM`] steps the loop hashes the frame's state
    /// (its slots, loop masks, the lanes' local memory), and [`SPIN_CHECKS`] checks in
    /// a row that find the same state are a spin: the warp computes the same thing
    /// again and again from memory nothing changes (another block writing it would be
    /// a data race the detector reports). Reported as a deadlock naming the threads and
    /// the loop's site, never a hang; a loop whose state changes runs on.
    #[inline]
    pub fn back_edge(&mut self, fr: &mut Frame, ix: usize, loc: SourceLoc, live: u32) -> R<()> {
        // The back-edge is a step (an empty `loop {}` takes no other).
        self.steps += 1;
        if self.suspend.is_some() {
            return self.preempt(fr.func, loc, live, Preempt::Loop, u64::MAX);
        }
        if live == 0 {
            return Ok(());
        }
        if fr.spin.is_empty() {
            if self.steps - fr.started < LOOP_QUANTUM {
                return Ok(());
            }
            fr.spin = vec![
                SpinCheck {
                    at: self.steps,
                    ..SpinCheck::default()
                };
                fr.loops.len()
            ];
        }
        if self.steps - fr.spin[ix].at < LOOP_QUANTUM {
            return Ok(());
        }
        self.spin_check(fr, ix, loc, live)
    }

    /// A hash of the frame's state (its slots, loop masks, the lanes' local memory)
    /// with the lanes in `live`: equal hashes at two points of a loop mean the loop
    /// came back to the same state.
    #[cold]
    pub fn frame_hash(&self, fr: &Frame, live: u32) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ u64::from(live);
        let mut mix = |v: u64| {
            h = (h ^ v).wrapping_mul(0x0000_0100_0000_01B3).rotate_left(29);
        };
        for &v in &fr.slots {
            mix(v);
        }
        for &(b, c) in &fr.loops {
            mix(u64::from(b) << 32 | u64::from(c));
        }
        mix(u64::from(fr.returned) << 32 | u64::from(self.exited));
        for lane in 0..LANES {
            let at = lane * self.lane_bytes;
            for chunk in self.local[at..at + self.stack_top].chunks(8) {
                let mut b = [0u8; 8];
                b[..chunk.len()].copy_from_slice(chunk);
                mix(u64::from_le_bytes(b));
            }
        }
        h
    }

    #[cold]
    fn spin_check(&mut self, fr: &mut Frame, ix: usize, loc: SourceLoc, live: u32) -> R<()> {
        let h = self.frame_hash(fr, live);
        let check = &mut fr.spin[ix];
        let since = check.at;
        check.at = self.steps;
        if check.hash == h {
            check.stale += 1;
        } else {
            (check.hash, check.stale) = (h, 0);
        }
        if check.stale < SPIN_CHECKS {
            return Ok(());
        }
        let lane = live.trailing_zeros() as usize;
        let others = live.count_ones() - 1;
        let more = match others {
            0 => String::new(),
            1 => " and 1 more thread of its warp".into(),
            n => format!(" and {n} more threads of its warp"),
        };
        let (addr, func, read_at, read_step) = self.last_read.get();
        let waits_for = if addr != u64::MAX && read_step >= since {
            super::spin::waited_for(self.launch, addr, func, read_at)
        } else {
            String::new()
        };
        Err(Box::new(Fault::Deadlock(format!(
            "threads spin without progress (the loop comes back to the same state, reading memory that no thread changes): {}{more} at {}{waits_for}; the value they wait for is never written by a thread that runs while they spin (on a GPU this kernel hangs; a spin on a plain read of a flag another thread sets is also a data race the compiler may hoist out of the loop: read the flag with an atomic, after the writer's `threadfence()`)",
            self.thread(lane),
            self.site(fr.func, loc)
        ))))
    }

    /// A scheduled warp changed global or shared memory: progress for the scheduler.
    #[inline]
    pub fn changed_memory(&self) {
        self.launch
            .epoch
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn func(&self, index: usize) -> &'a Function {
        &self.launch.module.functions[Handle::new(index)]
    }

    pub fn plan(&self, index: usize) -> &'a FnPlan {
        &self.launch.plans[index]
    }

    pub fn thread(&self, lane: usize) -> ThreadId {
        ThreadId {
            block: self.block,
            thread: self.tid[lane],
        }
    }

    pub fn site(&self, func: usize, loc: SourceLoc) -> Site {
        Site {
            file: self.func(func).file.clone(),
            line: loc.line,
            column: loc.column,
        }
    }

    pub fn expr_site(&self, fr: &Frame, e: Handle<Expr>) -> Site {
        self.site(fr.func, self.func(fr.func).loc_of(e))
    }

    /// A device-side panic of `lane` with `message` (operands already substituted).
    /// As on the GPU it ends only that thread: the panic goes to the launch's record
    /// (the first one recorded is what the launch reports) and the lane leaves the
    /// warp like an exit, while the other lanes go on. The evaluators drop panicked
    /// lanes from every mask they return, so the lane never runs (or touches memory)
    /// again.
    pub fn panic_at(&mut self, fr: &Frame, loc: SourceLoc, lane: usize, message: String) {
        let bit = 1u32 << lane;
        if self.panicked & bit != 0 {
            return;
        }
        self.panicked |= bit;
        self.exited |= bit;
        let fault = Fault::Panic {
            message,
            site: self.site(fr.func, loc),
            thread: self.thread(lane),
        };
        self.launch.panics.record(self.block, fault);
    }

    /// Tells the detector that `lane` accessed `bytes` bytes at `offset` of `region`.
    #[allow(clippy::too_many_arguments)]
    pub fn observe(
        &self,
        region: usize,
        offset: u64,
        bytes: u32,
        kind: AccessKind,
        scope: MemoryScope,
        lane: usize,
        func: usize,
        loc: SourceLoc,
    ) -> R<()> {
        // Hopper: clusters
        if self.cluster.is_some() {
            let kind = match kind {
                AccessKind::Read => AccessKind::Read,
                _ => AccessKind::Write,
            };
            self.cluster_own_access(region, offset, kind, lane, self.site(func, loc))?;
        }
        let Some(det) = self.det else {
            return Ok(());
        };
        if !self.launch.observed.get(region).copied().unwrap_or(true) {
            return Ok(());
        }
        let base = self.launch.regions[region].base;
        let Some(relative) = offset.checked_sub(base) else {
            return Ok(());
        };
        let tid = self.warp_index * LANES as u32 + lane as u32;
        det.borrow_mut()
            .access_lane(
                tid,
                RegionId(region as u32),
                relative,
                bytes,
                kind,
                scope,
                SiteId::new(func, loc),
            )
            .map_err(Box::new)
    }

    /// After a global atomic's memory effect: see [`BlockDetector::acquire_after_atomic`].
    pub fn acquire_after_atomic(&self, region: usize, offset: u64) {
        let Some(det) = self.det else {
            return;
        };
        let base = self.launch.regions[region].base;
        if let Some(relative) = offset.checked_sub(base) {
            det.borrow_mut()
                .acquire_after_atomic(RegionId(region as u32), relative);
        }
    }

    /// Tells the detector that the lanes of `mask` synchronised (`sync_warp` or a
    /// collective).
    pub fn warp_sync(&self, mask: u32) {
        if let Some(det) = self.det {
            det.borrow_mut().warp_sync(self.warp_index, mask);
        }
    }

    pub fn fence(&self, mask: u32, scope: MemoryScope) {
        if let Some(det) = self.det {
            det.borrow_mut().fence(self.warp_index, mask, scope);
        }
    }

    /// A fresh frame for `func` whose local memory starts at the current stack top.
    pub fn push_frame(&mut self, func: usize, depth: u32) -> R<Frame> {
        let plan = self.plan(func);
        let mut slots = self.pool.pop().unwrap_or_default();
        // A reused frame of the right size keeps its old values: a lane only ever
        // reads a slot it wrote (zeroing ~4 KiB per warp was a tenth of a vecadd).
        if slots.len() != plan.slots as usize * LANES {
            slots.clear();
            slots.resize(plan.slots as usize * LANES, 0);
        }
        let base = self.stack_top;
        let top = base + plan.frame_bytes as usize;
        if top > self.lane_bytes {
            return Err(Box::new(Fault::Launch(format!(
                "`{}` needs more than the simulator's {} bytes of local memory per thread",
                self.func(func).name,
                self.lane_bytes
            ))));
        }
        // Local memory starts zeroed in every frame, so reads of unwritten elements are
        // deterministic.
        for lane in 0..LANES {
            let at = lane * self.lane_bytes;
            self.local[at + base..at + top].fill(0);
        }
        self.stack_top = top;
        Ok(Frame {
            func,
            slots,
            loops: vec![(0, 0); plan.loops.len()],
            returned: 0,
            base,
            depth,
            spin: Vec::new(),
            started: self.steps,
        })
    }

    pub fn pop_frame(&mut self, fr: Frame) {
        self.stack_top = fr.base;
        self.pool.push(fr.slots);
    }

    /// Where local `l` of the frame's function lives.
    pub fn home(&self, fr: &Frame, l: usize) -> Home {
        self.plan(fr.func).local_home[l]
    }

    #[inline]
    pub fn slot_of(&self, fr: &Frame, e: Handle<Expr>) -> u32 {
        self.plan(fr.func).expr_slot[e.index()]
    }

    #[inline]
    pub fn width_of(&self, fr: &Frame, e: Handle<Expr>) -> u32 {
        self.plan(fr.func).expr_width[e.index()]
    }

    /// Runs the kernel for every lane of the warp, to completion (or the first fault).
    pub fn run_kernel(&mut self) -> R<()> {
        let kernel = self.launch.kernel;
        let mut fr = self.push_frame(kernel, 0)?;
        let f = self.func(kernel);
        let mut at = 0;
        for p in &f.params {
            let width = super::plan::slots(&p.ty);
            if let Home::Reg(slot) = self.home(&fr, p.local.index()) {
                for k in 0..width {
                    let v = self.launch.arg_slots[at + k as usize];
                    for lane in 0..LANES {
                        fr.set(slot + k, lane, v);
                    }
                }
            }
            at += width as usize;
        }
        let mask = self.lanes;
        let out = self.exec_block(&mut fr, &f.body, mask)?;
        self.exited |= out | fr.returned;
        self.pop_frame(fr);
        Ok(())
    }
}
