//! Built-ins: calls of the intrinsics in `proc::intrinsics` (`thread_idx().x`,
//! `grid(2)`, `sync_threads()`, typed calls such as atomics, by their signatures) and
//! scalar constants (`f32::MAX`, `std::f32::consts::PI`). The methods on scalars are
//! in `proc::methods`.

use super::infer::{Ty, VarKind};
use super::lower_fn::FnLowerer;
use crate::ir::{self, Axis, Handle, Intrinsic, Literal, ScalarType};
pub use crate::proc::intrinsics::is_intrinsic_name;
use crate::proc::intrinsics::{self as table, Form, IntrinsicDef, Param, Ret};
pub use crate::proc::methods::{method, Method};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// The intrinsic a called path names: `grid`, `cudajit::grid`, `device_api::grid`
/// (only `shared_array` takes a type argument: `shared_array::<[f32; 256]>`).
pub fn intrinsic_of_path(path: &syn::Path) -> Option<String> {
    let last = path.segments.last()?;
    let name = last.ident.to_string();
    // async copies: `cp_async::<16>`, `cp_async_wait::<1>` take a constant.
    // Hopper: wgmma (`setmaxnreg_inc::<240>`)
    let takes_type = table::memory_by_name(&name).is_some()
        || super::async_copy::is_async_call(&name)
        || super::setmaxnreg::is_setmaxnreg_call(&name)
        // Hopper: TMA (`bulk_wait_group_read::<0>`)
        || name == "bulk_wait_group_read";
    if !is_intrinsic_name(&name) || (!last.arguments.is_none() && !takes_type) {
        return None;
    }
    let first = path.segments.first()?.ident.to_string();
    let prefixed = matches!(first.as_str(), "cudajit" | "kernel_device" | "device_api");
    (path.segments.len() == 1 || prefixed).then_some(name)
}

/// The `T` of `name::<T>` on a path's last segment (`None` without one); anything
/// else (lifetimes, several types, `name::<T>` on an earlier segment) is reported.
pub fn single_type_argument(
    path: &syn::Path,
) -> Result<Option<&syn::Type>, crate::diag::Diagnostic> {
    let count = path.segments.len();
    for (i, seg) in path.segments.iter().enumerate() {
        match &seg.arguments {
            syn::PathArguments::None => {}
            syn::PathArguments::AngleBracketed(a) if i + 1 == count => {
                let mut types = a.args.iter().filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                });
                match (types.next(), types.next(), a.args.len()) {
                    (Some(t), None, 1) => return Ok(Some(t)),
                    _ => {
                        return Err(crate::diag::Diagnostic::new(
                            a.span(),
                            "`shared_array` takes exactly one type argument: the array type",
                        )
                        .with_hint("write `shared_array::<[f32; 256]>()`"))
                    }
                }
            }
            other => {
                return Err(crate::diag::Diagnostic::new(
                    other.span(),
                    "generic arguments are not supported here",
                )
                .with_hint("write `shared_array::<[f32; 256]>()`"))
            }
        }
    }
    Ok(None)
}

// Hopper: TMA
/// `shared_array_aligned::<A, ALIGN>()`'s arguments: the array type (`None` for `_`,
/// inferred from the use) and the alignment, an integer literal that
/// `proc::tma::check_shared_align` accepts.
pub fn type_and_alignment_arguments(
    path: &syn::Path,
) -> Result<(Option<&syn::Type>, u32), crate::diag::Diagnostic> {
    const HINT: &str = "write `shared_array_aligned::<[bf16; 4096], 1024>()`";
    let last = path.segments.last().expect("a path has a segment");
    let wrong = |span: Span, message: String| {
        Err(crate::diag::Diagnostic::new(span, message).with_hint(HINT))
    };
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return wrong(
            last.span(),
            "`shared_array_aligned` takes the array type and the alignment in bytes".into(),
        );
    };
    let args: Vec<&syn::GenericArgument> = a.args.iter().collect();
    let [syn::GenericArgument::Type(array), align] = args[..] else {
        return wrong(
            a.span(),
            "`shared_array_aligned` takes exactly two generic arguments: the array type and the alignment in bytes".into(),
        );
    };
    let literal = match align {
        syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        })) => Some(i),
        syn::GenericArgument::Const(syn::Expr::Block(b)) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }),
                None,
            )] => Some(i),
            _ => None,
        },
        _ => None,
    };
    let Some(value) = literal.and_then(|i| i.base10_parse::<u64>().ok()) else {
        return wrong(
            align.span(),
            "the alignment of `shared_array_aligned` must be an integer literal".into(),
        );
    };
    if let Err(message) = crate::proc::tma::check_shared_align(value) {
        return wrong(align.span(), message);
    }
    let array = match array {
        syn::Type::Infer(_) => None,
        t => Some(t),
    };
    Ok((array, value as u32))
}

