//! Atomics on `slice[index]`: LLVM 7's `atomicrmw`/`cmpxchg` at device scope, NVVM's
//! scoped intrinsics (`llvm.nvvm.atomic.<op>.gen.{i,f}.{cta,sys}`) for `_block` and
//! `_system`, NVVM's float-add and wrapping inc/dec intrinsics, and a compare-and-swap
//! loop where the hardware has no instruction (f32/f64 min/max).
//!
//! LLVM 7 accepts `syncscope(..)` on `atomicrmw` but NVVM ignores it (the PTX comes out
//! at device scope), so scopes go through the intrinsics; for unsigned min/max the
//! scoped intrinsic means the signed instruction, so those are inline PTX.

use super::state::{operand, FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{AtomicOp, Expr, Handle, MemoryScope, ScalarType, Type};

/// The PTX scope qualifier of an NVVM scoped intrinsic (device scope has none).
fn scope_suffix(scope: MemoryScope) -> Option<&'static str> {
    match scope {
        MemoryScope::Block => Some("cta"),
        MemoryScope::Device => None,
        MemoryScope::System => Some("sys"),
    }
}

/// The integer type of a 32- or 64-bit scalar's bits.
fn bits_ty(s: ScalarType) -> &'static str {
    if s.bits() == 64 {
        "i64"
    } else {
        "i32"
    }
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// An atomic. All operands are evaluated first (Rust evaluates a call's arguments
    /// before the call), then the index is checked, then the one indivisible step.
    pub fn atomic(
        &mut self,
        site: Handle<Expr>,
        op: AtomicOp,
        scope: MemoryScope,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        let expected = if op == AtomicOp::Cas { 4 } else { 3 };
        if args.len() != expected {
            return Err(self.error(format!("{op:?} takes {expected} operands")));
        }
        let slice_ty: &Type = self.ty_of(args[0])?;
        let Type::Slice { elem, .. } = slice_ty else {
            return Err(self.error(format!("an atomic on a `{slice_ty}`")));
        };
        let s = *elem;
        if !(s.bits() == 32 || s.bits() == 64) || s == ScalarType::Isize || s == ScalarType::Usize {
            return Err(self.error(format!("an atomic on `{s}`")));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        let ptr = self.checked_element_ptr(site, slice_ty, &vals[0], &vals[1])?;
        let ty = types::scalar(s);
        let v = vals[2].clone();
        let old = match op {
            AtomicOp::Add if s.is_float() => self.float_add(s, scope, &ptr, &v),
            AtomicOp::Sub if s.is_float() => {
                let neg = types::neg_zero(s);
                let minus = self.def("atomic.neg", format!("fsub {ty} {neg}, {v}"));
                self.float_add(s, scope, &ptr, &minus)
            }
            AtomicOp::Sub if scope != MemoryScope::Device => {
                let minus = self.def("atomic.neg", format!("sub {ty} 0, {v}"));
                self.rmw("add", "add", s, scope, &ptr, &minus)
            }
            AtomicOp::Add => self.rmw("add", "add", s, scope, &ptr, &v),
            AtomicOp::Sub => self.rmw("sub", "", s, scope, &ptr, &v),
            AtomicOp::And => self.rmw("and", "and", s, scope, &ptr, &v),
            AtomicOp::Or => self.rmw("or", "or", s, scope, &ptr, &v),
            AtomicOp::Xor => self.rmw("xor", "xor", s, scope, &ptr, &v),
            AtomicOp::Exch if s.is_float() => {
                let it = bits_ty(s);
                let iptr = self.def("atomic.bits.ptr", format!("bitcast {ty}* {ptr} to {it}*"));
                let iv = self.def("atomic.bits", format!("bitcast {ty} {v} to {it}"));
                let int = if it == "i64" {
                    ScalarType::U64
                } else {
                    ScalarType::U32
                };
                let old = self.rmw("xchg", "exch", int, scope, &iptr, &iv);
                self.def("atomic.old", format!("bitcast {it} {old} to {ty}"))
            }
            AtomicOp::Exch => self.rmw("xchg", "exch", s, scope, &ptr, &v),
            AtomicOp::Min | AtomicOp::Max if s.is_float() => {
                self.float_min_max(op == AtomicOp::Max, s, scope, &ptr, &v)
            }
            AtomicOp::Min | AtomicOp::Max => {
                let max = op == AtomicOp::Max;
                let name = if max { "max" } else { "min" };
                if s.is_signed_integer() {
                    self.rmw(name, name, s, scope, &ptr, &v)
                } else if let Some(sc) = scope_suffix(scope) {
                    // The scoped intrinsic is the signed instruction: write the PTX.
                    let (reg, bits) = if s.bits() == 64 { ("l", 64) } else { ("r", 32) };
                    self.def(
                        "atomic.old",
                        format!(
                            "call {ty} asm sideeffect \"atom.{sc}.{name}.u{bits} $0, [$1], $2;\", \"={reg},l,{reg},~{{memory}}\"({ty}* {ptr}, {ty} {v})"
                        ),
                    )
                } else {
                    self.rmw(&format!("u{name}"), "", s, scope, &ptr, &v)
                }
            }
            AtomicOp::Inc | AtomicOp::Dec if s.bits() == 64 => {
                self.wrapping_64(op == AtomicOp::Inc, scope, &ptr, &v)
            }
            AtomicOp::Inc | AtomicOp::Dec => {
                let name = if op == AtomicOp::Inc { "inc" } else { "dec" };
                let func = match scope_suffix(scope) {
                    Some(sc) => format!("llvm.nvvm.atomic.{name}.gen.i.{sc}.i32.p0i32"),
                    None => format!("llvm.nvvm.atomic.load.{name}.32.p0i32"),
                };
                self.atomic_call(&func, "i32", &ptr, &[&v])
            }
            AtomicOp::Cas => self.cas(s, scope, &ptr, &v, &vals[3]),
        };
        Ok(Val::V(old))
    }

    /// A call of NVVM's atomic intrinsic `func` on the `ty` at `ptr` with `operands` of
    /// that type: the old value. Every atomic written as an intrinsic call goes here.
    fn atomic_call(&mut self, func: &str, ty: &str, ptr: &str, operands: &[&str]) -> String {
        let ptr_ty = format!("{ty}*");
        let mut args = vec![(ptr_ty.as_str(), ptr)];
        args.extend(operands.iter().map(|o| (ty, *o)));
        self.call_extern("atomic.old", ty, func, &args)
    }

    /// `atomicrmw <op>` at device scope, else NVVM's scoped `<scoped>` intrinsic.
    fn rmw(
        &mut self,
        op: &str,
        scoped: &str,
        s: ScalarType,
        scope: MemoryScope,
        ptr: &str,
        v: &str,
    ) -> String {
        let ty = types::scalar(s);
        match scope_suffix(scope) {
            Some(sc) => {
                let func = format!("llvm.nvvm.atomic.{scoped}.gen.i.{sc}.{ty}.p0{ty}");
                self.atomic_call(&func, ty, ptr, &[v])
            }
            None => self.def(
                "atomic.old",
                format!("atomicrmw {op} {ty}* {ptr}, {ty} {v} monotonic"),
            ),
        }
    }

    fn float_add(&mut self, s: ScalarType, scope: MemoryScope, ptr: &str, v: &str) -> String {
        let ty = types::scalar(s);
        let f = if s == ScalarType::F32 { "f32" } else { "f64" };
        let func = match scope_suffix(scope) {
            Some(sc) => format!("llvm.nvvm.atomic.add.gen.f.{sc}.{f}.p0{f}"),
            None => format!("llvm.nvvm.atomic.load.add.{f}.p0{f}"),
        };
        self.atomic_call(&func, ty, ptr, &[v])
    }

    /// Compare-and-swap of integer bits: the old value.
    fn cas(
        &mut self,
        s: ScalarType,
        scope: MemoryScope,
        ptr: &str,
        cmp: &str,
        new: &str,
    ) -> String {
        let ty = types::scalar(s);
        match scope_suffix(scope) {
            Some(sc) => {
                let func = format!("llvm.nvvm.atomic.cas.gen.i.{sc}.{ty}.p0{ty}");
                self.atomic_call(&func, ty, ptr, &[cmp, new])
            }
            None => {
                let pair = self.def(
                    "atomic.cas",
                    format!(
                        "cmpxchg volatile {ty}* {ptr}, {ty} {cmp}, {ty} {new} monotonic monotonic"
                    ),
                );
                self.def(
                    "atomic.old",
                    format!("extractvalue {{ {ty}, i1 }} {pair}, 0"),
                )
            }
        }
    }

    /// f32/f64 min/max (std's, NaN-ignoring: `__nv_fmin`/`__nv_fmax`) by a
    /// compare-and-swap loop on the bits that stops without writing when the value
    /// would not change.
    fn float_min_max(
        &mut self,
        max: bool,
        s: ScalarType,
        scope: MemoryScope,
        ptr: &str,
        v: &str,
    ) -> String {
        let ty = types::scalar(s);
        let it = bits_ty(s);
        let int = if it == "i64" {
            ScalarType::U64
        } else {
            ScalarType::U32
        };
        let func = match (max, s) {
            (true, ScalarType::F32) => "__nv_fmaxf",
            (true, _) => "__nv_fmax",
            (false, ScalarType::F32) => "__nv_fminf",
            (false, _) => "__nv_fmin",
        };
        let iptr = self.def("atomic.bits.ptr", format!("bitcast {ty}* {ptr} to {it}*"));
        let slot = self.alloca("atomic.seen", it);
        let first = self.def("atomic.first", format!("load volatile {it}, {it}* {iptr}"));
        self.store(it, &first, &slot);
        let head = self.label("atomic.loop");
        let attempt = self.label("atomic.try");
        let done = self.label("atomic.done");
        self.start_block(&head);
        let old_bits = self.load("atomic.seen.bits", it, &slot);
        let old = self.def(
            "atomic.seen.val",
            format!("bitcast {it} {old_bits} to {ty}"),
        );
        let new = self.call_extern("atomic.new", ty, func, &[(ty, &old), (ty, v)]);
        let new_bits = self.def("atomic.new.bits", format!("bitcast {ty} {new} to {it}"));
        let same = self.def(
            "atomic.same",
            format!("icmp eq {it} {new_bits}, {old_bits}"),
        );
        self.terminate(format!("br i1 {same}, label %{done}, label %{attempt}"));
        self.start_block(&attempt);
        let prev = self.cas(int, scope, &iptr, &old_bits, &new_bits);
        self.store(it, &prev, &slot);
        let swapped = self.def("atomic.swapped", format!("icmp eq {it} {prev}, {old_bits}"));
        self.terminate(format!("br i1 {swapped}, label %{done}, label %{head}"));
        self.start_block(&done);
        let bits = self.load("atomic.old.bits", it, &slot);
        self.def("atomic.old", format!("bitcast {it} {bits} to {ty}"))
    }

    /// `atomic_inc` / `atomic_dec` on a u64 (Numba has them; PTX's `atom.inc`/`atom.dec`
    /// are 32-bit only): a compare-and-swap loop computing CUDA's rule, as Numba's
    /// lowering does. Inc: `old >= limit ? 0 : old + 1`; dec: `old == 0 || old > limit ?
    /// limit : old - 1`. Returns the old value.
    fn wrapping_64(&mut self, inc: bool, scope: MemoryScope, ptr: &str, limit: &str) -> String {
        let slot = self.alloca("atomic.seen", "i64");
        let first = self.def("atomic.first", format!("load volatile i64, i64* {ptr}"));
        self.store("i64", &first, &slot);
        let head = self.label("atomic.loop");
        let done = self.label("atomic.done");
        self.start_block(&head);
        let old = self.load("atomic.seen.val", "i64", &slot);
        let new = if inc {
            let wrap = self.def("atomic.wrap", format!("icmp uge i64 {old}, {limit}"));
            let next = self.def("atomic.next", format!("add i64 {old}, 1"));
            self.def("atomic.new", format!("select i1 {wrap}, i64 0, i64 {next}"))
        } else {
            let zero = self.def("atomic.zero", format!("icmp eq i64 {old}, 0"));
            let above = self.def("atomic.above", format!("icmp ugt i64 {old}, {limit}"));
            let wrap = self.def("atomic.wrap", format!("or i1 {zero}, {above}"));
            let next = self.def("atomic.next", format!("sub i64 {old}, 1"));
            self.def(
                "atomic.new",
                format!("select i1 {wrap}, i64 {limit}, i64 {next}"),
            )
        };
        let prev = self.cas(ScalarType::U64, scope, ptr, &old, &new);
        self.store("i64", &prev, &slot);
        let swapped = self.def("atomic.swapped", format!("icmp eq i64 {prev}, {old}"));
        self.terminate(format!("br i1 {swapped}, label %{done}, label %{head}"));
        self.start_block(&done);
        self.load("atomic.old", "i64", &slot)
    }
}
