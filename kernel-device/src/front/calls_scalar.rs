//! Scalar methods and associated functions (`x.sqrt()`, `f32::sqrt(x)`, `x.min(y)`,
//! `f32::from_bits(u)`): typing their operands and lowering them to intrinsics. The
//! callers in `calls.rs` resolve which method a call names.

use super::infer::{Ty, VarKind};
use super::intrinsics::Method;
use super::lower_fn::FnLowerer;
use crate::ir::{self, Handle, Intrinsic, Literal, ScalarType};
use crate::proc::intrinsics::{bits_of, Param, Ret};
use proc_macro2::Span;
use syn::spanned::Spanned;

impl FnLowerer<'_> {
    /// `f32::from_bits(u32)` / `f64::from_bits(u64)`.
    pub(super) fn lower_from_bits(
        &mut self,
        scalar: ScalarType,
        call: &syn::ExprCall,
        path_span: Span,
    ) -> Handle<ir::Expr> {
        let span = call.span();
        let args = self.lower_args(&call.args);
        if !scalar.is_float() {
            self.error_hint(
                path_span,
                format!("function `{scalar}::from_bits` is not supported in kernels"),
                "`from_bits` exists on `f32` (from `u32`) and `f64` (from `u64`)",
            );
            return self.error_expr(span);
        }
        let bits = Ty::Scalar(bits_of(scalar));
        if args.len() != 1 {
            self.error_hint(
                call.paren_token.span.join(),
                format!(
                    "`{scalar}::from_bits` takes 1 argument but {} were supplied",
                    args.len()
                ),
                format!("write `{scalar}::from_bits(bits)`"),
            );
            return self.error_expr(span);
        }
        let at = self.ty_of(args[0]);
        self.expect_ty(&at, &bits, call.args[0].span());
        self.push_expr(
            ir::ExprKind::Intrinsic {
                intrinsic: Intrinsic::Math(ir::MathFn::FromBits),
                args,
            },
            Ty::Scalar(scalar),
            span,
        )
    }

    /// A supported scalar method applied to `recv` with the remaining `args`.
    pub fn lower_method(
        &mut self,
        name: &str,
        method: Method,
        recv: Handle<ir::Expr>,
        args: &[&syn::Expr],
        span: Span,
        name_span: Span,
    ) -> Handle<ir::Expr> {
        let arg_hs: Vec<Handle<ir::Expr>> = args.iter().map(|a| self.lower_expr(a)).collect();
        let rt = self.ty_of(recv);
        match self.table.shallow(&rt) {
            Ty::Scalar(s) if method.allows(s) => {}
            Ty::Error => return self.error_expr(span),
            Ty::Var(_) => match self.table.var_kind(&rt) {
                Some(VarKind::Opaque) => {}
                Some(kind @ (VarKind::Int | VarKind::Float)) => {
                    let (what, example) = if kind == VarKind::Int {
                        ("{integer}", "i32")
                    } else {
                        ("{float}", "f32")
                    };
                    self.error_hint(
                        name_span,
                        format!("can't call method `{name}` on ambiguous numeric type `{what}`"),
                        format!("you must specify a concrete type for this numeric value, like `{example}`"),
                    );
                    return self.error_expr(span);
                }
                _ => {
                    self.error_hint(
                        name_span,
                        "type annotations needed",
                        "annotate the variable's type: `let x: f32 = ..`",
                    );
                    return self.error_expr(span);
                }
            },
            _ => {
                let d = self.table.describe(&rt);
                self.error_hint(name_span, format!("no method named `{name}` found for type `{d}` in kernels"), "math methods exist on `f32`/`f64`; `abs`, `min`, `max`, `wrapping_*` on integers");
                return self.error_expr(span);
            }
        }
        let arity = method.arity();
        if arg_hs.len() + 1 != arity {
            self.error(
                name_span,
                format!(
                    "`{name}` takes {} argument{} but {} were supplied",
                    arity - 1,
                    if arity == 2 { "" } else { "s" },
                    arg_hs.len()
                ),
            );
            return self.error_expr(span);
        }
        let params = method.signature().params;
        for ((h, e), param) in arg_hs.iter().zip(args.iter()).zip(&params[1..]) {
            let expected = match param {
                Param::Scalar(s) => Ty::Scalar(*s),
                Param::T | Param::MutSliceOfT | Param::Bits => rt.clone(),
                // async copies: no scalar method takes these.
                Param::SliceOfT | Param::ArrayOfT => rt.clone(),
                // Hopper: TMA: no scalar method takes these.
                Param::TensorMapOfT
                | Param::WritableTensorMapOfT
                | Param::MapCoords
                | Param::Barriers => rt.clone(),
            };
            let at = self.ty_of(*h);
            self.expect_ty(&at, &expected, e.span());
        }
        match method {
            Method::Math(f) => {
                let mut all = vec![recv];
                all.extend(arg_hs);
                let ty = match method.signature().ret {
                    Ret::Scalar(s) => Ty::Scalar(s),
                    Ret::Bits => match self.table.shallow(&rt) {
                        Ty::Scalar(s) => Ty::Scalar(bits_of(s)),
                        _ => self.fresh(VarKind::Opaque),
                    },
                    _ => rt,
                };
                self.push_expr(
                    ir::ExprKind::Intrinsic {
                        intrinsic: Intrinsic::Math(f),
                        args: all,
                    },
                    ty,
                    span,
                )
            }
            Method::Wrapping(op) => {
                let rhs = arg_hs[0];
                self.push_expr(ir::ExprKind::Binary { op, lhs: recv, rhs }, rt, span)
            }
            Method::Recip => {
                let one =
                    self.push_expr(ir::ExprKind::Literal(Literal::Float(1.0)), rt.clone(), span);
                self.push_expr(
                    ir::ExprKind::Binary {
                        op: ir::BinaryOp::Div,
                        lhs: one,
                        rhs: recv,
                    },
                    rt,
                    span,
                )
            }
            Method::Scale { degrees } => {
                let is_f32 = self.table.shallow(&rt) == Ty::Scalar(ScalarType::F32);
                // std's own factor, bit for bit: `1.0.to_degrees()` is exactly the
                // constant std multiplies by (for f32 a literal rounded once, not
                // `180 / PI` computed in f32, which is one ulp away).
                let factor = match (degrees, is_f32) {
                    (true, true) => 1.0f32.to_degrees() as f64,
                    (true, false) => 1.0f64.to_degrees(),
                    (false, true) => 1.0f32.to_radians() as f64,
                    (false, false) => 1.0f64.to_radians(),
                };
                let k = self.push_expr(
                    ir::ExprKind::Literal(Literal::Float(factor)),
                    rt.clone(),
                    span,
                );
                self.push_expr(
                    ir::ExprKind::Binary {
                        op: ir::BinaryOp::Mul,
                        lhs: recv,
                        rhs: k,
                    },
                    rt,
                    span,
                )
            }
        }
    }
}
