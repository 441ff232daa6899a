//! Asynchronous copies and vector accesses on the simulator. A `cp_async` reads its
//! source when issued and holds the bytes; they land in the destination only when a
//! `cp_async_wait*` of the issuing thread retires the copy's group, exactly as PTX
//! defines the groups: `commit` closes the thread's uncommitted copies into a group
//! (possibly empty), `wait_group N` retires every committed group but the `N` newest,
//! `wait_all` retires everything, uncommitted copies included. Until then the
//! destination holds its old bytes, and the detector (`detect::async_copies`) reports
//! any access that could see the difference. Vector accesses are their elements'
//! accesses after the one check of `proc::async_copy`.

use super::async_state::PendingCopy;
use super::detect::in_flight::{CopyEnd, InFlightCopy, InFlightKind};
use super::detect::{RegionId, SiteId, Space};
use super::fault::{AccessKind, Fault, R};
use super::lanes::{lanes, LANES};
use super::pointer::{offset_of, ptr_add, region_of, LOCAL_REGION};
use super::warp::{Frame, Warp};
use crate::ir::{checks, Expr, Handle, Intrinsic, MemoryScope, Type};
use crate::proc::async_copy::{copy_ok, elements_read, vector_ok, COPY_MESSAGE, VECTOR_MESSAGE};

impl Warp<'_, '_> {
    /// `cp_async*`, `cp_async_commit`, `cp_async_wait*`, `load_vec`, `store_vec` for
    /// the lanes of `m` (operands evaluated).
    pub fn async_copy_intrinsic(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        intrinsic: Intrinsic,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        match intrinsic {
            Intrinsic::CpAsync {
                bytes, zero_fill, ..
            } => self.cp_async(fr, e, u64::from(bytes), zero_fill, args, m),
            Intrinsic::CpAsyncCommit => {
                for lane in lanes(m) {
                    let group = self.async_copies.groups[lane];
                    self.async_copies.groups[lane] += 1;
                    for c in &mut self.async_copies.pending {
                        if c.lane == lane && c.group.is_none() {
                            c.group = Some(group);
                        }
                    }
                }
                Ok(())
            }
            Intrinsic::CpAsyncWait { pending } => {
                let mut limits = [None; LANES];
                for lane in lanes(m) {
                    limits[lane] =
                        Some(self.async_copies.groups[lane].saturating_sub(u64::from(pending)));
                }
                self.land(fr, |c| {
                    limits[c.lane].is_some_and(|limit| c.group.is_some_and(|g| g < limit))
                })
            }
            Intrinsic::CpAsyncWaitAll => self.land(fr, |c| m & (1 << c.lane) != 0),
            Intrinsic::LoadVec { lanes: n } => self.vector_access(fr, e, args, m, n, false),
            Intrinsic::StoreVec { lanes: n } => self.vector_access(fr, e, args, m, n, true),
            other => Err(Box::new(Fault::Launch(format!(
                "{other:?} is not an async copy"
            )))),
        }
    }

    /// The region and offset relative to its start of pointer `p`, if the detector
    /// watches that region.
    pub(super) fn watched(&self, p: u64) -> Option<(RegionId, u64)> {
        self.det?;
        let region = region_of(p);
        if region == LOCAL_REGION as usize
            || !self.launch.observed.get(region).copied().unwrap_or(false)
        {
            return None;
        }
        let base = self.launch.regions.get(region)?.base;
        Some((RegionId(region as u32), offset_of(p).checked_sub(base)?))
    }

    fn space_of(&self, p: u64) -> Option<Space> {
        let region = region_of(p);
        if region == LOCAL_REGION as usize {
            return None;
        }
        self.launch.regions.get(region).map(|r| r.space)
    }

