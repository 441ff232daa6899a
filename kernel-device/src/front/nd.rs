//! N-dimensional array parameters (`a: &Nd<f32, 2>`, `b: &mut Nd<f32, 3>`), lowered
//! here, before the rest of the frontend sees the function, into what it already knows:
//!
//! - the parameter becomes a slice over the span of memory the array covers (`&[T]` /
//!   `&mut [T]`), followed by hidden `usize` / `isize` parameters: the element offset
//!   of index `(0, 0)` in the span, then the shape (one length per axis), then the
//!   strides in elements (signed: a transposed or reversed view has them in any order
//!   and sign). `kernel_host::args` documents this ABI; the launcher fills them in.
//! - `a[(i, j)]` becomes `a[origin + i*s0 + j*s1]` after a per-axis check of each
//!   index against its length (`MathFn::NdAxis`, which panics naming the axis, the
//!   index and the length on both backends): the element is then in the span.
//! - `a.shape()` becomes `[len0, len1]`.
//!
//! The NVVM writer, the simulator and its race detector see slices and integers only.

use super::first_span::FirstSpan;
use crate::diag::Diagnostic;
use crate::proc::abi::NdPart;
use crate::source::SourceKind;
use proc_macro2::Span;
use quote::{format_ident, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// An N-d parameter of the function being lowered.
struct NdParam {
    name: String,
    /// 0 for a rejected `Nd` type (already reported): its uses raise nothing more.
    dims: usize,
    mutable: bool,
    /// `Nd<f32, 2>` as written, for hints.
    written: String,
}

/// The hidden parameter names of `name` (the `__` prefix keeps them from users').
fn origin_name(name: &str, span: Span) -> syn::Ident {
    format_ident!("__nd_{}_origin", name, span = span)
}
fn shape_name(name: &str, axis: usize, span: Span) -> syn::Ident {
    format_ident!("__nd_{}_shape{}", name, axis, span = span)
}
fn stride_name(name: &str, axis: usize, span: Span) -> syn::Ident {
    format_ident!("__nd_{}_stride{}", name, axis, span = span)
}

/// `Nd<T, D>` (also `cudajit::Nd<T, D>`): the element type and the dimension
/// expression, or `None` for any other type.
fn nd_args(ty: &syn::Type) -> Option<(&syn::PathArguments, Span)> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    let prefix_ok = p.path.segments.len() == 1
        || (p.path.segments.len() == 2 && p.path.segments[0].ident == "cudajit");
    (p.qself.is_none() && prefix_ok && last.ident == "Nd")
        .then_some((&last.arguments, ty.first_span()))
}

/// Whether `ty` names `Nd` (for the launcher's and the macro's parameter parsing).
pub fn is_nd_type(ty: &syn::Type) -> bool {
    nd_args(ty).is_some()
}

/// `Nd<T, D>`'s element type and `D`, or the diagnostic for a malformed one.
pub fn nd_elem_and_dims(ty: &syn::Type) -> Option<Result<(syn::Type, usize), Diagnostic>> {
    let (args, span) = nd_args(ty)?;
    let hint = "write `&Nd<T, 2>` or `&Nd<T, 3>` (`&mut` to write); 1-D data is a `&[T]`";
    let syn::PathArguments::AngleBracketed(a) = args else {
        return Some(Err(Diagnostic::new(
            span,
            "`Nd` needs its element type and its number of dimensions",
        )
        .with_hint(hint)));
    };
    let items: Vec<&syn::GenericArgument> = a.args.iter().collect();
    let (elem, dims) = match items.as_slice() {
        [syn::GenericArgument::Type(elem), dims] => (elem.clone(), *dims),
        _ => {
            return Some(Err(Diagnostic::new(
                a.args.span(),
                "`Nd` takes an element type and a number of dimensions",
            )
            .with_hint(hint)))
        }
    };
    let literal = match dims {
        syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        })) => n.base10_parse::<usize>().ok(),
        // `Nd<f32, 2>` may parse its `2` as a type-position literal in some forms.
        _ => None,
    };
    Some(match literal {
        Some(d @ (2 | 3)) => Ok((elem, d)),
        _ => Err(Diagnostic::new(
            dims.span(),
            "kernels take 2-D and 3-D arrays (`Nd<T, 2>`, `Nd<T, 3>`)",
        )
        .with_hint(hint)),
    })
}

/// The first type argument of `Nd<..>`, if any.
fn first_type_arg(ty: &syn::Type) -> Option<syn::Type> {
    let (syn::PathArguments::AngleBracketed(a), _) = nd_args(ty)? else {
        return None;
    };
    a.args.iter().find_map(|g| match g {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    })
}

