//! Scalar loads and stores of a whole warp at once: an unscheduled warp (which yields
//! nowhere between its lanes' accesses) whose lanes all address one global region
//! goes through memory and the detector once for the warp, with the same effects,
//! faults and reports as lane by lane, in lane order.

use super::detect::{RegionId, SiteId, Space, WarpAccess};
use super::fault::{note_both_wrote, AccessKind, Fault, R};
use super::lanes::{lanes, LANES};
use super::place::{Loc, Resolved};
use super::pointer::{offset_of, region_of, LOCAL_REGION};
use super::warp::{Frame, Warp};
use crate::ir::{MemoryScope, ScalarType, SourceLoc};

impl Warp<'_, '_> {
    /// The global region every lane of `r` addresses, when a warp's scalar access to
    /// it can go through memory and the detector once for the whole warp (an
    /// unscheduled warp, which yields nowhere between its lanes' accesses): the same
    /// effects, faults and reports as lane by lane, in lane order.
    pub(super) fn batch_region(&self, r: &Resolved) -> Option<usize> {
        if self.suspend.is_some() || r.mask == 0 {
            return None;
        }
        let first = r.mask.trailing_zeros() as usize;
        let Loc::Mem(p) = r.loc(first) else {
            return None;
        };
        let region = region_of(p);
        if region == LOCAL_REGION as usize
            || self.launch.regions.get(region)?.space != Space::Global
        {
            return None;
        }
        for lane in lanes(r.mask) {
            match r.loc(lane) {
                Loc::Mem(q) if region_of(q) == region => {}
                _ => return None,
            }
        }
        Some(region)
    }

    /// The lanes of `r` (in order) whose `bytes` lie in `region`'s buffer, up to the
    /// first that does not, and that lane.
    pub(super) fn in_bounds(
        &self,
        r: &Resolved,
        region: usize,
        bytes: u32,
    ) -> (u32, Option<usize>) {
        let buffer = self.regions.get(region).and_then(|b| b.as_deref());
        let mut ok = 0u32;
        for lane in lanes(r.mask) {
            let Loc::Mem(p) = r.loc(lane) else {
                return (ok, Some(lane));
            };
            if !buffer.is_some_and(|b| b.contains(offset_of(p), u64::from(bytes))) {
                return (ok, Some(lane));
            }
            ok |= 1 << lane;
        }
        (ok, None)
    }

    /// Tells the detector that the lanes of `mask` accessed `bytes` bytes each at
    /// their places in `r` (one call for the warp; see [`Warp::observe`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn observe_warp(
        &self,
        r: &Resolved,
        region: usize,
        mask: u32,
        bytes: u32,
        kind: AccessKind,
        func: usize,
        loc: SourceLoc,
    ) -> R<()> {
        let Some(det) = self.det else {
            return Ok(());
        };
        if mask == 0 || !self.launch.observed.get(region).copied().unwrap_or(true) {
            return Ok(());
        }
        let base = self.launch.regions[region].base;
        let mut offsets = [0u64; LANES];
        let mut seen = 0u32;
        for lane in lanes(mask) {
            if let Loc::Mem(p) = r.loc(lane) {
                if let Some(relative) = offset_of(p).checked_sub(base) {
                    offsets[lane] = relative;
                    seen |= 1 << lane;
                }
            }
        }
        det.borrow_mut()
            .access(
                self.warp_index,
                &WarpAccess {
                    region: RegionId(region as u32),
                    kind,
                    scope: MemoryScope::Device,
                    bytes,
                    lanes: seen,
                    offsets: &offsets,
                    site: SiteId::new(func, loc),
                },
            )
            .map_err(Box::new)
    }

    /// [`Self::load_place`] of a scalar for a whole warp in one region (see
    /// [`Self::batch_region`]).
    pub(super) fn load_batch(
        &mut self,
        fr: &mut Frame,
        loc: SourceLoc,
        r: &Resolved,
        region: usize,
        s: ScalarType,
        out: u32,
    ) -> R<()> {
        let bytes = s.size_bytes();
        let (ok, bad) = self.in_bounds(r, region, bytes);
        if ok != 0 {
            let first = r.locs[ok.trailing_zeros() as usize];
            self.last_read.set((first, fr.func, loc, self.steps));
        }
        self.observe_warp(r, region, ok, bytes, AccessKind::Read, fr.func, loc)?;
        if let Some(buffer) = self.regions.get(region).and_then(|b| b.as_deref()) {
            for lane in lanes(ok) {
                if let Loc::Mem(p) = r.loc(lane) {
                    let v = buffer.load(offset_of(p) as usize, bytes);
                    fr.set(out, lane, if s == ScalarType::Bool { v & 1 } else { v });
                }
            }
        }
        if let Some(lane) = bad {
            let p = match r.loc(lane) {
                Loc::Mem(p) => p,
                Loc::Reg(_) => 0,
            };
            self.buffer(fr, loc, lane, region, offset_of(p), bytes, AccessKind::Read)?;
        }
        Ok(())
    }

    /// A plain store of a scalar for a whole warp in one region (see
    /// [`Self::batch_region`]): the value in slot `from` of each lane.
    pub(super) fn store_batch(
        &mut self,
        fr: &Frame,
        loc: SourceLoc,
        r: &Resolved,
        region: usize,
        s: ScalarType,
        from: u32,
    ) -> R<()> {
        let bytes = s.size_bytes();
        let (ok, bad) = self.in_bounds(r, region, bytes);
        let buffer = self.regions.get(region).and_then(|b| b.as_deref());
        let store = |mask: u32| {
            if let Some(buffer) = buffer {
                for lane in lanes(mask) {
                    if let Loc::Mem(p) = r.loc(lane) {
                        buffer.store(offset_of(p) as usize, bytes, fr.get(from, lane));
                    }
                }
            }
        };
        if let Err(mut fault) =
            self.observe_warp(r, region, ok, bytes, AccessKind::Write, fr.func, loc)
        {
            // As lane by lane: the lanes before the one that raced have stored.
            let second = match &*fault {
                Fault::Race { second, .. } => Some(second.thread),
                _ => None,
            };
            if let Some(lane) = lanes(ok).find(|&l| Some(self.thread(l)) == second) {
                store(ok & ((1u32 << lane) - 1));
                if let (Some(buffer), Loc::Mem(p)) = (buffer, r.loc(lane)) {
                    note_both_wrote(&mut fault, buffer, offset_of(p), s, fr.get(from, lane));
                }
            }
            return Err(fault);
        }
        store(ok);
        if let Some(lane) = bad {
            let p = match r.loc(lane) {
                Loc::Mem(p) => p,
                Loc::Reg(_) => 0,
            };
            self.buffer(
                fr,
                loc,
                lane,
                region,
                offset_of(p),
                bytes,
                AccessKind::Write,
            )?;
        }
        Ok(())
    }
}
