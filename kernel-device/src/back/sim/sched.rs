//! Running a launch: blocks spread over host worker threads. A kernel with barriers,
//! atomics or fences runs its warps as coroutines, a group of blocks at a time (the
//! whole grid for one that synchronises the grid; several blocks for one whose blocks
//! can communicate through atomics): each warp runs until it reaches a barrier or a
//! point where warps communicate (an atomic, a fence, a seeded-random one of its
//! memory accesses, a long loop), then the scheduler resumes another in a seeded
//! order, so every seed interleaves warps (and blocks) differently. A barrier is
//! released when every live thread has arrived; one that some threads reach while
//! others wait elsewhere is a [`Fault::BarrierDivergence`], and warps that spin
//! without anything changing end as a [`Fault::Deadlock`], never a hang.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::config::Report;
use super::detect::BlockDetector;
use super::fault::{Fault, Site, ThreadId};
use super::lanes::LANES;
use super::launch::{Arrival, BarrierKind, Launch, Release};
use super::memory::Buffer;
use super::warp::{Warp, WarpBuffers};
use crate::ir::Handle;

/// Stack of one warp's coroutine: the interpreter recurses over the IR tree.
const WARP_STACK_BYTES: usize = 1 << 20;

/// Warps interleaved together when blocks can communicate (blocks resident at once).
const MAX_GROUP_WARPS: u64 = 128;

/// Scheduler rounds in which no warp changed memory, arrived, finished or left a
/// barrier, while every running warp kept yielding at the same place, after which
/// the launch is a deadlock (the warps spin on something no running thread changes).
const STALE_ROUNDS: u32 = 256;

/// Warp steps without progress after which the launch is a livelock even if the
/// spinning warps do not repeat one place.
const STALE_STEPS: u64 = 1 << 24;

