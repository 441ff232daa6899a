//! The math methods on `f16`/`bf16` (`sqrt`, `exp`, `min`, `mul_add`, ...) computed in
//! `f32`: each half operand widened exactly, the `f32` function applied, a half result
//! rounded back once. That is what CUDA's `hsqrt`/`hexp` do where the GPU has no half
//! instruction, and what cudajit's `Float` implementation for the half types does on
//! the host, so both backends only ever see half values in `+ - * / %`, comparisons,
//! negation, casts and memory, except `bf16`'s `min`, `max`, `abs` and `mul_add`
//! ([`bf16_native`]), which the backends compute. Runs on each finished function,
//! types resolved.

use super::infer::Ty;
use crate::ir::{self, ExprKind, Intrinsic, MathFn, ScalarType, Type};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// Rewrites every half-typed math intrinsic of `f` in place (its handle keeps its
/// meaning: parents need no change).
pub fn widen_math(f: &mut ir::Function) {
    for i in 0..f.exprs.len() {
        let h = ir::Handle::new(i);
        let ExprKind::Intrinsic {
            intrinsic: Intrinsic::Math(math),
            args,
        } = &f.exprs[h].kind
        else {
            continue;
        };
        // `to_bits`/`from_bits` are the bit pattern itself.
        if matches!(math, MathFn::ToBits | MathFn::FromBits) {
            continue;
        }
        let (math, args) = (*math, args.clone());
        let half = args
            .iter()
            .find_map(|a| f.exprs[*a].ty.scalar().filter(|s| s.is_half()));
        let Some(half) = half else {
            continue;
        };
        if half == ScalarType::BF16 && bf16_native(math) {
            continue;
        }
        let loc = f.loc_of(h);
        let wide_args = args
            .iter()
            .map(|&a| {
                if f.exprs[a].ty == Type::Scalar(half) {
                    f.add_expr(cast(a, ScalarType::F32), loc)
                } else {
                    a
                }
            })
            .collect();
        let widened = ExprKind::Intrinsic {
            intrinsic: Intrinsic::Math(math),
            args: wide_args,
        };
        if f.exprs[h].ty == Type::Scalar(half) {
            let wide = f.add_expr(
                ir::Expr {
                    kind: widened,
                    ty: Type::Scalar(ScalarType::F32),
                },
                loc,
            );
            f.exprs[h].kind = ExprKind::Cast {
                operand: wide,
                to: half,
            };
        } else {
            f.exprs[h].kind = widened;
        }
    }
}

/// The `bf16` methods sm_80 has an instruction for (`min.bf16`, `max.bf16`,
/// `abs.bf16`, `fma.rn.bf16`), which the backends compute themselves: the NVVM writer
/// natively where the target has them, each backend otherwise exactly as that
/// instruction does (`mul_add` rounded once, not twice through `f32`).
pub fn bf16_native(math: MathFn) -> bool {
    matches!(
        math,
        MathFn::Min | MathFn::Max | MathFn::Abs | MathFn::MulAdd
    )
}

fn cast(operand: ir::Handle<ir::Expr>, to: ScalarType) -> ir::Expr {
    ir::Expr {
        kind: ExprKind::Cast { operand, to },
        ty: Type::Scalar(to),
    }
}

