//! Constants: the crate `const`/`static` items a function can read ([`ConstEnv`]),
//! constant expressions (array lengths `TILE + 1`, repeat counts, offline item
//! initialisers: [`eval`]), and [`const_refs`], the names the macro asks rustc to
//! evaluate for it.

use super::intrinsics;
use crate::diag::Diagnostic;
use crate::ir::{ConstValue, Literal, ScalarType, Type};
use crate::proc::consteval::wrap_literal;
use std::collections::HashSet;
use syn::spanned::Spanned;

/// The constants visible to one function.
#[derive(Clone, Debug, Default)]
pub struct ConstEnv {
    pub values: Vec<(String, ConstValue)>,
    /// The `#[derive(DeviceCopy)]` structs the function names, by the name written
    /// (see `structs.rs`); complete or not together with `values`.
    pub structs: Vec<(String, std::sync::Arc<crate::ir::StructDef>)>,
    /// The `#[derive(DeviceCopy)]` enums the function names, likewise (`enums.rs`).
    pub enums: Vec<(String, std::sync::Arc<crate::ir::EnumDef>)>,
    /// Whether `values` holds every constant the body names (run time, offline). At
    /// macro time it is empty and incomplete: a SCREAMING_CASE name is then a crate
    /// constant of unknown value, checked by rustc in the twin.
    pub complete: bool,
}

impl ConstEnv {
    pub fn complete(values: Vec<(String, ConstValue)>) -> ConstEnv {
        ConstEnv {
            values,
            structs: Vec::new(),
            enums: Vec::new(),
            complete: true,
        }
    }

    /// The value of a constant named `name` in the body (`TILE`, `config::TILE`). An
    /// environment built offline from a file's items knows plain names only: a path
    /// then finds the one item of its last segment's name.
    pub fn get(&self, name: &str) -> Option<&ConstValue> {
        // The last first: a body's `const` (pushed after the crate's) shadows them.
        if let Some((_, v)) = self.values.iter().rev().find(|(n, _)| n == name) {
            return Some(v);
        }
        let last = name.rsplit("::").next().filter(|l| l.len() < name.len())?;
        let mut matches = self.values.iter().filter(|(n, _)| n == last);
        match (matches.next(), matches.next()) {
            (Some((_, v)), None) => Some(v),
            _ => None,
        }
    }

    /// Whether `name` is taken to be a crate constant the environment does not know.
    pub fn is_unknown_const(&self, name: &str) -> bool {
        !self.complete && is_const_name(name.rsplit("::").next().unwrap_or(name))
    }
}

/// A path that may name a crate constant (`TILE`, `config::TILE`, `super::N`): no
/// generic arguments, a SCREAMING_CASE last segment, and not a scalar's constant
/// (`f32::MAX`, `std::f32::consts::PI`). Returns its key: the path as written, without
/// spaces.
pub fn const_path_key(path: &syn::Path) -> Option<String> {
    if path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let last = path.segments.last()?.ident.to_string();
    if !is_const_name(&last) || intrinsics::constant(path).is_some() {
        return None;
    }
    let first = path.segments.first()?.ident.to_string();
    if path.segments.len() > 1
        && (matches!(first.as_str(), "std" | "core" | "alloc")
            || ScalarType::from_rust_name(&first).is_some())
    {
        return None;
    }
    Some(
        quote::ToTokens::to_token_stream(path)
            .to_string()
            .replace(' ', ""),
    )
}

/// Rust's naming convention for constants and statics: `TILE`, `N2`, `BLOCK_SIZE`.
pub fn is_const_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether a pattern's lone identifier names a constant (`LIMIT => ..`), as rustc reads
/// a SCREAMING_CASE name in a pattern, rather than binding a new variable.
pub fn names_const_pattern(p: &syn::PatIdent) -> bool {
    p.by_ref.is_none()
        && p.mutability.is_none()
        && p.subpat.is_none()
        && is_const_name(&p.ident.to_string())
}