    fn cp_async(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        bytes: u64,
        zero_fill: bool,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        let func = self.func(fr.func);
        let loc = func.loc_of(e);
        let bounds_check = func.options.bounds_check;
        let Type::Slice { elem, .. } = func.exprs[args[0]].ty else {
            return Err(Box::new(Fault::Launch("cp_async into a non-slice".into())));
        };
        let size = u64::from(elem.size_bytes());
        let count = bytes / size;
        let slot = |k: usize| self.slot_of(fr, args[k]);
        let (dst_s, di_s, src_s, si_s) = (slot(0), slot(1), slot(2), slot(3));
        let valid_s = args.get(4).map(|h| self.slot_of(fr, *h));
        for lane in lanes(m) {
            let (dst, dst_len, di) = (
                fr.get(dst_s, lane),
                fr.get(dst_s + 1, lane),
                fr.get(di_s, lane),
            );
            let (src, src_len, si) = (
                fr.get(src_s, lane),
                fr.get(src_s + 1, lane),
                fr.get(si_s, lane),
            );
            let valid = valid_s.map_or(count, |v| fr.get(v, lane));
            let read = elements_read(count, zero_fill, valid);
            let dst_at = ptr_add(dst, di.wrapping_mul(size));
            let src_at = ptr_add(src, si.wrapping_mul(size));
            let spaces = self.space_of(dst_at) == Some(Space::Shared)
                && self.space_of(src_at) == Some(Space::Global);
            let in_bounds =
                !bounds_check || copy_ok(bytes, count, read, di, dst_len, 0, si, src_len, 0);
            let aligned = (offset_of(dst_at) | offset_of(src_at)) & (bytes - 1) == 0;
            if !(spaces && in_bounds && aligned) {
                let text = checks::substitute(COPY_MESSAGE, di, si);
                self.panic_at(fr, loc, lane, text);
                continue;
            }
            let mut values = Vec::with_capacity(count as usize);
            for k in 0..count {
                values.push(if k < read {
                    self.mem_read(fr, loc, lane, ptr_add(src_at, k * size), elem)?
                } else {
                    0
                });
            }
            // The copy may write its destination at any time from now on: the other
            // threads' accesses must be ordered before this point too (a stage
            // refilled while a slower thread still reads it is a race).
            let dst_region = region_of(dst_at);
            for k in 0..count {
                self.observe(
                    dst_region,
                    offset_of(dst_at) + k * size,
                    size as u32,
                    AccessKind::Write,
                    MemoryScope::Device,
                    lane,
                    fr.func,
                    loc,
                )?;
            }
            self.async_copies.issued += 1;
            let id = (u64::from(self.warp_index) << 32) | self.async_copies.issued;
            if let (Some(det), Some((dst_region, dst_offset))) = (self.det, self.watched(dst_at)) {
                let src =
                    (read > 0)
                        .then(|| self.watched(src_at))
                        .flatten()
                        .map(|(region, offset)| CopyEnd {
                            region,
                            offset,
                            bytes: (read * size) as u32,
                        });
                det.borrow_mut().copy_started(InFlightCopy {
                    id,
                    tid: self.warp_index * LANES as u32 + lane as u32,
                    dst: CopyEnd {
                        region: dst_region,
                        offset: dst_offset,
                        bytes: bytes as u32,
                    },
                    src,
                    site: SiteId::new(fr.func, loc),
                    kind: InFlightKind::CpAsync,
                });
            }
            self.async_copies.pending.push(PendingCopy {
                id,
                lane,
                group: None,
                dst: dst_at,
                elem,
                values,
                func: fr.func,
                loc,
            });
        }
        Ok(())
    }

    /// Lands the copies `retire` picks, in issue order: their bytes are written as the
    /// issuing thread's writes at the `cp_async` site.
    fn land(&mut self, fr: &mut Frame, retire: impl Fn(&PendingCopy) -> bool) -> R<()> {
        let (landing, staying): (Vec<_>, Vec<_>) = std::mem::take(&mut self.async_copies.pending)
            .into_iter()
            .partition(|c| retire(c));
        self.async_copies.pending = staying;
        for copy in landing {
            if let Some(det) = self.det {
                det.borrow_mut().copy_landed(copy.id);
            }
            let size = u64::from(copy.elem.size_bytes());
            // The write is blamed on the copy's own site (in its own function).
            let caller = fr.func;
            fr.func = copy.func;
            let written = (0..copy.values.len()).try_for_each(|k| {
                let p = ptr_add(copy.dst, k as u64 * size);
                self.mem_write(fr, copy.loc, copy.lane, p, copy.elem, copy.values[k])
            });
            fr.func = caller;
            written?;
        }
        Ok(())
    }

    fn vector_access(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        args: &[Handle<Expr>],
        m: u32,
        n: u8,
        store: bool,
    ) -> R<()> {
        let func = self.func(fr.func);
        let loc = func.loc_of(e);
        let bounds_check = func.options.bounds_check;
        let Type::Slice { elem, .. } = func.exprs[args[0]].ty else {
            return Err(Box::new(Fault::Launch(
                "a vector access on a non-slice".into(),
            )));
        };
        let size = u64::from(elem.size_bytes());
        let count = u64::from(n);
        let bytes = count * size;
        let (s, i) = (self.slot_of(fr, args[0]), self.slot_of(fr, args[1]));
        let values = if store {
            self.slot_of(fr, args[2])
        } else {
            self.slot_of(fr, e)
        };
        for lane in lanes(m) {
            let (p, len, index) = (fr.get(s, lane), fr.get(s + 1, lane), fr.get(i, lane));
            let at = ptr_add(p, index.wrapping_mul(size));
            let ok = if bounds_check {
                vector_ok(bytes, count, index, len, offset_of(at))
            } else {
                vector_ok(bytes, 0, 0, 0, offset_of(at))
            };
            if !ok {
                let text = checks::substitute(VECTOR_MESSAGE, index, len);
                self.panic_at(fr, loc, lane, text);
                continue;
            }
            for k in 0..count {
                let q = ptr_add(at, k * size);
                let slot = values + k as u32;
                if store {
                    let v = fr.get(slot, lane);
                    self.mem_write(fr, loc, lane, q, elem, v)?;
                } else {
                    let v = self.mem_read(fr, loc, lane, q, elem)?;
                    fr.set(slot, lane, v);
                }
            }
        }
        Ok(())
    }
}
