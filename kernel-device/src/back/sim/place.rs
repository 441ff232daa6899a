//! Places and memory: resolving `root[i].0[j]` per lane to a register slot or an
//! address, loads and stores of whole values, slices and sub-slices, and every access
//! to simulated memory (bounds of the region, the detector's hook).
//!
//! An address is a region (bits 48..64) and a byte offset in it: region 1 is the
//! executing lane's own local memory, the others index the block's region table
//! (module globals, dynamic shared memory, argument buffers); see [`super::launch`].

use std::borrow::Cow;

use super::fault::{note_both_wrote, AccessKind, Fault, R};
use super::lanes::{lanes, LANES};
use super::memory::Buffer;
use super::plan::{field_offset, field_slot, mem_layout, slots, struct_field, Home};
use super::pointer::{offset_of, ptr, ptr_add, region_of, LOCAL_REGION};
use super::scalar;
use super::values::{for_each_scalar, Walk};
use super::warp::{Frame, Preempt, Warp};
use crate::ir::checks::{self, RangeBounds};
use crate::ir::MemoryScope;
use crate::ir::{
    BinaryOp, Expr, Handle, Place, PlaceRoot, Projection, ScalarType, SourceLoc, Type,
};

/// Where one lane's place is.
#[derive(Clone, Copy, Debug)]
pub enum Loc {
    Reg(u32),
    Mem(u64),
}

/// A resolved place: its type and each lane's location. Every lane's place is of one
/// kind (a place rooted in a register local stays in registers, any other is in
/// memory), so the lanes' locations are plain numbers: slots or addresses. The type is
/// borrowed from the module where it can be (no allocation per access).
pub struct Resolved<'t> {
    pub ty: Cow<'t, Type>,
    /// Whether `locs` are register slots (else addresses).
    pub in_regs: bool,
    pub locs: [u64; LANES],
    pub mask: u32,
}

impl Resolved<'_> {
    #[inline]
    pub fn loc(&self, lane: usize) -> Loc {
        if self.in_regs {
            Loc::Reg(self.locs[lane] as u32)
        } else {
            Loc::Mem(self.locs[lane])
        }
    }
}

/// The part `pick` chooses of `ty` (an array's element, a tuple's item), borrowed
/// when `ty` is.
fn part<'t>(
    ty: &Cow<'t, Type>,
    pick: fn(&Type, u32) -> Option<&Type>,
    k: u32,
) -> Option<Cow<'t, Type>> {
    match ty {
        Cow::Borrowed(t) => pick(t, k).map(Cow::Borrowed),
        Cow::Owned(t) => pick(t, k).cloned().map(Cow::Owned),
    }
}

fn array_elem(ty: &Type, _: u32) -> Option<&Type> {
    match ty {
        Type::Array { elem, .. } => Some(elem),
        _ => None,
    }
}

fn tuple_item(ty: &Type, k: u32) -> Option<&Type> {
    match ty {
        Type::Tuple(items) => items.get(k as usize),
        _ => None,
    }
}