/// Evaluates a constant expression; `expected` types unsuffixed literals (else `i32`
/// / `f64`, as rustc). `Ok(None)`: it names a constant of unknown value (macro time).
pub fn eval(
    expr: &syn::Expr,
    expected: Option<&Type>,
    env: &ConstEnv,
) -> Result<Option<ConstValue>, Diagnostic> {
    let not_const = |e: &syn::Expr| {
        Diagnostic::new(e.span(), "this is not a constant expression")
            .with_hint("use literals, crate `const` items and arithmetic on them, e.g. `TILE + 1`")
    };
    let expected_scalar = expected.and_then(Type::scalar);
    match expr {
        syn::Expr::Paren(p) => eval(&p.expr, expected, env),
        syn::Expr::Group(g) => eval(&g.expr, expected, env),
        syn::Expr::Lit(l) => literal(&l.lit, expected_scalar).map(Some),
        syn::Expr::Path(p) if p.qself.is_none() => {
            if let (None, Some(key)) = (p.path.get_ident(), const_path_key(&p.path)) {
                if let Some(v) = env.get(&key) {
                    return Ok(Some(v.clone()));
                }
                if env.is_unknown_const(&key) {
                    return Ok(None);
                }
            }
            if let Some(ident) = p.path.get_ident() {
                let name = ident.to_string();
                if let Some(v) = env.get(&name) {
                    return Ok(Some(v.clone()));
                }
                if env.is_unknown_const(&name) {
                    return Ok(None);
                }
                return Err(
                    Diagnostic::new(ident.span(), format!("`{name}` is not a constant")).with_hint(
                        "constants must be crate `const` or `static` items named in UPPER_CASE",
                    ),
                );
            }
            match intrinsics::constant(&p.path) {
                Some((value, ty)) => Ok(Some(ConstValue::Scalar { ty, value })),
                None => Err(not_const(expr)),
            }
        }
        syn::Expr::Cast(c) => {
            let Some(to) = super::types::scalar_of_type(&c.ty) else {
                return Err(not_const(expr));
            };
            let Some(v) = eval(&c.expr, None, env)? else {
                return Ok(None);
            };
            cast(&v, to).map(Some).ok_or_else(|| not_const(expr))
        }
        syn::Expr::Unary(u) => {
            let Some(v) = eval(&u.expr, expected, env)? else {
                return Ok(None);
            };
            let ConstValue::Scalar { ty, value } = v else {
                return Err(not_const(expr));
            };
            let value = match (&u.op, value) {
                (syn::UnOp::Neg(_), Literal::Int(b)) if ty.is_signed_integer() => {
                    Literal::Int(b.wrapping_neg())
                }
                (syn::UnOp::Neg(_), Literal::Float(f)) => Literal::Float(-f),
                (syn::UnOp::Not(_), Literal::Bool(b)) => Literal::Bool(!b),
                (syn::UnOp::Not(_), Literal::Int(b)) => Literal::Int(wrap_literal(ty, !b)),
                _ => return Err(not_const(expr)),
            };
            Ok(Some(ConstValue::Scalar { ty, value }))
        }
        syn::Expr::Binary(b) => {
            let Some(l) = eval(&b.left, expected, env)? else {
                return Ok(None);
            };
            let Some(r) = eval(&b.right, Some(&l.ty()), env)? else {
                return Ok(None);
            };
            binary(&b.op, &l, &r).map(Some).ok_or_else(|| {
                Diagnostic::new(
                    b.op.span(),
                    "this constant expression overflows or is not an integer operation",
                )
                .with_hint(
                    "array lengths and constant tables take integer arithmetic that stays in range",
                )
            })
        }
        syn::Expr::Array(a) => {
            let elem_expected = match expected {
                Some(Type::Array { elem, .. }) => Some((**elem).clone()),
                _ => None,
            };
            let mut items = Vec::new();
            for e in &a.elems {
                let expected = elem_expected
                    .clone()
                    .or_else(|| items.first().map(ConstValue::ty));
                match eval(e, expected.as_ref(), env)? {
                    Some(v) => items.push(v),
                    None => return Ok(None),
                }
            }
            let elem = match (elem_expected, items.first()) {
                (Some(t), _) => t,
                (None, Some(v)) => v.ty(),
                (None, None) => return Err(not_const(expr)),
            };
            Ok(Some(ConstValue::Array { elem, items }))
        }
        syn::Expr::Repeat(r) => {
            let elem_expected = match expected {
                Some(Type::Array { elem, .. }) => Some((**elem).clone()),
                _ => None,
            };
            let Some(v) = eval(&r.expr, elem_expected.as_ref(), env)? else {
                return Ok(None);
            };
            let Some(n) = eval_len(&r.len, env)? else {
                return Ok(None);
            };
            Ok(Some(ConstValue::Array {
                elem: v.ty(),
                items: vec![v; n as usize],
            }))
        }
        _ => Err(not_const(expr)),
    }
}

