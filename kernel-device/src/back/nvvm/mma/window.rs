//! 32-bit shared-window addresses of tile elements, for the `.shared` operands of
//! `ldmatrix`, `stmatrix` and `cp.async`: the element index computed in 32 bits, as
//! nvcc computes it from `int` offsets, instead of 64-bit `usize` arithmetic truncated
//! at the end (two SASS instructions per 64-bit add or shift, and a `cvt` per access).
//! The shared window is far smaller than 4 GiB, so the low 32 bits of an in-bounds
//! index are the index, and `+ - * & | ^ <<` give the same low 32 bits computed in
//! 32 bits (wrapping, as the 64-bit operations wrap).

use super::super::state::{FunctionWriter, Val};
use super::super::{types, Error};
use crate::ir::{BinaryOp, Expr, ExprKind, Handle, Literal, ScalarType, Type};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// The low 32 bits of index `h` (already lowered to the 64-bit `wide`), recomputed
    /// in 32 bits when `h` is arithmetic on locals and literals; `trunc wide` when it
    /// reads anything else (re-evaluating a load or a call could see another value).
    pub(in crate::back::nvvm) fn narrow_index(
        &mut self,
        h: Handle<Expr>,
        wide: &str,
    ) -> Result<String, Error> {
        if self.is_pure_integer(h) {
            if let Some(v) = self.narrow(h)? {
                return Ok(v);
            }
        }
        Ok(self.def("index.low", format!("trunc i64 {wide} to i32")))
    }

    /// Whether `h` computes an integer from locals and literals alone, so that
    /// lowering it again gives the same value with no other effect (a division's
    /// check would fail again where it failed first).
    pub(in crate::back::nvvm) fn is_pure_integer(&self, h: Handle<Expr>) -> bool {
        let Ok(expr) = self.ir_expr(h) else {
            return false;
        };
        if !matches!(expr.ty, Type::Scalar(s) if s.is_integer()) {
            return false;
        }
        match &expr.kind {
            ExprKind::Literal(_) | ExprKind::Local(_) => true,
            ExprKind::Binary { lhs, rhs, .. } => {
                self.is_pure_integer(*lhs) && self.is_pure_integer(*rhs)
            }
            ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => {
                self.is_pure_integer(*operand)
            }
            _ => false,
        }
    }

    /// The low 32 bits of the pure 64-bit integer `h` as an `i32`; `None` when `h` is
    /// not a 64-bit integer.
    fn narrow(&mut self, h: Handle<Expr>) -> Result<Option<String>, Error> {
        let expr = self.ir_expr(h)?;
        let Type::Scalar(s) = expr.ty else {
            return Ok(None);
        };
        if s.size_bytes() != 8 {
            return Ok(None);
        }
        let op = match &expr.kind {
            ExprKind::Binary { op, lhs, rhs } => {
                let inst = match op {
                    BinaryOp::Add => "add",
                    BinaryOp::Sub => "sub",
                    BinaryOp::Mul => "mul",
                    BinaryOp::BitAnd => "and",
                    BinaryOp::BitOr => "or",
                    BinaryOp::BitXor => "xor",
                    BinaryOp::Shl => match self.ir_expr(*rhs)?.kind {
                        ExprKind::Literal(Literal::Int(amount)) if amount < 32 => "shl",
                        _ => return self.truncated(h).map(Some),
                    },
                    _ => return self.truncated(h).map(Some),
                };
                Some((inst, *lhs, *rhs))
            }
            ExprKind::Cast { operand, .. } => {
                let from = self.scalar_of(*operand)?;
                if from.is_integer() && from.size_bytes() == 4 {
                    // The 32-bit value is its own low half (zero- or sign-extended).
                    return self.value_of(*operand).map(Some);
                }
                None
            }
            _ => None,
        };
        let Some((inst, lhs, rhs)) = op else {
            return self.truncated(h).map(Some);
        };
        let l = self.narrow(lhs)?;
        let r = match (inst, &self.ir_expr(rhs)?.kind) {
            ("shl", ExprKind::Literal(Literal::Int(amount))) => Some(amount.to_string()),
            _ => self.narrow(rhs)?,
        };
        let (Some(l), Some(r)) = (l, r) else {
            return self.truncated(h).map(Some);
        };
        Ok(Some(self.def("index.low", format!("{inst} i32 {l}, {r}"))))
    }

    /// `h` lowered as written (64 bits) and truncated.
    fn truncated(&mut self, h: Handle<Expr>) -> Result<String, Error> {
        let ty = types::value(self.ty_of(h)?).map_err(|e| self.error(e.0))?;
        let v = self.value_of(h)?;
        Ok(self.def("index.low", format!("trunc {ty} {v} to i32")))
    }

    /// The value of the pure expression `h`, lowered again.
    fn value_of(&mut self, h: Handle<Expr>) -> Result<String, Error> {
        match self.expr(h)? {
            Val::V(v) => Ok(v),
            _ => Err(self.error(format!("index {h:?} has no value"))),
        }
    }

    /// The 32-bit shared-window address of element `index` (an `i32`, in bounds) of
    /// the shared slice whose base is `base`.
    pub(in crate::back::nvvm) fn shared_element_window_address(
        &mut self,
        elem: ScalarType,
        base: &str,
        index: &str,
    ) -> String {
        self.shared_window_element_address(types::scalar_mem(elem), base, index)
    }
}
