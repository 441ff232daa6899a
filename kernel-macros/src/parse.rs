//! Reads what the expansion needs: the attribute arguments, and each parameter's name
//! and launcher shape (slice, mutable slice, scalar). Subset and type rules are not
//! checked here (`kernel_device::front::check_item` owns them); only the shapes the
//! launcher cannot be generated for are reported, so an error shows even before the
//! frontend has looked.

use kernel_device::diag::Diagnostic;
use kernel_device::ir::FunctionOptions;
use kernel_device::source::SourceKind;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, ToTokens};
use syn::spanned::Spanned;

/// The options of `#[kernel(..)]` (`proc::options` parses them, as the offline scanner
/// does); `#[device]` takes none.
pub fn options(
    args: TokenStream,
    kind: SourceKind,
    errors: &mut Vec<Diagnostic>,
) -> FunctionOptions {
    if kind == SourceKind::Device && !args.is_empty() {
        errors.push(
            Diagnostic::new(args.span(), "`#[device]` takes no arguments").with_hint(
                "put `boundscheck`/`fastmath`/`launch_bounds`/`block_dim` on the `#[kernel]` that calls it",
            ),
        );
        return FunctionOptions::DEFAULT;
    }
    kernel_device::proc::options::parse_kernel_options(args, errors)
}

/// How a kernel parameter is passed to `launch`.
pub enum Shape {
    /// `&[T]`: any `SliceArg<'a, T>`.
    Slice(syn::Type),
    /// `&mut [T]`: any `SliceArgMut<'a, T>`.
    SliceMut(syn::Type),
    /// `&Nd<T, D>` (`mutable: false`, any `NdArg<'a, T, D>`) or `&mut Nd<T, D>` (any
    /// `NdArgMut<'a, T, D>`): `2 + 2 * D` arguments (`proc::abi::nd_parts`).
    Nd {
        elem: syn::Type,
        dims: usize,
        mutable: bool,
    },
    /// A scalar, by value.
    Scalar(syn::Type),
    /// A named type by value (`op: Op`): its `KernelValue` bound, checked by rustc at
    /// the launcher, admits `#[derive(DeviceCopy)]` enums.
    Value(syn::Type),
    // Hopper: TMA
    /// `&TensorMap<T, N>` or (`writable`) `&TensorMapMut<T, N>` (the referenced type as
    /// written): any `&'a TensorMap<T, N>`, two argument slots (`proc::abi`).
    TensorMap { ty: syn::Type, writable: bool },
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

/// The half types (`f16`, `half::bf16`, `cudajit::f16`) and fp8's `e4m3`
/// (`cudajit::e4m3`): a scalar whatever the path.
fn is_half(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let ty = match names.as_slice() {
        [ty] => ty,
        [krate, ty] if krate == "cudajit" && ty == "e4m3" => ty,
        [krate, ty] if matches!(krate.as_str(), "half" | "cudajit") => ty,
        _ => return false,
    };
    matches!(ty.as_str(), "f16" | "bf16" | "e4m3")
        && path.segments.iter().all(|s| s.arguments.is_none())
}

/// A scalar type, or one of the kernel's type parameters (each stands for one).
fn is_scalar(ty: &syn::Type, type_params: &[syn::Ident]) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() && is_half(&p.path) => true,
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| SCALARS.contains(&i.to_string().as_str()) || type_params.contains(i)),
        syn::Type::Paren(p) => is_scalar(&p.elem, type_params),
        _ => false,
    }
}

/// `Complex<f32>`, `Complex<f64>`, `Complex32`, `Complex64` (any other `Complex` is
/// the frontend's error, reported once).
fn is_float_complex(path: &syn::Path) -> bool {
    let Some(last) = path.segments.last() else {
        return false;
    };
    match last.ident.to_string().as_str() {
        "Complex32" | "Complex64" => true,
        "Complex" => match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => {
                a.args.len() == 1
                    && matches!(a.args.first(), Some(syn::GenericArgument::Type(syn::Type::Path(t)))
                        if t.path.is_ident("f32") || t.path.is_ident("f64"))
            }
            _ => false,
        },
        _ => false,
    }
}

/// A struct type (`Body`, `shapes::Body`): its `DeviceElem` bound, checked by rustc at
/// the launcher, says whether it has the derive. num-complex's `Complex<T>` too (its
/// element type is checked by the frontend).
fn is_struct(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            is_float_complex(&p.path)
                || kernel_device::front::structs::struct_path_key(&p.path).is_some()
        }
        syn::Type::Paren(p) => is_struct(&p.elem),
        _ => false,
    }
}

/// The kernel's parameters as the launcher sees them. Reports receivers, patterns
/// other than a name and types that cannot cross to the device.
pub fn kernel_params(
    item: &syn::ItemFn,
    reported: &[Diagnostic],
    errors: &mut Vec<Diagnostic>,
) -> Vec<Param> {
    // A type parameter stands for a scalar (its bound is checked by the frontend).
    let type_params: Vec<syn::Ident> = item
        .sig
        .generics
        .type_params()
        .map(|t| t.ident.clone())
        .collect();
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
                // The pattern is the mistake; its type is not reported as well.
                params.push(Param {
                    name: format_ident!("__cudajit_param_{}", index),
                    shape: Shape::Unsupported,
                });
                continue;
            }
        };
        let shape = shape_of(&typed.ty, &type_params);
        // A type the frontend already rejected inside (`&[char]`) is one mistake,
        // reported once.
        let reported_inside = reported.iter().any(|d| within(d.span, &typed.ty));
        if matches!(shape, Shape::Unsupported) && !reported_inside {
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
                     `&[T]` or `&mut [T]` of a scalar or `#[derive(DeviceCopy)]` struct `T`",
                ),
            );
        }
        params.push(Param { name, shape });
    }
    params
}

