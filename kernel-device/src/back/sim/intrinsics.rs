//! Built-ins for a warp: index registers, barriers (which suspend the warp), fences,
//! atomics, and the warp collectives (shuffles, votes, match, reductions), whose
//! masks must name only lanes executing them.

use super::fault::{AccessKind, Fault, R};
use super::lanes::{lanes, LANES};
use super::launch::{Arrival, BarrierKind};
use super::math;
use super::pointer::{offset_of, region_of, LOCAL_REGION};
use super::scalar::{self, f32_of, f64_of, of_f32, of_f64};
use super::warp::{Frame, Preempt, Warp};
use crate::ir::checks;
use crate::ir::{
    AtomicOp, Axis, Expr, Handle, Intrinsic, MemoryScope, ReduceOp, ScalarType, ShuffleMode, Type,
    VoteMode,
};

fn axis(a: Axis) -> usize {
    match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    }
}

impl Warp<'_, '_> {
    pub fn intrinsic(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        intrinsic: Intrinsic,
        args: &[Handle<Expr>],
        mask: u32,
    ) -> R<u32> {
        let m = self.eval_args(fr, args, mask)?;
        if m == 0 {
            return Ok(0);
        }
        let out = self.slot_of(fr, e);
        let arg = |k: usize| self.slot_of(fr, args[k]);
        let shape = self.launch.shape;
        let uniform = |fr: &mut Frame, v: u64| {
            for lane in lanes(m) {
                fr.set(out, lane, v);
            }
        };
        match intrinsic {
            Intrinsic::ThreadIdx(a) => {
                for lane in lanes(m) {
                    fr.set(out, lane, u64::from(self.tid[lane][axis(a)]));
                }
            }
            Intrinsic::BlockIdx(a) => uniform(fr, u64::from(self.block[axis(a)])),
            Intrinsic::BlockDim(a) => uniform(fr, u64::from(shape.block[axis(a)])),
            Intrinsic::GridDim(a) => uniform(fr, u64::from(shape.grid[axis(a)])),
            Intrinsic::Grid(a) => {
                let base = u64::from(self.block[axis(a)]) * u64::from(shape.block[axis(a)]);
                for lane in lanes(m) {
                    fr.set(out, lane, base + u64::from(self.tid[lane][axis(a)]));
                }
            }
            Intrinsic::GridSize(a) => uniform(
                fr,
                u64::from(shape.block[axis(a)]) * u64::from(shape.grid[axis(a)]),
            ),
            Intrinsic::SyncThreads
            | Intrinsic::SyncThreadsCount
            | Intrinsic::SyncThreadsAnd
            | Intrinsic::SyncThreadsOr
            | Intrinsic::GridSync => {
                let mut votes = 0u32;
                if let Some(&p) = args.first() {
                    let p = self.slot_of(fr, p);
                    for lane in lanes(m) {
                        votes |= (fr.get(p, lane) as u32 & 1) << lane;
                    }
                }
                let kind = if intrinsic == Intrinsic::GridSync {
                    BarrierKind::Grid
                } else {
                    BarrierKind::Block
                };
                let release = self.arrive(fr, e, kind, m, votes)?;
                // Plain barriers are `()`: they have no slot to write.
                let v = match intrinsic {
                    Intrinsic::SyncThreadsCount => u64::from(release.count),
                    Intrinsic::SyncThreadsAnd => u64::from(release.all),
                    Intrinsic::SyncThreadsOr => u64::from(release.any),
                    _ => return Ok(m),
                };
                uniform(fr, v);
            }
            Intrinsic::DynamicShared => uniform(fr, 0),
            Intrinsic::SyncWarp => {
                let groups = self.lane_masks(fr, e, args[0], m, "sync_warp")?;
                self.sync_groups(&groups, m);
            }
            Intrinsic::Fence(scope) => {
                let loc = self.func(fr.func).loc_of(e);
                self.preempt(fr.func, loc, m, Preempt::Always, u64::MAX)?;
                self.fence(m, scope);
            }
            Intrinsic::Atomic { op, scope } => self.atomic(fr, e, op, scope, args, m)?,
            // async copies
            Intrinsic::CpAsync { .. }
            | Intrinsic::CpAsyncCommit
            | Intrinsic::CpAsyncWait { .. }
            | Intrinsic::CpAsyncWaitAll
            | Intrinsic::LoadVec { .. }
            | Intrinsic::StoreVec { .. } => self.async_copy_intrinsic(fr, e, intrinsic, args, m)?,
            // Hopper
            Intrinsic::Mbarrier(op) => self.mbarrier_intrinsic(fr, e, op, args, m)?,
            // Hopper: wgmma
            Intrinsic::Wgmma(op) => self.wgmma_intrinsic(fr, e, op, args, m)?,
            // Hopper: TMA
            Intrinsic::Tma(op) => self.tma_intrinsic(fr, e, op, args, m)?,
            // Hopper: clusters
            Intrinsic::Cluster(op) => self.cluster_intrinsic(fr, e, op, args, m)?,
            Intrinsic::LaneId => {
                for lane in lanes(m) {
                    fr.set(out, lane, lane as u64);
                }
            }
            Intrinsic::WarpSize => uniform(fr, LANES as u64),
            Intrinsic::LanemaskLt => {
                for lane in lanes(m) {
                    fr.set(out, lane, (1u64 << lane) - 1);
                }
            }
            Intrinsic::ActiveMask => uniform(fr, u64::from(m)),
            Intrinsic::Shuffle(mode) => {
                let groups = self.lane_masks(fr, e, args[0], m, "shuffle")?;
                let (v, d) = (arg(1), arg(2));
                let mut src = [0usize; LANES];
                for lane in lanes(m) {
                    let b = (fr.get(d, lane) & 31) as usize;
                    src[lane] = match mode {
                        ShuffleMode::Idx => b,
                        ShuffleMode::Up => lane.checked_sub(b).unwrap_or(lane),
                        ShuffleMode::Down if lane + b < LANES => lane + b,
                        ShuffleMode::Down => lane,
                        ShuffleMode::Xor => lane ^ b,
                    };
                    let from = src[lane];
                    if groups[lane] & (1 << from) == 0 {
                        let problem = if self.exited & (1 << from) != 0 {
                            format!("lane {lane} reads lane {from}, which has exited (the value is undefined)")
                        } else {
                            format!("lane {lane} reads lane {from}, which is outside the mask")
                        };
                        return Err(self.mask_fault(fr, e, "shuffle", lane, groups[lane], problem));
                    }
                }
                self.sync_groups(&groups, m);
                let values: Vec<u64> = (0..LANES).map(|l| fr.get(v, l)).collect();
                for lane in lanes(m) {
                    fr.set(out, lane, values[src[lane]]);
                }
            }
            Intrinsic::Vote(mode) => {
                let groups = self.lane_masks(fr, e, args[0], m, "vote")?;
                self.sync_groups(&groups, m);
                let p = arg(1);
                let mut preds = 0u32;
                for lane in lanes(m) {
                    preds |= (fr.get(p, lane) as u32 & 1) << lane;
                }
                for lane in lanes(m) {
                    let named = groups[lane];
                    let ballot = preds & named;
                    let v = match mode {
                        VoteMode::All => u64::from(ballot == named),
                        VoteMode::Any => u64::from(ballot != 0),
                        VoteMode::Eq => u64::from(ballot == named || ballot == 0),
                        VoteMode::Ballot => u64::from(ballot),
                    };
                    fr.set(out, lane, v);
                }
            }
            Intrinsic::MatchAny | Intrinsic::MatchAll => {
                let groups = self.lane_masks(fr, e, args[0], m, "match")?;
                self.sync_groups(&groups, m);
                let v = arg(1);
                for lane in lanes(m) {
                    let named = groups[lane];
                    let mine = fr.get(v, lane);
                    let mut same = 0u32;
                    for other in lanes(named) {
                        if fr.get(v, other) == mine {
                            same |= 1 << other;
                        }
                    }
                    if intrinsic == Intrinsic::MatchAny {
                        fr.set(out, lane, u64::from(same));
                    } else {
                        let all = same == named;
                        fr.set(out, lane, if all { u64::from(named) } else { 0 });
                        fr.set(out + 1, lane, u64::from(all));
                    }
                }
            }
            Intrinsic::WarpReduce(op) => {
                if m != u32::MAX {
                    let lane = (!m).trailing_zeros();
                    return Err(self.inactive(
                        fr,
                        e,
                        "warp reduction",
                        m.trailing_zeros() as usize,
                        lane,
                        u32::MAX,
                    ));
                }
                self.warp_sync(m);
                let s = self.func(fr.func).exprs[args[0]]
                    .ty
                    .scalar()
                    .unwrap_or(ScalarType::I32);
                let v = arg(0);
                // The butterfly order the GPU uses (xor 16, 8, 4, 2, 1), so float sums
                // round as they do there.
                let mut acc: Vec<u64> = (0..LANES).map(|l| fr.get(v, l)).collect();
                for step in [16, 8, 4, 2, 1] {
                    let prev = acc.clone();
                    for (lane, a) in acc.iter_mut().enumerate() {
                        *a = combine(op, s, prev[lane], prev[lane ^ step]);
                    }
                }
                for lane in lanes(m) {
                    fr.set(out, lane, acc[lane]);
                }
            }
            // tensor cores
            Intrinsic::Mma(combo) => self.mma(fr, e, combo, args, m)?,
            Intrinsic::Ldmatrix { count, trans } => {
                self.matrix_rows(fr, e, count, trans, false, args, m)?
            }
            Intrinsic::Stmatrix { count, trans } => {
                self.matrix_rows(fr, e, count, trans, true, args, m)?
            }
            Intrinsic::Math(f) => {
                let ty = &self.func(fr.func).exprs[e].ty;
                let ret = ty.scalar().unwrap_or(ScalarType::Bool);
                let s = self.func(fr.func).exprs[args[0]].ty.scalar().unwrap_or(ret);
                let slots: Vec<u32> = (0..args.len()).map(arg).collect();
                let loc = self.func(fr.func).loc_of(e);
                for lane in lanes(m) {
                    let mut ops = [0u64; 3];
                    for (k, s) in slots.iter().enumerate() {
                        ops[k] = fr.get(*s, lane);
                    }
                    match math::eval(f, s, ret, ops) {
                        Ok(v) => fr.set(out, lane, v),
                        Err(fail) => self.panic_at(fr, loc, lane, fail.text()),
                    }
                }
            }
        }
        Ok(m)
    }

