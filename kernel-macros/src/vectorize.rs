//! `#[vectorize]`: a scalar function made a GPU ufunc. The function is expanded as a
//! `#[device]` function (so it stays callable on the host and from kernels), and its
//! module gains `apply`, `apply_into`, `apply_on` and `apply_into_on`, which run it
//! over whole arrays through the runtime's elementwise map (`cudajit::map`/`map2`):
//! `f::apply(&x, &y)?` is a new `DeviceArray` with `f(x[i], y[i])`; a scalar in place
//! of an array is broadcast: `f::apply(&2.0, &y)?` has `f(2.0, y[i])`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use crate::expand;
use kernel_device::source::SourceKind;

const SCALARS: [&str; 13] = [
    "bool", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64",
];

pub fn vectorize(args: TokenStream, input: TokenStream) -> TokenStream {
    let extra = match syn::parse2::<syn::ItemFn>(input.clone()) {
        // `expand` reports an item that is not a fn.
        Err(_) => TokenStream::new(),
        Ok(item) => match apply_fns(&item) {
            Ok(extra) => extra,
            Err(e) => {
                let error = e.to_compile_error();
                let device = expand::expand(SourceKind::Device, args, input);
                return quote!(#error #device);
            }
        },
    };
    expand::expand_with(SourceKind::Device, args, input, extra)
}

/// The `apply` functions for `item`, or why it cannot be vectorized.
fn apply_fns(item: &syn::ItemFn) -> syn::Result<TokenStream> {
    let sig = &item.sig;
    // Generic over one element type (`fn saxpy<T: Float>(a: T, x: T) -> T`): the
    // runtime instantiates the function at the first input's element type.
    let type_params: Vec<&syn::Ident> = sig.generics.type_params().map(|t| &t.ident).collect();
    let only_types = sig
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Type(_)));
    if !only_types || type_params.len() > 1 {
        // At the first parameter that is not the one element type.
        let at = sig
            .generics
            .params
            .iter()
            .filter(|p| !matches!(p, syn::GenericParam::Type(_)))
            .chain(
                sig.generics
                    .type_params()
                    .skip(1)
                    .map(|_| &sig.generics.params[1]),
            )
            .next()
            .map_or(sig.generics.span(), |p| p.span());
        return Err(syn::Error::new(
            at,
            "`#[vectorize]` takes a function generic over at most one element type (`fn f<T: Float>(x: T, y: T) -> T`): write one per element type otherwise",
        ));
    }
    let is_element = |ty: &syn::Type| is_scalar(ty) || is_type_param(ty, &type_params);
    let mut types = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(param) = input else {
            return Err(syn::Error::new(
                input.span(),
                "`#[vectorize]` takes a free function, not a method",
            ));
        };
        if !is_element(&param.ty) {
            return Err(syn::Error::new(
                param.ty.span(),
                "`#[vectorize]` applies a function of scalars elementwise: this parameter must be a scalar (bool, an integer or a float); for slices write a `#[kernel]`",
            ));
        }
        types.push(param.ty.clone());
    }
    let output = match &sig.output {
        syn::ReturnType::Type(_, ty) if is_element(ty) => ty.clone(),
        other => {
            // No return type has no tokens: point at the parameter list's end.
            let span = match other {
                syn::ReturnType::Default => sig.paren_token.span.close(),
                syn::ReturnType::Type(_, ty) => ty.span(),
            };
            return Err(syn::Error::new(
                span,
                "`#[vectorize]` needs a function returning a scalar (bool, an integer or a float): each call gives one element of the result",
            ));
        }
    };
    let (map, map_into) = match types.len() {
        1 => ("map", "map_into"),
        2 => ("map2", "map2_into"),
        n => {
            // At the first parameter too many (or at the empty list).
            let span = match sig.inputs.iter().nth(2) {
                Some(extra) => extra.span(),
                None => sig.paren_token.span.close(),
            };
            return Err(syn::Error::new(
                span,
                format!("`#[vectorize]` takes a function of one or two scalars ({n} here): combine more arrays with a `#[kernel]`"),
            ));
        }
    };
    let map_on = format_ident!("{map}_on");
    let map_into_on = format_ident!("{map_into}_on");
    let (map, map_into) = (format_ident!("{map}"), format_ident!("{map_into}"));
    let name = &sig.ident;
    let hl = quote!(::cudajit::__private::hl);
    let inputs: Vec<_> = (0..types.len())
        .map(|i| format_ident!("input{i}"))
        .collect();
    let generics: Vec<_> = (0..types.len()).map(|i| format_ident!("I{i}")).collect();
    // The function's own type parameter (with its bounds) first, then the inputs'.
    let own = &sig.generics.params;
    let own_comma = if own.is_empty() {
        quote!()
    } else {
        quote!(#own,)
    };
    let mut predicates: Vec<TokenStream> = type_params
        .iter()
        .map(|t| quote!(#t: #hl::DeviceScalar))
        .collect();
    if let Some(w) = &sig.generics.where_clause {
        predicates.extend(w.predicates.iter().map(|p| quote!(#p)));
    }
    let where_clause = quote!(where #(#predicates,)*);
    let bounds = quote!(#own_comma #(#generics: #hl::Input<#types> + ?::core::marker::Sized),*);
    let params = quote!(#(#inputs: &#generics),*);
    let turbofish = if type_params.is_empty() {
        quote!()
    } else {
        quote!(::<#(#type_params),*>)
    };
    let doc = format!(
        "`{name}` applied to each element of equal-length inputs (host slices or `DeviceArray`s; a scalar, `&2.0`, is broadcast to every element), on the default device or the inputs' one; `Err` naming both lengths when they differ."
    );
    Ok(quote! {
        // The bounds of a generic function name traits as its own scope does.
        #[allow(unused_imports)]
        use super::*;

        fn __cudajit_device_fn<#own>() -> #hl::DeviceFn<fn(#(#types),*) -> #output> #where_clause {
            #hl::DeviceFn::__new(&__CUDAJIT_FN, super::#name #turbofish as fn(#(#types),*) -> #output)
        }

        #[doc = #doc]
        pub fn apply<#bounds>(#params) -> #hl::Result<#hl::DeviceArray<#output>> #where_clause {
            #hl::#map(#(#inputs,)* __cudajit_device_fn #turbofish())
        }

        /// Same as `apply`, into `out` (of the inputs' length).
        pub fn apply_into<#bounds>(#params, out: &mut #hl::DeviceArray<#output>) -> #hl::Result<()> #where_clause {
            #hl::#map_into(#(#inputs,)* __cudajit_device_fn #turbofish(), out)
        }

        /// `apply` on `stream`.
        pub fn apply_on<#bounds>(stream: &#hl::Stream, #params) -> #hl::Result<#hl::DeviceArray<#output>> #where_clause {
            #hl::#map_on(stream, #(#inputs,)* __cudajit_device_fn #turbofish())
        }

        /// `apply_into` on `stream`.
        pub fn apply_into_on<#bounds>(
            stream: &#hl::Stream,
            #params,
            out: &mut #hl::DeviceArray<#output>,
        ) -> #hl::Result<()> #where_clause {
            #hl::#map_into_on(stream, #(#inputs,)* __cudajit_device_fn #turbofish(), out)
        }
    })
}

/// `ty` is one of `params` (a generic function's element type).
fn is_type_param(ty: &syn::Type, params: &[&syn::Ident]) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.get_ident().is_some_and(|id| params.contains(&id))
        }
        syn::Type::Paren(inner) => is_type_param(&inner.elem, params),
        _ => false,
    }
}

fn is_scalar(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|id| SCALARS.contains(&id.to_string().as_str())),
        syn::Type::Paren(inner) => is_scalar(&inner.elem),
        _ => false,
    }
}
