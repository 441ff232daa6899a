//! `#[derive(DeviceCopy)]` on a fieldless enum with an integer `#[repr(..)]`: kernels
//! take its values as that integer (parameters, slice elements, struct fields, locals,
//! `==`, `as`, `match`). The derive writes the `DeviceCopy` impl with the repr's
//! layout and the variants' discriminants as rustc computes them (`Op::Add as i128`),
//! so the run-time compiler reads `Op::Add` as that constant.

use kernel_device::diag::{combine, Diagnostic};
use kernel_device::ir::ScalarType;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

pub fn derive_enum(item: &syn::DeriveInput, data: &syn::DataEnum) -> TokenStream {
    let name = &item.ident;
    let mut diags = Vec::new();
    let repr = enum_repr(&item.attrs);
    let repr = match repr {
        Ok(Some(repr)) => Some(repr),
        Ok(None) => {
            diags.push(
                Diagnostic::new(
                    name.span(),
                    format!("`#[derive(DeviceCopy)]` on enum `{name}` needs an integer `#[repr(..)]`: kernels hold its values as that integer"),
                )
                .with_hint("add `#[repr(u8)]` (or `u16`, `u32`, `i32`, ...) above the enum"),
            );
            None
        }
        Err(d) => {
            diags.push(d);
            None
        }
    };
    if !item.generics.params.is_empty() {
        diags.push(
            Diagnostic::new(
                item.generics.span(),
                format!("`#[derive(DeviceCopy)]` does not support generic enums: `{name}` has generic parameters"),
            )
            .with_hint("kernels take fieldless enums such as `enum Op { Add, Mul }`"),
        );
    }
    for v in &data.variants {
        if !matches!(v.fields, syn::Fields::Unit) {
            diags.push(
                Diagnostic::new(
                    v.fields.span(),
                    format!("variant `{name}::{}` carries data: kernels take fieldless (C-like) enums only", v.ident),
                )
                .with_hint("keep the data in a `#[derive(DeviceCopy)]` struct beside the enum: `struct Step { op: Op, value: f32 }`"),
            );
        }
    }
    if data.variants.is_empty() {
        diags.push(
            Diagnostic::new(
                name.span(),
                format!("`#[derive(DeviceCopy)]` needs at least one variant: `{name}` has none"),
            )
            .with_hint("an enum without variants has no values to pass to a kernel"),
        );
    }
    if let Some(errors) = combine(&diags) {
        let mut out = errors.to_compile_error();
        out.extend(super::derive::stub_impls(item));
        return out;
    }
    let Some(repr) = repr else {
        return TokenStream::new();
    };
    let scalar = format_ident!("{}", scalar_variant(repr));
    let repr_ty = format_ident!("{}", repr.rust_name());
    let name_text = name.to_string();
    let variant_names: Vec<String> = data.variants.iter().map(|v| v.ident.to_string()).collect();
    let variant_idents: Vec<&syn::Ident> = data.variants.iter().map(|v| &v.ident).collect();
    quote! {
        // SAFETY: a fieldless `#[repr(#repr_ty)]` enum is laid out as its repr integer
        // (checked below); kernels only produce its discriminants (the rustc-checked
        // twin has no integer-to-enum conversion).
        unsafe impl ::cudajit::__private::DeviceCopy for #name {
            const LAYOUT: ::cudajit::__private::Layout =
                ::cudajit::__private::scalar_layout(::cudajit::__private::ScalarType::#scalar);
            const PADDING: u64 = 0;
            const ZERO_IS_VALID: bool = false #(|| (#name::#variant_idents as #repr_ty) == 0)*;
            fn device_type() -> ::cudajit::__private::Type {
                ::cudajit::__private::Type::Scalar(::cudajit::__private::ScalarType::#scalar)
            }
            fn device_enum() -> ::core::option::Option<::cudajit::__private::EnumDef> {
                ::core::option::Option::Some(::cudajit::__private::EnumDef {
                    name: ::std::string::String::from(#name_text),
                    repr: ::cudajit::__private::ScalarType::#scalar,
                    variants: ::std::vec![#(
                        ::cudajit::__private::EnumVariant {
                            name: ::std::string::String::from(#variant_names),
                            discriminant: (#name::#variant_idents as #repr_ty) as i128,
                        }
                    ),*],
                })
            }
        }
        const _: () = {
            let layout = <#name as ::cudajit::__private::DeviceCopy>::LAYOUT;
            ::core::assert!(
                ::core::mem::size_of::<#name>() as u64 == layout.size
                    && ::core::mem::align_of::<#name>() as u64 == layout.align,
                "cudajit's layout of this enum differs from rustc's"
            );
        };
        // SAFETY: every value is one of its repr's bit patterns, with no padding.
        unsafe impl ::cudajit::__private::DeviceElem for #name {}
        // SAFETY: as above; passed to a kernel as its repr integer.
        unsafe impl ::cudajit::__private::KernelValue for #name {}
    }
}

/// The integer named in `#[repr(..)]` (`Ok(None)`: no integer repr).
fn enum_repr(attrs: &[syn::Attribute]) -> Result<Option<ScalarType>, Diagnostic> {
    let mut found = None;
    let mut error = None;
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = a.parse_nested_meta(|meta| {
            let word = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
            match ScalarType::from_rust_name(&word) {
                Some(s) if s.is_integer() => found = Some(s),
                _ if word == "C" => {
                    error = Some(
                        Diagnostic::new(
                            meta.path.span(),
                            "`#[repr(C)]` leaves an enum's size to the platform's C compiler: kernels need its integer named",
                        )
                        .with_hint("write `#[repr(u8)]`, `#[repr(i32)]` or another integer type"),
                    );
                }
                _ => {}
            }
            if meta.input.peek(syn::token::Paren) {
                let _content;
                syn::parenthesized!(_content in meta.input);
            }
            Ok(())
        });
    }
    match (found, error) {
        (Some(s), _) => Ok(Some(s)),
        (None, Some(d)) => Err(d),
        (None, None) => Ok(None),
    }
}

/// The `ScalarType` variant's name (`U8`) for generated code.
fn scalar_variant(s: ScalarType) -> &'static str {
    match s {
        ScalarType::I8 => "I8",
        ScalarType::I16 => "I16",
        ScalarType::I32 => "I32",
        ScalarType::I64 => "I64",
        ScalarType::Isize => "Isize",
        ScalarType::U8 => "U8",
        ScalarType::U16 => "U16",
        ScalarType::U32 => "U32",
        ScalarType::U64 => "U64",
        ScalarType::Usize => "Usize",
        // `enum_repr` returns integers only.
        _ => "U8",
    }
}
