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

use super::function::{FunctionWriter, Val};
use super::place::PlacePtr;
use super::{types, Error};
use crate::ir::{
    BinaryOp, Block, ExprKind, FunctionKind, Handle, Literal, Place, PlaceRoot, Projection,
    ScalarType, Stmt, Type,
};

/// The most elements of a literal `for` loop inside a predicated prefetch.
const MAX_PREFETCH_TRIPS: u64 = 16;

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Writes `if cond { then_block }` as a predicated prefetch when it is one (see the
    /// module); `false` when it is not, and nothing was written.
    pub fn predicated_prefetch(
        &mut self,
        cond: Handle<crate::ir::Expr>,
        then_block: &'a Block,
    ) -> Result<bool, Error> {
        if self.func.kind != FunctionKind::Kernel
            || self.predicate.is_some()
            || !self.prefetch_block(then_block)
        {
            return Ok(false);
        }
        let Val::V(c) = self.expr(cond)? else {
            return Ok(true);
        };
        // Checked, the block is versioned as any other (see `versioning`): one guard
        // for all its indices, computed whatever the condition (it reads no memory), a
        // fast copy without checks, and a checked copy (its checks under the condition)
        // for when the guard fails, as on the last tile of a prefetching loop.
        self.predicate = Some(c);
        let result = self.block(then_block);
        self.predicate = None;
        result.map(|_| true)
    }

    /// `place = value` in a predicated prefetch: the local's current value goes into
    /// the load as what it gives when the condition fails (the local is always in
    /// bounds, so reading it first changes nothing).
    pub fn predicated_assign(
        &mut self,
        place: &'a Place,
        value: Handle<crate::ir::Expr>,
    ) -> Result<(), Error> {
        let Some(p) = self.place_ptr(place)? else {
            return Ok(());
        };
        let old = self.load_place(&p, "old")?;
        self.prefetch_into = Some(old);
        let v = self.expr(value);
        self.prefetch_into = None;
        match v? {
            Val::V(v) => self.store_place(&p, &v),
            Val::Never | Val::Unit => Ok(()),
        }
    }

    /// `p`'s element loaded only when the prefetch's condition holds, `old` otherwise,
    /// as PTX `@p ld.global.nc` of a kernel's read-only global memory.
    pub fn predicated_load(&mut self, p: &PlacePtr, old: &str) -> Result<String, Error> {
        let (Type::Scalar(s), Some(c)) = (&p.ty, self.predicate.clone()) else {
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

    /// Whether every statement of `block` copies a slice parameter's element into a
    /// local, possibly inside literal `for` loops.
    fn prefetch_block(&self, block: &Block) -> bool {
        block.tail.is_none()
            && !block.stmts.is_empty()
            && block.stmts.iter().all(|s| self.prefetch_stmt(s))
    }

    fn prefetch_stmt(&self, stmt: &Stmt) -> bool {
        match stmt {
            Stmt::Assign {
                place,
                op: None,
                value,
            } => self.local_element(place) && self.slice_param_load(*value),
            Stmt::ForRange {
                start,
                end,
                inclusive: false,
                step: None,
                reverse: false,
                body,
                ..
            } => {
                let literal = |h| match self.func.expr(h).kind {
                    ExprKind::Literal(Literal::Int(v)) => Some(v),
                    _ => None,
                };
                matches!((literal(*start), literal(*end)),
                    (Some(s), Some(e)) if e >= s && e - s <= MAX_PREFETCH_TRIPS)
                    && self.prefetch_block(body)
            }
            _ => false,
        }
    }

    /// A local (or an element of a local array, at indices always in bounds): storing
    /// its own value back when the condition fails is then harmless.
    fn local_element(&self, place: &Place) -> bool {
        let PlaceRoot::Local(local) = place.root else {
            return false;
        };
        let mut ty = &self.func.locals[local].ty;
        for projection in &place.projections {
            let (Projection::Index(i), Type::Array { elem, .. }) = (projection, ty) else {
                return false;
            };
            if !self.func.unchecked_indices.contains(i) {
                return false;
            }
            ty = elem;
        }
        matches!(ty, Type::Scalar(s) if is_word(*s))
    }

    /// `slice[index]` of an immutable slice parameter of 4- or 8-byte scalars, the
    /// index computable without reading memory or panicking.
    fn slice_param_load(&self, value: Handle<crate::ir::Expr>) -> bool {
        let ExprKind::Load(place) = &self.func.expr(value).kind else {
            return false;
        };
        let (PlaceRoot::Pointee(slice), [Projection::Index(index)]) =
            (place.root, place.projections.as_slice())
        else {
            return false;
        };
        let ExprKind::Local(local) = self.func.expr(slice).kind else {
            return false;
        };
        let is_param = self.func.params.iter().any(|p| p.local == local);
        let read_only = matches!(
            self.func.expr(slice).ty,
            Type::Slice { elem, mutable: false } if is_word(elem)
        );
        is_param && read_only && self.speculatable(*index)
    }

    /// Whether `h` can be evaluated when its statement would not run: no memory read,
    /// no call, no division that could panic.
    fn speculatable(&self, h: Handle<crate::ir::Expr>) -> bool {
        match &self.func.expr(h).kind {
            ExprKind::Literal(_) | ExprKind::Local(_) => true,
            ExprKind::Cast { operand, .. } | ExprKind::Unary { operand, .. } => {
                self.speculatable(*operand)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                // An unsigned division by a non-zero literal cannot panic (a signed one
                // can: `MIN / -1`).
                let divides = matches!(op, BinaryOp::Div | BinaryOp::Rem);
                let safe_divisor = matches!(
                    self.func.expr(*rhs).kind,
                    ExprKind::Literal(Literal::Int(v)) if v != 0
                ) && self
                    .func
                    .expr(h)
                    .ty
                    .scalar()
                    .is_some_and(|s| s.is_integer() && !s.is_signed_integer());
                (!divides || safe_divisor) && self.speculatable(*lhs) && self.speculatable(*rhs)
            }
            ExprKind::Intrinsic { intrinsic, args } => {
                args.is_empty() && crate::opt::effects::is_thread_constant(*intrinsic)
            }
            _ => false,
        }
    }
}

/// A 4- or 8-byte integer or float element: what one predicated `ld` moves.
fn is_word(s: ScalarType) -> bool {
    matches!(
        s,
        ScalarType::F32
            | ScalarType::I32
            | ScalarType::U32
            | ScalarType::F64
            | ScalarType::I64
            | ScalarType::U64
    )
}
