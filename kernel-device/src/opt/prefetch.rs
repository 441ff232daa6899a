//! Guarded prefetches that the NVVM writer writes as predicated loads (see
//! `back/nvvm/predicated.rs` for why): `if cond { .. }` in a kernel where every
//! statement copies an element of an immutable slice parameter into a local, possibly
//! inside literal `for` loops. `opt::version` marks their bodies
//! (`Stmt::PredicatedPrefetch`).

use crate::ir::{
    BinaryOp, Block, ExprKind, Function, FunctionKind, Handle, Literal, Place, PlaceRoot,
    Projection, ScalarType, Stmt, Type,
};

/// The most elements of a literal `for` loop inside a predicated prefetch.
const MAX_PREFETCH_TRIPS: u64 = 16;

/// Whether `if cond { then_block }` (no `else`, of type `()`) in `func` is a prefetch
/// to write as predicated loads.
pub fn is_predicated_prefetch(func: &Function, then_block: &Block) -> bool {
    func.kind == FunctionKind::Kernel && Prefetch { func }.prefetch_block(then_block)
}

struct Prefetch<'f> {
    func: &'f Function,
}

impl Prefetch<'_> {
    /// Whether every statement of `block` copies a slice parameter's element into a
    /// local, possibly inside literal `for` loops.
    pub fn prefetch_block(&self, block: &Block) -> bool {
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