    /// Each executing lane's mask for a warp operation (Volta's independent threads:
    /// lanes may pass different masks, as cooperative groups' tiles do), reduced to
    /// the lanes that have not exited (an exited lane counts as arrived). Every lane
    /// must name itself, and every live lane it names must execute the operation
    /// with the same mask.
    fn lane_masks(
        &self,
        fr: &Frame,
        e: Handle<Expr>,
        arg: Handle<Expr>,
        m: u32,
        what: &str,
    ) -> R<[u32; LANES]> {
        let s = self.slot_of(fr, arg);
        let mut groups = [0u32; LANES];
        for lane in lanes(m) {
            let named = fr.get(s, lane) as u32;
            if named & (1 << lane) == 0 {
                let problem = format!("the calling lane {lane} is missing from its own mask");
                return Err(self.mask_fault(fr, e, what, lane, named, problem));
            }
            let live = named & !self.exited;
            if live & !m != 0 {
                let missing = (live & !m).trailing_zeros();
                return Err(self.inactive(fr, e, what, lane, missing, named));
            }
            groups[lane] = live;
        }
        for lane in lanes(m) {
            let named = fr.get(s, lane) as u32;
            if let Some(other) = lanes(groups[lane]).find(|&o| groups[o] != groups[lane]) {
                let theirs = fr.get(s, other) as u32;
                let problem =
                    format!("it names lane {other}, which executes it with mask {theirs:#010x}");
                return Err(self.mask_fault(fr, e, what, lane, named, problem));
            }
        }
        Ok(groups)
    }

