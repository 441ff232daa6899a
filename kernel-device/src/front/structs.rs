//! Structs in kernels: which names in a function are struct types ([`struct_refs`],
//! what the macro asks the `DeviceCopy` derive about), and the struct environment a
//! function is lowered with (in [`ConstEnv`], beside the constants: both are crate
//! items the macro cannot see and the run-time compiler receives complete).

use super::consts::{is_const_name, ConstEnv};
use super::infer::{StructTy, Ty};
use super::lower_place::ty_of_ir;
use super::types::TypeSite;
use crate::diag::Diagnostic;
use crate::ir::{ScalarType, StructDef};
use proc_macro2::Span;
use std::collections::HashSet;
use std::sync::Arc;

/// Type names that are cudajit's own, never a user's struct. (`Self` names a struct in
/// a `#[device]` method: see `methods.rs`.)
const BUILTIN_TYPES: &[&str] = &[
    "DynamicShared",
    "Dim3",
    // num-complex's, built in (`front::complex`).
    "Complex",
    "Complex32",
    "Complex64",
];

/// Whether a path's last segment may name a user's struct: CamelCase (`Body`,
/// `Vec3`), not a constant's SCREAMING_CASE, not a scalar or cudajit's own type.
pub fn is_struct_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && !is_const_name(name)
        && ScalarType::from_rust_name(name).is_none()
        && !BUILTIN_TYPES.contains(&name)
}

/// The key a struct path is known by: the path as written, without spaces.
pub fn struct_path_key(path: &syn::Path) -> Option<String> {
    let last = path.segments.last()?.ident.to_string();
    if !is_struct_name(&last) {
        return None;
    }
    literal_path_key(path)
}

/// As [`struct_path_key`], for the path of a struct literal (`P { x }`), which names a
/// struct whatever its case.
pub fn literal_path_key(path: &syn::Path) -> Option<String> {
    if path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let last = path.segments.last()?.ident.to_string();
    if ScalarType::from_rust_name(&last).is_some() || BUILTIN_TYPES.contains(&last.as_str()) {
        return None;
    }
    let first = path.segments.first()?.ident.to_string();
    if matches!(first.as_str(), "std" | "core" | "alloc") {
        return None;
    }
    Some(
        quote::ToTokens::to_token_stream(path)
            .to_string()
            .replace(' ', ""),
    )
}

impl ConstEnv {
    /// The struct written `name` (`Body`, `shapes::Body`); as for constants, a path
    /// also finds the one struct of its last segment's name (offline environments).
    pub fn struct_def(&self, name: &str) -> Option<&Arc<StructDef>> {
        if let Some((_, d)) = self.structs.iter().find(|(n, _)| n == name) {
            return Some(d);
        }
        let last = name.rsplit("::").next().filter(|l| l.len() < name.len())?;
        let mut matches = self.structs.iter().filter(|(n, _)| n == last);
        match (matches.next(), matches.next()) {
            (Some((_, d)), None) => Some(d),
            _ => None,
        }
    }
}

/// Every struct type `item` names: in its signature and `let` types (type paths),
/// struct literals (`Body { .. }`) and associated calls (`Vec3::new(..)`), each once,
/// spanned where first written. A generic function's own parameters (`T`) are not
/// structs.
pub fn struct_refs(item: &syn::ItemFn) -> Vec<(String, syn::Path)> {
    struct Refs {
        generics: HashSet<String>,
        seen: HashSet<String>,
        out: Vec<(String, syn::Path)>,
    }
    impl Refs {
        fn add(&mut self, path: &syn::Path) {
            self.add_key(path, struct_path_key(path));
        }
        fn add_key(&mut self, path: &syn::Path, key: Option<String>) {
            let Some(first) = path.segments.first() else {
                return;
            };
            if path.segments.len() == 1 && self.generics.contains(&first.ident.to_string()) {
                return;
            }
            // A method's own type is listed by its macro (`methods::SELF_TYPE`).
            if first.ident == "Self" {
                return;
            }
            if let Some(key) = key {
                if self.seen.insert(key.clone()) {
                    self.out.push((key, path.clone()));
                }
            }
        }
    }
    impl<'ast> syn::visit::Visit<'ast> for Refs {
        fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
            if t.qself.is_none() {
                self.add(&t.path);
            }
            syn::visit::visit_type_path(self, t);
        }
        fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
            if s.qself.is_none() {
                self.add_key(&s.path, literal_path_key(&s.path));
            }
            syn::visit::visit_expr_struct(self, s);
        }
        fn visit_pat_struct(&mut self, s: &'ast syn::PatStruct) {
            if s.qself.is_none() {
                self.add(&s.path);
            }
            syn::visit::visit_pat_struct(self, s);
        }
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            // `Vec3::new`: the type is every segment but the last.
            if p.qself.is_none() && p.path.segments.len() > 1 {
                let mut ty = p.path.clone();
                ty.segments.pop();
                ty.segments.pop_punct();
                self.add(&ty);
            }
            syn::visit::visit_expr_path(self, p);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut refs = Refs {
        generics: item
            .sig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect(),
        seen: HashSet::new(),
        out: Vec::new(),
    };
    syn::visit::Visit::visit_item_fn(&mut refs, item);
    refs.out
}