/// The type of a `const`/`static` item as written (`usize`, `[f32; 5]`,
/// `[[u8; N]; 2]`), if it is one a kernel can read.
pub fn item_type(ty: &syn::Type, env: &ConstEnv) -> Option<Type> {
    match ty {
        syn::Type::Paren(p) => item_type(&p.elem, env),
        syn::Type::Group(g) => item_type(&g.elem, env),
        syn::Type::Array(a) => {
            let elem = item_type(&a.elem, env)?;
            let len = eval_len(&a.len, env).ok()??;
            Some(Type::array(elem, len))
        }
        other => super::types::scalar_of_type(other).map(Type::Scalar),
    }
}

/// An array length or repeat count: a `usize` constant expression. `Ok(None)` when it
/// names a constant of unknown value (macro time).
pub fn eval_len(expr: &syn::Expr, env: &ConstEnv) -> Result<Option<u64>, Diagnostic> {
    let usize_ty = Type::Scalar(ScalarType::Usize);
    let Some(v) = eval(expr, Some(&usize_ty), env).map_err(|d| {
        Diagnostic::new(
            expr.span(),
            format!("{}: an array length must be a constant expression", d.message),
        )
        .with_hint("write a literal or a crate `const`, e.g. `[f32; TILE]` or `[f32; TILE + 1]`; for a size known only at launch use dynamic shared memory")
    })?
    else {
        return Ok(None);
    };
    match v {
        ConstValue::Scalar {
            ty: ScalarType::Usize,
            ..
        } => {}
        other => {
            return Err(Diagnostic::new(
                expr.span(),
                format!(
                    "mismatched types: an array length is a `usize`, found `{}`",
                    other.ty()
                ),
            )
            .with_hint("convert the constant: `N as usize`"))
        }
    }
    match v.as_u64() {
        Some(n) if n <= (1 << 31) => Ok(Some(n)),
        _ => Err(Diagnostic::new(
            expr.span(),
            "this array length is too large for the GPU",
        )),
    }
}

fn literal(lit: &syn::Lit, expected: Option<ScalarType>) -> Result<ConstValue, Diagnostic> {
    let bad = || Diagnostic::new(lit.span(), "this literal cannot be used in a constant here");
    match lit {
        syn::Lit::Bool(b) => Ok(ConstValue::Scalar {
            ty: ScalarType::Bool,
            value: Literal::Bool(b.value),
        }),
        syn::Lit::Int(i) => {
            let suffix = ScalarType::from_rust_name(i.suffix());
            let ty = suffix.or(expected).unwrap_or(ScalarType::I32);
            if ty.is_float() {
                let v = i.base10_parse::<f64>().map_err(|_| bad())?;
                return Ok(ConstValue::Scalar {
                    ty,
                    value: Literal::Float(v),
                });
            }
            let v = i.base10_parse::<u64>().map_err(|_| bad())?;
            Ok(ConstValue::Scalar {
                ty,
                value: Literal::Int(v),
            })
        }
        syn::Lit::Float(f) => {
            let ty = ScalarType::from_rust_name(f.suffix())
                .or(expected.filter(|s| s.is_float()))
                .unwrap_or(ScalarType::F64);
            let v = f.base10_parse::<f64>().map_err(|_| bad())?;
            Ok(ConstValue::Scalar {
                ty,
                value: Literal::Float(v),
            })
        }
        _ => Err(bad()),
    }
}

fn cast(v: &ConstValue, to: ScalarType) -> Option<ConstValue> {
    let ConstValue::Scalar { ty, value } = v else {
        return None;
    };
    let value = match (value, to.is_float()) {
        (Literal::Int(b), false) if to.is_integer() => Literal::Int(wrap_literal(to, *b)),
        (Literal::Int(b), true) if ty.is_signed_integer() => Literal::Float(*b as i64 as f64),
        (Literal::Int(b), true) => Literal::Float(*b as f64),
        (Literal::Float(f), true) => Literal::Float(*f),
        (Literal::Bool(b), false) if to.is_integer() => Literal::Int(*b as u64),
        _ => return None,
    };
    Some(ConstValue::Scalar { ty: to, value })
}

