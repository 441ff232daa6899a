//! `num_complex::Complex<f32>` / `Complex<f64>` in kernels: a built-in two-field
//! struct (`ir::layout::complex_def`, laid out as num-complex's `#[repr(C)]`), whose
//! arithmetic and methods the frontend expands to scalar math with num-complex's own
//! formulas (its 0.4 source: `Mul`, `Div` through `norm_sqr`, `exp` with its corner
//! cases, `sqrt` by cases, `powf` through polar form, `norm` as `hypot`). Each
//! expansion binds its operands to fresh locals once and lowers a template written in
//! the kernel subset itself, so both backends see only scalars and struct fields.

use super::infer::{StructTy, Ty, VarKind};
use super::lower_fn::FnLowerer;
use crate::diag::Diagnostic;
use crate::ir::layout::{complex_def, complex_elem};
use crate::ir::{self, BinaryOp, Handle, ScalarType};
use proc_macro2::{Span, TokenStream};
use std::sync::Arc;
use syn::spanned::Spanned;

/// The path's segments without a leading `num_complex::` or `cudajit::`.
fn complex_segments(path: &syn::Path) -> Vec<&syn::PathSegment> {
    let mut segs: Vec<&syn::PathSegment> = path.segments.iter().collect();
    if segs.len() > 1
        && matches!(
            segs[0].ident.to_string().as_str(),
            "num_complex" | "cudajit"
        )
    {
        segs.remove(0);
    }
    segs
}

fn known(elem: ScalarType) -> StructTy {
    StructTy::known(&Arc::new(complex_def(elem)))
}

/// The element type a `Complex` segment names: `Complex32`, `Complex64`,
/// `Complex<f32>`; `Ok(None)` for `Complex` without arguments (inferred).
fn elem_of_segment(seg: &syn::PathSegment) -> Result<Option<ScalarType>, Diagnostic> {
    match seg.ident.to_string().as_str() {
        "Complex32" => return Ok(Some(ScalarType::F32)),
        "Complex64" => return Ok(Some(ScalarType::F64)),
        _ => {}
    }
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return Ok(None);
    };
    let elem = match args.args.first() {
        Some(syn::GenericArgument::Type(t)) if args.args.len() == 1 => {
            super::types::scalar_of_type(t)
        }
        _ => None,
    };
    match elem {
        Some(s @ (ScalarType::F32 | ScalarType::F64)) => Ok(Some(s)),
        _ => Err(Diagnostic::new(
            args.args.first().map_or(args.span(), |a| a.span()),
            format!(
                "`Complex<{}>` is not supported in kernels",
                quote::ToTokens::to_token_stream(&args.args)
                    .to_string()
                    .replace(' ', "")
            ),
        )
        .with_hint("kernels compute with `Complex<f32>` and `Complex<f64>`")),
    }
}

/// `Complex<f32>`, `num_complex::Complex<f64>`, `Complex32` as a type, if the path
/// names num-complex's type.
pub fn complex_of_path(path: &syn::Path) -> Result<Option<StructTy>, Diagnostic> {
    let segs = complex_segments(path);
    let [seg] = segs.as_slice() else {
        return Ok(None);
    };
    if !matches!(
        seg.ident.to_string().as_str(),
        "Complex" | "Complex32" | "Complex64"
    ) {
        return Ok(None);
    }
    match elem_of_segment(seg)? {
        Some(elem) => Ok(Some(known(elem))),
        None => Err(Diagnostic::new(
            seg.ident.span(),
            "`Complex` needs its element type in kernels",
        )
        .with_hint("write `Complex<f32>` or `Complex<f64>`")),
    }
}