pub fn run_launch(launch: Launch) -> Result<Report, Fault> {
    let launch = Arc::new(launch);
    let schedules = launch.options.schedules.max(1);
    // Every schedule but the last runs on a copy of the arguments' initial contents.
    let snapshot: Vec<Vec<u8>> = if schedules > 1 {
        launch
            .arg_buffers
            .iter()
            .map(|b| {
                let mut v = vec![0; b.len()];
                b.read(0, &mut v);
                v
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut report = Report::default();
    for k in 0..schedules {
        if k > 0 {
            for (b, bytes) in launch.arg_buffers.iter().zip(&snapshot) {
                b.write(0, bytes);
            }
            if let Some(detector) = &launch.detector {
                detector.reset();
            }
            // print: only the last schedule's output is the launch's
            if let Some(prints) = &launch.options.prints {
                prints.reset();
            }
        }
        report = run_once(&launch, launch.options.seed.wrapping_add(u64::from(k)))?;
    }
    Ok(report)
}

/// One schedule of the launch. A device-side panic ends only its thread (see
/// [`Warp::panic_at`]); once every block has run, the first recorded panic is the
/// launch's result, unless a block failed in some other way.
fn run_once(launch: &Arc<Launch>, seed: u64) -> Result<Report, Fault> {
    launch.panics.take();
    let report = run_blocks(launch, seed)?;
    match launch.panics.take() {
        Some(panic) => Err(panic),
        None => Ok(report),
    }
}

fn run_blocks(launch: &Arc<Launch>, seed: u64) -> Result<Report, Fault> {
    let [gx, gy, gz] = launch.shape.grid.map(u64::from);
    let [bx, by, bz] = launch.shape.block.map(u64::from);
    let blocks = gx * gy * gz;
    let mut report = Report {
        blocks,
        threads: blocks * bx * by * bz,
        warp_steps: 0,
    };
    if launch.cooperative {
        let all: Vec<u64> = (0..blocks).collect();
        report.warp_steps =
            run_group(launch, &all, seed, &mut WarpBuffers::default()).map_err(|f| *f)?;
        return Ok(report);
    }
    // Blocks that can communicate through atomics interleave in groups (as resident
    // blocks of a GPU do); the others run one at a time.
    let per_group = if launch.communicates {
        (MAX_GROUP_WARPS / u64::from(warps_per_block(launch))).clamp(1, blocks)
    } else {
        1
    };
    // Hopper: clusters: a cluster's blocks run together, as one group.
    let clusters = launch.clustered().then(|| cluster_groups(launch));
    let groups = clusters
        .as_ref()
        .map_or(blocks.div_ceil(per_group), |c| c.len() as u64);
    let workers = match launch.options.workers {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(groups as usize)
    .max(1);
    let next = AtomicU64::new(0);
    let steps = AtomicU64::new(0);
    // The fault of the lowest-numbered block wins, whatever the workers' timing.
    let fault: Mutex<Option<(u64, Fault)>> = Mutex::new(None);
    let lowest_fault = AtomicU64::new(u64::MAX);
    let work = || {
        // Each worker's warps reuse one set of buffers.
        let mut buffers = WarpBuffers::default();
        loop {
            let g = next.fetch_add(1, Ordering::Relaxed);
            let b = match &clusters {
                Some(c) => c.get(g as usize).map_or(u64::MAX, |c| c[0]),
                None => g * per_group,
            };
            if g >= groups || b > lowest_fault.load(Ordering::Relaxed) {
                break;
            }
            let group: Vec<u64> = match &clusters {
                Some(c) => c[g as usize].clone(),
                None => (b..(b + per_group).min(blocks)).collect(),
            };
            match run_group(launch, &group, seed, &mut buffers) {
                Ok(s) => {
                    steps.fetch_add(s, Ordering::Relaxed);
                }
                Err(f) => {
                    let mut slot = fault.lock().unwrap_or_else(|p| p.into_inner());
                    if slot.as_ref().is_none_or(|(at, _)| b < *at) {
                        *slot = Some((b, *f));
                        lowest_fault.store(b, Ordering::Relaxed);
                    }
                }
            }
        }
    };
    if workers == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    if let Some((_, f)) = fault.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(f);
    }
    report.warp_steps = steps.into_inner();
    Ok(report)
}

// Hopper: clusters
/// The grid's blocks (linear indices) by cluster, each cluster's in rank order.
fn cluster_groups(launch: &Launch) -> Vec<Vec<u64>> {
    let [gx, gy, gz] = launch.shape.grid.map(u64::from);
    let [cx, cy, cz] = launch.cluster.map(u64::from);
    let mut groups = Vec::new();
    for oz in (0..gz).step_by(cz as usize) {
        for oy in (0..gy).step_by(cy as usize) {
            for ox in (0..gx).step_by(cx as usize) {
                let mut group = Vec::new();
                for z in oz..oz + cz {
                    for y in oy..oy + cy {
                        for x in ox..ox + cx {
                            group.push(x + y * gx + z * gx * gy);
                        }
                    }
                }
                groups.push(group);
            }
        }
    }
    groups
}

fn block_index(launch: &Launch, linear: u64) -> [u32; 3] {
    let [gx, gy, _] = launch.shape.grid.map(u64::from);
    [
        (linear % gx) as u32,
        ((linear / gx) % gy) as u32,
        (linear / (gx * gy)) as u32,
    ]
}

fn warps_per_block(launch: &Launch) -> u32 {
    let [bx, by, bz] = launch.shape.block;
    (bx * by * bz).div_ceil(LANES as u32)
}

type Regions = Vec<Option<Arc<Buffer>>>;

/// Runs the blocks of `group` to completion; returns the warp steps taken. A fault in
/// a block where a thread panicked ends that block there and leaves the launch to
/// report the panic.
fn run_group(
    launch: &Launch,
    group: &[u64],
    seed: u64,
    buffers: &mut WarpBuffers,
) -> Result<u64, Box<Fault>> {
    run_group_to_end(launch, group, seed, buffers).or_else(|fault| {
        // A panicked thread counts as exited: the others go on without what it would
        // have written (an unwritten shared element) or done; the launch fails with
        // the panic, which is the cause.
        let missed_by_panicked = !matches!(*fault, Fault::Panic { .. } | Fault::Launch(_))
            && group
                .iter()
                .any(|&b| launch.panics.in_block(block_index(launch, b)));
        if missed_by_panicked {
            Ok(0)
        } else {
            Err(fault)
        }
    })
}

fn run_group_to_end(
    launch: &Launch,
    group: &[u64],
    seed: u64,
    buffers: &mut WarpBuffers,
) -> Result<u64, Box<Fault>> {
    let warps = warps_per_block(launch);
    // Declared before the scheduler, so dropped after it: the warps' coroutines
    // borrow them (see `Scheduler::new`).
    let regions: Vec<Regions> = group.iter().map(|_| launch.block_regions()).collect();
    let dets: Vec<Option<RefCell<BlockDetector<'_>>>> = group
        .iter()
        .map(|&b| {
            launch
                .detector
                .as_ref()
                .map(|d| RefCell::new(d.block(block_index(launch, b))))
        })
        .collect();
    if !launch.has_barriers && !launch.communicates {
        // Warps cannot communicate: each runs to its end, in a seeded order.
        let mut steps = 0;
        let mut rng = seed
            ^ group
                .first()
                .copied()
                .unwrap_or(0)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for (k, &b) in group.iter().enumerate() {
            let mut order: Vec<u32> = (0..warps).collect();
            if seed != 0 {
                for i in (1..order.len()).rev() {
                    let j = (splitmix(&mut rng) % (i as u64 + 1)) as usize;
                    order.swap(i, j);
                }
            }
            for w in order {
                let mut warp = Warp::reusing(
                    launch,
                    &regions[k],
                    block_index(launch, b),
                    w,
                    None,
                    dets[k].as_ref(),
                    std::mem::take(buffers),
                );
                if let Err(fault) = warp.run_kernel() {
                    return finish_blocks(&dets, Err(fault));
                }
                steps += warp.steps;
                *buffers = warp.into_buffers();
            }
        }
        return finish_blocks(&dets, Ok(steps));
    }
    // Hopper: clusters
    let view = launch.uses_clusters.then(|| {
        let blocks = group.iter().map(|&b| block_index(launch, b)).collect();
        let mut view = super::cluster_state::ClusterView::new(
            launch.cluster,
            blocks,
            &regions,
            launch.options.detect,
        );
        view.dets = Some(&dets);
        view
    });
    let scheduler = Scheduler::new(launch, group, &regions, &dets, view.as_ref(), seed)?;
    let result = scheduler.run();
    // Hopper: transaction bytes a block's barriers still expect when it ended.
    let blocks: Vec<[u32; 3]> = group.iter().map(|&b| block_index(launch, b)).collect();
    let result = result.and_then(|steps| {
        super::mbarrier::check_at_exit(launch, &blocks, &regions).map(|()| steps)
    });
    finish_blocks(&dets, result)
}

/// The group's result, after the detector's deferred reports: a read of unwritten
/// shared memory comes first (it happened before whatever failed later).
fn finish_blocks(
    dets: &[Option<RefCell<BlockDetector<'_>>>],
    result: Result<u64, Box<Fault>>,
) -> Result<u64, Box<Fault>> {
    let steps = match result {
        Ok(steps) => steps,
        Err(fault) if matches!(*fault, Fault::ReadBeforeWrite { .. } | Fault::Launch(_)) => {
            return Err(fault)
        }
        Err(fault) => {
            for det in dets.iter().flatten() {
                if det.borrow().has_pending_read() {
                    det.borrow_mut().finish().map_err(Box::new)?;
                }
            }
            return Err(fault);
        }
    };
    for det in dets.iter().flatten() {
        det.borrow_mut().finish().map_err(Box::new)?;
    }
    Ok(steps)
}

/// A warp's coroutine returns its steps.
type WarpCoroutine = Coroutine<Release, Arrival, Result<u64, Box<Fault>>, DefaultStack>;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

enum State {
    Ready(Release),
    Waiting(Arrival),
    /// Finished: every thread of the warp exited (returned, ran to the end of the
    /// kernel or panicked), which counts as arriving at every later barrier.
    Done,
}

struct Slot {
    /// Index of the block in the group.
    block: usize,
    warp: u32,
    coroutine: WarpCoroutine,
    state: State,
    /// Where the warp last yielded, and how many rounds in a row it yielded there
    /// without progress.
    last_yield: Option<Arrival>,
    repeats: u32,
    steps: u64,
}

struct Scheduler<'l> {
    launch: &'l Launch,
    group: Vec<u64>,
    dets: &'l [Option<RefCell<BlockDetector<'l>>>],
    // Hopper: clusters
    cluster: Option<&'l super::cluster_state::ClusterView<'l>>,
    slots: Vec<Slot>,
    rng: u64,
    steps: u64,
}

impl<'l> Scheduler<'l> {
    fn new(
        launch: &'l Launch,
        group: &[u64],
        regions: &'l [Regions],
        dets: &'l [Option<RefCell<BlockDetector<'l>>>],
        cluster: Option<&'l super::cluster_state::ClusterView<'l>>,
        seed: u64,
    ) -> Result<Scheduler<'l>, Box<Fault>> {
        let mut slots = Vec::new();
        for (k, &b) in group.iter().enumerate() {
            let block = block_index(launch, b);
            for w in 0..warps_per_block(launch) {
                let stack = DefaultStack::new(WARP_STACK_BYTES).map_err(|e| {
                    Box::new(Fault::Launch(format!(
                        "the simulator could not allocate a warp's stack: {e}"
                    )))
                })?;
                let (table, det) = (&regions[k], dets[k].as_ref());
                let warp_seed = seed
                    ^ (group[k].wrapping_mul(1024) + u64::from(w))
                        .wrapping_mul(0xD1B5_4A32_D192_ED03);
                let body = move |y: &Yielder<Release, Arrival>, _: Release| {
                    let suspend = |a: Arrival| y.suspend(a);
                    let mut warp = Warp::new(launch, table, block, w, Some(&suspend), det);
                    // Hopper: clusters
                    warp.cluster = cluster;
                    warp.cluster_index = Some(k);
                    warp.seed_preemption(warp_seed);
                    warp.run_kernel()?;
                    Ok(warp.steps)
                };
                // SAFETY: the body borrows `launch`, `regions` and `dets` for 'l. The
                // coroutine lives in this scheduler, which never outlives 'l: it is
                // created and dropped inside `run_group`, where those borrows are
                // taken from values declared before it. A coroutine dropped while
                // suspended is unwound then, while the borrows are still valid.
                let coroutine = unsafe { Coroutine::with_stack_unchecked(stack, body) };
                slots.push(Slot {
                    block: k,
                    warp: w,
                    coroutine,
                    state: State::Ready(Release::default()),
                    last_yield: None,
                    repeats: 0,
                    steps: 0,
                });
            }
        }
        Ok(Scheduler {
            launch,
            group: group.to_vec(),
            dets,
            cluster,
            slots,
            rng: seed
                ^ group
                    .first()
                    .copied()
                    .unwrap_or(0)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15),
            steps: 0,
        })
    }

    fn next_random(&mut self) -> u64 {
        splitmix(&mut self.rng)
    }

    fn run(self) -> Result<u64, Box<Fault>> {
        let launch = self.launch;
        launch.running_groups.fetch_add(1, Ordering::SeqCst);
        let mut stuck = false;
        let result = self.run_rounds(&mut stuck);
        if stuck {
            launch.stuck_groups.fetch_sub(1, Ordering::SeqCst);
        }
        launch.running_groups.fetch_sub(1, Ordering::SeqCst);
        result
    }

    fn run_rounds(mut self, stuck: &mut bool) -> Result<u64, Box<Fault>> {
        let (mut stale_rounds, mut stale_steps) = (0u32, 0u64);
        loop {
            let mut order: Vec<usize> = (0..self.slots.len())
                .filter(|&i| matches!(self.slots[i].state, State::Ready(_)))
                .collect();
            for i in (1..order.len()).rev() {
                let j = (self.next_random() % (i as u64 + 1)) as usize;
                order.swap(i, j);
            }
            let epoch = self.launch.epoch.load(Ordering::Relaxed);
            let mut progress = false;
            let mut round_steps = 0u64;
            for i in order {
                let State::Ready(input) = std::mem::replace(&mut self.slots[i].state, State::Done)
                else {
                    continue;
                };
                match self.slots[i].coroutine.resume(input) {
                    CoroutineResult::Yield(arrival) => {
                        let slot = &mut self.slots[i];
                        round_steps += arrival.steps - slot.steps;
                        slot.steps = arrival.steps;
                        if arrival.kind == BarrierKind::Yield {
                            let same = arrival.addr != u64::MAX
                                && slot.last_yield.is_some_and(|l| {
                                    (l.func, l.loc, l.addr)
                                        == (arrival.func, arrival.loc, arrival.addr)
                                });
                            slot.repeats = if same { slot.repeats + 1 } else { 0 };
                            slot.last_yield = Some(arrival);
                            slot.state = State::Ready(Release::default());
                        } else {
                            progress = true;
                            slot.repeats = 0;
                            slot.state = State::Waiting(arrival);
                        }
                    }
                    CoroutineResult::Return(Ok(steps)) => {
                        self.steps += steps;
                        progress = true;
                        self.slots[i].state = State::Done;
                        // Hopper: clusters
                        self.note_block_exit(self.slots[i].block)?;
                    }
                    CoroutineResult::Return(Err(fault)) => return Err(fault),
                }
            }
            if self.slots.iter().all(|s| matches!(s.state, State::Done)) {
                return Ok(self.steps);
            }
            if self.release()? || progress || self.launch.epoch.load(Ordering::Relaxed) != epoch {
                (stale_rounds, stale_steps) = (0, 0);
                for s in &mut self.slots {
                    s.repeats = 0;
                }
                if std::mem::take(stuck) {
                    self.launch.stuck_groups.fetch_sub(1, Ordering::SeqCst);
                }
                continue;
            }
            stale_rounds += 1;
            stale_steps += round_steps;
            let repeating = self.slots.iter().all(|s| match s.state {
                State::Ready(_) => s.repeats >= STALE_ROUNDS,
                _ => true,
            });
            if (stale_rounds >= STALE_ROUNDS && repeating) || stale_steps >= STALE_STEPS {
                if !*stuck {
                    *stuck = true;
                    self.launch.stuck_groups.fetch_add(1, Ordering::SeqCst);
                }
                // Another group of blocks still running may write what these wait for.
                let running = self.launch.running_groups.load(Ordering::SeqCst);
                if self.launch.stuck_groups.load(Ordering::SeqCst) >= running {
                    return Err(self.stuck());
                }
                std::thread::yield_now();
            }
        }
    }

    /// The deadlock of warps that spin without progress: who spins where, and who
    /// waits at which barrier.
    fn stuck(&self) -> Box<Fault> {
        let mut spinning = Vec::new();
        let mut waiting = Vec::new();
        for s in &self.slots {
            match &s.state {
                State::Ready(_) => {
                    if let Some(a) = &s.last_yield {
                        let lane = a.lanes.trailing_zeros().min(31);
                        spinning.push(format!(
                            "{} at {}",
                            self.thread(s.block, s.warp, lane),
                            self.site(a)
                        ));
                    }
                }
                State::Waiting(a) => waiting.push(format!(
                    "{} waits at the barrier at {}",
                    self.thread(s.block, s.warp, a.lanes.trailing_zeros()),
                    self.site(a)
                )),
                State::Done => {}
            }
        }
        let mut text = format!(
            "threads spin without progress (no memory changes, no barrier is reached): {}",
            summarise(&spinning)
        );
        // What the first spinner that yielded at a memory access waits for.
        let read = self
            .slots
            .iter()
            .find_map(|s| match (&s.state, &s.last_yield) {
                (State::Ready(_), Some(a)) if a.addr != u64::MAX => Some(*a),
                _ => None,
            });
        if let Some(a) = read {
            let f = &self.launch.module.functions[Handle::new(a.func)];
            let loc = a.loc.unwrap_or_else(|| f.loc_of(Handle::new(a.expr)));
            text.push_str(&super::spin::waited_for(self.launch, a.addr, a.func, loc));
        }
        if !waiting.is_empty() {
            text.push_str(&format!("; {}", summarise(&waiting)));
        }
        text.push_str(
            "; the value they wait for is never written by a running thread (on a GPU this kernel hangs)",
        );
        Box::new(Fault::Deadlock(text))
    }

    fn thread(&self, block: usize, warp: u32, lane: u32) -> ThreadId {
        let [bx, by, _] = self.launch.shape.block;
        let linear = warp * LANES as u32 + lane;
        ThreadId {
            block: block_index(self.launch, self.group[block]),
            thread: [linear % bx, (linear / bx) % by, linear / (bx * by)],
        }
    }

    fn site(&self, a: &Arrival) -> Site {
        let f = &self.launch.module.functions[Handle::new(a.func)];
        let loc = a.loc.unwrap_or_else(|| f.loc_of(Handle::new(a.expr)));
        Site {
            file: f.file.clone(),
            line: loc.line,
            column: loc.column,
        }
    }

    fn divergence(
        &self,
        waiting: (usize, &Arrival),
        other: usize,
        elsewhere: String,
    ) -> Box<Fault> {
        let (w, a) = waiting;
        let o = &self.slots[other];
        let lane = match &o.state {
            State::Waiting(b) => b.lanes.trailing_zeros(),
            _ => 0,
        };
        Box::new(Fault::BarrierDivergence {
            site: self.site(a),
            waiting: self.thread(
                self.slots[w].block,
                self.slots[w].warp,
                a.lanes.trailing_zeros(),
            ),
            other: self.thread(o.block, o.warp, lane),
            elsewhere,
        })
    }

    /// Releases every barrier all of whose live threads have arrived; a fault if none
    /// can be. Threads that exited count as arrived, as on the GPU (PTX `exit`: a
    /// barrier held up only by exiting threads is released, and running to the end of
    /// the kernel is an exit like `return`); live threads at different barriers are
    /// divergence. A grid barrier
    /// needs a thread of every block (the GPU's grid barrier counts blocks: a block
    /// whose threads all exited leaves the others waiting forever).
    fn release(&mut self) -> Result<bool, Box<Fault>> {
        let mut released = false;
        let mut at_grid = false;
        let any_ready = self
            .slots
            .iter()
            .any(|s| matches!(s.state, State::Ready(_)));
        if !self
            .slots
            .iter()
            .any(|s| matches!(s.state, State::Waiting(_)))
        {
            return Ok(false);
        }
        for block in 0..self.group.len() {
            let members: Vec<usize> = (0..self.slots.len())
                .filter(|&i| self.slots[i].block == block)
                .collect();
            if members
                .iter()
                .any(|&i| matches!(self.slots[i].state, State::Ready(_)))
            {
                continue; // some warp of the block still runs
            }
            let waiting: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| matches!(self.slots[i].state, State::Waiting(_)))
                .collect();
            let Some(&first) = waiting.first() else {
                continue;
            };
            let State::Waiting(a) = self.slots[first].state else {
                continue;
            };
            for &i in &waiting[1..] {
                let State::Waiting(b) = self.slots[i].state else {
                    continue;
                };
                if (b.func, b.expr) != (a.func, a.expr) {
                    let text = format!("waits at {}", self.site(&b));
                    return Err(self.divergence((first, &a), i, text));
                }
            }
            if a.kind == BarrierKind::Grid {
                at_grid = true;
                continue;
            }
            // Hopper: clusters: released below, with the rest of the cluster.
            if a.kind == BarrierKind::Cluster {
                continue;
            }
            let mut release = Release::default();
            let (mut arrived, mut votes) = (0u32, 0u32);
            for &i in &waiting {
                if let State::Waiting(b) = self.slots[i].state {
                    arrived += b.lanes.count_ones();
                    votes += b.votes.count_ones();
                }
            }
            release.count = votes;
            release.all = votes == arrived;
            release.any = votes > 0;
            if let Some(det) = &self.dets[block] {
                det.borrow_mut().barrier();
            }
            for &i in &waiting {
                self.slots[i].state = State::Ready(Release {
                    fault: None,
                    ..release
                });
            }
            released = true;
        }
        // Hopper: clusters
        released |= self.release_clusters();
        if released {
            return Ok(true);
        }
        if any_ready {
            return Ok(false);
        }
        if at_grid {
            let w = self
                .slots
                .iter()
                .position(|s| matches!(s.state, State::Waiting(_)))
                .unwrap_or(0);
            let State::Waiting(a) = self.slots[w].state else {
                unreachable!("a block waits at the grid barrier")
            };
            for block in 0..self.group.len() {
                let mut members = (0..self.slots.len()).filter(|&i| self.slots[i].block == block);
                if let Some(first) = members.clone().next() {
                    if members.all(|i| matches!(self.slots[i].state, State::Done)) {
                        return Err(self.divergence(
                            (w, &a),
                            first,
                            "exited, as did every thread of its block: grid_sync waits for a thread of every block".into(),
                        ));
                    }
                }
            }
            // Every block has live threads and all of them wait at a grid barrier.
            for det in self.dets.iter().flatten() {
                det.borrow_mut().grid_sync();
            }
            for s in &mut self.slots {
                if matches!(s.state, State::Waiting(_)) {
                    s.state = State::Ready(Release::default());
                }
            }
            return Ok(true);
        }
        Err(Box::new(Fault::Deadlock(
            "every remaining warp waits at a barrier that cannot be released".into(),
        )))
    }
}

