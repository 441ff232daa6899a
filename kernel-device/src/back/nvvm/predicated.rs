//! Guarded prefetches as predicated loads: `if k0 + 8 < n { for j in 0..4 { pa[j] =
//! a[..]; } }` in a kernel, where every statement copies an element of an immutable
//! slice parameter into a local, is written without the branch: each load is a PTX
//! `@p ld.global.nc` under the condition, and each local takes the loaded value when
//! the condition holds (a `select`), keeping its own otherwise. The element addresses
//! are then computed whether or not the condition holds (pure arithmetic, nothing
//! read), so ptxas can issue the loads early, between the arithmetic that follows,
//! instead of after all of it: nvcc's code for the register-tiled SGEMM predicates its
//! prefetch the same way, ours kept a branch and exposed the loads' latency once per
//! tile. Bounds checks stay exact: an index is checked only when the condition holds,
//! in program order, before the loads (loads into locals show no effect of their own).

use super::place::PlacePtr;
use super::state::{FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{Block, ExprKind, Handle, Place, ScalarType, Type};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Writes `if cond { body }` (`body` a `Stmt::PredicatedPrefetch`'s) without the
    /// branch (see the module).
    pub fn predicated_prefetch(
        &mut self,
        cond: Handle<crate::ir::Expr>,
        body: &'a Block,
    ) -> Result<(), Error> {
        let Val::V(c) = self.expr(cond)? else {
            return Ok(());
        };
        // Checked, the block was versioned as any other (see `opt::version`): one guard
        // for all its indices, computed whatever the condition (it reads no memory), a
        // fast copy without checks, and a checked copy (its checks under the condition)
        // for when the guard fails, as on the last tile of a prefetching loop.
        self.prefetch_conditions.insert(cond, c);
        self.block(body).map(|_| ())
    }

    /// `place = value` where `value` is a load of `func.predicated_loads`, made under
    /// `condition` (its `if`'s, an `i1` already written): the local's current value
    /// goes into the load as what it gives when the condition fails (the local is
    /// always in bounds, so reading it first changes nothing).
    pub fn predicated_assign(
        &mut self,
        place: &'a Place,
        value: Handle<crate::ir::Expr>,
        condition: Handle<crate::ir::Expr>,
    ) -> Result<(), Error> {
        let Some(c) = self.prefetch_conditions.get(&condition).cloned() else {
            return Err(self.error("a predicated load before its condition"));
        };
        let Some(p) = self.place_ptr(place)? else {
            return Ok(());
        };
        let old = self.load_place(&p, "old")?;
        // The value is a slice element (`opt::prefetch`): its load is the predicated one.
        let ExprKind::Load(source) = &self.ir_expr(value)?.kind else {
            return Err(self.error("a predicated prefetch of something not loaded"));
        };
        match self.place_ptr_when(source, Some(&c))? {
            Some(element) => {
                let v = self.predicated_load(&element, &old, &c)?;
                self.store_place(&p, &v)
            }
            None => {
                if self.is_open() {
                    self.terminate("unreachable");
                }
                Ok(())
            }
        }
    }

    /// `p`'s element loaded only when the prefetch's condition holds, `old` otherwise,
    /// as PTX `@p ld.global.nc` of a kernel's read-only global memory.
    pub fn predicated_load(&mut self, p: &PlacePtr, old: &str, c: &str) -> Result<String, Error> {
        let Type::Scalar(s) = &p.ty else {
            return Err(self.error(format!("predicated load of a `{}`", p.ty)));
        };
        let (ptx, constraint) = match s {
            ScalarType::F32 => ("f32", "f"),
            ScalarType::F64 => ("f64", "d"),
            ScalarType::I32 | ScalarType::U32 => ("b32", "r"),
            _ => ("b64", "l"),
        };
        let ty = types::memory(&p.ty)?;
        let pred = self.def("pf.pred", format!("zext i1 {c} to i16"));
        Ok(self.def(
            "pf.elem",
            format!(
                "call {ty} asm \"{{ .reg .pred p; .reg .b64 g; setp.ne.b16 p, $2, 0; \
                 cvta.to.global.u64 g, $1; @p ld.global.nc.{ptx} $0, [g]; }}\", \
                 \"={constraint},l,h,0\"({ty}* {}, i16 {pred}, {ty} {old})",
                p.ptr
            ),
        ))
    }
}