/// The struct a written type path names, if it names one: known (the run-time
/// compiler has the derive's fields), or by name only at macro time. A CamelCase name
/// the complete environment does not know is an error here: it is no struct of the
/// kernel's (the macro asked the derive for every struct the function names).
pub fn struct_ty(path: &syn::Path, env: &ConstEnv) -> Result<Option<StructTy>, Diagnostic> {
    match struct_path_key(path) {
        Some(key) => struct_ty_of_key(path, key, env),
        None => Ok(None),
    }
}

/// The struct a struct literal's path names (any case: `P { x }`).
pub fn literal_struct_ty(path: &syn::Path, env: &ConstEnv) -> Result<Option<StructTy>, Diagnostic> {
    match literal_path_key(path) {
        Some(key) => struct_ty_of_key(path, key, env),
        None => Ok(None),
    }
}

fn struct_ty_of_key(
    path: &syn::Path,
    key: String,
    env: &ConstEnv,
) -> Result<Option<StructTy>, Diagnostic> {
    let Some(last) = path.segments.last() else {
        return Ok(None);
    };
    if let Some(def) = env.struct_def(&key) {
        return Ok(Some(StructTy::known(def)));
    }
    let name = last.ident.to_string();
    if !env.complete {
        return Ok(Some(StructTy { name, def: None }));
    }
    Err(Diagnostic::new(
        last.ident.span(),
        format!("`{name}` is not a struct this kernel can use: only `#[derive(DeviceCopy)]` structs cross to the device"),
    )
    .with_hint("add `#[derive(Clone, Copy, DeviceCopy)]` and `#[repr(C)]` to the struct"))
}

/// A struct type written at `site`: everywhere a value may be, except (for now) a
/// kernel parameter by value. At macro time a kernel parameter of a named type may
/// be a `#[derive(DeviceCopy)]` enum, which kernels take by value: the launcher's
/// `KernelValue` bound tells them apart there, in cudajit's words.
pub fn struct_at_site(s: StructTy, site: TypeSite, span: Span) -> Result<Ty, Diagnostic> {
    if site == TypeSite::Param && !KERNEL_STRUCT_PARAMS && s.def.is_some() {
        return Err(Diagnostic::new(
            span,
            format!(
                "a struct (`{}`) cannot be passed to a kernel by value yet",
                s.name
            ),
        )
        .with_hint(format!(
            "pass a one-element slice `&[{}]`, or its fields as scalar parameters",
            s.name
        )));
    }
    Ok(Ty::Struct(s))
}

/// Whether kernels take structs by value: the kernel ABI passes a struct's
/// `ir::layout` bytes (kernel-host's `KernelArg::value`, an aggregate parameter in
/// NVVM IR, the struct's slots in the simulator).
const KERNEL_STRUCT_PARAMS: bool = true;

/// The type and index of field `name` of struct `s`: known, or (macro time, fields
/// unknown) an opaque result; `None` if the struct has no such field.
pub fn field_of(s: &StructTy, name: &str) -> Option<Option<(u32, Ty)>> {
    match &s.def {
        Some(def) => {
            let index = def.field_index(name)?;
            Some(Some((index as u32, ty_of_ir(&def.fields[index].ty))))
        }
        None => Some(None),
    }
}

/// "no field" hint: the struct's own fields.
pub fn field_names(s: &StructTy) -> String {
    match &s.def {
        Some(def) => def
            .fields
            .iter()
            .map(|f| format!("`{}`", f.name))
            .collect::<Vec<_>>()
            .join(", "),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::struct_refs;

    fn names(text: &str) -> Vec<String> {
        let item: syn::ItemFn = syn::parse_str(text).unwrap();
        struct_refs(&item).into_iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn struct_names_are_found_and_generic_parameters_are_not() {
        assert_eq!(
            names("fn k<T: Float, const N: usize>(b: &mut [Body], p: SimParams, x: T) { let v: shapes::Vec3 = Vec3::new(1.0); let w = Pair { a: N, b: T::MAX }; let d: DynamicShared = dynamic_shared(); let c = TILE; }"),
            vec!["Body", "SimParams", "shapes::Vec3", "Vec3", "Pair"]
        );
        assert!(
            names("fn k(a: &mut [f32]) { a[0] = f32::MAX + std::f32::consts::PI; }").is_empty()
        );
    }
}
