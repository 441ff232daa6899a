//! A block's logical clock: which earlier accesses of the block (and, through grid
//! syncs and atomics, of other blocks) happen before each of its threads' next access.
//!
//! Time is one counter per block that ticks at every ordering event (barrier, warp sync,
//! fence); an access is stamped with the current time. An earlier access stamped `t`
//! by another thread of the block is ordered before thread `u` when a barrier happened
//! at or after `t`, or (same warp) a full-warp sync did, or a chain of partial warp
//! syncs carried `t` to `u`'s lane (a 32x32 vector clock per warp, only allocated for
//! warps that sync a subset of their lanes).

use std::collections::HashMap;

use super::shadow::Stamp;

#[derive(Debug, Default)]
struct WarpClock {
    /// The time of the latest sync of every lane of the warp (0: none).
    full_sync: u32,
    /// `partial[u][p]`: the latest time of lane `p` known to be ordered before lane `u`
    /// through partial warp syncs.
    partial: Option<Box<[[u32; 32]; 32]>>,
}

#[derive(Debug)]
pub(super) struct BlockClock {
    threads: u32,
    time: u32,
    last_barrier: u32,
    warps: Vec<WarpClock>,
    /// Per thread: the time of its latest device-scope fence (0: none yet).
    fence_times: Vec<u32>,
    /// Per thread: the time of its latest fence of any scope (0: none yet).
    block_fence_times: Vec<u32>,
    fenced_any: bool,
    /// Per thread of the block: the latest time of each other thread of the block
    /// whose accesses it acquired through a fence and an atomic (message passing
    /// inside the block).
    thread_acquired: HashMap<u16, HashMap<u16, u32>>,
    /// Per other block: the latest time of its accesses released to this block.
    acquired: HashMap<u32, u32>,
}

impl BlockClock {
    pub(super) fn new(threads: u32) -> BlockClock {
        BlockClock {
            threads,
            time: 1,
            last_barrier: 0,
            warps: (0..threads.div_ceil(32))
                .map(|_| WarpClock::default())
                .collect(),
            fence_times: vec![0; threads as usize],
            block_fence_times: vec![0; threads as usize],
            fenced_any: false,
            thread_acquired: HashMap::new(),
            acquired: HashMap::new(),
        }
    }

    pub(super) fn reset(&mut self) {
        self.time = 1;
        self.last_barrier = 0;
        for w in &mut self.warps {
            w.full_sync = 0;
            if let Some(p) = &mut w.partial {
                **p = [[0; 32]; 32];
            }
        }
        if self.fenced_any {
            self.fence_times.fill(0);
            self.block_fence_times.fill(0);
            self.fenced_any = false;
        }
        self.thread_acquired.clear();
        self.acquired.clear();
    }

    pub(super) fn now(&self) -> u32 {
        self.time
    }

    /// Ends the current instant: accesses from now on are after this event.
    fn tick(&mut self) -> u32 {
        let t = self.time;
        self.time = self.time.saturating_add(1);
        t
    }

    pub(super) fn barrier(&mut self) -> u32 {
        let t = self.tick();
        self.last_barrier = t;
        t
    }

    /// The lanes that exist in `warp` (the last warp of a block may be partial).
    pub(super) fn lanes_of(&self, warp: u32) -> u32 {
        let n = self.threads.saturating_sub(warp * 32).min(32);
        if n == 32 {
            u32::MAX
        } else {
            (1u32 << n) - 1
        }
    }

    pub(super) fn warp_sync(&mut self, warp: u32, lanes: u32, present: u32) {
        if lanes == 0 {
            return;
        }
        let t = self.tick();
        let Some(w) = self.warps.get_mut(warp as usize) else {
            return;
        };
        if lanes == present {
            w.full_sync = t;
            return;
        }
        let vc = w.partial.get_or_insert_with(|| Box::new([[0; 32]; 32]));
        let mut joined = [0u32; 32];
        for_each_lane(lanes, |l| {
            for (j, v) in joined.iter_mut().zip(vc[l].iter()) {
                *j = (*j).max(*v);
            }
        });
        for_each_lane(lanes, |m| joined[m] = t);
        for_each_lane(lanes, |l| vc[l] = joined);
    }