/// Integer (and float) arithmetic of rustc's const evaluation: overflow is an error.
fn binary(op: &syn::BinOp, l: &ConstValue, r: &ConstValue) -> Option<ConstValue> {
    let (ConstValue::Scalar { ty, value: lv }, ConstValue::Scalar { ty: rty, value: rv }) = (l, r)
    else {
        return None;
    };
    if ty != rty && !matches!(op, syn::BinOp::Shl(_) | syn::BinOp::Shr(_)) {
        return None;
    }
    let ty = *ty;
    let value = match (lv, rv) {
        (Literal::Int(a), Literal::Int(b)) => {
            let v = if ty.is_signed_integer() {
                let (a, b) = (*a as i64, *b as i64);
                let v = match op {
                    syn::BinOp::Add(_) => a.checked_add(b)?,
                    syn::BinOp::Sub(_) => a.checked_sub(b)?,
                    syn::BinOp::Mul(_) => a.checked_mul(b)?,
                    syn::BinOp::Div(_) => a.checked_div(b)?,
                    syn::BinOp::Rem(_) => a.checked_rem(b)?,
                    syn::BinOp::BitAnd(_) => a & b,
                    syn::BinOp::BitOr(_) => a | b,
                    syn::BinOp::BitXor(_) => a ^ b,
                    syn::BinOp::Shl(_) => a.checked_shl(u32::try_from(b).ok()?)?,
                    syn::BinOp::Shr(_) => a.checked_shr(u32::try_from(b).ok()?)?,
                    _ => return None,
                } as u64;
                v
            } else {
                let v = match op {
                    syn::BinOp::Add(_) => a.checked_add(*b)?,
                    syn::BinOp::Sub(_) => a.checked_sub(*b)?,
                    syn::BinOp::Mul(_) => a.checked_mul(*b)?,
                    syn::BinOp::Div(_) => a.checked_div(*b)?,
                    syn::BinOp::Rem(_) => a.checked_rem(*b)?,
                    syn::BinOp::BitAnd(_) => a & b,
                    syn::BinOp::BitOr(_) => a | b,
                    syn::BinOp::BitXor(_) => a ^ b,
                    syn::BinOp::Shl(_) => a.checked_shl(u32::try_from(*b).ok()?)?,
                    syn::BinOp::Shr(_) => a.checked_shr(u32::try_from(*b).ok()?)?,
                    _ => return None,
                };
                v
            };
            // Out of the type's range is an overflow, as in rustc's const evaluation.
            if wrap_literal(ty, v) != v {
                return None;
            }
            Literal::Int(v)
        }
        (Literal::Float(a), Literal::Float(b)) => Literal::Float(match op {
            syn::BinOp::Add(_) => a + b,
            syn::BinOp::Sub(_) => a - b,
            syn::BinOp::Mul(_) => a * b,
            syn::BinOp::Div(_) => a / b,
            _ => return None,
        }),
        _ => return None,
    };
    Some(ConstValue::Scalar { ty, value })
}