const AXES: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

fn axis_of(name: &str) -> Option<Axis> {
    match name {
        "x" => Some(Axis::X),
        "y" => Some(Axis::Y),
        "z" => Some(Axis::Z),
        _ => None,
    }
}

/// A scalar constant path → its literal and type.
pub fn constant(path: &syn::Path) -> Option<(Literal, ScalarType)> {
    let mut segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    if segs.len() > 2 && matches!(segs[0].as_str(), "std" | "core") {
        segs.remove(0);
    }
    if segs.len() == 3 && super::types::half_crate_prefix(&segs[0], &segs[1]) {
        segs.remove(0);
    }
    let (ty, name) = match segs.as_slice() {
        [ty, name] => (ty.as_str(), name.as_str()),
        [ty, consts, name] if consts == "consts" => (ty.as_str(), name.as_str()),
        _ => return None,
    };
    let scalar = ScalarType::from_rust_name(ty)?;
    if scalar.is_half() {
        return super::half::constant(scalar, name).map(|v| (Literal::Float(v), scalar));
    }
    if scalar.is_float() {
        let f32_value = |v32: f32, v64: f64| {
            if scalar == ScalarType::F32 {
                v32 as f64
            } else {
                v64
            }
        };
        use std::f32::consts as c32;
        use std::f64::consts as c64;
        let v = match name {
            "MAX" => f32_value(f32::MAX, f64::MAX),
            "MIN" => f32_value(f32::MIN, f64::MIN),
            "MIN_POSITIVE" => f32_value(f32::MIN_POSITIVE, f64::MIN_POSITIVE),
            "EPSILON" => f32_value(f32::EPSILON, f64::EPSILON),
            "INFINITY" => f64::INFINITY,
            "NEG_INFINITY" => f64::NEG_INFINITY,
            "NAN" => f64::NAN,
            "PI" => f32_value(c32::PI, c64::PI),
            "TAU" => f32_value(c32::TAU, c64::TAU),
            "E" => f32_value(c32::E, c64::E),
            "SQRT_2" => f32_value(c32::SQRT_2, c64::SQRT_2),
            "LN_2" => f32_value(c32::LN_2, c64::LN_2),
            "LN_10" => f32_value(c32::LN_10, c64::LN_10),
            "LOG2_E" => f32_value(c32::LOG2_E, c64::LOG2_E),
            "LOG10_E" => f32_value(c32::LOG10_E, c64::LOG10_E),
            "LOG2_10" => f32_value(c32::LOG2_10, c64::LOG2_10),
            "LOG10_2" => f32_value(c32::LOG10_2, c64::LOG10_2),
            "FRAC_PI_2" => f32_value(c32::FRAC_PI_2, c64::FRAC_PI_2),
            "FRAC_PI_3" => f32_value(c32::FRAC_PI_3, c64::FRAC_PI_3),
            "FRAC_PI_4" => f32_value(c32::FRAC_PI_4, c64::FRAC_PI_4),
            "FRAC_PI_6" => f32_value(c32::FRAC_PI_6, c64::FRAC_PI_6),
            "FRAC_PI_8" => f32_value(c32::FRAC_PI_8, c64::FRAC_PI_8),
            "FRAC_1_PI" => f32_value(c32::FRAC_1_PI, c64::FRAC_1_PI),
            "FRAC_2_PI" => f32_value(c32::FRAC_2_PI, c64::FRAC_2_PI),
            "FRAC_2_SQRT_PI" => f32_value(c32::FRAC_2_SQRT_PI, c64::FRAC_2_SQRT_PI),
            "FRAC_1_SQRT_2" => f32_value(c32::FRAC_1_SQRT_2, c64::FRAC_1_SQRT_2),
            _ => return None,
        };
        return Some((Literal::Float(v), scalar));
    }
    if !scalar.is_integer() {
        return None;
    }
    let bits = scalar.bits();
    let value: u64 = match name {
        "BITS" => return Some((Literal::Int(bits as u64), ScalarType::U32)),
        "MAX" if scalar.is_signed_integer() => (1u64 << (bits - 1)) - 1,
        "MAX" => {
            if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            }
        }
        // Two's complement, sign-extended to 64 bits (see `ir::Literal::Int`).
        "MIN" if scalar.is_signed_integer() => (1u64 << (bits - 1)).wrapping_neg(),
        "MIN" => 0,
        _ => return None,
    };
    Some((Literal::Int(value), scalar))
}

