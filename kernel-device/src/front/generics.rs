//! Generic kernels (`fn axpy<T: Float>(..)`, `fn tile<T: Num, const N: usize>(..)`):
//! the parameters a kernel may declare, and monomorphisation by substitution.
//!
//! A kernel is compiled once per instantiation: the type parameters are replaced in
//! the syntax tree by the instance's scalar types (each replacement keeps the span of
//! the `T` it replaces, so errors and panics still name the user's line), the family
//! traits' constructors (`T::zero()`, `T::from_f64(x)`) become casts, and the const
//! parameters join the constant environment as named constants. Everything after
//! that (inference, validation, both backends) sees an ordinary function. The macro
//! checks a generic kernel the same way, once per representative type of each bound
//! (`Float`: f32 and f64), with the const parameters left as unknown constants, which
//! rustc checks in the twin. The traits themselves live in
//! `device_api::generic`; the names here must match them.

use super::consts::{is_const_name, ConstEnv};
use crate::diag::Diagnostic;
use crate::ir::{ConstValue, Literal, ScalarType};
use crate::source::GenericArg;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use ScalarType as S;

/// The trait bounding a type parameter, and so the scalar types it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Float,
    Int,
    Num,
}

impl Family {
    pub fn from_name(name: &str) -> Option<Family> {
        match name {
            "Float" => Some(Family::Float),
            "Int" => Some(Family::Int),
            "Num" => Some(Family::Num),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::Float => "Float",
            Family::Int => "Int",
            Family::Num => "Num",
        }
    }

    /// Whether `t` implements the trait.
    pub fn contains(self, t: ScalarType) -> bool {
        match self {
            Family::Float => t.is_float(),
            Family::Int => t.is_integer(),
            Family::Num => t.is_float() || t.is_integer(),
        }
    }

    /// The types the macro checks a generic body with: each kind of member once
    /// (float widths, signed and unsigned integers), so an operation that exists for
    /// only some members is found at `cargo check`.
    pub fn representatives(self) -> &'static [ScalarType] {
        match self {
            Family::Float => &[S::F32, S::F64],
            Family::Int => &[S::I32, S::U64],
            Family::Num => &[S::F32, S::I32, S::F64, S::U64],
        }
    }
}

/// One declared generic parameter.
#[derive(Clone, Debug)]
pub enum GenericParam {
    Type { name: syn::Ident, family: Family },
    Const { name: syn::Ident, ty: ScalarType },
}

impl GenericParam {
    pub fn name(&self) -> &syn::Ident {
        match self {
            GenericParam::Type { name, .. } | GenericParam::Const { name, .. } => name,
        }
    }
}

