//! `#[device]` methods of `#[derive(DeviceCopy)]` structs (`impl Vec3 { #[device] fn
//! dot(self, o: Vec3) -> f32 }`). A method is compiled as a device function whose first
//! parameter is `self`, taken by value (`&self` too: a `DeviceCopy` value is `Copy`),
//! and whose `Self` is the struct's name. A `&mut self` method takes `mut self` and
//! returns it with its result (`(Self, R)`, or `Self`), and its calls store the first
//! part back into the receiver ([`mutates_receiver`]): values in registers, no pointer. It is known in a unit as `Vec3::dot`
//! ([`unit_name`]); `a.dot(b)` resolves by `a`'s inferred type, `Vec3::dot(a, b)` and
//! `Vec3::new(..)` by the path.
//!
//! The macro of a method cannot see its `impl`'s type: its `FnSource` lists the type
//! among its structs under the name [`SELF_TYPE`], and a caller's macro finds the
//! method's source through the struct types the caller names ([`method_calls`]).

use super::structs::{is_struct_name, struct_path_key};
use crate::diag::Diagnostic;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// The name under which a method's `FnSource` lists its own type (defined with
/// `FnSource`, which reads it).
pub use crate::source::SELF_TYPE;

/// A method's name in a compilation unit: `Vec3::dot`.
pub fn unit_name(type_name: &str, method: &str) -> String {
    format!("{type_name}::{method}")
}

