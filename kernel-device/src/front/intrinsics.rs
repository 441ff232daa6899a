//! Built-ins: index intrinsics (`thread_idx().x`, `grid(2)`, ...), `sync_threads()`,
//! scalar constants (`f32::MAX`, `std::f32::consts::PI`) and the table of supported
//! methods on scalars (math functions, integer `min`/`max`/`abs`/`wrapping_*`).

use super::infer::Ty;
use super::lower_fn::FnLowerer;
use crate::ir::{self, Axis, BinaryOp, Handle, Intrinsic, Literal, MathFn, ScalarType};
use syn::spanned::Spanned;

const DIM_INTRINSICS: &[&str] = &["thread_idx", "block_idx", "block_dim", "grid_dim"];
const GRID_INTRINSICS: &[&str] = &["grid", "grid_size"];

pub fn is_intrinsic_name(name: &str) -> bool {
    DIM_INTRINSICS.contains(&name) || GRID_INTRINSICS.contains(&name) || name == "sync_threads"
}

/// The intrinsic a called path names: `grid`, `cudajit::grid`, `device_api::grid`.
pub fn intrinsic_of_path(path: &syn::Path) -> Option<String> {
    let last = path.segments.last()?;
    let name = last.ident.to_string();
    if !is_intrinsic_name(&name) || !last.arguments.is_none() {
        return None;
    }
    let first = path.segments.first()?.ident.to_string();
    let prefixed = matches!(first.as_str(), "cudajit" | "kernel_device" | "device_api");
    (path.segments.len() == 1 || prefixed).then_some(name)
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

fn dim_intrinsic(name: &str, axis: Axis) -> Option<Intrinsic> {
    Some(match name {
        "thread_idx" => Intrinsic::ThreadIdx(axis),
        "block_idx" => Intrinsic::BlockIdx(axis),
        "block_dim" => Intrinsic::BlockDim(axis),
        "grid_dim" => Intrinsic::GridDim(axis),
        "grid" => Intrinsic::Grid(axis),
        "grid_size" => Intrinsic::GridSize(axis),
        _ => return None,
    })
}

/// A scalar constant path → its literal and type.
pub fn constant(path: &syn::Path) -> Option<(Literal, ScalarType)> {
    let mut segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    if segs.len() > 2 && matches!(segs[0].as_str(), "std" | "core") {
        segs.remove(0);
    }
    let (ty, name) = match segs.as_slice() {
        [ty, name] => (ty.as_str(), name.as_str()),
        [ty, consts, name] if consts == "consts" => (ty.as_str(), name.as_str()),
        _ => return None,
    };
    let scalar = ScalarType::from_rust_name(ty)?;
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

/// What a supported scalar method lowers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// A math intrinsic; `int` says whether integers have it too.
    Math { f: MathFn, int: bool, float: bool },
    /// `wrapping_add/sub/mul`: plain (wrapping) integer arithmetic.
    Wrapping(BinaryOp),
    /// `recip`: `1.0 / x`.
    Recip,
    /// `to_degrees` / `to_radians`: a multiplication by a constant.
    Scale { degrees: bool },
}

impl Method {
    /// Operands including the receiver.
    pub fn arity(self) -> usize {
        match self {
            Method::Math { f, .. } => f.arity(),
            Method::Wrapping(_) => 2,
            Method::Recip | Method::Scale { .. } => 1,
        }
    }

    pub fn allows(self, s: ScalarType) -> bool {
        match self {
            Method::Math { f: MathFn::Abs, .. } if s.is_integer() => s.is_signed_integer(),
            Method::Math { int, float, .. } => (int && s.is_integer()) || (float && s.is_float()),
            Method::Wrapping(_) => s.is_integer(),
            Method::Recip | Method::Scale { .. } => s.is_float(),
        }
    }
}

pub fn method(name: &str) -> Option<Method> {
    let float = |f| Method::Math {
        f,
        int: false,
        float: true,
    };
    let both = |f| Method::Math {
        f,
        int: true,
        float: true,
    };
    Some(match name {
        "sqrt" => float(MathFn::Sqrt),
        "cbrt" => float(MathFn::Cbrt),
        "sin" => float(MathFn::Sin),
        "cos" => float(MathFn::Cos),
        "tan" => float(MathFn::Tan),
        "asin" => float(MathFn::Asin),
        "acos" => float(MathFn::Acos),
        "atan" => float(MathFn::Atan),
        "atan2" => float(MathFn::Atan2),
        "sinh" => float(MathFn::Sinh),
        "cosh" => float(MathFn::Cosh),
        "tanh" => float(MathFn::Tanh),
        "exp" => float(MathFn::Exp),
        "exp2" => float(MathFn::Exp2),
        "exp_m1" => float(MathFn::ExpM1),
        "ln" => float(MathFn::Ln),
        "log2" => float(MathFn::Log2),
        "log10" => float(MathFn::Log10),
        "ln_1p" => float(MathFn::Ln1p),
        "powf" => float(MathFn::Powf),
        "powi" => float(MathFn::Powi),
        "hypot" => float(MathFn::Hypot),
        "floor" => float(MathFn::Floor),
        "ceil" => float(MathFn::Ceil),
        "round" => float(MathFn::Round),
        "trunc" => float(MathFn::Trunc),
        "mul_add" => float(MathFn::MulAdd),
        "copysign" => float(MathFn::Copysign),
        "signum" => float(MathFn::Signum),
        "abs" => both(MathFn::Abs),
        "min" => both(MathFn::Min),
        "max" => both(MathFn::Max),
        "wrapping_add" => Method::Wrapping(BinaryOp::Add),
        "wrapping_sub" => Method::Wrapping(BinaryOp::Sub),
        "wrapping_mul" => Method::Wrapping(BinaryOp::Mul),
        "recip" => Method::Recip,
        "to_degrees" => Method::Scale { degrees: true },
        "to_radians" => Method::Scale { degrees: false },
        _ => return None,
    })
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
        let name = intrinsic_of_path(&p.path)?;
        if !DIM_INTRINSICS.contains(&name.as_str()) || !call.args.is_empty() {
            return None;
        }
        let syn::Member::Named(member) = &f.member else {
            return None;
        };
        let axis = axis_of(&member.to_string())?;
        let intrinsic = dim_intrinsic(&name, axis)?;
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
        if DIM_INTRINSICS.contains(&name) || name == "sync_threads" {
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
            if name == "sync_threads" {
                return self.push_expr(
                    ir::ExprKind::Intrinsic {
                        intrinsic: Intrinsic::SyncThreads,
                        args: Vec::new(),
                    },
                    Ty::Unit,
                    span,
                );
            }
            return self.axis_tuple(name, 3, Ty::U32, span);
        }
        // grid / grid_size
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
        self.axis_tuple(name, dim as usize, Ty::USIZE, span)
    }

    /// One intrinsic per axis: the value itself for one axis, else a tuple.
    fn axis_tuple(
        &mut self,
        name: &str,
        count: usize,
        item: Ty,
        span: proc_macro2::Span,
    ) -> Handle<ir::Expr> {
        let mut items = Vec::new();
        for axis in AXES.iter().take(count) {
            let Some(intrinsic) = dim_intrinsic(name, *axis) else {
                return self.error_expr(span);
            };
            items.push(self.push_expr(
                ir::ExprKind::Intrinsic {
                    intrinsic,
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
