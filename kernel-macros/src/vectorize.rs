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
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            sig.generics.span(),
            "`#[vectorize]` takes a non-generic function: write one per element type (a generic `#[device]` function can be called from each)",
        ));
    }
    let mut types = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(param) = input else {
            return Err(syn::Error::new(
                input.span(),
                "`#[vectorize]` takes a free function, not a method",
            ));
        };
        if !is_scalar(&param.ty) {
            return Err(syn::Error::new(
                param.ty.span(),
                "`#[vectorize]` applies a function of scalars elementwise: this parameter must be a scalar (bool, an integer or a float); for slices write a `#[kernel]`",
            ));
        }
        types.push(param.ty.clone());
    }
    let output = match &sig.output {
        syn::ReturnType::Type(_, ty) if is_scalar(ty) => ty.clone(),
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
    let bounds = quote!(#(#generics: #hl::Input<#types> + ?::core::marker::Sized),*);
    let params = quote!(#(#inputs: &#generics),*);
    let doc = format!(
        "`{name}` applied to each element of equal-length inputs (host slices or `DeviceArray`s; a scalar, `&2.0`, is broadcast to every element), on the default device or the inputs' one; `Err` naming both lengths when they differ."
    );
    Ok(quote! {
        fn __cudajit_device_fn() -> #hl::DeviceFn<fn(#(#types),*) -> #output> {
            #hl::DeviceFn::__new(&__CUDAJIT_FN, super::#name as fn(#(#types),*) -> #output)
        }

        #[doc = #doc]
        pub fn apply<#bounds>(#params) -> #hl::Result<#hl::DeviceArray<#output>> {
            #hl::#map(#(#inputs,)* __cudajit_device_fn())
        }

        /// Same as `apply`, into `out` (of the inputs' length).
        pub fn apply_into<#bounds>(#params, out: &mut #hl::DeviceArray<#output>) -> #hl::Result<()> {
            #hl::#map_into(#(#inputs,)* __cudajit_device_fn(), out)
        }

        /// `apply` on `stream`.
        pub fn apply_on<#bounds>(stream: &#hl::Stream, #params) -> #hl::Result<#hl::DeviceArray<#output>> {
            #hl::#map_on(stream, #(#inputs,)* __cudajit_device_fn())
        }

        /// `apply_into` on `stream`.
        pub fn apply_into_on<#bounds>(
            stream: &#hl::Stream,
            #params,
            out: &mut #hl::DeviceArray<#output>,
        ) -> #hl::Result<()> {
            #hl::#map_into_on(stream, #(#inputs,)* __cudajit_device_fn(), out)
        }
    })
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