    /// Tells the detector that each group of lanes synchronised.
    fn sync_groups(&self, groups: &[u32; LANES], m: u32) {
        let mut left = m;
        while left != 0 {
            let lane = left.trailing_zeros() as usize;
            let group = groups[lane];
            self.warp_sync(group);
            left &= !group & !(1 << lane);
        }
    }

    fn mask_fault(
        &self,
        fr: &Frame,
        e: Handle<Expr>,
        what: &str,
        lane: usize,
        mask: u32,
        problem: String,
    ) -> Box<Fault> {
        Box::new(Fault::WarpMask {
            operation: what.to_string(),
            site: self.expr_site(fr, e),
            thread: self.thread(lane),
            mask,
            problem,
        })
    }

    pub(super) fn inactive(
        &self,
        fr: &Frame,
        e: Handle<Expr>,
        what: &str,
        lane: usize,
        missing: u32,
        mask: u32,
    ) -> Box<Fault> {
        Box::new(Fault::InactiveLane {
            operation: what.to_string(),
            site: self.expr_site(fr, e),
            thread: self.thread(lane),
            lane: missing,
            mask,
        })
    }

    /// Arrives at a barrier with the lanes of `m` (which must be every live thread of
    /// the warp) and waits until the scheduler releases it.
    pub(super) fn arrive(
        &mut self,
        fr: &Frame,
        e: Handle<Expr>,
        kind: BarrierKind,
        m: u32,
        votes: u32,
    ) -> R<super::launch::Release> {
        // Threads that exited (returned or panicked) count as arrived, as on the GPU
        // (PTX `exit`: `bar.sync` waits for the non-exited threads only); a live lane
        // of this warp that is not here took another path past the barrier.
        let missing = self.lanes & !m & !self.exited;
        if missing != 0 {
            let waiting = m.trailing_zeros() as usize;
            let other = missing.trailing_zeros() as usize;
            return Err(Box::new(Fault::BarrierDivergence {
                site: self.expr_site(fr, e),
                waiting: self.thread(waiting),
                other: self.thread(other),
                elsewhere: "did not reach it (it took another path through the code)".into(),
            }));
        }
        let Some(suspend) = self.suspend else {
            return Err(Box::new(Fault::Launch(
                "a barrier outside the barrier scheduler".into(),
            )));
        };
        let release = suspend(Arrival {
            kind,
            func: fr.func,
            expr: e.index(),
            loc: None,
            lanes: m,
            votes,
            steps: self.steps,
            addr: u64::MAX,
        });
        match release.fault {
            Some(f) => Err(f),
            None => Ok(release),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        op: AtomicOp,
        scope: MemoryScope,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        let f = self.func(fr.func);
        let Type::Slice { elem: s, .. } = f.exprs[args[0]].ty else {
            return Err(Box::new(Fault::Launch("an atomic on a non-slice".into())));
        };
        let (sl, ix, v) = (
            self.slot_of(fr, args[0]),
            self.slot_of(fr, args[1]),
            self.slot_of(fr, args[2]),
        );
        let new = args.get(3).map(|h| self.slot_of(fr, *h));
        let out = self.slot_of(fr, e);
        let loc = f.loc_of(e);
        let bytes = s.size_bytes();
        // Another warp may take its turn first: whose atomic wins is the schedule's.
        let first = m.trailing_zeros() as usize;
        let target = super::pointer::ptr_add(
            fr.get(sl, first),
            fr.get(ix, first).saturating_mul(u64::from(bytes)),
        );
        self.preempt(fr.func, loc, m, Preempt::Always, target)?;
        for lane in lanes(m) {
            let (p, len, i) = (fr.get(sl, lane), fr.get(sl + 1, lane), fr.get(ix, lane));
            if f.options.bounds_check && i >= len {
                let text = checks::substitute(checks::INDEX_MESSAGE, i, len);
                self.panic_at(fr, loc, lane, text);
                continue;
            }
            let p = super::pointer::ptr_add(p, i.saturating_mul(u64::from(bytes)));
            let operand = fr.get(v, lane);
            let second = new.map_or(0, |n| fr.get(n, lane));
            let apply = |old: u64| atomic_combine(op, s, old, operand, second);
            let (region, offset) = (region_of(p), offset_of(p));
            let old = if region == LOCAL_REGION as usize {
                let old = self.mem_read(fr, loc, lane, p, s)?;
                self.mem_write(fr, loc, lane, p, s, apply(old))?;
                old
            } else {
                let buffer =
                    self.buffer(fr, loc, lane, region, offset, bytes, AccessKind::Atomic)?;
                self.observe(
                    region,
                    offset,
                    bytes,
                    AccessKind::Atomic,
                    scope,
                    lane,
                    fr.func,
                    loc,
                )?;
                let old = buffer.update(offset as usize, bytes, apply);
                if self.suspend.is_some() && apply(old) != old {
                    self.changed_memory();
                }
                self.acquire_after_atomic(region, offset);
                old
            };
            fr.set(out, lane, old);
        }
        Ok(())
    }
}

/// What an atomic writes, from the old value and its operands.
fn atomic_combine(op: AtomicOp, s: ScalarType, old: u64, v: u64, new: u64) -> u64 {
    let float = |f: fn(f64, f64) -> f64| match s {
        ScalarType::F32 => of_f32(f(f64::from(f32_of(old)), f64::from(f32_of(v))) as f32),
        _ => of_f64(f(f64_of(old), f64_of(v))),
    };
    match op {
        AtomicOp::Add if s.is_float() => match s {
            ScalarType::F32 => of_f32(f32_of(old) + f32_of(v)),
            _ => of_f64(f64_of(old) + f64_of(v)),
        },
        AtomicOp::Sub if s.is_float() => match s {
            ScalarType::F32 => of_f32(f32_of(old) - f32_of(v)),
            _ => of_f64(f64_of(old) - f64_of(v)),
        },
        AtomicOp::Min if s.is_float() => float(f64::min),
        AtomicOp::Max if s.is_float() => float(f64::max),
        AtomicOp::Add => scalar::truncate(s, old.wrapping_add(v)),
        AtomicOp::Sub => scalar::truncate(s, old.wrapping_sub(v)),
        AtomicOp::Min | AtomicOp::Max => {
            let (a, b) = (scalar::int_value(s, old), scalar::int_value(s, v));
            let pick_new = if op == AtomicOp::Min { b < a } else { b > a };
            if pick_new {
                v
            } else {
                old
            }
        }
        AtomicOp::Exch => v,
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::Inc => {
            if old >= v {
                0
            } else {
                scalar::truncate(s, old + 1)
            }
        }
        AtomicOp::Dec => {
            if old == 0 || old > v {
                v
            } else {
                old - 1
            }
        }
        AtomicOp::Cas => {
            if old == v {
                new
            } else {
                old
            }
        }
    }
}

/// One step of a warp reduction.
fn combine(op: ReduceOp, s: ScalarType, a: u64, b: u64) -> u64 {
    match (op, s) {
        (ReduceOp::Sum, ScalarType::F32) => of_f32(f32_of(a) + f32_of(b)),
        (ReduceOp::Sum, ScalarType::F64) => of_f64(f64_of(a) + f64_of(b)),
        (ReduceOp::Sum, _) => scalar::truncate(s, a.wrapping_add(b)),
        (ReduceOp::Min, ScalarType::F32) => of_f32(f32_of(a).min(f32_of(b))),
        (ReduceOp::Min, ScalarType::F64) => of_f64(f64_of(a).min(f64_of(b))),
        (ReduceOp::Max, ScalarType::F32) => of_f32(f32_of(a).max(f32_of(b))),
        (ReduceOp::Max, ScalarType::F64) => of_f64(f64_of(a).max(f64_of(b))),
        (ReduceOp::Min, _) => {
            if scalar::int_value(s, a) <= scalar::int_value(s, b) {
                a
            } else {
                b
            }
        }
        (ReduceOp::Max, _) => {
            if scalar::int_value(s, a) >= scalar::int_value(s, b) {
                a
            } else {
                b
            }
        }
    }
}
