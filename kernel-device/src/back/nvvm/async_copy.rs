//! Asynchronous copies (`cp.async`, inline PTX: libnvvm's LLVM has no intrinsic for
//! them) and vector loads and stores (`load <4 x float>, align 16`, which NVPTX makes
//! one `ld.v4.f32`). Each copy or access has one check, `proc::async_copy`'s
//! condition, and one branch to its panic.

use super::state::{operand, FunctionWriter, Val};
use super::{types, Error};
use std::collections::HashSet;

use crate::ir::{Expr, ExprKind, Handle, Intrinsic, Local, ScalarType, Type};
use crate::proc::async_copy::{needs_sm80, COPY_MESSAGE, VECTOR_MESSAGE};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// `cp_async*`, `cp_async_commit`, `cp_async_wait*`, `load_vec`, `store_vec`.
    pub fn async_copy_intrinsic(
        &mut self,
        site: Handle<Expr>,
        ty: &Type,
        intrinsic: Intrinsic,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        // A target known to predate `cp.async` is an error naming the feature (the JIT
        // knows the device), as the tensor cores' gating does, not a ptxas failure.
        if let Some(arch) = self
            .w
            .options
            .arch
            .filter(|&a| needs_sm80(intrinsic) && a < 80)
        {
            return Err(self.error(format!(
                "`cp.async` (asynchronous copies) needs compute capability 8.0 or later; the target is compute_{arch}"
            )));
        }
        let text = match intrinsic {
            Intrinsic::CpAsync {
                bytes,
                l2_only,
                zero_fill,
            } => return self.cp_async(site, bytes, l2_only, zero_fill, args),
            Intrinsic::LoadVec { lanes } => return self.load_vec(site, ty, lanes, args),
            Intrinsic::StoreVec { lanes } => return self.store_vec(site, lanes, args),
            Intrinsic::CpAsyncCommit => "cp.async.commit_group;".to_string(),
            Intrinsic::CpAsyncWait { pending } => format!("cp.async.wait_group {pending};"),
            Intrinsic::CpAsyncWaitAll => "cp.async.wait_all;".to_string(),
            other => return Err(self.error(format!("{other:?} is not an async copy"))),
        };
        // The memory clobber keeps the loads of the copies' destinations after the wait.
        self.inst(format!(
            "call void asm sideeffect \"{text}\", \"~{{memory}}\"()"
        ));
        Ok(Val::Unit)
    }

    /// Whether `h` reads a parameter of this kernel (a slice in global memory).
    fn is_kernel_parameter(&self, h: Handle<Expr>) -> bool {
        self.func.kind == crate::ir::FunctionKind::Kernel
            && matches!(self.ir_expr(h).map(|e| &e.kind),
                Ok(ExprKind::Local(l)) if self.func.params.iter().any(|p| p.local == *l))
    }

    /// Whether `h` is a reference to a shared array used as a slice.
    pub(super) fn is_shared_array(&self, h: Handle<Expr>) -> bool {
        let Ok(ExprKind::RefToSlice(r)) = self.ir_expr(h).map(|e| &e.kind) else {
            return false;
        };
        matches!(
            self.ty_of(*r),
            Ok(Type::Ref {
                space: crate::ir::AddressSpace::Shared,
                ..
            })
        )
    }

    /// `isspacep.<space>` of a generic pointer, as an `i1`.
    pub(super) fn is_in_space(&mut self, space: &str, ptr_i64: &str) -> String {
        let r = self.def(
            "isspacep",
            format!(
                "call i32 asm \"{{ .reg .pred p; isspacep.{space} p, $1; selp.u32 $0, 1, 0, p; }}\", \"=r,l\"(i64 {ptr_i64})"
            ),
        );
        self.def("in.space", format!("icmp ne i32 {r}, 0"))
    }

    /// `index <= len && len - index >= count`, as an `i1`.
    fn fits(&mut self, index: &str, len: &str, count: &str) -> String {
        let le = self.def("fits.start", format!("icmp ule i64 {index}, {len}"));
        let room = self.def("fits.room", format!("sub i64 {len}, {index}"));
        let enough = self.def("fits.enough", format!("icmp uge i64 {room}, {count}"));
        self.def("fits", format!("and i1 {le}, {enough}"))
    }

    fn elem_of(&self, slice_ty: &Type) -> Result<ScalarType, Error> {
        match slice_ty {
            Type::Slice { elem, .. } => Ok(*elem),
            other => Err(self.error(format!("an async copy or vector access on `{other}`"))),
        }
    }

    fn cp_async(
        &mut self,
        site: Handle<Expr>,
        bytes: u8,
        l2_only: bool,
        zero_fill: bool,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        let dst_ty = self.ty_of(args[0])?;
        let src_ty = self.ty_of(args[2])?;
        let elem = self.elem_of(dst_ty)?;
        let size = u64::from(elem.size_bytes());
        let lanes = u64::from(bytes) / size;
        let mem = types::scalar_mem(elem);
        let (dst_base, dst_len) = self.slice_parts(dst_ty, &vals[0])?;
        let (src_base, src_len) = self.slice_parts(src_ty, &vals[2])?;
        let (di, si) = (vals[1].clone(), vals[3].clone());
        // `opt::elide` proves only offsets into shared tiles (`take`), so a proven
        // destination is in shared memory and in bounds: no `isspacep`, no check, and
        // the 32-bit shared address that nvcc's `cp.async` takes (no `cvta` per copy).
        let dst_proven = self.func.unchecked_indices.contains(&args[1]);
        let read = if zero_fill {
            let valid = &vals[4];
            let small = self.def("cp.small", format!("icmp ult i64 {valid}, {lanes}"));
            self.def(
                "cp.read",
                format!("select i1 {small}, i64 {valid}, i64 {lanes}"),
            )
        } else {
            lanes.to_string()
        };
        // One condition: alignment and spaces always (a misaligned or wrongly placed
        // `cp.async` is an error the context does not survive), bounds unless opted out.
        // The addresses are written as base + index * size (what the GEPs compute), so
        // LLVM sees that the loop-varying multiples of 16 bytes in an index leave the
        // low bits alone, and hoists the alignment test out of the loop.
        // Only the index terms that `opt::align` cannot prove multiples of the copy's
        // elements take part: the same loop-invariant test for every copy of a tile.
        // A versioned loop's guard may have decided it already (see
        // [`Self::copies_aligned_before`]).
        let src_addr = self.byte_address(mem, &src_base, &si, size);
        let (dst_addr, dst_window) = if dst_proven {
            let window = self.shared_tile_element_address(elem, &dst_base, (args[1], &di))?;
            let wide = self.def("cp.dst.addr", format!("zext i32 {window} to i64"));
            (wide, Some(window))
        } else {
            (self.byte_address(mem, &dst_base, &di, size), None)
        };
        let mut ok = if self.aligned_copies.contains(&site) {
            "true".to_string()
        } else {
            let zero_bits = u64::from(bytes).trailing_zeros() - size.trailing_zeros();
            let dst_low = self.alignment_index(args[1], &di, zero_bits)?;
            let src_low = self.alignment_index(args[3], &si, zero_bits)?;
            let bases = (dst_base.as_str(), src_base.as_str());
            self.copy_aligned(elem, bytes, dst_proven, bases, (&dst_low, &src_low))
        };
        if !dst_proven && !self.is_shared_array(args[0]) {
            let shared = self.is_in_space("shared", &dst_addr);
            ok = self.def("cp.ok", format!("and i1 {ok}, {shared}"));
        }
        if !self.is_kernel_parameter(args[2]) {
            let global = self.is_in_space("global", &src_addr);
            ok = self.def("cp.ok", format!("and i1 {ok}, {global}"));
        }
        if self.func.options.bounds_check {
            let dst_in = if dst_proven {
                "true".to_string()
            } else {
                self.fits(&di, &dst_len, &lanes.to_string())
            };
            // A versioned loop's guard decides the source of its fast copy's copies
            // (`opt::check_plan::copy_source`): its first and last element.
            let src_fits = if self.func.unchecked_indices.contains(&args[3]) {
                "true".to_string()
            } else {
                self.fits(&si, &src_len, &read)
            };
            let src_in = if zero_fill {
                let none = self.def("cp.none", format!("icmp eq i64 {read}, 0"));
                self.def("cp.src.in", format!("or i1 {none}, {src_fits}"))
            } else {
                src_fits
            };
            // Both decided (a fast loop's copy): nothing to test, as without checks.
            if dst_in != "true" || src_in != "true" {
                let both_in = self.def("cp.in", format!("and i1 {dst_in}, {src_in}"));
                ok = self.def("cp.ok", format!("and i1 {ok}, {both_in}"));
            }
        }
        let tested = ok != "true";
        if tested {
            self.panic_unless(&ok, site, COPY_MESSAGE, (&di, &si))?;
        }
        // The source is global (a parameter, or tested above): its global address is
        // the base converted once (`cvta.to.global` of a loop-invariant base, hoisted
        // by LLVM, as nvcc converts it) plus the offset, not a `cvta` inside every copy.
        let global_base = self.def(
            "cp.src.global",
            format!("addrspacecast {mem}* {src_base} to {mem} addrspace(1)*"),
        );
        // An untested copy (a fast loop's): one GEP per index term, so LLVM steps the
        // loop-varying one (`slices.rs`); a tested one keeps its whole index live for
        // the test already, and more pointers would only add registers.
        let global = if tested {
            self.def(
                "cp.src.global",
                format!("getelementptr {mem}, {mem} addrspace(1)* {global_base}, i64 {si}"),
            )
        } else {
            self.element_ptr_by_terms((mem, " addrspace(1)"), &global_base, args[3], &si)?
        };
        let global = self.def(
            "cp.src.global",
            format!("ptrtoint {mem} addrspace(1)* {global} to i64"),
        );
        let cache = if l2_only { "cg" } else { "ca" };
        let (size_operand, constraint, extra) = if zero_fill {
            let src_bytes = self.def("cp.src.bytes", format!("mul i64 {read}, {size}"));
            let src_bytes = self.def("cp.src.size", format!("trunc i64 {src_bytes} to i32"));
            (", $2", ",r", format!(", i32 {src_bytes}"))
        } else {
            ("", "", String::new())
        };
        if let Some(window) = dst_window {
            self.inst(format!(
                "call void asm sideeffect \"cp.async.{cache}.shared.global [$0], [$1], {bytes}{size_operand};\", \"r,l{constraint},~{{memory}}\"(i32 {window}, i64 {global}{extra})"
            ));
            return Ok(Val::Unit);
        }
        self.inst(format!(
            "call void asm sideeffect \"{{ .reg .u64 s; cvta.to.shared.u64 s, $0; cp.async.{cache}.shared.global [s], [$1], {bytes}{size_operand}; }}\", \"l,l{constraint},~{{memory}}\"(i64 {dst_addr}, i64 {global}{extra})"
        ));
        Ok(Val::Unit)
    }

    /// The `i1` that a copy of `bytes` bytes of `elem` between the slices based at
    /// `dst_base` and `src_base` is aligned at the indices `low` (`i64`, whose low bits
    /// are the copy's indices'); `dst_proven`: the destination is a shared tile, tested
    /// by its 32-bit window address.
    fn copy_aligned(
        &mut self,
        elem: ScalarType,
        bytes: u8,
        dst_proven: bool,
        (dst_base, src_base): (&str, &str),
        (dst_low, src_low): (&str, &str),
    ) -> String {
        let mem = types::scalar_mem(elem);
        let size = u64::from(elem.size_bytes());
        let src_tested = self.byte_address(mem, src_base, src_low, size);
        let dst_tested = if dst_proven {
            let low = self.def("cp.dst.low", format!("trunc i64 {dst_low} to i32"));
            let window = self.shared_element_window_address(elem, dst_base, &low);
            self.def("cp.dst.tested", format!("zext i32 {window} to i64"))
        } else {
            self.byte_address(mem, dst_base, dst_low, size)
        };
        let both = self.def("cp.addrs", format!("or i64 {dst_tested}, {src_tested}"));
        let low = self.def("cp.low", format!("and i64 {both}, {}", bytes - 1));
        self.def("cp.aligned", format!("icmp eq i64 {low}, 0"))
    }

    /// Before a versioned loop whose fast copy is `body` (variable `var`): the `i1`
    /// that every `cp_async` of `body` is aligned on every iteration, for the copies
    /// whose alignment depends on values the loop does not change (their slices and
    /// the unproven terms of their indices, `opt::align`, read only locals defined
    /// before the loop and never assigned); those copies are recorded in
    /// `aligned_copies`, and the fast copy does not test them. `None` when there are
    /// none.
    pub(super) fn copies_aligned_before(
        &mut self,
        var: Handle<Local>,
        body: &'a crate::ir::Block,
    ) -> Result<Option<String>, Error> {
        let mut inside = HashSet::from([var]);
        crate::ir::visit::lets_in_block(self.func, body, &mut |l, _| {
            inside.insert(l);
        });
        let mut copies = Vec::new();
        crate::ir::visit::exprs_in_block(self.func, body, &mut |h, e| {
            if let ExprKind::Intrinsic {
                intrinsic: Intrinsic::CpAsync { bytes, .. },
                args,
            } = &e.kind
            {
                copies.push((h, *bytes, args.clone()));
            }
        });
        let mut all: Option<String> = None;
        for (site, bytes, args) in copies {
            let Some(aligned) = self.aligned_before(&inside, bytes, &args)? else {
                continue;
            };
            self.aligned_copies.insert(site);
            all = Some(match all {
                Some(prev) => self.def("loop.aligned", format!("and i1 {prev}, {aligned}")),
                None => aligned,
            });
        }
        Ok(all)
    }

    /// The `i1` that copy `args` is aligned, computed where no local of `inside` has
    /// its value yet; `None` when its alignment reads one of them.
    fn aligned_before(
        &mut self,
        inside: &HashSet<Handle<Local>>,
        bytes: u8,
        args: &[Handle<Expr>],
    ) -> Result<Option<String>, Error> {
        let outside = |w: &Self, h: Handle<Expr>| {
            let mut read = Vec::new();
            crate::opt::align::locals_read(w.func, h, &mut read);
            read.iter()
                .all(|l| !inside.contains(l) && !w.func.locals[*l].mutable)
        };
        if !outside(self, args[0]) || !outside(self, args[2]) {
            return Ok(None);
        }
        let elem = self.elem_of(self.ty_of(args[0])?)?;
        let size = u64::from(elem.size_bytes());
        let zero_bits = u64::from(bytes).trailing_zeros() - size.trailing_zeros();
        let mut lows = Vec::new();
        for index in [args[1], args[3]] {
            let Some(terms) =
                crate::opt::align::unproven_terms(self.func, &self.ranges, index, zero_bits)
            else {
                return Ok(None);
            };
            if !terms.iter().all(|t| outside(self, *t)) {
                return Ok(None);
            }
            lows.push(terms);
        }
        let dst_proven = self.func.unchecked_indices.contains(&args[1]);
        let (Val::V(dst), Val::V(src)) = (self.expr(args[0])?, self.expr(args[2])?) else {
            return Ok(None);
        };
        let (dst_base, _) = self.slice_parts(self.ty_of(args[0])?, &dst)?;
        let (src_base, _) = self.slice_parts(self.ty_of(args[2])?, &src)?;
        let src_terms = lows.pop().unwrap_or_default();
        let dst_terms = lows.pop().unwrap_or_default();
        let dst_low = self.sum_of(dst_terms)?;
        let src_low = self.sum_of(src_terms)?;
        let bases = (dst_base.as_str(), src_base.as_str());
        Ok(Some(self.copy_aligned(
            elem,
            bytes,
            dst_proven,
            bases,
            (&dst_low, &src_low),
        )))
    }

    /// The `i64` sum of the pure 64-bit expressions `terms`, lowered again.
    fn sum_of(&mut self, terms: Vec<Handle<Expr>>) -> Result<String, Error> {
        let mut sum = "0".to_string();
        for term in terms {
            let Val::V(v) = self.expr(term)? else {
                return Err(self.error("an index term without a value"));
            };
            sum = self.def("align.terms", format!("add i64 {sum}, {v}"));
        }
        Ok(sum)
    }

    /// The index whose low `zero_bits` bits are those of `index` (`wide`, lowered): the
    /// sum of its terms that `opt::align` cannot prove multiples of `2^zero_bits`,
    /// lowered again (pure functions of immutable locals), or `wide` itself.
    fn alignment_index(
        &mut self,
        index: Handle<Expr>,
        wide: &str,
        zero_bits: u32,
    ) -> Result<String, Error> {
        match crate::opt::align::unproven_terms(self.func, &self.ranges, index, zero_bits) {
            Some(terms) => self.sum_of(terms),
            None => Ok(wide.to_string()),
        }
    }

    /// The generic address of element `index` of the slice based at `base`, as the
    /// integer `base + index * size` (what `getelementptr` computes).
    fn byte_address(&mut self, mem: &str, base: &str, index: &str, size: u64) -> String {
        let base = self.def("addr.base", format!("ptrtoint {mem}* {base} to i64"));
        let bytes = self.def("addr.offset", format!("mul i64 {index}, {size}"));
        self.def("addr", format!("add i64 {base}, {bytes}"))
    }

    /// The checked pointer to `lanes` elements at `index` of a slice, as `<lanes x T>*`.
    fn vector_ptr(
        &mut self,
        site: Handle<Expr>,
        (slice, index): (Handle<Expr>, Handle<Expr>),
        s: &str,
        i: &str,
        lanes: u8,
    ) -> Result<(String, String, ScalarType), Error> {
        let slice_ty = self.ty_of(slice)?;
        let elem = self.elem_of(slice_ty)?;
        let mem = types::scalar_mem(elem);
        let bytes = u64::from(lanes) * u64::from(elem.size_bytes());
        let (base, len) = self.slice_parts(slice_ty, s)?;
        let ptr = self.def(
            "vec.elem",
            format!("getelementptr {mem}, {mem}* {base}, i64 {i}"),
        );
        // As a copy's test: only the index terms that `opt::align` cannot prove multiples
        // of the vector take part, so an epilogue's stores at `row + 8 * d + col` (every
        // term even) share one test of the base, which LLVM computes once.
        let zero_bits = bytes.trailing_zeros() - u64::from(elem.size_bytes()).trailing_zeros();
        let low_index = self.alignment_index(index, i, zero_bits)?;
        let size = u64::from(elem.size_bytes());
        let addr = self.byte_address(mem, &base, &low_index, size);
        let low = self.def("vec.low", format!("and i64 {addr}, {}", bytes - 1));
        let mut ok = self.def("vec.aligned", format!("icmp eq i64 {low}, 0"));
        if self.func.options.bounds_check && !self.func.unchecked_indices.contains(&index) {
            let fits = self.fits(i, &len, &lanes.to_string());
            ok = self.def("vec.ok", format!("and i1 {ok}, {fits}"));
        }
        self.panic_unless(&ok, site, VECTOR_MESSAGE, (i, &len))?;
        let vty = format!("<{lanes} x {mem}>");
        let vptr = self.def("vec.ptr", format!("bitcast {mem}* {ptr} to {vty}*"));
        Ok((vptr, vty, elem))
    }

    fn load_vec(
        &mut self,
        site: Handle<Expr>,
        ty: &Type,
        lanes: u8,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        let s = operand!(self, args[0]);
        let i = operand!(self, args[1]);
        let (vptr, vty, elem) = self.vector_ptr(site, (args[0], args[1]), &s, &i, lanes)?;
        let align = u32::from(lanes) * elem.size_bytes();
        let v = self.def("vec", format!("load {vty}, {vty}* {vptr}, align {align}"));
        let aty = types::value(ty).map_err(|e| self.error(e.0))?;
        let mem = types::scalar_mem(elem);
        let mut out = "undef".to_string();
        for k in 0..lanes {
            let e = self.def("vec.lane", format!("extractelement {vty} {v}, i32 {k}"));
            out = self.def(
                "vec.array",
                format!("insertvalue {aty} {out}, {mem} {e}, {k}"),
            );
        }
        Ok(Val::V(out))
    }

    fn store_vec(
        &mut self,
        site: Handle<Expr>,
        lanes: u8,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        let s = operand!(self, args[0]);
        let i = operand!(self, args[1]);
        let values = operand!(self, args[2]);
        let aty = types::value(self.ty_of(args[2])?).map_err(|e| self.error(e.0))?;
        let (vptr, vty, elem) = self.vector_ptr(site, (args[0], args[1]), &s, &i, lanes)?;
        let mem = types::scalar_mem(elem);
        let mut v = "undef".to_string();
        for k in 0..lanes {
            let e = self.def("vec.lane", format!("extractvalue {aty} {values}, {k}"));
            v = self.def(
                "vec",
                format!("insertelement {vty} {v}, {mem} {e}, i32 {k}"),
            );
        }
        let align = u32::from(lanes) * elem.size_bytes();
        self.inst(format!("store {vty} {v}, {vty}* {vptr}, align {align}"));
        Ok(Val::Unit)
    }
}
