//! Offline discovery of `#[device]` methods (`impl Vec3 { #[device] fn dot(self, ..) }`),
//! for ahead-of-time builds and snapshots: each method found with its `impl` block's
//! type, its source listing that type as `Self` (as the macro's does), and a caller's
//! methods picked as the macro's lookups find them (`callees::method_probes` in
//! kernel-macros): by the struct types the caller names and the method names it calls.

use super::{attribute_kind, options, Found};
use crate::front::methods::{method_calls, SELF_TYPE};
use crate::source::{SourceKind, StructItem};

/// The `#[device]` fns of an inherent `impl` block, each as a `Found` with its type.
pub fn device_methods(block: &syn::ItemImpl, file: &str) -> Vec<Found> {
    let syn::Type::Path(ty) = &*block.self_ty else {
        return Vec::new();
    };
    let Some(type_name) = ty.path.segments.last().map(|s| s.ident.to_string()) else {
        return Vec::new();
    };
    // `#[device] impl T { .. }`: its `#[device]` methods are registered.
    let block_attr = block
        .attrs
        .iter()
        .find(|a| attribute_kind(a) == Some(SourceKind::Device));
    let mut found = Vec::new();
    for item in &block.items {
        let syn::ImplItem::Fn(f) = item else {
            continue;
        };
        let Some(attr) = f
            .attrs
            .iter()
            .find(|a| attribute_kind(a) == Some(SourceKind::Device))
        else {
            continue;
        };
        found.push(Found {
            kind: SourceKind::Device,
            item: syn::ItemFn {
                attrs: f.attrs.clone(),
                vis: f.vis.clone(),
                sig: f.sig.clone(),
                block: Box::new(f.block.clone()),
            },
            file: file.to_string(),
            options: options(attr),
            consts: Vec::new(),
            structs: Vec::new(),
            enums: Vec::new(),
            self_type: Some(type_name.clone()),
            registered: block_attr.is_some(),
            rendered: None,
        });
    }
    found
}

/// `structs` and, for a method of `self_type`, that type again under the name `Self`.
pub fn with_self_type(
    structs: &'static [StructItem],
    self_type: Option<&str>,
) -> &'static [StructItem] {
    let Some(own) = self_type.and_then(|name| structs.iter().find(|s| s.name == name)) else {
        return structs;
    };
    let mut items: Vec<StructItem> = structs
        .iter()
        .map(|s| StructItem {
            name: s.name,
            def: s.def,
            enum_def: s.enum_def,
        })
        .collect();
    items.push(StructItem {
        name: SELF_TYPE,
        def: own.def,
        enum_def: own.enum_def,
    });
    Box::leak(items.into_boxed_slice())
}

/// The methods of `all` that `caller` reaches, in the macro's order: for each struct
/// type the caller names (a method's own type last), each method name it calls; then
/// each `Type::name(..)` call.
pub fn called_methods(caller: &Found, all: &[Found]) -> Vec<usize> {
    let calls = method_calls(&caller.item);
    let own = caller
        .self_type
        .as_ref()
        .map(|_| caller.item.sig.ident.clone());
    let last = |path: &syn::Path| {
        path.segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default()
    };
    let mut types: Vec<String> = crate::front::struct_refs(&caller.item)
        .iter()
        .map(|(_, path)| last(path))
        .collect();
    types.extend(caller.self_type.clone());
    let find = |ty: &str, name: &syn::Ident| {
        (0..all.len())
            .find(|&i| all[i].self_type.as_deref() == Some(ty) && all[i].item.sig.ident == *name)
    };
    let mut picks = Vec::new();
    for ty in &types {
        for name in calls.names.iter().filter(|n| Some(*n) != own.as_ref()) {
            picks.extend(find(ty, name));
        }
    }
    for (ty, name) in &calls.paths {
        if Some(name) == own.as_ref() {
            continue;
        }
        let ty = match last(ty) {
            t if t == SELF_TYPE => caller.self_type.clone().unwrap_or_default(),
            t => t,
        };
        picks.extend(find(&ty, name));
    }
    picks
}