/// The kernel's generic parameters in declaration order; every one outside what
/// kernels support is reported into `diags` (and left out).
pub fn read_params(generics: &syn::Generics, diags: &mut Vec<Diagnostic>) -> Vec<GenericParam> {
    let mut params = Vec::new();
    // `where T: Float` bounds a type parameter as `<T: Float>` does.
    let mut where_bounds: Vec<(syn::Ident, syn::TypeParamBound)> = Vec::new();
    for predicate in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        let bounded = match predicate {
            syn::WherePredicate::Type(p) if p.lifetimes.is_none() => match &p.bounded_ty {
                syn::Type::Path(tp) if tp.qself.is_none() => tp
                    .path
                    .get_ident()
                    .filter(|i| generics.type_params().any(|t| &t.ident == *i))
                    .map(|i| (i.clone(), &p.bounds)),
                _ => None,
            },
            _ => None,
        };
        match bounded {
            Some((name, bounds)) => {
                where_bounds.extend(bounds.iter().map(|b| (name.clone(), b.clone())))
            }
            None => diags.push(
                Diagnostic::new(
                    predicate.span(),
                    "a kernel's `where` clause may only bound its type parameters",
                )
                .with_hint("write `where T: Float`, or the bound in the parameter list"),
            ),
        }
    }
    for param in &generics.params {
        match param {
            syn::GenericParam::Lifetime(l) => diags.push(
                Diagnostic::new(
                    l.span(),
                    "lifetime parameters are not supported for kernels",
                )
                .with_hint("leave the slices' lifetimes elided: `&[T]`, `&mut [T]`"),
            ),
            syn::GenericParam::Type(t) => {
                if let Some(default) = &t.default {
                    diags.push(Diagnostic::new(
                        default.span(),
                        "a kernel's type parameter cannot have a default",
                    ));
                    continue;
                }
                let extra = where_bounds
                    .iter()
                    .filter(|(n, _)| *n == t.ident)
                    .map(|(_, b)| b);
                if let Some(family) = type_param_family(t, extra, diags) {
                    params.push(GenericParam::Type {
                        name: t.ident.clone(),
                        family,
                    });
                }
            }
            syn::GenericParam::Const(c) => {
                let ty = super::types::scalar_of_type(&c.ty).filter(|t| t.is_integer());
                let Some(ty) = ty else {
                    diags.push(
                        Diagnostic::new(
                            c.ty.span(),
                            "a kernel's const parameter must have an integer type",
                        )
                        .with_hint("write `const N: usize`"),
                    );
                    continue;
                };
                if !is_const_name(&c.ident.to_string()) {
                    diags.push(
                        Diagnostic::new(
                            c.ident.span(),
                            format!(
                                "a kernel's const parameter is named in UPPER_CASE, not `{}`",
                                c.ident
                            ),
                        )
                        .with_hint("rename it, e.g. `const N: usize` or `const TILE: usize`"),
                    );
                    continue;
                }
                if let Some(default) = &c.default {
                    diags.push(Diagnostic::new(
                        default.span(),
                        "a kernel's const parameter cannot have a default",
                    ));
                    continue;
                }
                params.push(GenericParam::Const {
                    name: c.ident.clone(),
                    ty,
                });
            }
        }
    }
    params
}

const BOUND_HINT: &str = "bound it by one of cudajit's numeric traits: `T: Float` (f32, f64), \
                          `T: Int` (the integer types) or `T: Num` (both)";

/// The family of `T: Float` (or `cudajit::Float`); anything else is reported.
fn type_param_family<'b>(
    t: &'b syn::TypeParam,
    where_bounds: impl Iterator<Item = &'b syn::TypeParamBound>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Family> {
    let mut family = None;
    for bound in t.bounds.iter().chain(where_bounds) {
        let named = match bound {
            syn::TypeParamBound::Trait(tb)
                if tb.lifetimes.is_none()
                    && matches!(tb.modifier, syn::TraitBoundModifier::None) =>
            {
                tb.path
                    .segments
                    .last()
                    .filter(|s| s.arguments.is_none())
                    .and_then(|s| Family::from_name(&s.ident.to_string()))
            }
            _ => None,
        };
        match (named, family) {
            (Some(f), None) => family = Some(f),
            (Some(_), Some(_)) => {
                diags.push(
                    Diagnostic::new(bound.span(), "a type parameter takes one numeric trait")
                        .with_hint("`Num` covers both `Float` and `Int`"),
                );
                return None;
            }
            (None, _) => {
                diags.push(
                    Diagnostic::new(
                        bound.span(),
                        "only cudajit's numeric traits may bound a kernel's type parameter",
                    )
                    .with_hint(BOUND_HINT),
                );
                return None;
            }
        }
    }
    if family.is_none() {
        diags.push(
            Diagnostic::new(
                t.ident.span(),
                format!("type parameter `{}` has no cudajit numeric bound", t.ident),
            )
            .with_hint(BOUND_HINT),
        );
    }
    family
}

/// The concrete types and constants of one instantiation.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    pub types: Vec<(syn::Ident, ScalarType)>,
    pub consts: Vec<(String, ConstValue)>,
}

impl Bindings {
    /// `T = f32, N = 16`, for messages.
    pub fn describe(&self) -> String {
        let types = self
            .types
            .iter()
            .map(|(n, t)| format!("{n} = {}", t.rust_name()));
        let consts = self.consts.iter().map(|(n, v)| match v {
            ConstValue::Scalar {
                value: Literal::Int(bits),
                ty,
            } if ty.is_signed_integer() => format!("{n} = {}", *bits as i64),
            ConstValue::Scalar {
                value: Literal::Int(bits),
                ..
            } => format!("{n} = {bits}"),
            _ => format!("{n} = ?"),
        });
        types.chain(consts).collect::<Vec<_>>().join(", ")
    }
}