impl super::lower_fn::FnLowerer<'_> {
    /// `f16::from_f32(x)` / `bf16::from_f64(x)`: the `half` crate's conversions, which
    /// round to nearest-even once, as a cast does.
    pub(super) fn lower_half_from(
        &mut self,
        half: ScalarType,
        name: &str,
        call: &syn::ExprCall,
        path_span: Span,
    ) -> ir::Handle<ir::Expr> {
        let span = call.span();
        let args: Vec<_> = call.args.iter().map(|a| self.lower_expr(a)).collect();
        let from = match name {
            "from_f32" => ScalarType::F32,
            "from_f64" => ScalarType::F64,
            _ => {
                self.error_hint(
                    path_span,
                    format!("function `{half}::{name}` is not supported in kernels"),
                    format!("convert with `{half}::from_f32(x)` or `{half}::from_f64(x)`"),
                );
                return self.error_expr(span);
            }
        };
        if args.len() != 1 {
            self.error_hint(
                call.paren_token.span.join(),
                format!(
                    "`{half}::{name}` takes 1 argument but {} were supplied",
                    args.len()
                ),
                format!("write `{half}::{name}(x)`"),
            );
            return self.error_expr(span);
        }
        let at = self.ty_of(args[0]);
        self.expect_ty(&at, &Ty::Scalar(from), call.args[0].span());
        self.push_expr(
            ExprKind::Cast {
                operand: args[0],
                to: half,
            },
            Ty::Scalar(half),
            span,
        )
    }

    /// `x.to_f32()` / `x.to_f64()` on a half value: exact widenings.
    pub(super) fn lower_half_to(
        &mut self,
        half: ScalarType,
        name: &str,
        recv: ir::Handle<ir::Expr>,
        args: &[&syn::Expr],
        span: Span,
        name_span: Span,
    ) -> ir::Handle<ir::Expr> {
        for a in args {
            self.lower_expr(a);
        }
        if !args.is_empty() {
            self.error(name_span, format!("`{half}::{name}` takes no arguments"));
            return self.error_expr(span);
        }
        let to = if name == "to_f32" {
            ScalarType::F32
        } else {
            ScalarType::F64
        };
        self.push_expr(ExprKind::Cast { operand: recv, to }, Ty::Scalar(to), span)
    }
}

/// `f16::MAX`, `bf16::PI`, ...: the `half` crate's associated constants, exactly (the
/// backends round a literal of a half type to it, which these already are).
pub fn constant(half: ScalarType, name: &str) -> Option<f64> {
    macro_rules! consts {
        ($t:ty) => {{
            let v: $t = match name {
                "ZERO" => <$t>::ZERO,
                "ONE" => <$t>::ONE,
                "NEG_ONE" => <$t>::NEG_ONE,
                "NEG_ZERO" => <$t>::NEG_ZERO,
                "MAX" => <$t>::MAX,
                "MIN" => <$t>::MIN,
                "MIN_POSITIVE" => <$t>::MIN_POSITIVE,
                "MIN_POSITIVE_SUBNORMAL" => <$t>::MIN_POSITIVE_SUBNORMAL,
                "MAX_SUBNORMAL" => <$t>::MAX_SUBNORMAL,
                "EPSILON" => <$t>::EPSILON,
                "INFINITY" => <$t>::INFINITY,
                "NEG_INFINITY" => <$t>::NEG_INFINITY,
                "NAN" => <$t>::NAN,
                "E" => <$t>::E,
                "PI" => <$t>::PI,
                "FRAC_1_PI" => <$t>::FRAC_1_PI,
                "FRAC_1_SQRT_2" => <$t>::FRAC_1_SQRT_2,
                "FRAC_2_PI" => <$t>::FRAC_2_PI,
                "FRAC_2_SQRT_PI" => <$t>::FRAC_2_SQRT_PI,
                "FRAC_PI_2" => <$t>::FRAC_PI_2,
                "FRAC_PI_3" => <$t>::FRAC_PI_3,
                "FRAC_PI_4" => <$t>::FRAC_PI_4,
                "FRAC_PI_6" => <$t>::FRAC_PI_6,
                "FRAC_PI_8" => <$t>::FRAC_PI_8,
                "LN_10" => <$t>::LN_10,
                "LN_2" => <$t>::LN_2,
                "LOG10_E" => <$t>::LOG10_E,
                "LOG2_E" => <$t>::LOG2_E,
                "LOG10_2" => <$t>::LOG10_2,
                "LOG2_10" => <$t>::LOG2_10,
                "SQRT_2" => <$t>::SQRT_2,
                _ => return None,
            };
            Some(v.to_f64())
        }};
    }
    match half {
        ScalarType::F16 => consts!(half::f16),
        _ => consts!(half::bf16),
    }
}
