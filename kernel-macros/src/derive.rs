//! `#[derive(DeviceCopy)]`: marks a `#[repr(C)]` struct of scalars, arrays and other
//! such structs for device use. Thin: it writes the struct's `DeviceCopy` impl (its
//! fields as `ir::StructDef`, its layout by `ir::layout`'s `const fn`s) and a
//! compile-time check that rustc laid the struct out exactly so. A field of another
//! type fails the `DeviceCopy` bound at that field, with cudajit's message.

use kernel_device::diag::{combine, Diagnostic};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

pub fn derive_device_copy(input: TokenStream) -> TokenStream {
    let item: syn::DeriveInput = match syn::parse2(input) {
        Ok(item) => item,
        Err(e) => return e.to_compile_error(),
    };
    if let syn::Data::Enum(data) = &item.data {
        return super::derive_enum::derive_enum(&item, data);
    }
    let mut diags = Vec::new();
    let name = &item.ident;
    if !has_repr_c(&item.attrs) {
        diags.push(
            Diagnostic::new(
                name.span(),
                format!("`#[derive(DeviceCopy)]` needs `#[repr(C)]` on `{name}`: kernels lay structs out as C does"),
            )
            .with_hint("add `#[repr(C)]` above the struct; Rust's default layout may reorder fields"),
        );
    }
    if !item.generics.params.is_empty() {
        diags.push(
            Diagnostic::new(
                item.generics.span(),
                format!("`#[derive(DeviceCopy)]` does not support generic structs: `{name}` has generic parameters"),
            )
            .with_hint("write the struct with concrete field types (`f32`, `[f32; 3]`)"),
        );
    }
    let fields = match &item.data {
        syn::Data::Struct(syn::DataStruct {
            fields: syn::Fields::Named(named),
            ..
        }) => named.named.iter().collect::<Vec<_>>(),
        syn::Data::Struct(s) => {
            diags.push(
                Diagnostic::new(
                    s.struct_token.span,
                    format!("`#[derive(DeviceCopy)]` needs named fields: `{name}` is a tuple or unit struct"),
                )
                .with_hint("name the fields: `struct Vec3 { x: f32, y: f32, z: f32 }`"),
            );
            Vec::new()
        }
        // Handled above.
        syn::Data::Enum(_) => Vec::new(),
        syn::Data::Union(u) => {
            diags.push(
                Diagnostic::new(
                    u.union_token.span,
                    "`#[derive(DeviceCopy)]` applies to structs, not unions",
                )
                .with_hint(
                    "kernels take plain `#[repr(C)]` structs of scalars, arrays and such structs",
                ),
            );
            Vec::new()
        }
    };
    let mut never_copy = false;
    for field in &fields {
        if let Some(owner) = host_owned(&field.ty) {
            never_copy = true;
            let ty = &field.ty;
            let ty_text = quote!(#ty)
                .to_string()
                .replace(" < ", "<")
                .replace(" >", ">");
            diags.push(
                Diagnostic::new(
                    field.ty.span(),
                    format!("`{ty_text}` cannot be a field of a `#[derive(DeviceCopy)]` struct: {owner}, which a kernel cannot reach"),
                )
                .with_hint("hold the data inline (`[f32; N]`, a `#[derive(DeviceCopy)]` struct), or pass the collection as its own `&[T]` kernel parameter"),
            );
        }
    }
    if let Some(errors) = combine(&diags) {
        let mut out = errors.to_compile_error();
        // A type holding a `Vec` is never `Copy`, so no stub can hold: its uses say
        // that it is no device type, in `DeviceCopy`'s words.
        if !never_copy {
            out.extend(stub_impls(&item));
        }
        return out;
    }
    let field_names: Vec<String> = fields
        .iter()
        .map(|f| f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default())
        .collect();
    let field_idents: Vec<&syn::Ident> = fields.iter().filter_map(|f| f.ident.as_ref()).collect();
    // Each bound is spanned at its field's type: `Vec<f32>` is reported there.
    let field_tys: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let ty = &f.ty;
            quote_spanned!(ty.span()=> <#ty as ::cudajit::__private::DeviceCopy>)
        })
        .collect();
    let name_text = name.to_string();
    let count = fields.len();
    let indices = 0..count;
    quote! {
        // SAFETY: `device_type` lists the fields in order with their own device types,
        // and the check below proves rustc's layout equals `ir::layout`'s.
        unsafe impl ::cudajit::__private::DeviceCopy for #name {
            const LAYOUT: ::cudajit::__private::Layout =
                ::cudajit::__private::struct_layout(&[#(#field_tys::LAYOUT),*]);
            const ZERO_IS_VALID: bool = true #(&& #field_tys::ZERO_IS_VALID)*;
            const PADDING: u64 = ::cudajit::__private::struct_padding(
                &[#(#field_tys::LAYOUT),*],
                &[#(#field_tys::PADDING),*],
            );
            fn device_type() -> ::cudajit::__private::Type {
                ::cudajit::__private::Type::Struct(::std::sync::Arc::new(
                    ::cudajit::__private::StructDef {
                        name: ::std::string::String::from(#name_text),
                        fields: ::std::vec![#(
                            ::cudajit::__private::StructField {
                                name: ::std::string::String::from(#field_names),
                                ty: #field_tys::device_type(),
                            }
                        ),*],
                    },
                ))
            }
        }
        const _: () = {
            const FIELDS: [::cudajit::__private::Layout; #count] = [#(#field_tys::LAYOUT),*];
            let layout = <#name as ::cudajit::__private::DeviceCopy>::LAYOUT;
            ::core::assert!(
                ::core::mem::size_of::<#name>() as u64 == layout.size
                    && ::core::mem::align_of::<#name>() as u64 == layout.align,
                "cudajit's layout of this struct differs from rustc's: is it `#[repr(C)]`?"
            );
            #(
                ::core::assert!(
                    ::core::mem::offset_of!(#name, #field_idents) as u64
                        == ::cudajit::__private::field_offset(&FIELDS, #indices),
                    "cudajit's offset of a field differs from rustc's: is the struct `#[repr(C)]`?"
                );
            )*
            ::core::assert!(
                <#name as ::cudajit::__private::DeviceCopy>::PADDING == 0,
                "a `#[derive(DeviceCopy)]` struct cannot have padding bytes (the runtime copies it as raw bytes): order the fields from the largest alignment to the smallest, or add explicit padding fields (`_pad: [u8; 3]`)"
            );
        };
        // SAFETY: every field is a device type (the bound above) and the struct has no
        // padding, so all its bytes are initialised plain data.
        unsafe impl ::cudajit::__private::DeviceElem for #name {}
        // SAFETY: as above; a kernel takes the struct by value as these bytes.
        unsafe impl ::cudajit::__private::KernelValue for #name {}
    }
}

fn has_repr_c(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("repr")).any(|a| {
        let mut c = false;
        let _ = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") {
                c = true;
            }
            // Skip `align(8)` and the like.
            if meta.input.peek(syn::token::Paren) {
                let _content;
                syn::parenthesized!(_content in meta.input);
            }
            Ok(())
        });
        c
    })
}

/// What a field type syntactically known to live on the host holds, if it is one: a
/// collection or smart pointer owns heap memory, a reference points into host memory.
/// Reported at the field by the derive, once, instead of the `DeviceCopy` bound's error
/// and the missing `Copy` it implies.
fn host_owned(ty: &syn::Type) -> Option<&'static str> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?.ident.to_string();
            match last.as_str() {
                "Vec" | "String" | "Box" | "Rc" | "Arc" | "HashMap" | "HashSet" | "BTreeMap"
                | "BTreeSet" | "VecDeque" | "LinkedList" | "BinaryHeap" => {
                    Some("it owns heap memory on the host")
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// After a reported mistake, the impls a correct derive would have written, with no
/// content: the kernels that use the type then compile on (one mistake, one error, not
/// one more per kernel parameter and launch). Their `where for<'a> T: Copy` holds
/// exactly when the type is `Copy` and, being higher-ranked, is no error when it is not
/// (the derive cannot see the item's other derives: rustc removes them).
pub(crate) fn stub_impls(item: &syn::DeriveInput) -> TokenStream {
    if !item.generics.params.is_empty() {
        return TokenStream::new();
    }
    let name = &item.ident;
    quote! {
        // SAFETY: never used: the derive reported an error, so nothing is built.
        unsafe impl ::cudajit::__private::DeviceCopy for #name
        where
            for<'stub> #name: ::core::marker::Copy,
        {
            const LAYOUT: ::cudajit::__private::Layout =
                ::cudajit::__private::scalar_layout(::cudajit::__private::ScalarType::U8);
            const PADDING: u64 = 0;
            fn device_type() -> ::cudajit::__private::Type {
                ::core::unreachable!("cudajit: this type's `#[derive(DeviceCopy)]` failed")
            }
        }
        // SAFETY: as above.
        unsafe impl ::cudajit::__private::DeviceElem for #name where
            for<'stub> #name: ::core::marker::Copy
        {
        }
        // SAFETY: as above.
        unsafe impl ::cudajit::__private::KernelValue for #name where
            for<'stub> #name: ::core::marker::Copy
        {
        }
    }
}