/// Matches an instantiation's arguments against the declared parameters.
pub fn bind(params: &[GenericParam], args: &[GenericArg]) -> Result<Bindings, String> {
    if params.len() != args.len() {
        return Err(format!(
            "the kernel has {} generic parameter(s), the launch gave {}",
            params.len(),
            args.len()
        ));
    }
    let mut bindings = Bindings::default();
    for (param, arg) in params.iter().zip(args) {
        match (param, *arg) {
            (GenericParam::Type { name, family }, GenericArg::Type(t)) => {
                if !family.contains(t) {
                    return Err(format!(
                        "`{}` does not implement `{}` (the bound of `{name}`)",
                        t.rust_name(),
                        family.name()
                    ));
                }
                bindings.types.push((name.clone(), t));
            }
            (GenericParam::Const { name, ty }, GenericArg::Const(v)) => {
                let value = const_value(*ty, v).ok_or_else(|| {
                    format!("{v} does not fit `{name}`'s type `{}`", ty.rust_name())
                })?;
                bindings.consts.push((name.to_string(), value));
            }
            (param, arg) => {
                return Err(format!(
                    "`{arg}` cannot be the argument of generic parameter `{}`",
                    param.name()
                ))
            }
        }
    }
    Ok(bindings)
}

/// `v` as a constant of integer type `ty`, if it fits.
fn const_value(ty: ScalarType, v: i128) -> Option<ConstValue> {
    let bits = ty.bits();
    let (min, max) = if ty.is_signed_integer() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    (min..=max).contains(&v).then(|| ConstValue::Scalar {
        ty,
        value: Literal::Int(v as u64),
    })
}

/// The representative instantiations the macro checks a generic kernel with: the
/// k-th takes each type parameter's k-th representative (cycling), so every
/// representative of every parameter is seen. Const parameters stay unknown.
pub fn representative_bindings(params: &[GenericParam]) -> Vec<Bindings> {
    let rounds = params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type { family, .. } => Some(family.representatives().len()),
            GenericParam::Const { .. } => None,
        })
        .max()
        .unwrap_or(1);
    (0..rounds)
        .map(|k| Bindings {
            types: params
                .iter()
                .filter_map(|p| match p {
                    GenericParam::Type { name, family } => {
                        let reps = family.representatives();
                        Some((name.clone(), reps[k % reps.len()]))
                    }
                    GenericParam::Const { .. } => None,
                })
                .collect(),
            consts: Vec::new(),
        })
        .collect()
}

/// The instantiation that finds literals used as a `T: Float` (`x * 2.0`, which rustc
/// refuses: a literal is never a type parameter): every `Float` parameter as `f16`,
/// which no literal becomes either. `None` without a `Float` parameter.
pub fn literal_bindings(params: &[GenericParam]) -> Option<Bindings> {
    let mut bindings = representative_bindings(params).into_iter().next()?;
    let mut any = false;
    for (name, ty) in &mut bindings.types {
        let float = params.iter().any(
            |p| matches!(p, GenericParam::Type { name: n, family: Family::Float } if n == name),
        );
        if float {
            *ty = S::F16;
            any = true;
        }
    }
    any.then_some(bindings)
}

/// Adds the instantiation's const parameters to a function's constants.
pub fn extend_env(env: &ConstEnv, bindings: &Bindings) -> ConstEnv {
    let mut env = env.clone();
    env.values.extend(bindings.consts.iter().cloned());
    env
}

/// `item` with its generic parameters removed and the type parameters replaced by
/// `bindings`' types (const parameters stay as names, resolved through the
/// environment).
pub fn substitute(item: &syn::ItemFn, bindings: &Bindings) -> syn::ItemFn {
    let mut item = item.clone();
    item.sig.generics = syn::Generics::default();
    let mut substituter = Substituter { bindings };
    substituter.visit_signature_mut(&mut item.sig);
    substituter.visit_block_mut(&mut item.block);
    item
}

/// The associated functions of the numeric traits that become casts: `T::zero()`,
/// `T::one()` and `T::from_<scalar>(x)`.
#[derive(Clone, Copy)]
enum Constructor {
    Literal(u8),
    Cast,
}