impl FnLowerer<'_> {
    /// The element type of a complex value's type.
    pub(super) fn complex_elem_of(&mut self, h: Handle<ir::Expr>) -> Option<ScalarType> {
        let ty = self.ty_of(h);
        match self.table.shallow(&ty) {
            Ty::Struct(StructTy { def: Some(def), .. }) => complex_elem(&def),
            _ => None,
        }
    }

    /// Binds `operands` to fresh locals `A`, `B`, ... and lowers `template` (with `T`
    /// the element type) over them, as one block expression.
    fn expand(
        &mut self,
        elem: ScalarType,
        operands: &[Handle<ir::Expr>],
        template: &str,
        span: Span,
    ) -> Handle<ir::Expr> {
        let text = template.replace('T', elem.rust_name());
        let tokens: TokenStream = text.parse().expect("complex template tokenizes");
        let expr: syn::Expr = syn::parse2(super::mma::instantiate(tokens, None, span))
            .expect("complex template parses");
        let names = ["__cudajit_A", "__cudajit_B", "__cudajit_E"];
        let bound: Vec<(&str, Handle<ir::Expr>)> =
            names.into_iter().zip(operands.iter().copied()).collect();
        self.lower_with_bindings(&bound, &expr, span)
    }

    /// `Complex::new(re, im)` (also `Complex::<f32>::new`, `Complex32::new`,
    /// `num_complex::Complex::new`); `None` if `call` is no such call.
    pub(super) fn try_lower_complex_new(
        &mut self,
        call: &syn::ExprCall,
    ) -> Option<Handle<ir::Expr>> {
        let syn::Expr::Path(func) = &*call.func else {
            return None;
        };
        let segs = complex_segments(&func.path);
        let [ty, new] = segs.as_slice() else {
            return None;
        };
        if new.ident != "new"
            || !matches!(
                ty.ident.to_string().as_str(),
                "Complex" | "Complex32" | "Complex64"
            )
        {
            return None;
        }
        let span = call.span();
        let args: Vec<_> = call.args.iter().map(|a| self.lower_expr(a)).collect();
        let named = match elem_of_segment(ty) {
            Ok(named) => named,
            Err(d) => {
                self.diags.push(d);
                return Some(self.error_expr(span));
            }
        };
        if args.len() != 2 {
            self.error_hint(
                call.paren_token.span.join(),
                format!(
                    "`Complex::new` takes 2 arguments but {} were supplied",
                    args.len()
                ),
                "write `Complex::new(re, im)`",
            );
            return Some(self.error_expr(span));
        }
        let (re, im) = (self.ty_of(args[0]), self.ty_of(args[1]));
        let elem = match named {
            Some(s) => s,
            None => match self.table.shallow(&re) {
                Ty::Scalar(s @ (ScalarType::F32 | ScalarType::F64)) => s,
                Ty::Error => return Some(self.error_expr(span)),
                // `Complex::new(0.0, 1.0)`: Rust's fallback for an unconstrained float.
                Ty::Var(_) if self.table.var_kind(&re) == Some(VarKind::Float) => ScalarType::F64,
                _ => {
                    let d = self.table.describe(&re);
                    self.error_hint(
                        call.args[0].span(),
                        format!("`Complex::new` takes `f32` or `f64` parts, found `{d}`"),
                        "kernels compute with `Complex<f32>` and `Complex<f64>`",
                    );
                    return Some(self.error_expr(span));
                }
            },
        };
        self.expect_ty(&re, &Ty::Scalar(elem), call.args[0].span());
        self.expect_ty(&im, &Ty::Scalar(elem), call.args[1].span());
        Some(self.push_expr(ir::ExprKind::Tuple(args), Ty::Struct(known(elem)), span))
    }

    /// `a op b` where `a` is complex: num-complex's operators (a complex or, for `*`
    /// and `/`, a real right side), `==`, `!=`.
    pub(super) fn try_complex_binary(
        &mut self,
        op: BinaryOp,
        lhs: Handle<ir::Expr>,
        rhs: Handle<ir::Expr>,
        span: Span,
        op_span: Span,
    ) -> Option<Handle<ir::Expr>> {
        let elem = self.complex_elem_of(lhs)?;
        let real = {
            let rt = self.ty_of(rhs);
            self.table.unify(&rt, &Ty::Scalar(elem)).is_ok()
        };
        let template = match (op, real) {
            (BinaryOp::Add, false) => "Complex::<T>::new(__cudajit_A.re + __cudajit_B.re, __cudajit_A.im + __cudajit_B.im)",
            (BinaryOp::Sub, false) => "Complex::<T>::new(__cudajit_A.re - __cudajit_B.re, __cudajit_A.im - __cudajit_B.im)",
            (BinaryOp::Mul, false) => "Complex::<T>::new(__cudajit_A.re * __cudajit_B.re - __cudajit_A.im * __cudajit_B.im, __cudajit_A.re * __cudajit_B.im + __cudajit_A.im * __cudajit_B.re)",
            (BinaryOp::Div, false) => "{ let n = __cudajit_B.re * __cudajit_B.re + __cudajit_B.im * __cudajit_B.im; Complex::<T>::new((__cudajit_A.re * __cudajit_B.re + __cudajit_A.im * __cudajit_B.im) / n, (__cudajit_A.im * __cudajit_B.re - __cudajit_A.re * __cudajit_B.im) / n) }",
            (BinaryOp::Eq, false) => "__cudajit_A.re == __cudajit_B.re && __cudajit_A.im == __cudajit_B.im",
            (BinaryOp::Ne, false) => "__cudajit_A.re != __cudajit_B.re || __cudajit_A.im != __cudajit_B.im",
            (BinaryOp::Mul, true) => "Complex::<T>::new(__cudajit_A.re * __cudajit_B, __cudajit_A.im * __cudajit_B)",
            (BinaryOp::Div, true) => "Complex::<T>::new(__cudajit_A.re / __cudajit_B, __cudajit_A.im / __cudajit_B)",
            (BinaryOp::Add, true) => "Complex::<T>::new(__cudajit_A.re + __cudajit_B, __cudajit_A.im)",
            (BinaryOp::Sub, true) => "Complex::<T>::new(__cudajit_A.re - __cudajit_B, __cudajit_A.im)",
            _ => {
                let rt = self.ty_of(rhs);
                let r = self.table.describe(&rt);
                self.error_hint(
                    op_span,
                    format!("`Complex<{elem}> {} {r}` is not supported in kernels", op_symbol(op)),
                    format!("complex values take `+ - * /` with a `Complex<{elem}>` or an `{elem}`, `==` and `!=`"),
                );
                return Some(self.error_expr(span));
            }
        };
        if !real {
            let (lt, rt) = (self.ty_of(lhs), self.ty_of(rhs));
            if self.table.unify(&lt, &rt).is_err() {
                let (l, r) = (self.table.describe(&lt), self.table.describe(&rt));
                self.error_hint(
                    op_span,
                    format!("mismatched types: `{l}` {} `{r}`", op_symbol(op)),
                    format!("both sides must be `Complex<{elem}>` (or the right one an `{elem}`)"),
                );
                return Some(self.error_expr(span));
            }
        }
        Some(self.expand(elem, &[lhs, rhs], template, span))
    }

    /// `z.conj()`, `z.norm()`, ... on a complex receiver: num-complex's methods;
    /// `None` if the receiver is not complex.
    pub(super) fn try_complex_method(
        &mut self,
        name: &str,
        recv: Handle<ir::Expr>,
        args: &[&syn::Expr],
        span: Span,
        name_span: Span,
    ) -> Option<Handle<ir::Expr>> {
        let elem = self.complex_elem_of(recv)?;
        let mut operands = vec![recv];
        operands.extend(args.iter().map(|a| self.lower_expr(a)));
        let (arity, template) = match name {
            "conj" => (0, "Complex::<T>::new(__cudajit_A.re, -__cudajit_A.im)"),
            "norm_sqr" => (0, "__cudajit_A.re * __cudajit_A.re + __cudajit_A.im * __cudajit_A.im"),
            "norm" => (0, "__cudajit_A.re.hypot(__cudajit_A.im)"),
            "arg" => (0, "__cudajit_A.im.atan2(__cudajit_A.re)"),
            "inv" => (0, "{ let n = __cudajit_A.re * __cudajit_A.re + __cudajit_A.im * __cudajit_A.im; Complex::<T>::new(__cudajit_A.re / n, -__cudajit_A.im / n) }"),
            "scale" => (1, "Complex::<T>::new(__cudajit_A.re * __cudajit_B, __cudajit_A.im * __cudajit_B)"),
            "unscale" => (1, "Complex::<T>::new(__cudajit_A.re / __cudajit_B, __cudajit_A.im / __cudajit_B)"),
            "exp" => (0, EXP),
            "ln" => (0, "Complex::<T>::new(__cudajit_A.re.hypot(__cudajit_A.im).ln(), __cudajit_A.im.atan2(__cudajit_A.re))"),
            "sqrt" => (0, SQRT),
            "powf" => (1, POWF),
            _ => {
                self.error_hint(
                    name_span,
                    format!("method `{name}` of `Complex<{elem}>` is not supported in kernels"),
                    "supported: `conj`, `norm`, `norm_sqr`, `arg`, `inv`, `scale`, `unscale`, `exp`, `ln`, `sqrt`, `powf`, and the fields `re`, `im`",
                );
                return Some(self.error_expr(span));
            }
        };
        if args.len() != arity {
            self.error(
                name_span,
                format!(
                    "`{name}` takes {arity} argument{} but {} were supplied",
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            );
            return Some(self.error_expr(span));
        }
        if arity == 1 {
            let at = self.ty_of(operands[1]);
            self.expect_ty(&at, &Ty::Scalar(elem), args[0].span());
        }
        Some(self.expand(elem, &operands, template, span))
    }
}