impl<'a> Warp<'a, '_> {
    pub fn local_ptr(&self, fr: &Frame, offset: u32) -> u64 {
        ptr(LOCAL_REGION, (fr.base + offset as usize) as u64)
    }

    /// Resolves `place` for the lanes of `mask`, evaluating its root expression and
    /// index expressions and checking indices as the function's options say.
    pub fn resolve(&mut self, fr: &mut Frame, place: &Place, mask: u32) -> R<Resolved<'a>> {
        let f: &'a crate::ir::Function = self.func(fr.func);
        let mut locs = [0u64; LANES];
        let mut in_regs = false;
        let mut m = mask;
        // A slice root: (pointer slot, element type); its first projection indexes it.
        let mut slice_root: Option<(u32, Type)> = None;
        let mut ty: Cow<'a, Type> = match place.root {
            PlaceRoot::Local(l) => {
                let at = match self.home(fr, l.index()) {
                    Home::Reg(slot) => {
                        in_regs = true;
                        u64::from(slot)
                    }
                    Home::Mem(offset) => self.local_ptr(fr, offset),
                };
                locs = [at; LANES];
                Cow::Borrowed(&f.locals[l].ty)
            }
            PlaceRoot::Global(g) => {
                let region = self.launch.global_region[g.index()] as u64;
                locs = [ptr(region, 0); LANES];
                Cow::Borrowed(&self.launch.module.globals[g].ty)
            }
            PlaceRoot::Pointee(e) => {
                m = self.eval(fr, e, m)?;
                let s = self.slot_of(fr, e);
                for lane in lanes(m) {
                    locs[lane] = fr.get(s, lane);
                }
                match &f.exprs[e].ty {
                    Type::Ref { pointee, .. } => Cow::Borrowed(&**pointee),
                    slice @ (Type::Slice { .. } | Type::StructSlice { .. }) => {
                        slice_root = Some((s, slice.index_result().unwrap_or(Type::Unit)));
                        Cow::Borrowed(slice)
                    }
                    other => Cow::Borrowed(other),
                }
            }
        };
        let check = f.options.bounds_check;
        for proj in &place.projections {
            match *proj {
                Projection::Index(ix) => {
                    // An index the optimiser proved in bounds is not checked here either.
                    let check = check && !f.unchecked_indices.contains(&ix);
                    m = self.eval(fr, ix, m)?;
                    let is = self.slot_of(fr, ix);
                    if let Some((s, elem)) = slice_root.take() {
                        let size = mem_layout(&elem).0;
                        let (index, length) = (*fr.reg(is), *fr.reg(s + 1));
                        for lane in lanes(m) {
                            let (i, len) = (index[lane], length[lane]);
                            if check && i >= len {
                                self.index_panic(fr, place.loc, lane, i, len);
                                continue;
                            }
                            locs[lane] = ptr_add(locs[lane], i.saturating_mul(size));
                        }
                        ty = Cow::Owned(elem);
                    } else if let Type::Array { elem, len } = &*ty {
                        let (stride, width, len) = (mem_layout(elem).0, slots(elem), *len);
                        for lane in lanes(m) {
                            let i = fr.get(is, lane);
                            if check && i >= len {
                                self.index_panic(fr, place.loc, lane, i, len);
                                continue;
                            }
                            if !in_regs {
                                locs[lane] = ptr_add(locs[lane], i.saturating_mul(stride));
                            } else if i < len {
                                locs[lane] += i * u64::from(width);
                            } else {
                                return Err(Box::new(Fault::OutOfBounds {
                                    kind: AccessKind::Read,
                                    location: format!("a local array of length {len} at index {i}"),
                                    site: self.site(fr.func, place.loc),
                                    thread: self.thread(lane),
                                }));
                            }
                        }
                        ty = part(&ty, array_elem, 0).unwrap_or(Cow::Owned(Type::Unit));
                    } else {
                        return Err(Box::new(Fault::Launch(format!(
                            "the simulator cannot index a `{ty}` in `{}`",
                            f.name
                        ))));
                    }
                }
                Projection::Field(index) if matches!(*ty, Type::Struct(_)) => {
                    let field = match &*ty {
                        Type::Struct(def) => struct_field(def, index),
                        _ => None,
                    };
                    let Some((field_ty, byte_delta, slot_delta)) = field else {
                        return Err(Box::new(Fault::Launch(format!(
                            "field {index} of a `{ty}`"
                        ))));
                    };
                    self.shift(&mut locs, in_regs, m, slot_delta, byte_delta);
                    ty = Cow::Owned(field_ty);
                }
                Projection::Field(index) => {
                    let Type::Tuple(items) = &*ty else {
                        return Err(Box::new(Fault::Launch(format!(
                            "field {index} of a `{ty}`"
                        ))));
                    };
                    let (slot_delta, byte_delta) =
                        (field_slot(items, index), field_offset(items, index));
                    self.shift(&mut locs, in_regs, m, slot_delta, byte_delta);
                    ty = part(&ty, tuple_item, index).unwrap_or(Cow::Owned(Type::Unit));
                }
            }
        }
        // Lanes that panicked on an index leave here.
        Ok(Resolved {
            ty,
            in_regs,
            locs,
            mask: m & !self.panicked,
        })
    }

    /// Moves the lanes' places to a field: `slots` further in registers, `bytes` in
    /// memory.
    fn shift(&self, locs: &mut [u64; LANES], in_regs: bool, m: u32, slots: u32, bytes: u64) {
        for lane in lanes(m) {
            locs[lane] = if in_regs {
                locs[lane] + u64::from(slots)
            } else {
                ptr_add(locs[lane], bytes)
            };
        }
    }
}