    /// The lanes of `warp` fenced; `device`: at device (or system) scope, which
    /// orders for other blocks too.
    pub(super) fn fence(&mut self, warp: u32, lanes: u32, device: bool) {
        let t = self.tick();
        let (times, block_times) = (&mut self.fence_times, &mut self.block_fence_times);
        for_each_lane(lanes, |l| {
            let tid = warp as usize * 32 + l;
            if device {
                if let Some(f) = times.get_mut(tid) {
                    *f = t;
                }
            }
            if let Some(f) = block_times.get_mut(tid) {
                *f = t;
            }
        });
        self.fenced_any = true;
    }

    /// The time of `tid`'s latest fence of any scope.
    pub(super) fn block_fenced_at(&self, tid: u32) -> Option<u32> {
        self.block_fence_times
            .get(tid as usize)
            .copied()
            .filter(|&t| t != 0)
    }

    /// What `tid` publishes when it releases inside the block: its own accesses up
    /// to its latest fence, and what it acquired from others.
    pub(super) fn thread_release(&self, tid: u32) -> Option<HashMap<u16, u32>> {
        let fenced = self.block_fenced_at(tid)?;
        let mut published = self
            .thread_acquired
            .get(&(tid as u16))
            .cloned()
            .unwrap_or_default();
        published.insert(tid as u16, fenced);
        Some(published)
    }

    /// `tid` acquires what a release inside the block published.
    pub(super) fn thread_acquire(&mut self, tid: u32, from: &HashMap<u16, u32>) {
        let into = self.thread_acquired.entry(tid as u16).or_default();
        for (&t, &time) in from {
            let e = into.entry(t).or_insert(0);
            *e = (*e).max(time);
        }
    }

    pub(super) fn fenced_at(&self, tid: u32) -> Option<u32> {
        self.fence_times
            .get(tid as usize)
            .copied()
            .filter(|&t| t != 0)
    }

    pub(super) fn acquired(&self) -> &HashMap<u32, u32> {
        &self.acquired
    }

    pub(super) fn acquired_mut(&mut self) -> &mut HashMap<u32, u32> {
        &mut self.acquired
    }

    /// Whether the earlier access `p` happens before the next access of thread `tid` of
    /// block `block`.
    pub(super) fn ordered(
        &self,
        p: &Stamp,
        block: u32,
        tid: u32,
        grid_sync_time: impl Fn(u32) -> u32,
    ) -> bool {
        if p.block != block {
            return p.time <= grid_sync_time(p.block)
                || self.acquired.get(&p.block).is_some_and(|&t| p.time <= t);
        }
        let p_tid = u32::from(p.tid);
        if p_tid == tid || p.time <= self.last_barrier {
            return true;
        }
        if !self.thread_acquired.is_empty()
            && self
                .thread_acquired
                .get(&(tid as u16))
                .and_then(|m| m.get(&p.tid))
                .is_some_and(|&t| p.time <= t)
        {
            return true;
        }
        if p_tid / 32 != tid / 32 {
            return false;
        }
        let Some(w) = self.warps.get((tid / 32) as usize) else {
            return false;
        };
        p.time <= w.full_sync
            || w.partial
                .as_ref()
                .is_some_and(|vc| p.time <= vc[(tid % 32) as usize][(p_tid % 32) as usize])
    }
}

fn for_each_lane(lanes: u32, mut f: impl FnMut(usize)) {
    let mut rest = lanes;
    while rest != 0 {
        f(rest.trailing_zeros() as usize);
        rest &= rest - 1;
    }
}