fn op_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Rem => "%",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "^",
        BinaryOp::Shl => "<<",
        BinaryOp::Shr => ">>",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
    }
}

/// num-complex's `exp`: `from_polar(e^re, im)` after its corner cases (an infinite
/// `re` with a zero or non-finite `im`, a NaN `re` with a zero `im`).
const EXP: &str = "{
    let re = __cudajit_A.re;
    let im = __cudajit_A.im;
    let re_inf = !re.is_finite() && !re.is_nan();
    if re_inf && re < 0.0 && !im.is_finite() {
        Complex::<T>::new(0.0, 0.0)
    } else if re_inf && re > 0.0 && (im == 0.0 || !im.is_finite()) {
        if !im.is_finite() && !im.is_nan() { Complex::<T>::new(re, T::NAN) } else { Complex::<T>::new(re, im) }
    } else if re.is_nan() && im == 0.0 {
        __cudajit_A
    } else {
        let r = re.exp();
        Complex::<T>::new(r * im.cos(), r * im.sin())
    }
}";

/// num-complex's `sqrt`: exact on the axes, `from_polar(√r, θ/2)` elsewhere. A sign
/// is read with `copysign` (`is_sign_positive` also for `-0.0` and NaN).
const SQRT: &str = "{
    let re = __cudajit_A.re;
    let im = __cudajit_A.im;
    if im == 0.0 {
        if (1.0 as T).copysign(re) > 0.0 {
            Complex::<T>::new(re.sqrt(), im)
        } else {
            let root = (-re).sqrt();
            if (1.0 as T).copysign(im) > 0.0 { Complex::<T>::new(0.0, root) } else { Complex::<T>::new(0.0, -root) }
        }
    } else if re == 0.0 {
        let x = (im.abs() / 2.0).sqrt();
        if (1.0 as T).copysign(im) > 0.0 { Complex::<T>::new(x, x) } else { Complex::<T>::new(x, -x) }
    } else {
        let r = re.hypot(im).sqrt();
        let theta = im.atan2(re) / 2.0;
        Complex::<T>::new(r * theta.cos(), r * theta.sin())
    }
}";

/// num-complex's `powf`: `1` for a zero exponent, else `from_polar(ρ^e, θ e)`.
const POWF: &str = "{
    if __cudajit_B == 0.0 {
        Complex::<T>::new(1.0, 0.0)
    } else {
        let r = __cudajit_A.re.hypot(__cudajit_A.im).powf(__cudajit_B);
        let theta = __cudajit_A.im.atan2(__cudajit_A.re) * __cudajit_B;
        Complex::<T>::new(r * theta.cos(), r * theta.sin())
    }
}";