impl Warp<'_, '_> {
    fn index_panic(&mut self, fr: &Frame, loc: SourceLoc, lane: usize, i: u64, len: u64) {
        let text = checks::substitute(checks::INDEX_MESSAGE, i, len);
        self.panic_at(fr, loc, lane, text)
    }

    /// Reads the scalar of type `s` at `p` for `lane`.
    pub fn mem_read(
        &self,
        fr: &Frame,
        loc: SourceLoc,
        lane: usize,
        p: u64,
        s: ScalarType,
    ) -> R<u64> {
        let bytes = s.size_bytes();
        let (region, offset) = (region_of(p), offset_of(p));
        let v = if region == LOCAL_REGION as usize {
            let at = self.local_at(fr, loc, lane, offset, bytes, AccessKind::Read)?;
            let mut b = [0u8; 8];
            b[..bytes as usize].copy_from_slice(&self.local[at..at + bytes as usize]);
            u64::from_le_bytes(b)
        } else {
            let buffer = self.buffer(fr, loc, lane, region, offset, bytes, AccessKind::Read)?;
            self.last_read.set((p, fr.func, loc, self.steps));
            self.preempt(fr.func, loc, 1 << lane, Preempt::Access, p)?;
            self.observe(
                region,
                offset,
                bytes,
                AccessKind::Read,
                MemoryScope::Device,
                lane,
                fr.func,
                loc,
            )?;
            buffer.load(offset as usize, bytes)
        };
        Ok(if s == ScalarType::Bool { v & 1 } else { v })
    }

    /// Writes the scalar `v` of type `s` at `p` for `lane`.
    pub fn mem_write(
        &mut self,
        fr: &Frame,
        loc: SourceLoc,
        lane: usize,
        p: u64,
        s: ScalarType,
        v: u64,
    ) -> R<()> {
        let bytes = s.size_bytes();
        let (region, offset) = (region_of(p), offset_of(p));
        if region == LOCAL_REGION as usize {
            let at = self.local_at(fr, loc, lane, offset, bytes, AccessKind::Write)?;
            self.local[at..at + bytes as usize].copy_from_slice(&v.to_le_bytes()[..bytes as usize]);
        } else {
            let buffer = self.buffer(fr, loc, lane, region, offset, bytes, AccessKind::Write)?;
            self.preempt(fr.func, loc, 1 << lane, Preempt::Access, p)?;
            if self.suspend.is_some() {
                self.changed_memory();
            }
            if let Err(mut fault) = self.observe(
                region,
                offset,
                bytes,
                AccessKind::Write,
                MemoryScope::Device,
                lane,
                fr.func,
                loc,
            ) {
                // Two writes of one value race all the same (the memory model says
                // so); saying so lets the user judge.
                note_both_wrote(&mut fault, buffer, offset, s, v);
                return Err(fault);
            }
            buffer.store(offset as usize, bytes, v);
        }
        Ok(())
    }

    fn local_at(
        &self,
        fr: &Frame,
        loc: SourceLoc,
        lane: usize,
        offset: u64,
        bytes: u32,
        kind: AccessKind,
    ) -> R<usize> {
        if offset + u64::from(bytes) > self.stack_top as u64 {
            return Err(Box::new(Fault::OutOfBounds {
                kind,
                location: format!("local memory at byte {offset}"),
                site: self.site(fr.func, loc),
                thread: self.thread(lane),
            }));
        }
        Ok(lane * self.lane_bytes + offset as usize)
    }

    /// The buffer of `region` if `bytes` at `offset` lie inside it.
    #[allow(clippy::too_many_arguments)]
    pub fn buffer(
        &self,
        fr: &Frame,
        loc: SourceLoc,
        lane: usize,
        region: usize,
        offset: u64,
        bytes: u32,
        kind: AccessKind,
    ) -> R<&Buffer> {
        match self.regions.get(region).and_then(|r| r.as_deref()) {
            Some(b) if b.contains(offset, u64::from(bytes)) => Ok(b),
            _ => Err(Box::new(Fault::OutOfBounds {
                kind,
                location: self.launch.describe(region, offset),
                site: self.site(fr.func, loc),
                thread: self.thread(lane),
            })),
        }
    }