impl FnLowerer<'_> {
    /// `thread_idx().x` and friends as one intrinsic read.
    pub fn lower_dim_field(&mut self, f: &syn::ExprField) -> Option<Handle<ir::Expr>> {
        let mut base = &*f.base;
        while let syn::Expr::Paren(p) = base {
            base = &p.expr;
        }
        let syn::Expr::Call(call) = base else {
            return None;
        };
        let syn::Expr::Path(p) = &*call.func else {
            return None;
        };
        let def = table::by_name(&intrinsic_of_path(&p.path)?)?;
        if def.form != Form::DimField || !call.args.is_empty() {
            return None;
        }
        let syn::Member::Named(member) = &f.member else {
            return None;
        };
        let axis = axis_of(&member.to_string())?;
        let intrinsic = table::on_axis(def.intrinsic, axis);
        Some(self.push_expr(
            ir::ExprKind::Intrinsic {
                intrinsic,
                args: Vec::new(),
            },
            Ty::U32,
            f.span(),
        ))
    }

    pub fn lower_intrinsic_call(&mut self, name: &str, call: &syn::ExprCall) -> Handle<ir::Expr> {
        let span = call.span();
        let Some(def) = table::by_name(name) else {
            return self.error_expr(span);
        };
        // async copies
        if super::async_copy::is_async_call(name) {
            return self.lower_async_call(name, call);
        }
        // Hopper: wgmma
        if super::setmaxnreg::is_setmaxnreg_call(name) {
            return self.lower_setmaxnreg_call(name, call);
        }
        // Hopper: TMA
        if super::tma::is_tma_call(name) {
            return self.lower_tma_call(name, call);
        }
        match def.form {
            // async copies
            Form::Method => {
                for a in &call.args {
                    self.lower_expr(a);
                }
                self.error_hint(
                    span,
                    format!("`{name}` is a method of slices and arrays"),
                    format!("write `slice.{name}::<4>(..)`"),
                );
                self.error_expr(span)
            }
            Form::Call if !def.sig.params.is_empty() => self.lower_typed_call(def, call),
            Form::Call | Form::DimField => {
                if let Some(arg) = call.args.first() {
                    for a in &call.args {
                        self.lower_expr(a);
                    }
                    self.error_hint(
                        arg.span(),
                        format!("`{name}` takes no arguments"),
                        format!("write `{name}()`"),
                    );
                    return self.error_expr(span);
                }
                if def.form == Form::DimField {
                    return self.axis_tuple(def, 3, Ty::U32, span);
                }
                let ty = self.ty_of_ret(def, None);
                self.push_expr(
                    ir::ExprKind::Intrinsic {
                        intrinsic: def.intrinsic,
                        args: Vec::new(),
                    },
                    ty,
                    span,
                )
            }
            Form::GridLiteral => {
                let dim = match (call.args.len(), call.args.first()) {
                    (
                        1,
                        Some(syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(i),
                            ..
                        })),
                    ) => i.base10_parse::<u64>().ok().filter(|n| (1..=3).contains(n)),
                    _ => None,
                };
                let Some(dim) = dim else {
                    let at = call.args.first().map(|a| a.span()).unwrap_or(span);
                    self.error_hint(
                        at,
                        format!("the dimension of `{name}` must be the literal 1, 2 or 3"),
                        format!("write `{name}(1)`, `{name}(2)` or `{name}(3)`"),
                    );
                    return self.error_expr(span);
                };
                self.axis_tuple(def, dim as usize, Ty::USIZE, span)
            }
        }
    }

    /// The inference type of a row's result, given its `T`.
    fn ty_of_ret(&mut self, def: &IntrinsicDef, t: Option<Ty>) -> Ty {
        match def.sig.ret {
            Ret::Unit => Ty::Unit,
            Ret::Scalar(s) => Ty::Scalar(s),
            Ret::T => t.unwrap_or(Ty::Error),
            Ret::Bits => match t.map(|t| self.table.shallow(&t)) {
                Some(Ty::Scalar(s)) => Ty::Scalar(table::bits_of(s)),
                _ => Ty::Error,
            },
            Ret::Tuple(items) => Ty::Tuple(items.iter().map(|s| Ty::Scalar(*s)).collect()),
            Ret::DynamicShared => Ty::DynamicShared,
            // async copies: typed by `lower_vector_access`.
            Ret::ArrayOfT => Ty::Error,
        }
    }

    /// A call typed by its row's signature: fixed parameters are expected as such; the
    /// type parameter `T` is taken from the first `&mut [T]` (so `atomic_add(hist, i, 1)`
    /// types the literal from the slice), else from the first `T` operand, and must be
    /// one of the row's types.
    fn lower_typed_call(&mut self, def: &IntrinsicDef, call: &syn::ExprCall) -> Handle<ir::Expr> {
        let span = call.span();
        let name = def.name;
        let mut args: Vec<Handle<ir::Expr>> =
            call.args.iter().map(|a| self.lower_expr(a)).collect();
        let params = def.sig.params;
        // tensor cores: a tile known to be outside shared memory is a compile error.
        if matches!(
            def.intrinsic,
            Intrinsic::Ldmatrix { .. } | Intrinsic::Stmatrix { .. }
            // Hopper: wgmma
            | Intrinsic::Wgmma(crate::ir::WgmmaOp::Descriptor)
        ) && !args.is_empty()
            && !self.check_matrix_tile_space(name, args[0], call.args[0].span())
        {
            return self.error_expr(span);
        }
        // Hopper: clusters: a peer access reaches another block's shared memory.
        if matches!(def.intrinsic, Intrinsic::Cluster(_))
            && !args.is_empty()
            && !self.check_peer_space(name, args[0], call.args[0].span())
        {
            return self.error_expr(span);
        }
        // Arrays (shared or local) are passed by reference: `&mut [T; N]` → `&mut [T]`.
        for (k, param) in params.iter().enumerate() {
            if let (Param::MutSliceOfT | Param::SliceOfT, Some(arg), Some(expr)) =
                (param, args.get(k).copied(), call.args.iter().nth(k))
            {
                args[k] = self.array_ref_as_slice(arg, expr.span());
            }
        }
        if args.len() != params.len() {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            self.error_hint(
                call.paren_token.span.join(),
                format!(
                    "`{name}` takes {} argument{} but {} argument{} supplied",
                    params.len(),
                    plural(params.len()),
                    args.len(),
                    if args.len() == 1 { " was" } else { "s were" }
                ),
                format!("write `{name}({})`", param_list(def)),
            );
            return self.error_expr(span);
        }
        let mut t: Option<(Ty, Span)> = None;
        let mut failed = false;
        // Slices first: they fix `T` exactly.
        for (k, param) in params.iter().enumerate() {
            // Hopper: clusters: `peer_read` reads through `&[T]` or `&mut [T]`.
            if *param == Param::SliceOfT && matches!(def.intrinsic, Intrinsic::Cluster(_)) {
                let ty = self.ty_of(args[k]);
                match self.table.shallow(&ty) {
                    Ty::Slice { elem, .. } => {
                        t = t.or(Some((Ty::Scalar(elem), call.args[k].span())))
                    }
                    Ty::Error => failed = true,
                    _ => {
                        let d = self.table.describe(&ty);
                        self.error_hint(
                            call.args[k].span(),
                            format!("`{name}` needs a shared slice `&[T]`, found `{d}`"),
                            format!("write `{name}({})`", param_list(def)),
                        );
                        failed = true;
                    }
                }
                continue;
            }
            if *param != Param::MutSliceOfT {
                continue;
            }
            let at = call.args[k].span();
            let ty = self.ty_of(args[k]);
            match self.table.shallow(&ty) {
                Ty::Slice {
                    elem,
                    mutable: true,
                } => t = t.or(Some((Ty::Scalar(elem), at))),
                Ty::Error => failed = true,
                Ty::Var(_) if self.table.var_kind(&ty) == Some(VarKind::Opaque) => failed = true,
                Ty::Slice { elem, .. } => {
                    let why = match def.intrinsic {
                        // Hopper: clusters
                        Intrinsic::Cluster(_) => "a peer write writes the element in the peer's copy of this shared array: pass the array itself (`&mut [T; N]` from `shared_array`)",
                        _ => "an atomic writes the element: take the parameter as `&mut [T]`",
                    };
                    self.error_hint(
                        at,
                        format!("`{name}` needs a `&mut [{elem}]`, found `&[{elem}]`"),
                        why,
                    );
                    failed = true;
                }
                _ => {
                    let d = self.table.describe(&ty);
                    self.error_hint(
                        at,
                        format!("`{name}` needs a mutable slice `&mut [T]`, found `{d}`"),
                        format!("write `{name}({})`", param_list(def)),
                    );
                    failed = true;
                }
            }
        }
        for (k, param) in params.iter().enumerate() {
            let at = call.args[k].span();
            let ty = self.ty_of(args[k]);
            match param {
                // async copies: rows lowered by `front::async_copy`.
                Param::MutSliceOfT | Param::SliceOfT | Param::ArrayOfT => {}
                // Hopper: TMA: rows lowered by `front::tma`.
                Param::TensorMapOfT
                | Param::WritableTensorMapOfT
                | Param::MapCoords
                | Param::Barriers => {}
                Param::Scalar(s) => self.expect_ty(&ty, &Ty::Scalar(*s), at),
                // Only `from_bits` has one, and it is lowered on its own (calls.rs).
                Param::Bits => {}
                Param::T => match &t {
                    Some((tt, _)) => {
                        let tt = tt.clone();
                        self.expect_ty(&ty, &tt, at);
                    }
                    None => t = Some((ty, at)),
                },
            }
        }
        if failed {
            return self.error_expr(span);
        }
        if let Some((tt, at)) = &t {
            let allowed = def.sig.types;
            let ok = match self.table.shallow(tt) {
                Ty::Scalar(s) => allowed.contains(&s),
                Ty::Error => return self.error_expr(span),
                Ty::Var(_) => match self.table.var_kind(tt) {
                    Some(VarKind::Opaque) => true,
                    // Literals default to i32 / f64 (rustc's rule): both must be allowed.
                    Some(VarKind::Int) => allowed.contains(&ScalarType::I32),
                    Some(VarKind::Float) => allowed.contains(&ScalarType::F64),
                    _ => false,
                },
                _ => false,
            };
            if !ok {
                let d = self.table.describe(tt);
                self.error_hint(
                    *at,
                    format!("`{name}` is not available for `{d}`"),
                    format!("`{name}` exists for {}", table::type_list(allowed)),
                );
                return self.error_expr(span);
            }
        }
        let ty = self.ty_of_ret(def, t.map(|(tt, _)| tt));
        self.push_expr(
            ir::ExprKind::Intrinsic {
                intrinsic: def.intrinsic,
                args,
            },
            ty,
            span,
        )
    }

    /// One intrinsic per axis: the value itself for one axis, else a tuple.
    fn axis_tuple(
        &mut self,
        def: &IntrinsicDef,
        count: usize,
        item: Ty,
        span: Span,
    ) -> Handle<ir::Expr> {
        let mut items = Vec::new();
        for axis in AXES.iter().take(count) {
            items.push(self.push_expr(
                ir::ExprKind::Intrinsic {
                    intrinsic: table::on_axis(def.intrinsic, *axis),
                    args: Vec::new(),
                },
                item.clone(),
                span,
            ));
        }
        if count == 1 {
            return items[0];
        }
        let ty = Ty::Tuple(vec![item; count]);
        self.push_expr(ir::ExprKind::Tuple(items), ty, span)
    }
}

/// `a: &mut [T], i: usize, v: T` for hints.
fn param_list(def: &IntrinsicDef) -> String {
    def.sig
        .params
        .iter()
        .map(|p| match p {
            Param::Scalar(s) => s.rust_name().to_string(),
            Param::T => "T".into(),
            Param::MutSliceOfT => "&mut [T]".into(),
            Param::Bits => "bits".into(),
            // async copies
            Param::SliceOfT => "&[T]".into(),
            Param::ArrayOfT => "[T; N]".into(),
            // Hopper: TMA
            Param::TensorMapOfT => "&TensorMap<T, N>".into(),
            Param::WritableTensorMapOfT => "&TensorMapMut<T, N>".into(),
            Param::MapCoords => "[i32; N]".into(),
            Param::Barriers => "&mut [u64]".into(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