// Hopper: clusters
impl Scheduler<'_> {
    /// Whether every warp of group block `b` is in `state`'s kind.
    fn block_all(&self, b: usize, pred: impl Fn(&State) -> bool) -> bool {
        self.slots
            .iter()
            .filter(|s| s.block == b)
            .all(|s| pred(&s.state))
    }

    /// Releases each cluster whose blocks' live warps all wait at `cluster_sync()`
    /// (threads that exited count as arrived: `barrier.cluster` waits for the
    /// non-exited threads of the cluster).
    fn release_clusters(&mut self) -> bool {
        let Some(view) = self.cluster else {
            return false;
        };
        let at_cluster =
            |s: &State| matches!(s, State::Waiting(a) if a.kind == BarrierKind::Cluster);
        let mut released = false;
        let mut seen = vec![false; self.group.len()];
        for b in 0..self.group.len() {
            if seen[b] {
                continue;
            }
            let members = view.members(b);
            for &m in &members {
                seen[m] = true;
            }
            let ready = members
                .iter()
                .all(|&m| self.block_all(m, |s| at_cluster(s) || matches!(s, State::Done)));
            let waiting = members.iter().any(|&m| {
                self.slots
                    .iter()
                    .any(|s| s.block == m && at_cluster(&s.state))
            });
            if !(ready && waiting) {
                continue;
            }
            // Every member's accesses before the barrier happen before every member's
            // accesses after it, in global memory too.
            let instants: Vec<(u32, u32)> = members
                .iter()
                .filter_map(|&m| self.dets[m].as_ref())
                .map(|det| det.borrow_mut().cluster_barrier())
                .collect();
            for &m in &members {
                if let Some(det) = &self.dets[m] {
                    let mut det = det.borrow_mut();
                    for &(block, time) in &instants {
                        det.acquire_block(block, time);
                    }
                }
            }
            view.passed_barrier(&members);
            for s in &mut self.slots {
                if members.contains(&s.block) && at_cluster(&s.state) {
                    s.state = State::Ready(Release::default());
                }
            }
            released = true;
        }
        released
    }

    /// After a warp of group block `b` finished: if the whole block has, the cluster
    /// checks that no peer may still access its shared memory.
    fn note_block_exit(&self, b: usize) -> Result<(), Box<Fault>> {
        let Some(view) = self.cluster else {
            return Ok(());
        };
        if !self.block_all(b, |s| matches!(s, State::Done)) {
            return Ok(());
        }
        view.block_exited(b)
    }
}

/// The first few of `items`, and how many more.
fn summarise(items: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut text = items[..items.len().min(SHOWN)].join(", ");
    if items.len() > SHOWN {
        text.push_str(&format!(" and {} more warps", items.len() - SHOWN));
    }
    text
}
