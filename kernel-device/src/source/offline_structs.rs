//! Offline discovery of a file's `#[derive(DeviceCopy)]` structs, for ahead-of-time
//! builds and snapshots: their `ir::StructDef`s built from the field types as
//! written (scalars, `[T; N]` with constant lengths, other such structs of the file),
//! as the derive describes them to the run-time compiler.

use crate::front::consts::{eval_len, ConstEnv};
use crate::front::types::scalar_of_type;
use crate::ir::{StructDef, StructField, Type};
use std::sync::Arc;

/// Whether `item` carries `#[derive(.., DeviceCopy, ..)]`.
pub fn derives_device_copy(item: &syn::ItemStruct) -> bool {
    item.attrs
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
