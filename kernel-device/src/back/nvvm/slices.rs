//! Views of slices: sub-slices (`&s[a..b]` and the other range forms), `split_at`, and
//! slices carved from the launch's dynamic shared memory. Which cases panic, and with
//! which words, is `ir::checks`'s decision; this file writes the same decision as
//! branches (a cold path per failure) so the hot path is two compares at most.

use super::state::{operand, FunctionWriter, Val};
use super::{types, Error};
use crate::ir::checks::{
    DYNAMIC_SHARED_MESSAGE, RANGE_END_MESSAGE, RANGE_ORDER_MESSAGE, RANGE_START_MESSAGE,
    SPLIT_AT_MESSAGE,
};
use crate::ir::{Expr, Handle, Local, ScalarType, Type};

/// Which `slice_index_fail` outcomes a range form can reach.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RangeForm {
    /// `s[a..]` (and `s[..]`, which cannot fail).
    From,
    /// `s[a..b]`, `s[..b]`.
    Exclusive,
    /// `s[a..=b]`, `s[..=b]`.
    Inclusive,
}

/// The symbol of the module's dynamic shared memory (sized by the launch).
pub const DYNAMIC_SHARED_SYMBOL: &str = "__cudajit_dyn_smem";

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// `base` (a `{mem} {space}*`) advanced by `index` (lowered: `wide`) elements: one
    /// `getelementptr` per term of the index where [`crate::opt::align::address_terms`]
    /// splits it (each term lowered again; the sum is the same, modulo 2^64 as a
    /// `getelementptr` without `inbounds` computes), else one for the whole index.
    pub(super) fn element_ptr_by_terms(
        &mut self,
        (mem, space): (&str, &str),
        base: &str,
        index: Handle<Expr>,
        wide: &str,
    ) -> Result<String, Error> {
        let Some(terms) = crate::opt::align::address_terms(self.func, &self.ranges, index) else {
            return Ok(self.def(
                "elem.ptr",
                format!("getelementptr {mem}, {mem}{space}* {base}, i64 {wide}"),
            ));
        };
        let mut ptr = base.to_string();
        for term in terms {
            let Val::V(v) = self.expr(term)? else {
                return Err(self.error("an index term without a value"));
            };
            ptr = self.def(
                "elem.ptr",
                format!("getelementptr {mem}, {mem}{space}* {ptr}, i64 {v}"),
            );
        }
        Ok(ptr)
    }

    /// The base pointer and length of a slice value.
    pub(super) fn slice_parts(&mut self, ty: &Type, s: &str) -> Result<(String, String), Error> {
        let sty = types::value(ty).map_err(|e| self.error(e.0))?;
        let base = self.def("ptr", format!("extractvalue {sty} {s}, 0"));
        let len = self.def("len", format!("extractvalue {sty} {s}, 1"));
        Ok((base, len))
    }

    /// A slice value `{elem*, i64}` from a base pointer, an element offset and a length.
    fn make_slice(
        &mut self,
        elem: ScalarType,
        base: &str,
        offset: &str,
        len: &str,
    ) -> Result<String, Error> {
        let mem = types::scalar_mem(elem);
        let ty = types::value(&Type::Slice {
            elem,
            mutable: false,
        })
        .map_err(|e| self.error(e.0))?;
        let ptr = if offset == "0" {
            base.to_string()
        } else {
            self.def(
                "sub.ptr",
                format!("getelementptr inbounds {mem}, {mem}* {base}, i64 {offset}"),
            )
        };
        let s0 = self.def("sub", format!("insertvalue {ty} undef, {mem}* {ptr}, 0"));
        Ok(self.def("sub", format!("insertvalue {ty} {s0}, i64 {len}, 1")))
    }

    fn slice_elem(&self, ty: &Type) -> Result<ScalarType, Error> {
        match ty {
            Type::Slice { elem, .. } => Ok(*elem),
            other => Err(self.error(format!("sub-slice of a `{other}`"))),
        }
    }

    /// `&slice[start..end]` and the other range forms (`ExprKind::SubSlice`).
    pub fn sub_slice(
        &mut self,
        site: Handle<Expr>,
        slice: Handle<Expr>,
        start: Option<Handle<Expr>>,
        end: Option<Handle<Expr>>,
        inclusive: bool,
    ) -> Result<Val, Error> {
        let slice_ty = self.ty_of(slice)?;
        let elem = self.slice_elem(slice_ty)?;
        let s = operand!(self, slice);
        let start = match start {
            Some(h) => operand!(self, h),
            None => "0".to_string(),
        };
        let end = match end {
            Some(h) => Some(operand!(self, h)),
            None => None,
        };
        let (base, len) = self.slice_parts(slice_ty, &s)?;
        // `end_excl` is the view's end; `reported_end` the end std's message names.
        let (end_excl, reported_end, ok) = match (&end, inclusive) {
            (None, _) => {
                let ok = self.def("start.ok", format!("icmp ule i64 {start}, {len}"));
                (len.clone(), len.clone(), ok)
            }
            (Some(e), false) => {
                let ordered = self.def("ordered", format!("icmp ule i64 {start}, {e}"));
                let within = self.def("end.ok", format!("icmp ule i64 {e}, {len}"));
                let ok = self.def("range.ok", format!("and i1 {ordered}, {within}"));
                (e.clone(), e.clone(), ok)
            }
            (Some(e), true) => {
                // `e < len` first, so `e + 1` cannot wrap where it matters.
                let within = self.def("end.ok", format!("icmp ult i64 {e}, {len}"));
                let next = self.def("end.excl", format!("add i64 {e}, 1"));
                let ordered = self.def("ordered", format!("icmp ule i64 {start}, {next}"));
                let ok = self.def("range.ok", format!("and i1 {within}, {ordered}"));
                let reported = self.def(
                    "end.reported",
                    format!("select i1 {within}, i64 {next}, i64 {e}"),
                );
                (next, reported, ok)
            }
        };
        if self.func.options.bounds_check {
            let form = match (&end, inclusive) {
                (None, _) => RangeForm::From,
                (Some(_), false) => RangeForm::Exclusive,
                (Some(_), true) => RangeForm::Inclusive,
            };
            if start != "0" || form != RangeForm::From {
                self.slice_index_fail_unless(site, form, &ok, &start, &reported_end, &len)?;
            }
        }
        let new_len = if start == "0" {
            end_excl
        } else {
            self.def("sub.len", format!("sub i64 {end_excl}, {start}"))
        };
        Ok(Val::V(self.make_slice(elem, &base, &start, &new_len)?))
    }

    /// std's `slice_index_fail(start, end, len)` on a cold path taken when `ok` is false:
    /// the first failing of its tests picks the message (see `ir::checks`). Each range
    /// form gets only the sites it can reach.
    fn slice_index_fail_unless(
        &mut self,
        site: Handle<Expr>,
        form: RangeForm,
        ok: &str,
        start: &str,
        end: &str,
        len: &str,
    ) -> Result<(), Error> {
        if form == RangeForm::From {
            // `s[a..]` fails only by its start.
            return self.panic_unless(ok, site, RANGE_START_MESSAGE, (start, len));
        }
        if start == "0" {
            // `s[..b]` / `s[..=b]` fail only by their end.
            return self.panic_unless(ok, site, RANGE_END_MESSAGE, (end, len));
        }
        let ok_l = self.label("range.in");
        let fail_l = self.label("range.fail");
        self.terminate(format!(
            "br i1 {ok}, label %{ok_l}, label %{fail_l}, !prof {}",
            super::state::LIKELY_TRUE_BRANCH_WEIGHTS
        ));
        self.start_block(&fail_l);
        let start_ok = self.def("start.in", format!("icmp ule i64 {start}, {len}"));
        self.panic_unless(&start_ok, site, RANGE_START_MESSAGE, (start, len))?;
        let end_ok = self.def("end.in", format!("icmp ule i64 {end}, {len}"));
        self.panic_unless(&end_ok, site, RANGE_END_MESSAGE, (end, len))?;
        if form == RangeForm::Exclusive {
            // Both within `len`, yet not ok: the start is past the end.
            self.panic_now(site, RANGE_ORDER_MESSAGE, (start, end));
        } else {
            let ordered = self.def("ordered", format!("icmp ule i64 {start}, {end}"));
            self.panic_unless(&ordered, site, RANGE_ORDER_MESSAGE, (start, end))?;
            // Only `a..=b` with `b == len` gets here.
            self.panic_now(site, RANGE_END_MESSAGE, (end, len));
        }
        self.start_block(&ok_l);
        Ok(())
    }

    /// `slice.split_at(mid)` / `split_at_mut(mid)` (`ExprKind::SplitAt`).
    pub fn split_at(
        &mut self,
        site: Handle<Expr>,
        result_ty: &Type,
        slice: Handle<Expr>,
        mid: Handle<Expr>,
    ) -> Result<Val, Error> {
        let slice_ty = self.ty_of(slice)?;
        let elem = self.slice_elem(slice_ty)?;
        let s = operand!(self, slice);
        let mid = operand!(self, mid);
        let (base, len) = self.slice_parts(slice_ty, &s)?;
        if self.func.options.bounds_check {
            let ok = self.def("mid.ok", format!("icmp ule i64 {mid}, {len}"));
            self.panic_unless(&ok, site, SPLIT_AT_MESSAGE, ("0", "0"))?;
        }
        let lo = self.make_slice(elem, &base, "0", &mid)?;
        let hi_len = self.def("hi.len", format!("sub i64 {len}, {mid}"));
        let hi = self.make_slice(elem, &base, &mid, &hi_len)?;
        let ty = types::value(result_ty).map_err(|e| self.error(e.0))?;
        let sty = types::value(&Type::Slice {
            elem,
            mutable: false,
        })
        .map_err(|e| self.error(e.0))?;
        let t0 = self.def("split", format!("insertvalue {ty} undef, {sty} {lo}, 0"));
        Ok(Val::V(self.def(
            "split",
            format!("insertvalue {ty} {t0}, {sty} {hi}, 1"),
        )))
    }

    /// `cursor.take::<T>(count)` (`ExprKind::DynamicSharedTake`): aligns the cursor's
    /// byte offset to the element size, checks the end against PTX's
    /// `%dynamic_smem_size` (always: a bad carve would read other blocks' data), advances
    /// the cursor and returns a generic pointer into shared memory.
    pub fn dynamic_shared_take(
        &mut self,
        site: Handle<Expr>,
        cursor: Handle<Local>,
        elem: ScalarType,
        count: Handle<Expr>,
    ) -> Result<Val, Error> {
        let count = operand!(self, count);
        let Some((addr, _)) = self.slot(cursor)? else {
            return Err(self.error("`take` on a cursor without storage"));
        };
        let size = u64::from(elem.size_bytes());
        let offset = self.load("smem.offset", "i64", &addr);
        let aligned = if size == 1 {
            offset
        } else {
            let bumped = self.def("smem.bumped", format!("add i64 {offset}, {}", size - 1));
            self.def(
                "smem.aligned",
                format!("and i64 {bumped}, {}", -(size as i64)),
            )
        };
        let bytes = self.def("smem.bytes", format!("mul i64 {count}, {size}"));
        let end = self.def("smem.end", format!("add i64 {aligned}, {bytes}"));
        let available32 = self.def(
            "smem.size",
            "call i32 asm \"mov.u32 $0, %dynamic_smem_size;\", \"=r\"()",
        );
        let available = self.def("smem.avail", format!("zext i32 {available32} to i64"));
        // A count of 2^32 or more never fits (shared memory is far smaller); ruling it
        // out first keeps `end` from wrapping, as `ir::checks` reports it.
        let fits = self.def("smem.fits", format!("icmp ule i64 {end}, {available}"));
        let sane = self.def("smem.sane", format!("icmp ule i64 {count}, {}", u32::MAX));
        let ok = self.def("smem.ok", format!("and i1 {fits}, {sane}"));
        let reported = self.def(
            "smem.reported",
            format!("select i1 {sane}, i64 {end}, i64 -1"),
        );
        self.panic_unless(&ok, site, DYNAMIC_SHARED_MESSAGE, (&reported, &available))?;
        self.store("i64", &end, &addr);
        self.w.declare(
            DYNAMIC_SHARED_SYMBOL,
            format!("@{DYNAMIC_SHARED_SYMBOL} = external addrspace(3) global [0 x i8], align 16"),
        );
        // The window's base through an opaque `mov`, once here: as the constant
        // `@__cudajit_dyn_smem` LLVM rematerialises it in every block that addresses
        // the tile, and ptxas rebuilds it each time (`S2UR SR_CgaCtaId` + `ULEA`: four
        // instructions in each k-step's copy block of the tensor-core GEMMs); a value
        // computed once stays in a register, as nvcc's kernels keep it.
        let window = self.def(
            "smem.window",
            format!(
                "call i32 asm \"mov.b32 $0, $1;\", \"=r,r\"(i32 ptrtoint ([0 x i8] addrspace(3)* @{DYNAMIC_SHARED_SYMBOL} to i32))"
            ),
        );
        let window_base = self.def(
            "smem.base",
            format!("inttoptr i32 {window} to i8 addrspace(3)*"),
        );
        let shared = self.def(
            "smem.ptr",
            format!("getelementptr inbounds i8, i8 addrspace(3)* {window_base}, i64 {aligned}"),
        );
        let generic = self.def(
            "smem.generic",
            format!("addrspacecast i8 addrspace(3)* {shared} to i8*"),
        );
        let mem = types::scalar_mem(elem);
        let typed = if mem == "i8" {
            generic
        } else {
            self.def("smem.typed", format!("bitcast i8* {generic} to {mem}*"))
        };
        Ok(Val::V(self.make_slice(elem, &typed, "0", &count)?))
    }
}
