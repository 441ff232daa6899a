//! Reads what the expansion needs: the attribute arguments, and each parameter's name
//! and launcher shape (slice, mutable slice, scalar). Subset and type rules are not
//! checked here (`kernel_device::front::check_item` owns them); only the shapes the
//! launcher cannot be generated for are reported, so an error shows even before the
//! frontend has looked.

use kernel_device::diag::Diagnostic;
use kernel_device::source::SourceKind;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, ToTokens};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

/// `#[kernel(boundscheck = false, fastmath = true)]`.
pub struct Options {
    pub bounds_check: bool,
    pub fast_math: bool,
}

pub fn options(args: TokenStream, kind: SourceKind, errors: &mut Vec<Diagnostic>) -> Options {
    let mut options = Options {
        bounds_check: true,
        fast_math: false,
    };
    if args.is_empty() {
        return options;
    }
    if kind == SourceKind::Device {
        errors.push(
            Diagnostic::new(args.span(), "`#[device]` takes no arguments")
                .with_hint("put `boundscheck`/`fastmath` on the `#[kernel]` that calls it"),
        );
        return options;
    }
    let parser = Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated;
    let list = match parser.parse2(args) {
        Ok(list) => list,
        Err(e) => {
            errors.push(
                Diagnostic::new(e.span(), format!("invalid `#[kernel]` arguments: {e}"))
                    .with_hint("write `#[kernel(boundscheck = false, fastmath = true)]`"),
            );
            return options;
        }
    };
    for pair in list {
        let name = pair
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let slot = match name.as_str() {
            "boundscheck" => &mut options.bounds_check,
            "fastmath" => &mut options.fast_math,
            _ => {
                errors.push(
                    Diagnostic::new(
                        pair.path.span(),
                        format!("unknown `#[kernel]` argument `{}`", pretty(&pair.path)),
                    )
                    .with_hint("the arguments are `boundscheck = bool` and `fastmath = bool`"),
                );
                continue;
            }
        };
        match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(b),
                ..
            }) => *slot = b.value,
            other => errors.push(Diagnostic::new(
                other.span(),
                format!("`{name}` takes `true` or `false`"),
            )),
        }
    }
    options
}

/// How a kernel parameter is passed to `launch`.
pub enum Shape {
    /// `&[T]`: any `SliceArg<'a, T>`.
    Slice(syn::Type),
    /// `&mut [T]`: any `SliceArgMut<'a, T>`.
    SliceMut(syn::Type),
    /// A scalar, by value.
    Scalar(syn::Type),
    /// Already reported; the launcher takes `impl Sized` so nothing else fails.
    Unsupported,
}

pub struct Param {
    pub name: syn::Ident,
    pub shape: Shape,
}

pub const SCALARS: [&str; 13] = [
    "bool", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64",
];

fn is_scalar(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| SCALARS.contains(&i.to_string().as_str())),
        syn::Type::Paren(p) => is_scalar(&p.elem),
        _ => false,
    }
}

/// The kernel's parameters as the launcher sees them. Reports receivers, patterns
/// other than a name, generics and types that cannot cross to the device.
pub fn kernel_params(item: &syn::ItemFn, errors: &mut Vec<Diagnostic>) -> Vec<Param> {
    if !item.sig.generics.params.is_empty() {
        errors.push(
            Diagnostic::new(item.sig.generics.span(), "a `#[kernel]` cannot be generic")
                .with_hint("write one kernel per element type"),
        );
    }
    let mut params = Vec::new();
    for (index, input) in item.sig.inputs.iter().enumerate() {
        let typed = match input {
            syn::FnArg::Typed(typed) => typed,
            syn::FnArg::Receiver(r) => {
                errors.push(Diagnostic::new(
                    r.span(),
                    "a `#[kernel]` cannot take `self`",
                ));
                continue;
            }
        };
        let name = match &*typed.pat {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            other => {
                errors.push(
                    Diagnostic::new(other.span(), "kernel parameters must be plain names")
                        .with_hint("write `name: Type` and destructure in the body"),
                );
                format_ident!("__cudajit_param_{}", index)
            }
        };
        let shape = shape_of(&typed.ty);
        if matches!(shape, Shape::Unsupported) {
            errors.push(
                Diagnostic::new(
                    typed.ty.span(),
                    format!(
                        "unsupported kernel parameter type `{}`",
                        pretty(&typed.ty)
                    ),
                )
                .with_hint(
                    "kernel parameters are scalars (bool, i8..i64, isize, u8..u64, usize, f32, f64), \
                     `&[T]` or `&mut [T]` of a scalar `T`",
                ),
            );
        }
        params.push(Param { name, shape });
    }
    params
}

fn shape_of(ty: &syn::Type) -> Shape {
    match ty {
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(s) if is_scalar(&s.elem) => {
                let elem = (*s.elem).clone();
                if r.mutability.is_some() {
                    Shape::SliceMut(elem)
                } else {
                    Shape::Slice(elem)
                }
            }
            _ => Shape::Unsupported,
        },
        syn::Type::Paren(p) => shape_of(&p.elem),
        ty if is_scalar(ty) => Shape::Scalar(ty.clone()),
        _ => Shape::Unsupported,
    }
}

/// Names of intrinsics: calls to them are not device-function dependencies.
const INTRINSICS: [&str; 7] = [
    "thread_idx",
    "block_idx",
    "block_dim",
    "grid_dim",
    "grid",
    "grid_size",
    "sync_threads",
];

/// Fallback for `front::device_calls` while the frontend lacks it: paths of called
/// functions that are neither intrinsics, local bindings (closures), `Type::assoc`
/// nor `f32::sqrt`-like std paths, deduplicated, in first-call order.
pub fn device_calls_fallback(item: &syn::ItemFn) -> Vec<syn::Path> {
    #[derive(Default)]
    struct Calls {
        calls: Vec<syn::Path>,
        locals: Vec<String>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Calls {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.locals.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                if p.qself.is_none() {
                    self.calls.push(p.path.clone());
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut found = Calls::default();
    syn::visit::Visit::visit_item_fn(&mut found, item);
    let mut seen: Vec<String> = Vec::new();
    let mut deps = Vec::new();
    for path in found.calls {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let first = names[0].as_str();
        let std_like =
            SCALARS.contains(&first) || ["std", "core", "alloc", "Self"].contains(&first);
        let single = names.len() == 1;
        let intrinsic_or_local =
            single && (INTRINSICS.contains(&first) || found.locals.iter().any(|l| l == first));
        let associated = names[..names.len() - 1]
            .iter()
            .any(|n| n.starts_with(|c: char| c.is_ascii_uppercase()));
        let text = path.to_token_stream().to_string();
        if !std_like && !intrinsic_or_local && !associated && !seen.contains(&text) {
            seen.push(text);
            deps.push(path);
        }
    }
    deps
}

/// Token text with the spaces `to_string` puts inside types removed (`Vec<f32>`).
pub fn pretty(tokens: &impl ToTokens) -> String {
    let text = tokens.to_token_stream().to_string();
    text.replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
        .replace(" ,", ",")
        .replace("[ ", "[")
        .replace(" ]", "]")
}

/// Whether `d` is already reported by one of `reported` (their spans overlap), so the
/// user sees each problem once.
pub fn already_reported(d: &Diagnostic, reported: &[Diagnostic]) -> bool {
    let range = |s: Span| {
        let (a, b) = (s.start(), s.end());
        ((a.line, a.column), (b.line, b.column))
    };
    let (d0, d1) = range(d.span);
    reported.iter().any(|r| {
        let (r0, r1) = range(r.span);
        r0 <= d1 && d0 <= r1
    })
}
