//! `#[device] impl Particle { #[device] fn energy(self) -> f32 { .. } }`: the block's
//! `#[device]` methods are registered at link time (`kernel_device::source::registry`),
//! so that a kernel calls them on any value of the type, also where it does not name
//! the type (a value returned by a device fn of another module, a field of a struct).
//! A method's own attribute cannot do this: an `impl` block holds only associated
//! items, and an item nested in one cannot name `Self`. The methods themselves expand
//! as before, by their own `#[device]`.

use kernel_device::diag::Diagnostic;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

/// The expansion of `#[device]` on `block`.
pub fn device_impl(args: TokenStream, block: syn::ItemImpl) -> TokenStream {
    let refuse = |span: proc_macro2::Span, message: &str, hint: &str| {
        let error = Diagnostic::new(span, message.to_string())
            .with_hint(hint.to_string())
            .to_syn_error()
            .to_compile_error();
        quote!(#error #block)
    };
    if !args.is_empty() {
        return refuse(
            args.span(),
            "`#[device]` on an `impl` block takes no arguments",
            "write `#[device] impl Type { .. }`",
        );
    }
    if let Some((_, path, _)) = &block.trait_ {
        return refuse(
            path.span(),
            "`#[device]` cannot mark a trait's `impl` block: kernels call inherent methods only",
            "write the methods in `impl Type { .. }` and mark that block and each method with `#[device]`",
        );
    }
    if !block.generics.params.is_empty() {
        return refuse(
            block.generics.span(),
            "`#[device]` cannot mark a generic `impl` block",
            "kernels call the methods of `#[derive(DeviceCopy)]` structs and enums, which are not generic",
        );
    }
    let ty = &block.self_ty;
    let mut entries = Vec::new();
    for item in &block.items {
        let syn::ImplItem::Fn(f) = item else {
            continue;
        };
        if !f.attrs.iter().any(is_device_attribute) {
            continue;
        }
        let konst = format_ident!("__cudajit_method_{}", f.sig.ident);
        let cfgs = f.attrs.iter().filter(|a| a.path().is_ident("cfg"));
        entries.push(quote! {
            #(#cfgs)*
            ::cudajit::__private::inventory::submit! {
                ::cudajit::__private::DeviceMethodEntry {
                    source: &<#ty>::#konst,
                }
            }
        });
    }
    quote! {
        #block
        #(#entries)*
    }
}

/// `#[device]` or a path ending in `device` (`#[cudajit::device]`).
fn is_device_attribute(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "device")
}
