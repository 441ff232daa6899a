//! Offline discovery of a file's `#[derive(DeviceCopy)]` structs, for ahead-of-time
//! builds and snapshots: their `ir::StructDef`s built from the field types as
//! written (scalars, `[T; N]` with constant lengths, other such structs of the file),
//! as the derive describes them to the run-time compiler.

use crate::front::consts::{eval_len, ConstEnv};
use crate::front::types::scalar_of_type;
use crate::ir::{EnumDef, EnumVariant, ScalarType, StructDef, StructField, Type};
use std::sync::Arc;

/// Whether an item with `attrs` carries `#[derive(.., DeviceCopy, ..)]`.
pub fn derives_device_copy(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let mut found = false;
            let _ = a.parse_nested_meta(|meta| {
                if meta
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "DeviceCopy")
                {
                    found = true;
                }
                Ok(())
            });
            found
        })
}

/// The definitions of `items` (in any order: a struct may name one defined later);
/// a struct whose fields cannot be described is left out (the derive would reject it).
pub fn struct_defs(items: &[syn::ItemStruct], consts: &ConstEnv) -> Vec<(String, Arc<StructDef>)> {
    let mut done: Vec<(String, Arc<StructDef>)> = Vec::new();
    let mut left: Vec<&syn::ItemStruct> = items.iter().collect();
    loop {
        let before = left.len();
        left.retain(|item| match struct_def(item, consts, &done) {
            Some(def) => {
                done.push((item.ident.to_string(), Arc::new(def)));
                false
            }
            None => true,
        });
        if left.len() == before {
            return done;
        }
    }
}

fn struct_def(
    item: &syn::ItemStruct,
    consts: &ConstEnv,
    known: &[(String, Arc<StructDef>)],
) -> Option<StructDef> {
    let syn::Fields::Named(named) = &item.fields else {
        return None;
    };
    let fields = named
        .named
        .iter()
        .map(|f| {
            Some(StructField {
                name: f.ident.as_ref()?.to_string(),
                ty: field_type(&f.ty, consts, known)?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(StructDef {
        name: item.ident.to_string(),
        fields,
    })
}

fn field_type(
    ty: &syn::Type,
    consts: &ConstEnv,
    known: &[(String, Arc<StructDef>)],
) -> Option<Type> {
    if let Some(s) = scalar_of_type(ty) {
        return Some(Type::Scalar(s));
    }
    if let syn::Type::Path(p) = ty {
        if let Some(repr) = crate::front::enum_repr(&p.path, consts) {
            return Some(Type::Scalar(repr));
        }
    }
    match ty {
        syn::Type::Array(a) => {
            let len = eval_len(&a.len, consts).ok()??;
            Some(Type::array(field_type(&a.elem, consts, known)?, len))
        }
        syn::Type::Paren(p) => field_type(&p.elem, consts, known),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?.ident.to_string();
            let (_, def) = known.iter().find(|(n, _)| *n == last)?;
            Some(Type::Struct(def.clone()))
        }
        _ => None,
    }
}

/// The definition of a `#[derive(DeviceCopy)]` enum with an integer `#[repr(..)]`
/// and unit variants, discriminants as rustc assigns them (written ones evaluated as
/// constants, the others one more than the previous); `None` where the derive would
/// refuse the enum.
pub fn enum_def(item: &syn::ItemEnum, consts: &ConstEnv) -> Option<EnumDef> {
    let mut repr = None;
    for a in item.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = a.parse_nested_meta(|meta| {
            let word = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            if let Some(s) = ScalarType::from_rust_name(&word).filter(|s| s.is_integer()) {
                repr = Some(s);
            }
            Ok(())
        });
    }
    let repr = repr?;
    let mut next: i128 = 0;
    let mut variants = Vec::new();
    for v in &item.variants {
        if !matches!(v.fields, syn::Fields::Unit) {
            return None;
        }
        if let Some((_, e)) = &v.discriminant {
            let value = crate::front::consts::eval(e, Some(&Type::Scalar(repr)), consts).ok()??;
            next = discriminant(&value)?;
        }
        variants.push(EnumVariant {
            name: v.ident.to_string(),
            discriminant: next,
        });
        next += 1;
    }
    Some(EnumDef {
        name: item.ident.to_string(),
        repr,
        variants,
    })
}

/// An integer constant's value, sign-extended from its type's width.
fn discriminant(value: &crate::ir::ConstValue) -> Option<i128> {
    let crate::ir::ConstValue::Scalar {
        ty,
        value: crate::ir::Literal::Int(bits),
    } = value
    else {
        return None;
    };
    let width = ty.bits();
    Some(if ty.is_signed_integer() && width < 128 {
        let shift = 128 - width;
        ((*bits as i128) << shift) >> shift
    } else {
        *bits as i128
    })
}