    /// Reads a whole value of type `ty` at `p` into slots from `out` (for `lane`).
    pub fn load_value(
        &mut self,
        fr: &mut Frame,
        lane: usize,
        p: u64,
        ty: &Type,
        out: u32,
        loc: SourceLoc,
    ) -> R<()> {
        let mut read = |p: u64, s: ScalarType, slot: u32| -> R<()> {
            let v = self.mem_read(fr, loc, lane, p, s)?;
            fr.set(out + slot, lane, v);
            Ok(())
        };
        match for_each_scalar(ty, p, 0, &mut read) {
            Err(Walk::Fault(f)) => Err(f),
            Err(Walk::NotInMemory(other)) => Err(self.unsupported_in_memory(&other)),
            Ok(()) => Ok(()),
        }
    }

    /// Writes the value of type `ty` held in `fr`'s slots from `from` at `p`.
    pub fn store_value(
        &mut self,
        fr: &Frame,
        lane: usize,
        p: u64,
        ty: &Type,
        from: u32,
        loc: SourceLoc,
    ) -> R<()> {
        let mut write = |p: u64, s: ScalarType, slot: u32| {
            self.mem_write(fr, loc, lane, p, s, fr.get(from + slot, lane))
        };
        match for_each_scalar(ty, p, 0, &mut write) {
            Err(Walk::Fault(f)) => Err(f),
            Err(Walk::NotInMemory(other)) => Err(self.unsupported_in_memory(&other)),
            Ok(()) => Ok(()),
        }
    }

    fn unsupported_in_memory(&self, ty: &Type) -> Box<Fault> {
        Box::new(Fault::Launch(format!(
            "the simulator keeps no `{ty}` in memory"
        )))
    }

    pub fn load_place(
        &mut self,
        fr: &mut Frame,
        place: &Place,
        e: Handle<Expr>,
        mask: u32,
    ) -> R<u32> {
        let r = self.resolve(fr, place, mask)?;
        let out = self.slot_of(fr, e);
        let width = slots(&r.ty);
        let loc = self.func(fr.func).loc_of(e);
        // A scalar in memory (most loads): no walk over the value's layout.
        let scalar = match *r.ty {
            Type::Scalar(s) => Some(s),
            _ => None,
        };
        if let (Some(s), Some(region)) = (scalar, self.batch_region(&r)) {
            self.load_batch(fr, loc, &r, region, s, out)?;
            return Ok(r.mask);
        }
        for lane in lanes(r.mask) {
            match (r.loc(lane), scalar) {
                (Loc::Reg(s), _) => {
                    for k in 0..width {
                        let v = fr.get(s + k, lane);
                        fr.set(out + k, lane, v);
                    }
                }
                (Loc::Mem(p), Some(s)) => {
                    let v = self.mem_read(fr, loc, lane, p, s)?;
                    fr.set(out, lane, v);
                }
                (Loc::Mem(p), None) => self.load_value(fr, lane, p, &r.ty, out, loc)?,
            }
        }
        Ok(r.mask)
    }

    pub fn address_of(
        &mut self,
        fr: &mut Frame,
        place: &Place,
        e: Handle<Expr>,
        mask: u32,
    ) -> R<u32> {
        let r = self.resolve(fr, place, mask)?;
        let out = self.slot_of(fr, e);
        for lane in lanes(r.mask) {
            match r.loc(lane) {
                Loc::Mem(p) => fr.set(out, lane, p),
                Loc::Reg(_) => {
                    return Err(Box::new(Fault::Launch(
                        "the simulator cannot take a reference to a value held in registers".into(),
                    )))
                }
            }
        }
        Ok(r.mask)
    }