fn shape_of(ty: &syn::Type, type_params: &[syn::Ident]) -> Shape {
    match ty {
        syn::Type::Reference(r) => match &*r.elem {
            inner if kernel_device::front::nd::is_nd_type(inner) => {
                match kernel_device::front::nd::nd_elem_and_dims(inner) {
                    // A malformed `Nd` is the frontend's error, reported once.
                    Some(Ok((elem, dims))) => Shape::Nd {
                        elem,
                        dims,
                        mutable: r.mutability.is_some(),
                    },
                    _ => Shape::Unsupported,
                }
            }
            // Hopper: TMA (a malformed map is the frontend's error, reported once)
            syn::Type::Path(p)
                if r.mutability.is_none()
                    && p.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "TensorMap" || s.ident == "TensorMapMut") =>
            {
                Shape::TensorMap {
                    ty: (*r.elem).clone(),
                    writable: p
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "TensorMapMut"),
                }
            }
            syn::Type::Slice(s) if is_scalar(&s.elem, type_params) || is_struct(&s.elem) => {
                let elem = (*s.elem).clone();
                if r.mutability.is_some() {
                    Shape::SliceMut(elem)
                } else {
                    Shape::Slice(elem)
                }
            }
            _ => Shape::Unsupported,
        },
        syn::Type::Paren(p) => shape_of(&p.elem, type_params),
        ty if is_scalar(ty, type_params) => Shape::Scalar(ty.clone()),
        ty if is_struct(ty) => Shape::Value(ty.clone()),
        _ => Shape::Unsupported,
    }
}

pub use kernel_device::diag::pretty;

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

/// The item's tokens without its outer attributes (doc comments included) and its
/// visibility: what `FnSource.text` is printed from.
pub fn without_attrs_and_vis(input: TokenStream) -> TokenStream {
    use proc_macro2::{Delimiter, TokenTree};
    let trees: Vec<TokenTree> = input.into_iter().collect();
    let mut i = 0;
    while let (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g))) =
        (trees.get(i), trees.get(i + 1))
    {
        if p.as_char() != '#' || g.delimiter() != Delimiter::Bracket {
            break;
        }
        i += 2;
    }
    if matches!(trees.get(i), Some(TokenTree::Ident(id)) if id == "pub") {
        i += 1;
        if matches!(trees.get(i), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
        {
            i += 1;
        }
    }
    trees.into_iter().skip(i).collect()
}

/// Whether `span` starts among the tokens of `tokens`.
fn within(span: Span, tokens: &impl ToTokens) -> bool {
    let trees: Vec<_> = tokens.to_token_stream().into_iter().collect();
    let (Some(first), Some(last)) = (trees.first(), trees.last()) else {
        return false;
    };
    let at = |s: Span| (s.start().line, s.start().column);
    let (start, end) = (
        at(first.span()),
        (last.span().end().line, last.span().end().column),
    );
    (start..=end).contains(&at(span))
}

/// The error for an attribute on something other than a `fn` (`#[kernel] struct K;`):
/// names what it is on, at its keyword. Input that is no item at all (a truncated fn)
/// gets syn's reason.
pub fn not_a_fn(kind: SourceKind, input: &TokenStream, error: syn::Error) -> syn::Error {
    let (what, example) = match kind {
        SourceKind::Kernel => (
            "#[kernel]",
            "a kernel is a function, `#[kernel] fn name(a: &[f32], c: &mut [f32]) { .. }`, launched with `launch!(name[grid, block](..))`",
        ),
        SourceKind::Device => (
            "#[device]",
            "a device function is a function kernels call, `#[device] fn name(x: f32) -> f32 { .. }`",
        ),
    };
    if let Ok(item) = syn::parse2::<syn::Item>(input.clone()) {
        if let Some((noun, span)) = item_noun(&item) {
            let message = format!("`{what}` goes on a `fn`, not on {noun}");
            return Diagnostic::new(span, message)
                .with_hint(example)
                .to_syn_error();
        }
    }
    // syn reports a truncated item at the end of input, a place with no token (and an
    // item cut inside `<..>` at no source text at all): point at the last token the
    // user wrote instead.
    let nowhere =
        error.to_string().contains("end of input") || error.span().source_text().is_none();
    let span = match input.clone().into_iter().last() {
        Some(last) if nowhere => last.span(),
        _ => error.span(),
    };
    syn::Error::new(span, format!("`{what}` applies to a `fn` item: {error}"))
}

/// What an item other than a fn is, for a message, and its keyword's span.
fn item_noun(item: &syn::Item) -> Option<(&'static str, Span)> {
    Some(match item {
        syn::Item::Struct(i) => ("a `struct`", i.struct_token.span),
        syn::Item::Enum(i) => ("an `enum`", i.enum_token.span),
        syn::Item::Union(i) => ("a `union`", i.union_token.span),
        syn::Item::Const(i) => ("a `const`", i.const_token.span),
        syn::Item::Static(i) => ("a `static`", i.static_token.span),
        syn::Item::Mod(i) => ("a module", i.mod_token.span),
        syn::Item::Impl(i) => ("an `impl` block", i.impl_token.span),
        syn::Item::Trait(i) => ("a `trait`", i.trait_token.span),
        syn::Item::Type(i) => ("a type alias", i.type_token.span),
        syn::Item::Use(i) => ("a `use` declaration", i.use_token.span),
        syn::Item::ExternCrate(i) => ("an `extern crate`", i.extern_token.span),
        syn::Item::ForeignMod(i) => ("an `extern` block", i.abi.extern_token.span),
        syn::Item::Macro(i) => ("a macro invocation", i.mac.path.span()),
        _ => return None,
    })
}