fn constructor(name: &str) -> Option<Constructor> {
    match name {
        "zero" => Some(Constructor::Literal(0)),
        "one" => Some(Constructor::Literal(1)),
        _ => name
            .strip_prefix("from_")
            .and_then(ScalarType::from_rust_name)
            .filter(|t| t.is_float() || t.is_integer())
            .map(|_| Constructor::Cast),
    }
}

struct Substituter<'b> {
    bindings: &'b Bindings,
}

impl Substituter<'_> {
    fn bound(&self, ident: &syn::Ident) -> Option<ScalarType> {
        self.bindings
            .types
            .iter()
            .find(|(n, _)| n == ident)
            .map(|(_, t)| *t)
    }

    /// The concrete type of a path `T` (one plain segment naming a type parameter).
    fn param_of_path(&self, path: &syn::Path) -> Option<ScalarType> {
        let first = path.segments.first()?;
        if path.leading_colon.is_some() || !first.arguments.is_none() {
            return None;
        }
        self.bound(&first.ident)
    }
}

fn scalar_ident(t: ScalarType, span: Span) -> syn::Ident {
    syn::Ident::new(t.rust_name(), span)
}

impl VisitMut for Substituter<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none() && p.path.segments.len() == 1 {
                if let Some(t) = self.param_of_path(&p.path) {
                    let ident = scalar_ident(t, p.path.segments[0].ident.span());
                    *ty = syn::parse_quote!(#ident);
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Call(call) = expr {
            if let syn::Expr::Path(func) = &*call.func {
                let segments = &func.path.segments;
                let target = (func.qself.is_none() && segments.len() == 2)
                    .then(|| self.param_of_path(&func.path))
                    .flatten();
                let made = segments
                    .last()
                    .filter(|s| s.arguments.is_none())
                    .and_then(|s| constructor(&s.ident.to_string()));
                if let (Some(t), Some(made)) = (target, made) {
                    let span = call.span();
                    let ident = scalar_ident(t, segments[0].ident.span());
                    let name = segments.last().map(|s| s.ident.to_string());
                    // The half types have no `as`: their own conversions, as the
                    // traits' implementations for them convert (through f64).
                    if t.is_half() {
                        let made: Option<syn::Expr> = match (made, call.args.len()) {
                            (Constructor::Literal(v), 0) => {
                                let lit = syn::LitFloat::new(&format!("{v}.0"), span);
                                Some(syn::parse_quote_spanned!(span=> #ident::from_f64(#lit)))
                            }
                            (Constructor::Cast, 1) => {
                                let mut arg = call.args[0].clone();
                                self.visit_expr_mut(&mut arg);
                                Some(if name.as_deref() == Some("from_f32") {
                                    syn::parse_quote_spanned!(span=> #ident::from_f32(#arg))
                                } else {
                                    syn::parse_quote_spanned!(span=> #ident::from_f64((#arg) as f64))
                                })
                            }
                            _ => None,
                        };
                        if let Some(made) = made {
                            *expr = made;
                            return;
                        }
                    }
                    match (made, call.args.len()) {
                        (Constructor::Literal(v), 0) => {
                            let lit = syn::LitInt::new(&v.to_string(), span);
                            *expr = syn::parse_quote_spanned!(span=> (#lit as #ident));
                            return;
                        }
                        (Constructor::Cast, 1) => {
                            let mut arg = call.args[0].clone();
                            self.visit_expr_mut(&mut arg);
                            *expr = syn::parse_quote_spanned!(span=> ((#arg) as #ident));
                            return;
                        }
                        // A wrong argument count is rustc's error in the twin.
                        _ => {}
                    }
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        // `T::max(a, b)`, `T::EPSILON`: the scalar's own associated items.
        if path.segments.len() > 1 {
            if let Some(t) = self.param_of_path(path) {
                let span = path.segments[0].ident.span();
                path.segments[0].ident = scalar_ident(t, span);
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    // Nested items are rejected by the checker; their parameters are their own.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(text: &str) -> syn::ItemFn {
        syn::parse_str(text).unwrap()
    }

    #[test]
    fn reads_families_and_consts() {
        let f = item("fn k<T: Float, U: cudajit::Int, const N: usize>() {}");
        let mut diags = Vec::new();
        let params = read_params(&f.sig.generics, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        assert!(matches!(
            params[0],
            GenericParam::Type {
                family: Family::Float,
                ..
            }
        ));
        assert!(matches!(
            params[1],
            GenericParam::Type {
                family: Family::Int,
                ..
            }
        ));
        assert!(matches!(
            params[2],
            GenericParam::Const {
                ty: ScalarType::Usize,
                ..
            }
        ));
    }

    #[test]
    fn rejects_unbounded_and_foreign_bounds() {
        for (text, wanted) in [
            ("fn k<T>() {}", "has no cudajit numeric bound"),
            ("fn k<T: Copy>() {}", "only cudajit's numeric traits"),
            ("fn k<T: Float + Int>() {}", "one numeric trait"),
            ("fn k<'a>() {}", "lifetime parameters"),
            ("fn k<const n: usize>() {}", "UPPER_CASE"),
            ("fn k<const N: f32>() {}", "integer type"),
            (
                "fn k<T>() where T: Copy {}",
                "only cudajit's numeric traits",
            ),
            (
                "fn k<T: Float>() where f32: Copy {}",
                "may only bound its type parameters",
            ),
        ] {
            let mut diags = Vec::new();
            read_params(&item(text).sig.generics, &mut diags);
            assert_eq!(diags.len(), 1, "{text}: {diags:?}");
            assert!(diags[0].message.contains(wanted), "{text}: {diags:?}");
        }
    }

    #[test]
    fn where_clauses_bound_like_the_parameter_list() {
        let f = item("fn k<T, const N: usize>() where T: Num {}");
        let mut diags = Vec::new();
        let params = read_params(&f.sig.generics, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        assert!(matches!(
            params[0],
            GenericParam::Type {
                family: Family::Num,
                ..
            }
        ));
    }

    #[test]
    fn binds_and_refuses_mismatches() {
        let f = item("fn k<T: Float, const N: u8>() {}");
        let params = read_params(&f.sig.generics, &mut Vec::new());
        let ok = bind(&params, &[GenericArg::Type(S::F64), GenericArg::Const(255)]).unwrap();
        assert_eq!(ok.describe(), "T = f64, N = 255");
        for args in [
            vec![GenericArg::Type(S::I32), GenericArg::Const(1)],
            vec![GenericArg::Type(S::F32), GenericArg::Const(256)],
            vec![GenericArg::Const(1), GenericArg::Const(1)],
            vec![GenericArg::Type(S::F32)],
        ] {
            assert!(bind(&params, &args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn substitutes_types_constructors_and_paths() {
        let f = item(
            "fn k<T: Float>(x: &mut [T], a: T) { let z: T = T::zero(); \
             let h = T::from_f64(0.5) * T::max(a, T::EPSILON); x[0] = z + h; }",
        );
        let params = read_params(&f.sig.generics, &mut Vec::new());
        let b = bind(&params, &[GenericArg::Type(S::F32)]).unwrap();
        let out = substitute(&f, &b);
        let text = quote::ToTokens::to_token_stream(&out).to_string();
        assert!(!text.contains(" T ") && !text.contains("T ::"), "{text}");
        assert!(text.contains("x : & mut [f32]"), "{text}");
        assert!(text.contains("(0 as f32)"), "{text}");
        assert!(text.contains("((0.5) as f32)"), "{text}");
        assert!(text.contains("f32 :: max (a , f32 :: EPSILON)"), "{text}");
    }

    #[test]
    fn representatives_cover_every_member_kind() {
        let f = item("fn k<T: Num, U: Float>() {}");
        let params = read_params(&f.sig.generics, &mut Vec::new());
        let reps = representative_bindings(&params);
        assert_eq!(reps.len(), 4);
        let ts: Vec<_> = reps.iter().map(|b| b.types[0].1).collect();
        assert_eq!(ts, [S::F32, S::I32, S::F64, S::U64]);
        let us: Vec<_> = reps.iter().map(|b| b.types[1].1).collect();
        assert_eq!(us, [S::F32, S::F64, S::F32, S::F64]);
    }
}