    pub fn assign(
        &mut self,
        fr: &mut Frame,
        place: &Place,
        op: Option<BinaryOp>,
        value: Handle<Expr>,
        mask: u32,
    ) -> R<u32> {
        let m = self.eval(fr, value, mask)?;
        let r = self.resolve(fr, place, m)?;
        let from = self.slot_of(fr, value);
        let width = slots(&r.ty);
        let loc = place.loc;
        let value_loc = self.func(fr.func).loc_of(value);
        if let (None, Type::Scalar(s)) = (op, &*r.ty) {
            if let Some(region) = self.batch_region(&r) {
                self.store_batch(fr, loc, &r, region, *s, from)?;
                return Ok(r.mask & !self.panicked);
            }
        }
        for lane in lanes(r.mask) {
            match op {
                None => match (r.loc(lane), &*r.ty) {
                    (Loc::Reg(s), _) => {
                        for k in 0..width {
                            let v = fr.get(from + k, lane);
                            fr.set(s + k, lane, v);
                        }
                    }
                    (Loc::Mem(p), Type::Scalar(s)) => {
                        let v = fr.get(from, lane);
                        self.mem_write(fr, loc, lane, p, *s, v)?;
                    }
                    (Loc::Mem(p), _) => self.store_value(fr, lane, p, &r.ty, from, loc)?,
                },
                Some(op) => {
                    let s = r.ty.scalar().unwrap_or(ScalarType::Bool);
                    let old = match r.loc(lane) {
                        Loc::Reg(slot) => fr.get(slot, lane),
                        Loc::Mem(p) => self.mem_read(fr, loc, lane, p, s)?,
                    };
                    let new = match scalar::binary(op, s, old, fr.get(from, lane)) {
                        Ok(new) => new,
                        Err(message) => {
                            self.panic_at(fr, value_loc, lane, message.into());
                            continue;
                        }
                    };
                    match r.loc(lane) {
                        Loc::Reg(slot) => fr.set(slot, lane, new),
                        Loc::Mem(p) => self.mem_write(fr, loc, lane, p, s, new)?,
                    }
                }
            }
        }
        Ok(r.mask & !self.panicked)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn sub_slice(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        slice: Handle<Expr>,
        start: Option<Handle<Expr>>,
        end: Option<Handle<Expr>>,
        inclusive: bool,
        mask: u32,
    ) -> R<u32> {
        let mut m = self.eval(fr, slice, mask)?;
        if let Some(h) = start {
            m = self.eval(fr, h, m)?;
        }
        if let Some(h) = end {
            m = self.eval(fr, h, m)?;
        }
        let f = self.func(fr.func);
        let size = match f.exprs[e].ty {
            Type::Slice { elem, .. } => u64::from(elem.size_bytes()),
            _ => 1,
        };
        let check = f.options.bounds_check;
        let (s, out) = (self.slot_of(fr, slice), self.slot_of(fr, e));
        let start_slot = start.map(|h| self.slot_of(fr, h));
        let end_slot = end.map(|h| self.slot_of(fr, h));
        for lane in lanes(m) {
            let (p, len) = (fr.get(s, lane), fr.get(s + 1, lane));
            let bounds = RangeBounds {
                start: start_slot.map_or(0, |x| fr.get(x, lane)),
                end: end_slot.map(|x| fr.get(x, lane)),
                inclusive,
            };
            let (a, b) = if check {
                match checks::sub_slice_range(bounds, len) {
                    Ok(range) => range,
                    Err(fail) => {
                        self.panic_at(fr, f.loc_of(e), lane, fail.text());
                        continue;
                    }
                }
            } else {
                let b = match bounds.end {
                    None => len,
                    Some(x) if inclusive => x.wrapping_add(1),
                    Some(x) => x,
                };
                (bounds.start, b)
            };
            fr.set(out, lane, ptr_add(p, a.saturating_mul(size)));
            fr.set(out + 1, lane, b.wrapping_sub(a));
        }
        Ok(m)
    }

    pub fn split_at(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        slice: Handle<Expr>,
        mid: Handle<Expr>,
        mask: u32,
    ) -> R<u32> {
        let mut m = self.eval(fr, slice, mask)?;
        m = self.eval(fr, mid, m)?;
        let f = self.func(fr.func);
        let size = match f.exprs[slice].ty {
            Type::Slice { elem, .. } => u64::from(elem.size_bytes()),
            _ => 1,
        };
        let (s, ms, out) = (
            self.slot_of(fr, slice),
            self.slot_of(fr, mid),
            self.slot_of(fr, e),
        );
        for lane in lanes(m) {
            let (p, len, at) = (fr.get(s, lane), fr.get(s + 1, lane), fr.get(ms, lane));
            if f.options.bounds_check {
                if let Err(fail) = checks::split_at(at, len) {
                    self.panic_at(fr, f.loc_of(e), lane, fail.text());
                    continue;
                }
            }
            fr.set(out, lane, p);
            fr.set(out + 1, lane, at);
            fr.set(out + 2, lane, ptr_add(p, at.saturating_mul(size)));
            fr.set(out + 3, lane, len.wrapping_sub(at));
        }
        Ok(m)
    }
}