/// The crate constants `item`'s body names: paths with a SCREAMING_CASE last segment
/// (`TILE`, `config::TILE`) in expressions and types (array lengths,
/// `shared_array::<[f32; TILE]>()`) that no parameter or `let`/`for` pattern of the
/// function binds, as (key, path). Deduplicated, in order; each path keeps its spans so
/// that a name rustc cannot resolve is reported there.
pub fn const_refs(item: &syn::ItemFn) -> Vec<(String, syn::Path)> {
    /// Names bound by patterns; in a refutable pattern (`match` arm, `if let`,
    /// `matches!`) a SCREAMING_CASE name is a constant, not a binding.
    struct Bound(HashSet<String>, bool);
    impl<'ast> syn::visit::Visit<'ast> for Bound {
        // A `const N: usize = 100;` of the body is the body's, not the crate's.
        fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
            self.0.insert(c.ident.to_string());
            syn::visit::visit_item_const(self, c);
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if !(self.1 && names_const_pattern(p)) {
                self.0.insert(p.ident.to_string());
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_arm(&mut self, arm: &'ast syn::Arm) {
            self.1 = true;
            self.visit_pat(&arm.pat);
            self.1 = false;
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            self.1 = true;
            self.visit_pat(&l.pat);
            self.1 = false;
            self.visit_expr(&l.expr);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if let Some(args) = super::lower_match::matches_args(mac) {
                self.1 = true;
                self.visit_pat(&args.pat);
                self.1 = false;
            }
        }
    }
    struct Refs<'b> {
        bound: &'b HashSet<String>,
        /// A generic kernel's type parameters: `T::MAX` is the scalar's constant.
        type_params: HashSet<String>,
        seen: HashSet<String>,
        out: Vec<(String, syn::Path)>,
        /// Inside a refutable pattern (see `Bound`).
        refutable: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Refs<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            let of_type_param = p.path.segments.len() > 1
                && self
                    .type_params
                    .contains(&p.path.segments[0].ident.to_string());
            if p.qself.is_none() && !of_type_param {
                if let Some(key) = const_path_key(&p.path) {
                    if !self.bound.contains(&key) && self.seen.insert(key.clone()) {
                        self.out.push((key, p.path.clone()));
                    }
                }
            }
            syn::visit::visit_expr_path(self, p);
        }
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            // A called path is a function, never a constant.
            if !matches!(&*call.func, syn::Expr::Path(_)) {
                self.visit_expr(&call.func);
            } else if let syn::Expr::Path(p) = &*call.func {
                syn::visit::visit_path(self, &p.path);
            }
            for arg in &call.args {
                self.visit_expr(arg);
            }
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            let key = p.ident.to_string();
            if self.refutable
                && names_const_pattern(p)
                && !self.bound.contains(&key)
                && self.seen.insert(key.clone())
            {
                self.out.push((key, syn::Path::from(p.ident.clone())));
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_arm(&mut self, arm: &'ast syn::Arm) {
            self.refutable = true;
            self.visit_pat(&arm.pat);
            self.refutable = false;
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            self.refutable = true;
            self.visit_pat(&l.pat);
            self.refutable = false;
            self.visit_expr(&l.expr);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if let Some(args) = super::lower_match::matches_args(mac) {
                self.visit_expr(&args.scrutinee);
                self.refutable = true;
                self.visit_pat(&args.pat);
                self.refutable = false;
                if let Some(guard) = &args.guard {
                    self.visit_expr(guard);
                }
            }
            // print
            if let Some(Ok(args)) = super::print::debug_macro_args(mac) {
                args.operands().for_each(|operand| self.visit_expr(operand));
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut bound = Bound(HashSet::new(), false);
    // A const generic parameter (`const N: usize`) is bound by the instantiation.
    for param in item.sig.generics.const_params() {
        bound.0.insert(param.ident.to_string());
    }
    for input in &item.sig.inputs {
        syn::visit::Visit::visit_fn_arg(&mut bound, input);
    }
    syn::visit::Visit::visit_block(&mut bound, &item.block);
    let mut refs = Refs {
        bound: &bound.0,
        type_params: item
            .sig
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect(),
        seen: HashSet::new(),
        out: Vec::new(),
        refutable: false,
    };
    syn::visit::Visit::visit_block(&mut refs, &item.block);
    refs.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> ConstEnv {
        ConstEnv::complete(vec![(
            "TILE".into(),
            ConstValue::Scalar {
                ty: ScalarType::Usize,
                value: Literal::Int(16),
            },
        )])
    }

    #[test]
    fn lengths_are_constant_expressions() {
        let e: syn::Expr = syn::parse_str("TILE + 1").unwrap();
        assert_eq!(eval_len(&e, &env()).unwrap(), Some(17));
        let e: syn::Expr = syn::parse_str("(TILE * 2) << 1").unwrap();
        assert_eq!(eval_len(&e, &env()).unwrap(), Some(64));
        let e: syn::Expr = syn::parse_str("TILE - 17").unwrap();
        assert!(eval_len(&e, &env()).is_err());
        let e: syn::Expr = syn::parse_str("n + 1").unwrap();
        let d = eval_len(&e, &env()).unwrap_err();
        assert!(d.message.contains("constant expression"), "{}", d.message);
        let e: syn::Expr = syn::parse_str("OTHER").unwrap();
        assert_eq!(eval_len(&e, &ConstEnv::default()).unwrap(), None);
    }

    #[test]
    fn tables_take_the_declared_type() {
        let f32_5 = Type::array(Type::Scalar(ScalarType::F32), 5);
        let e: syn::Expr = syn::parse_str("[0.1, 0.2, 0.4, 0.2, -0.1]").unwrap();
        let v = eval(&e, Some(&f32_5), &env()).unwrap().unwrap();
        assert_eq!(v.ty(), f32_5);
        let e: syn::Expr = syn::parse_str("[1u8; TILE]").unwrap();
        let v = eval(&e, None, &env()).unwrap().unwrap();
        assert_eq!(v.ty(), Type::array(Type::Scalar(ScalarType::U8), 16));
    }

    #[test]
    fn const_refs_skip_locals_and_calls() {
        let item: syn::ItemFn = syn::parse_str(
            "fn k(N: usize, a: &mut [f32]) { let M = 2; let t = shared_array::<[f32; TILE + 1]>(); \
             a[0] = TAPS[N] + F(X) as f32 + M as f32; for Q in 0..LIMIT {} }",
        )
        .unwrap();
        let names: Vec<String> = const_refs(&item).into_iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["TILE", "TAPS", "X", "LIMIT"]);
        let item: syn::ItemFn = syn::parse_str(
            "fn k(a: &mut [f32]) { a[0] = config::SCALE * f32::MAX + super::TAPS[1] + std::f32::consts::PI; }",
        )
        .unwrap();
        let names: Vec<String> = const_refs(&item).into_iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["config::SCALE", "super::TAPS"]);
    }
}