/// `item`, a method or associated fn, as the device function it is compiled as: the
/// receiver becomes a parameter `self: Self` (by value), and with `type_name` every
/// `Self` becomes that name. The diagnostics are the receivers kernels cannot take.
pub fn as_free_fn(item: &syn::ItemFn, type_name: Option<&str>) -> (syn::ItemFn, Vec<Diagnostic>) {
    let mut out = item.clone();
    let mut diags = Vec::new();
    let generics = &item.sig.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        let at = match generics.params.first() {
            Some(_) => generics.params.span(),
            None => generics.where_clause.span(),
        };
        diags.push(
            Diagnostic::new(at, "generic `#[device]` methods are not supported")
                .with_hint("write one method per concrete type, or a generic free `#[device] fn` (`fn f<T: Float>(..)`)"),
        );
    }
    // `&self` is taken by value: `*self` in the body is then `self` itself.
    if item.sig.receiver().is_some_and(|r| r.reference.is_some()) {
        SelfDeref.visit_block_mut(&mut out.block);
    }
    for input in out.sig.inputs.iter_mut() {
        let syn::FnArg::Receiver(r) = input else {
            continue;
        };
        if r.colon_token.is_some() {
            diags.push(
                Diagnostic::new(
                    r.span(),
                    "a `#[device]` method takes `self` or `&self`, not a typed receiver",
                )
                .with_hint("write `self` (by value) or `&self`"),
            );
        }
        let span = r.self_token.span;
        // `mut self` stays mutable; `&mut self` becomes `mut self` (returned at the end).
        let mutability = r.mutability;
        let self_ident = syn::Ident::new("self", span);
        let self_ty = syn::Ident::new("Self", span);
        *input = syn::FnArg::Typed(syn::PatType {
            attrs: Vec::new(),
            pat: Box::new(syn::Pat::Ident(syn::PatIdent {
                attrs: Vec::new(),
                by_ref: None,
                mutability,
                ident: self_ident,
                subpat: None,
            })),
            colon_token: syn::Token![:](span),
            ty: Box::new(syn::parse_quote_spanned!(span=> #self_ty)),
        });
    }
    if mutates_receiver(item) {
        returns_receiver(&mut out);
    }
    if let Some(name) = type_name {
        SelfRenamer { name }.visit_item_fn_mut(&mut out);
    }
    (out, diags)
}

/// Whether `item` takes `&mut self`: compiled as a function that takes `self` by value
/// and returns it with the method's result, `(Self, R)` (`Self` alone when the method
/// returns nothing); a call `x.m(..)` stores the first part back into `x`.
pub fn mutates_receiver(item: &syn::ItemFn) -> bool {
    item.sig
        .receiver()
        .is_some_and(|r| r.reference.is_some() && r.mutability.is_some())
}

/// The local holding a `&mut self` method's result while `self` is returned with it
/// (a name a method's own locals are unlikely to take).
const RESULT_LOCAL: &str = "cudajit_method_result";

/// Makes `f` (a `&mut self` method as a free function) return `self` with its result.
fn returns_receiver(f: &mut syn::ItemFn) {
    let result: Option<syn::Type> = match &f.sig.output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    ReturnsReceiver {
        unit: result.is_none(),
    }
    .visit_block_mut(&mut f.block);
    let body = &f.block;
    let span = f.sig.ident.span();
    let value = syn::Ident::new(RESULT_LOCAL, span);
    match result {
        None => {
            f.block = Box::new(syn::parse_quote_spanned!(span=> { #body; self }));
            f.sig.output = syn::parse_quote_spanned!(span=> -> Self);
        }
        Some(ty) => {
            f.block = Box::new(
                syn::parse_quote_spanned!(span=> { let #value: #ty = #body; (self, #value) }),
            );
            f.sig.output = syn::parse_quote_spanned!(span=> -> (Self, #ty));
        }
    }
}

/// `return e` → `return (self, e)`; `return` → `return self`.
struct ReturnsReceiver {
    unit: bool,
}

impl VisitMut for ReturnsReceiver {
    fn visit_expr_return_mut(&mut self, r: &mut syn::ExprReturn) {
        if let Some(e) = &mut r.expr {
            self.visit_expr_mut(e);
        }
        let span = r.return_token.span;
        r.expr = Some(Box::new(match (&r.expr, self.unit) {
            (Some(e), false) => syn::parse_quote_spanned!(span=> (self, #e)),
            _ => syn::parse_quote_spanned!(span=> self),
        }));
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Replaces `*self` by `self`.
struct SelfDeref;

impl VisitMut for SelfDeref {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Unary(u) = e {
            if matches!(u.op, syn::UnOp::Deref(_)) && is_self(&u.expr) {
                *e = (*u.expr).clone();
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn is_self(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(p) => p.qself.is_none() && p.path.is_ident("self"),
        syn::Expr::Paren(p) => is_self(&p.expr),
        _ => false,
    }
}

/// Replaces the leading `Self` of every path by the struct's name.
struct SelfRenamer<'n> {
    name: &'n str,
}

impl VisitMut for SelfRenamer<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if let Some(first) = path.segments.first_mut() {
            if first.ident == "Self" {
                first.ident = syn::Ident::new(self.name, first.ident.span());
            }
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The methods a function may call on struct values: the names of its method calls
/// (`a.dot(b)`: the receiver's type is known only when the unit is compiled) and its
/// calls of associated functions of a struct type (`Vec3::new(..)`, `Self::new(..)`).
#[derive(Default, Debug)]
pub struct MethodCalls {
    /// `dot` of `a.dot(b)`, each once, in first-call order.
    pub names: Vec<syn::Ident>,
    /// (`Vec3`, `new`) of `Vec3::new(..)`, each once.
    pub paths: Vec<(syn::Path, syn::Ident)>,
}

/// [`MethodCalls`] of `item`'s body.
pub fn method_calls(item: &syn::ItemFn) -> MethodCalls {
    struct Collector(MethodCalls);
    impl<'ast> syn::visit::Visit<'ast> for Collector {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if !self.0.names.iter().any(|n| *n == m.method) {
                self.0.names.push(m.method.clone());
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                if let Some((ty, name)) =
                    p.qself.is_none().then(|| type_of_assoc(&p.path)).flatten()
                {
                    let key = |t: &syn::Path| quote::ToTokens::to_token_stream(t).to_string();
                    if !self
                        .0
                        .paths
                        .iter()
                        .any(|(t, n)| *n == name && key(t) == key(&ty))
                    {
                        self.0.paths.push((ty, name));
                    }
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if let Some(args) = super::lower_match::matches_args(mac) {
                args.operands().for_each(|operand| self.visit_expr(operand));
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut c = Collector(MethodCalls::default());
    syn::visit::Visit::visit_block(&mut c, &item.block);
    c.0
}

/// `Vec3::new` as (`Vec3`, `new`) when the path names an associated function of a
/// struct type: a CamelCase type (or `Self`) followed by a function name, outside
/// std and cudajit's own types.
pub fn type_of_assoc(path: &syn::Path) -> Option<(syn::Path, syn::Ident)> {
    if path.segments.len() < 2 || path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let mut ty = path.clone();
    let name = ty.segments.pop()?.into_value().ident;
    ty.segments.pop_punct();
    let last = ty.segments.last()?.ident.to_string();
    let first = ty.segments.first()?.ident.to_string();
    if matches!(first.as_str(), "std" | "core" | "alloc") {
        return None;
    }
    if last == SELF_TYPE || (is_struct_name(&last) && struct_path_key(&ty).is_some()) {
        Some((ty, name))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receivers_become_self_parameters_and_self_the_type() {
        let item: syn::ItemFn =
            syn::parse_str("fn scaled(&self, k: f32) -> Self { Self { x: self.x * k } }").unwrap();
        let (free, diags) = as_free_fn(&item, Some("Vec3"));
        assert!(diags.is_empty());
        let text = quote::ToTokens::to_token_stream(&free).to_string();
        assert_eq!(
            text,
            "fn scaled (self : Vec3 , k : f32) -> Vec3 { Vec3 { x : self . x * k } }"
        );
    }

    #[test]
    fn mut_self_methods_return_the_receiver_with_their_result() {
        let item: syn::ItemFn =
            syn::parse_str("fn grow(&mut self, k: f32) { self.x *= k; }").unwrap();
        let (free, diags) = as_free_fn(&item, Some("Vec3"));
        assert!(diags.is_empty());
        let text = quote::ToTokens::to_token_stream(&free).to_string();
        assert_eq!(
            text,
            "fn grow (mut self : Vec3 , k : f32) -> Vec3 { { self . x *= k ; } ; self }"
        );
        let item: syn::ItemFn = syn::parse_str(
            "fn next(&mut self) -> u32 { if self.n == 0 { return 0; } self.n -= 1; self.n }",
        )
        .unwrap();
        let (free, _) = as_free_fn(&item, Some("Counter"));
        let text = quote::ToTokens::to_token_stream(&free).to_string();
        assert_eq!(
            text,
            "fn next (mut self : Counter) -> (Counter , u32) { let cudajit_method_result : u32 = { if self . n == 0 { return (self , 0) ; } self . n -= 1 ; self . n } ; (self , cudajit_method_result) }"
        );
    }

    #[test]
    fn method_names_and_struct_paths_are_collected() {
        let item: syn::ItemFn = syn::parse_str(
            "fn k(a: Vec3) { let d = a.dot(a).max(1.0); let v = Vec3::new(1.0); let w = Self::unit(); let x = f32::sqrt(d); let y = helper(d); }",
        )
        .unwrap();
        let calls = method_calls(&item);
        let names: Vec<String> = calls.names.iter().map(|n| n.to_string()).collect();
        assert_eq!(names, ["max", "dot"]);
        let paths: Vec<String> = calls
            .paths
            .iter()
            .map(|(t, n)| format!("{}::{n}", quote::ToTokens::to_token_stream(t)))
            .collect();
        assert_eq!(paths, ["Vec3::new", "Self::unit"]);
    }
}