/// Rewrites `item`'s N-d parameters and their uses (see the module docs). Misuses are
/// returned as diagnostics at their tokens; the function is then left as far rewritten
/// as it got, and the caller reports the diagnostics.
pub fn desugar(item: &mut syn::ItemFn, kind: SourceKind) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let mut nd = Vec::new();
    let mut inputs = syn::punctuated::Punctuated::<syn::FnArg, syn::Token![,]>::new();
    for input in std::mem::take(&mut item.sig.inputs) {
        let syn::FnArg::Typed(mut pt) = input else {
            inputs.push(input);
            continue;
        };
        let (inner, mutable, by_ref) = match &*pt.ty {
            syn::Type::Reference(r) => (&*r.elem, r.mutability.is_some(), true),
            other => (other, false, false),
        };
        let Some(parsed) = nd_elem_and_dims(inner) else {
            inputs.push(syn::FnArg::Typed(pt));
            continue;
        };
        let span = pt.ty.span();
        let written = quote::ToTokens::to_token_stream(inner)
            .to_string()
            .replace(" < ", "<")
            .replace(" >", ">")
            .replace(" ,", ",");
        let (elem, dims) = match parsed {
            Ok(parsed) => parsed,
            Err(d) => {
                diags.push(d);
                // Lowered as a slice of its element type, if it names one, so that the
                // one mistake raises no second error.
                match (first_type_arg(inner), &*pt.pat) {
                    (Some(elem), syn::Pat::Ident(pi)) if by_ref => {
                        let name = pi.ident.to_string();
                        pt.ty = Box::new(syn::parse_quote_spanned!(span=> &[#elem]));
                        nd.push(NdParam {
                            name,
                            dims: 0,
                            mutable,
                            written,
                        });
                    }
                    _ => {}
                }
                inputs.push(syn::FnArg::Typed(pt));
                continue;
            }
        };
        if !by_ref {
            diags.push(
                Diagnostic::new(span, "an N-d array is passed by reference")
                    .with_hint("write `&Nd<T, D>` to read it or `&mut Nd<T, D>` to write it"),
            );
            inputs.push(syn::FnArg::Typed(pt));
            continue;
        }
        if kind == SourceKind::Device {
            diags.push(
                Diagnostic::new(span, "`#[device]` functions cannot take N-d arrays")
                    .with_hint("index the array in the kernel and pass the elements (or a `&[T]` row) to the device function"),
            );
            inputs.push(syn::FnArg::Typed(pt));
            continue;
        }
        let syn::Pat::Ident(pi) = &*pt.pat else {
            // The signature check reports the pattern.
            inputs.push(syn::FnArg::Typed(pt));
            continue;
        };
        let name = pi.ident.to_string();
        let at = pi.ident.span();
        pt.ty = Box::new(if mutable {
            syn::parse_quote_spanned!(span=> &mut [#elem])
        } else {
            syn::parse_quote_spanned!(span=> &[#elem])
        });
        // The parameters of `proc::abi::nd_parts`, in its order.
        for part in crate::proc::abi::nd_parts(dims) {
            inputs.push(match part {
                NdPart::Data => syn::FnArg::Typed(pt.clone()),
                NdPart::Origin => {
                    let origin = origin_name(&name, at);
                    syn::parse_quote_spanned!(at=> #origin: usize)
                }
                NdPart::Shape(axis) => {
                    let shape = shape_name(&name, axis, at);
                    syn::parse_quote_spanned!(at=> #shape: usize)
                }
                NdPart::Stride(axis) => {
                    let stride = stride_name(&name, axis, at);
                    syn::parse_quote_spanned!(at=> #stride: isize)
                }
            });
        }
        nd.push(NdParam {
            name,
            dims,
            mutable,
            written,
        });
    }
    item.sig.inputs = inputs;
    if !nd.is_empty() {
        let mut uses = NdUses {
            nd: &nd,
            diags: &mut diags,
            written_read_only: Vec::new(),
        };
        uses.visit_block_mut(&mut item.block);
        // A write through a `&Nd` is reported; its slice becomes `&mut` so that the
        // frontend does not report it a second time in a slice's words.
        let written = uses.written_read_only;
        for input in item.sig.inputs.iter_mut() {
            if let syn::FnArg::Typed(pt) = input {
                let named = matches!(&*pt.pat, syn::Pat::Ident(pi) if written.iter().any(|w| pi.ident == w.as_str()));
                if let (true, syn::Type::Reference(r)) = (named, &mut *pt.ty) {
                    r.mutability = Some(Default::default());
                }
            }
        }
    }
    diags
}

struct NdUses<'a> {
    nd: &'a [NdParam],
    diags: &'a mut Vec<Diagnostic>,
    /// Read-only N-d parameters written to (reported).
    written_read_only: Vec<String>,
}

impl NdUses<'_> {
    /// The N-d parameter `expr` names, if it is a bare path to one.
    fn param_of(&self, expr: &syn::Expr) -> Option<&NdParam> {
        let syn::Expr::Path(p) = expr else {
            return None;
        };
        let ident = p.path.get_ident()?;
        self.nd.iter().find(|n| ident == n.name.as_str())
    }

    /// The read-only N-d parameter `place` indexes (`a[(i, j)]`), if any.
    fn read_only_param_indexed(&self, place: &syn::Expr) -> Option<&NdParam> {
        let syn::Expr::Index(index) = place else {
            return None;
        };
        self.param_of(&index.expr)
            .filter(|p| !p.mutable && p.dims > 0)
    }

    fn usage_hint(param: &NdParam) -> String {
        let indices = ["i", "j", "k"][..param.dims].join(", ");
        format!(
            "index a {}-D array with one index per axis, `{}[({indices})]`, and read its lengths with `{}.shape()`",
            param.dims, param.name, param.name
        )
    }

    /// `a[(i, j)]` → `a[{ let i0: usize = i; ...; origin + i0*s0 + ... }]`.
    fn lower_index(&mut self, index: &mut syn::ExprIndex, dims: usize, name: &str) {
        let span = index.index.span();
        let syn::Expr::Tuple(tuple) = &*index.index else {
            return;
        };
        let mut lets = Vec::new();
        let mut offset: syn::Expr = {
            let origin = origin_name(name, span);
            syn::parse_quote_spanned!(span=> (#origin as isize))
        };
        for (axis, value) in tuple.elems.iter().enumerate().take(dims) {
            let local = format_ident!("__nd_index{}", axis, span = value.span());
            let check = format_ident!("__cudajit_nd_axis{}", axis, span = span);
            let shape = shape_name(name, axis, span);
            let stride = stride_name(name, axis, span);
            let vspan = value.span();
            lets.push(quote_spanned!(vspan=> let #local: usize = #value;));
            offset = syn::parse_quote_spanned!(span=>
                #offset + (#local.#check(#shape) as isize) * #stride
            );
        }
        *index.index = syn::parse_quote_spanned!(span=> { #(#lets)* (#offset) as usize });
    }
}

/// The place an assignment (`p = v`, `p += v`, ...) writes, and the span to report.
fn assigned_place(expr: &syn::Expr) -> Option<(&syn::Expr, Span)> {
    match expr {
        syn::Expr::Assign(a) => Some((&*a.left, a.left.span())),
        syn::Expr::Binary(b) if is_compound_assign(&b.op) => Some((&*b.left, b.left.span())),
        _ => None,
    }
}

fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

impl VisitMut for NdUses<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let Some((place, span)) = assigned_place(expr) {
            if let Some(param) = self.read_only_param_indexed(place) {
                let (name, written) = (param.name.clone(), param.written.clone());
                self.diags.push(
                    Diagnostic::new(
                        span,
                        format!("cannot write to an element of `{name}`: it is a `&{written}`, read only"),
                    )
                    .with_hint(format!("make the parameter mutable: `{name}: &mut {written}`")),
                );
                self.written_read_only.push(name);
            }
        }
        match expr {
            syn::Expr::Index(index) => {
                if let Some(param) = self.param_of(&index.expr) {
                    let (dims, name) = (param.dims, param.name.clone());
                    let hint = Self::usage_hint(param);
                    let zero: syn::Expr = syn::parse_quote_spanned!(index.index.span()=> 0usize);
                    if dims == 0 {
                        // The type is reported; its uses are not.
                        *index.index = zero;
                        return;
                    }
                    // The index expressions may use N-d arrays too.
                    self.visit_expr_mut(&mut index.index);
                    match &*index.index {
                        syn::Expr::Tuple(t) if t.elems.len() == dims => {
                            self.lower_index(index, dims, &name)
                        }
                        syn::Expr::Tuple(t) => self.diags.push(
                            Diagnostic::new(
                                index.index.span(),
                                format!(
                                    "`{name}` is a {dims}-D array but this index has {} component(s)",
                                    t.elems.len()
                                ),
                            )
                            .with_hint(hint),
                        ),
                        other => self.diags.push(
                            Diagnostic::new(
                                other.span(),
                                format!("`{name}` is a {dims}-D array: it is indexed with a tuple of {dims} indices"),
                            )
                            .with_hint(hint),
                        ),
                    }
                    if !matches!(&*index.index, syn::Expr::Block(_)) {
                        // Reported: an element of the slice stands in for the rest.
                        *index.index = zero;
                    }
                    return;
                }
            }
            syn::Expr::MethodCall(call) => {
                if let Some(param) = self.param_of(&call.receiver) {
                    if call.method == "shape" && call.args.is_empty() {
                        let span = call.span();
                        let lens = (0..param.dims).map(|axis| shape_name(&param.name, axis, span));
                        *expr = syn::parse_quote_spanned!(span=> [#(#lens),*]);
                    } else {
                        let hint = Self::usage_hint(param);
                        self.diags.push(
                            Diagnostic::new(
                                call.method.span(),
                                format!("N-d arrays have no method `{}` in kernels", call.method),
                            )
                            .with_hint(hint),
                        );
                    }
                    return;
                }
            }
            syn::Expr::Path(_) => {
                if let Some(param) = self.param_of(expr) {
                    let hint = Self::usage_hint(param);
                    self.diags.push(
                        Diagnostic::new(
                            expr.span(),
                            format!(
                                "the N-d array `{}` can only be indexed or asked for its shape",
                                param.name
                            ),
                        )
                        .with_hint(hint),
                    );
                    return;
                }
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }
}
