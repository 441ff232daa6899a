//! Signatures: qualifiers, generics, parameter and return types, each rejection at
//! its token. Shared by both entry points, and run for every function of a unit before
//! any body so that calls resolve regardless of order.

use super::consts::ConstEnv;
use super::infer::Ty;
use super::types::{lower_type, TypeSite};
use crate::diag::Diagnostic;
use crate::source::SourceKind;
use proc_macro2::Span;
use syn::spanned::Spanned;

/// A checked parameter list and return type.
pub struct SigInfo {
    pub params: Vec<ParamInfo>,
    pub ret: Ty,
    /// Names bound by rejected parameter patterns (`(x, y): (f32, f32)`): declared
    /// with the error type so their uses in the body raise no second error.
    pub poisoned: Vec<(String, Span)>,
}

pub struct ParamInfo {
    pub name: String,
    pub mutable: bool,
    pub ty: Ty,
    pub span: Span,
}

/// Checks a signature: qualifiers, generics, parameter and return types.
pub fn lower_signature(
    sig: &syn::Signature,
    kind: SourceKind,
    env: &ConstEnv,
    diags: &mut Vec<Diagnostic>,
) -> SigInfo {
    let what = match kind {
        SourceKind::Kernel => "kernels",
        SourceKind::Device => "device functions",
    };
    let qualifier = |span: Span, q: &str| {
        Diagnostic::new(span, format!("`{q} fn` is not supported for {what}"))
            .with_hint(format!("remove `{q}`"))
    };
    if let Some(t) = &sig.constness {
        diags.push(qualifier(t.span, "const"));
    }
    if let Some(t) = &sig.asyncness {
        diags.push(qualifier(t.span, "async"));
    }
    if let Some(t) = &sig.unsafety {
        diags.push(qualifier(t.span, "unsafe"));
    }
    if let Some(abi) = &sig.abi {
        diags.push(qualifier(abi.extern_token.span, "extern"));
    }
    if let Some(v) = &sig.variadic {
        diags.push(Diagnostic::new(
            v.span(),
            format!("variadic parameters are not supported for {what}"),
        ));
    }
    if !sig.generics.params.is_empty() {
        diags.push(
            Diagnostic::new(
                sig.generics.params.span(),
                format!("generic parameters are not supported for {what}"),
            )
            .with_hint("write one function per concrete type (e.g. `f32` and `f64` versions)"),
        );
    }
    if let Some(w) = &sig.generics.where_clause {
        diags.push(
            Diagnostic::new(
                w.where_token.span,
                format!("`where` clauses are not supported for {what}"),
            )
            .with_hint("write the function for concrete types"),
        );
    }
    let generic_names: Vec<syn::Ident> = sig
        .generics
        .type_params()
        .map(|t| t.ident.clone())
        .collect();
    let mut params = Vec::new();
    let mut poisoned = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(r) => diags.push(
                Diagnostic::new(
                    r.span(),
                    format!("`self` parameters are not supported: {what} are free functions, not methods"),
                )
                .with_hint("move the function out of the `impl` block and pass what `self` holds as parameters"),
            ),
            syn::FnArg::Typed(pt) => {
                let mut pattern_reported = false;
                let (name, mutable, span) = match plain_binding(&pt.pat) {
                    Ok(binding) => binding,
                    Err(names) => {
                        pattern_reported = true;
                        diags.push(
                            Diagnostic::new(
                                pt.pat.span(),
                                "only plain names are supported as parameter patterns",
                            )
                            .with_hint("write `name: T`"),
                        );
                        poisoned.extend(names);
                        ("_".to_string(), false, pt.pat.span())
                    }
                };
                // A rejected pattern or generic parameter is the one mistake: the type
                // is not checked as well.
                let generic = pattern_reported || mentions_any(&pt.ty, &generic_names);
                let site = match kind {
                    SourceKind::Kernel => TypeSite::Param,
                    SourceKind::Device => TypeSite::DeviceParam,
                };
                let ty = match lower_type(&pt.ty, site, env, &mut || Ty::Error) {
                    // Already reported as a generic parameter.
                    _ if generic => Ty::Error,
                    Ok(ty) => ty,
                    Err(d) => {
                        diags.push(d);
                        Ty::Error
                    }
                };
                params.push(ParamInfo {
                    name,
                    mutable,
                    ty,
                    span,
                });
            }
        }
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => Ty::Unit,
        syn::ReturnType::Type(_, ty) => {
            let is_unit = matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty());
            if kind == SourceKind::Kernel && !is_unit {
                diags.push(
                    Diagnostic::new(ty.span(), "a kernel cannot return a value")
                        .with_hint("write results into a `&mut [T]` parameter; `#[device]` functions may return values"),
                );
                Ty::Error
            } else if mentions_any(ty, &generic_names) {
                Ty::Error
            } else {
                match lower_type(ty, TypeSite::Return, env, &mut || Ty::Error) {
                    Ok(ty) => ty,
                    Err(d) => {
                        diags.push(d);
                        Ty::Error
                    }
                }
            }
        }
    };
    SigInfo {
        params,
        ret,
        poisoned,
    }
}

/// `name`, `mut name` or `_` as (name, mutable, span). Any other pattern is outside
/// the subset: the error is the names it binds, to be declared with the error type by
/// the caller so their uses raise no second diagnostic.
pub fn plain_binding(pat: &syn::Pat) -> Result<(String, bool, Span), Vec<(String, Span)>> {
    match pat {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Ok((
            pi.ident.to_string(),
            pi.mutability.is_some(),
            pi.ident.span(),
        )),
        syn::Pat::Wild(w) => Ok(("_".to_string(), false, w.span())),
        other => {
            let mut names = Vec::new();
            bound_names(other, &mut names);
            Err(names)
        }
    }
}

/// The identifiers a pattern binds, in order.
fn bound_names(pat: &syn::Pat, out: &mut Vec<(String, Span)>) {
    match pat {
        syn::Pat::Ident(pi) => {
            out.push((pi.ident.to_string(), pi.ident.span()));
            if let Some((_, sub)) = &pi.subpat {
                bound_names(sub, out);
            }
        }
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| bound_names(p, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|p| bound_names(p, out)),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|p| bound_names(p, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| bound_names(&f.pat, out)),
        syn::Pat::Reference(r) => bound_names(&r.pat, out),
        syn::Pat::Type(t) => bound_names(&t.pat, out),
        syn::Pat::Paren(p) => bound_names(&p.pat, out),
        syn::Pat::Or(o) => {
            if let Some(first) = o.cases.first() {
                bound_names(first, out);
            }
        }
        _ => {}
    }
}

/// Whether `ty` names any of `names` (a generic parameter, already reported).
pub fn mentions_any(ty: &syn::Type, names: &[syn::Ident]) -> bool {
    struct Finder<'n> {
        names: &'n [syn::Ident],
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
        fn visit_ident(&mut self, ident: &'ast syn::Ident) {
            self.found |= self.names.iter().any(|n| n == ident);
        }
    }
    let mut finder = Finder {
        names,
        found: false,
    };
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.found
}
