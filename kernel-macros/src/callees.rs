//! The functions a body calls, resolved by rustc: each callee's `FnSource` static (the
//! dependency list the run-time compiler gathers a unit from), a check that each callee
//! is a `#[device]` function, and the compile-time recursion check of device functions.
//!
//! A `#[device] fn f` expands to the fn and a `mod f` holding `__CUDAJIT_FN` and
//! `__CUDAJIT_MARK`; an ordinary fn has nothing in the type namespace, so naming
//! `f::__CUDAJIT_FN` would fail with rustc's "cannot find module or crate". Instead,
//! inside a block, each callee is imported under an alias (`use f as callee_0;`) beside a
//! glob of fallback modules of the same alias names. An explicit import shadows a glob in
//! the namespaces it provides, so the alias is the device function's `mod f` when there
//! is one and the fallback otherwise; the fallback's marker fails a trait bound whose
//! `#[diagnostic::on_unimplemented]` message names the function and says to add
//! `#[device]`, at the call.
//!
//! That import fails when the name does not exist at all (rustc's "unresolved import"),
//! and the rustc-checked copy of the body then adds "cannot find function": three
//! errors for one mistake. So a callee written as a bare name (`square(x)`) in a
//! function at module level is resolved without an import that can fail
//! ([`BareCallee`]): a block glob-imports fallbacks of that name and, in a block inside
//! it, the module's own items (`use self::*`); an inner glob shadows an outer one, so the
//! name is the module's item where there is one and the fallback otherwise. In the copy
//! of the body each call of the name goes through such a block (`({ .. square })(x)`,
//! which keeps the inference of a generic device function's parameters from the
//! arguments), the first one checking that the name is a `#[device]` function: one
//! error, in cudajit's words, whether the fn is ordinary or missing. The fallback
//! function is silent (any arguments, any result); the check's error keeps rustc from
//! asking for its result type. Inside a fn body `self::*` would miss the items of the
//! enclosing blocks, so there the import is kept.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// The block expression `{ ..checks..; &[&callee_0::__CUDAJIT_FN, ..] }`, for the
/// `deps` field of the caller's `FnSource`. `paths` are seen from where the block sits.
/// `what` names the caller's kind in messages ("a kernel", "a `#[device]` function").
/// `bare` are the callees resolved as in [`BareCallee`] (their fallbacks in the module
/// `fallbacks_module` beside the function): their calls are checked in the copy of the
/// body ([`route_bare_calls`]), so here they are only looked up. `nested`: the block
/// sits in a device function's generated module, one below the function's.
pub fn dependency_block(
    callees: &[(String, syn::Path)],
    methods: &MethodProbes,
    what: &str,
    bare: &[BareCallee],
    fallbacks_module: &syn::Ident,
    nested: bool,
) -> TokenStream {
    let mut imports = Vec::new();
    let mut fallbacks = Vec::new();
    let mut checks = Vec::new();
    let mut statics = Vec::new();
    let home = if nested { quote!(super) } else { quote!(self) };
    for (n, (written, path)) in callees.iter().enumerate() {
        let span = path.span();
        if let Some(callee) = bare.iter().find(|b| b.name == written) {
            let name = &callee.name;
            statics.push(quote_spanned! {span=> {
                #[allow(unused_imports)]
                use #home::#fallbacks_module::*;
                {
                    #[allow(unused_imports)]
                    use #home::*;
                    &#name::__CUDAJIT_FN
                }
            }});
            continue;
        }
        let alias = format_ident!("callee_{}", n, span = span);
        let last = match path.segments.last() {
            Some(segment) => segment.ident.clone(),
            None => continue,
        };
        imports.push(quote_spanned! {span=>
            #[allow(unused_imports)]
            use #path as #alias;
        });
        fallbacks.push(quote_spanned! {span=>
            pub mod #alias {
                pub struct #last;
                pub const __CUDAJIT_MARK: #last = #last;
                pub static __CUDAJIT_FN: ::cudajit::__private::FnSource =
                    ::cudajit::__private::FnSource::NOT_A_DEVICE_FUNCTION;
            }
        });
        let message =
            format!("`{written}` is not a `#[device]` function, so {what} cannot call it");
        let note = format!(
            "add `#[device]` to the definition of `{written}` (its body must then be in the kernel subset)"
        );
        checks.push(quote_spanned! {span=>
            const _: () = {
                #[diagnostic::on_unimplemented(
                    message = #message,
                    label = "not a `#[device]` function",
                    note = #note
                )]
                trait DeviceFunction {}
                #[diagnostic::do_not_recommend]
                impl DeviceFunction for ::cudajit::__private::IsDevice {}
                const fn callable_from_device_code<T: DeviceFunction>(_: &T) {}
                callable_from_device_code(&#alias::__CUDAJIT_MARK)
            };
        });
        statics.push(quote_spanned! {span=> &#alias::__CUDAJIT_FN });
    }
    let MethodProbes {
        items: probe_items,
        statics: probe_statics,
    } = methods;
    quote! {{
        #[allow(non_camel_case_types, dead_code, unreachable_pub)]
        mod callee_fallbacks {
            #(#fallbacks)*
        }
        #[allow(unused_imports)]
        use callee_fallbacks::*;
        #(#imports)*
        #(#checks)*
        #probe_items
        &[#(#statics,)* #(#probe_statics),*]
    }}
}

/// A callee written as a bare name (`square(x)`, never with `::<..>`), with the
/// number of arguments of its first call (the fallback function takes as many).
pub struct BareCallee {
    pub name: syn::Ident,
    pub arity: usize,
}

/// The callees of `item` written as bare names; `callees` are `front::device_calls`.
pub fn bare_callees(item: &syn::ItemFn, callees: &[syn::Path]) -> Vec<BareCallee> {
    struct Calls {
        name: syn::Ident,
        arity: Option<usize>,
        turbofish: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Calls {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                let segments = &p.path.segments;
                if p.qself.is_none()
                    && p.path.leading_colon.is_none()
                    && segments.len() == 1
                    && segments[0].ident == self.name
                {
                    self.turbofish |= !segments[0].arguments.is_none();
                    self.arity.get_or_insert(call.args.len());
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut out = Vec::new();
    for path in callees {
        let Some(name) = path.get_ident() else {
            continue;
        };
        if matches!(
            name.to_string().as_str(),
            "self" | "super" | "crate" | "Self"
        ) {
            continue;
        }
        let mut calls = Calls {
            name: name.clone(),
            arity: None,
            turbofish: false,
        };
        syn::visit::Visit::visit_block(&mut calls, &item.block);
        if let (Some(arity), false) = (calls.arity, calls.turbofish) {
            out.push(BareCallee {
                name: name.clone(),
                arity,
            });
        }
    }
    out
}

/// `body` (the rustc-checked copy) with each call of a [`BareCallee`] made through a
/// block that resolves the name to the module's item or to a silent fallback; the
/// first call of each name also checks, in cudajit's words, that it is a `#[device]`
/// function. `what` names the caller's kind ("a kernel", ..).
pub fn route_bare_calls(
    mut body: syn::Block,
    bare: &[BareCallee],
    fallbacks_module: &syn::Ident,
    what: &str,
) -> syn::Block {
    struct Router<'b> {
        bare: &'b [BareCallee],
        fallbacks_module: &'b syn::Ident,
        what: &'b str,
        checked: Vec<String>,
    }
    impl syn::visit_mut::VisitMut for Router<'_> {
        fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
            syn::visit_mut::visit_expr_call_mut(self, call);
            let syn::Expr::Path(p) = &*call.func else {
                return;
            };
            if p.qself.is_some() || p.path.leading_colon.is_some() {
                return;
            }
            let Some(name) = p.path.get_ident() else {
                return;
            };
            if !self.bare.iter().any(|b| b.name == *name) {
                return;
            }
            let first = !self.checked.contains(&name.to_string());
            if first {
                self.checked.push(name.to_string());
            }
            let routed = bare_call_target(name, self.fallbacks_module, first.then_some(self.what));
            *call.func = syn::parse_quote_spanned!(name.span()=> (#routed));
        }
    }
    let mut router = Router {
        bare,
        fallbacks_module,
        what,
        checked: Vec::new(),
    };
    syn::visit_mut::VisitMut::visit_block_mut(&mut router, &mut body);
    body
}

/// The block a call of the bare callee `name` goes through (see [`BareCallee`]), all
/// spanned at `name`; with `check`, it also checks that `name` is a `#[device]`
/// function, `check` naming the caller's kind.
fn bare_call_target(
    name: &syn::Ident,
    fallbacks_module: &syn::Ident,
    check: Option<&str>,
) -> TokenStream {
    let span = name.span();
    let check = check.map(|what| {
        let message = format!("`{name}` is not a `#[device]` function, so {what} cannot call it");
        let note = format!(
            "add `#[device]` to the definition of `{name}`, or define it with `#[device]` if there is none (its body must then be in the kernel subset)"
        );
        quote_spanned! {span=>
            #[diagnostic::on_unimplemented(
                message = #message,
                label = "not a `#[device]` function",
                note = #note
            )]
            trait DeviceFunction {}
            #[diagnostic::do_not_recommend]
            impl DeviceFunction for ::cudajit::__private::IsDevice {}
            fn callable_from_device_code<T: DeviceFunction>(_: &T) {}
            callable_from_device_code(&#name::__CUDAJIT_MARK);
        }
    });
    quote_spanned! {span=> {
        #[allow(unused_imports)]
        use self::#fallbacks_module::*;
        {
            #[allow(unused_imports)]
            use self::*;
            #check
            #name
        }
    }}
}

/// The module `fallbacks_module`, beside a function whose body calls the `bare`
/// callees: for each, a type of the callee's name (its marker fails the `#[device]`
/// check, its source is empty) and a function of that name taking the call's number of
/// arguments of any type and returning any type, so that a call of a missing function
/// adds nothing to the one error. A braced struct: a unit struct would also be a value.
pub fn bare_fallback_module(
    fallbacks_module: &syn::Ident,
    bare: &[BareCallee],
    cfgs: &[&syn::Attribute],
) -> TokenStream {
    if bare.is_empty() {
        return TokenStream::new();
    }
    let items = bare.iter().map(|callee| {
        let name = &callee.name;
        let params: Vec<syn::Ident> = (0..callee.arity).map(|i| format_ident!("A{}", i)).collect();
        quote_spanned! {name.span()=>
            pub struct #name {}
            impl #name {
                pub const __CUDAJIT_MARK: #name = #name {};
                pub const __CUDAJIT_FN: ::cudajit::__private::FnSource =
                    ::cudajit::__private::FnSource::NOT_A_DEVICE_FUNCTION;
            }
            pub fn #name<#(#params,)* R>(#(_: #params),*) -> R {
                loop {}
            }
        }
    });
    quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_camel_case_types, non_snake_case, dead_code, unreachable_pub, clippy::all)]
        mod #fallbacks_module {
            #(#items)*
        }
    }
}

/// The sources of the `#[device]` methods a body may call. A `#[device]` method `m`
/// of a type `S` is an associated const `S::__cudajit_method_m` (see `expand::method`).
/// The macro does not know the type of `a` in `a.m(b)`, so it looks `m` up on every
/// struct type the body names; a trait in scope answers for a type without one
/// (an inherent associated item takes precedence over a trait's) with an empty
/// source, which `FnSource::unit` leaves out. The run-time compiler then picks by the
/// receiver's inferred type. `Vec3::m(..)` names its type: `S::m` must then be a
/// `#[device]` method, checked here with cudajit's message.
#[derive(Default)]
pub struct MethodProbes {
    items: TokenStream,
    statics: Vec<TokenStream>,
}

/// The [`MethodProbes`] of `item`; `types` are the struct paths it names, seen from
/// where the generated block sits. In a method (`own` is its name), `Self` is looked
/// at too, and no type for the method's own name: that would be the method's own
/// const, which rustc cannot evaluate inside itself (a method calling itself is
/// recursion, reported by the frontend).
pub fn method_probes(
    item: &syn::ItemFn,
    types: Vec<syn::Path>,
    own: Option<&syn::Ident>,
    nested: impl Fn(syn::Path) -> syn::Path,
) -> MethodProbes {
    let mut calls = kernel_device::front::methods::method_calls(item);
    // `Real::max(a, b)` of a generic parameter `Real` is the scalar's, never a method.
    let generics: Vec<&syn::Ident> = item.sig.generics.type_params().map(|t| &t.ident).collect();
    calls
        .paths
        .retain(|(ty, _)| !ty.get_ident().is_some_and(|i| generics.contains(&i)));
    let mut types = types;
    if own.is_some() {
        types.push(syn::parse_quote!(Self));
    }
    let mut names: Vec<syn::Ident> = calls.names.clone();
    for (_, name) in &calls.paths {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names.retain(|n| Some(n) != own);
    let mut items = Vec::new();
    for name in &names {
        let probe = format_ident!("__cudajit_probe_{}", name);
        let konst = format_ident!("__cudajit_method_{}", name);
        items.push(quote! {
            #[allow(non_camel_case_types, non_upper_case_globals, dead_code)]
            trait #probe {
                const #konst: ::cudajit::__private::FnSource =
                    ::cudajit::__private::FnSource::NOT_A_DEVICE_FUNCTION;
            }
            impl<T: ?::core::marker::Sized> #probe for T {}
        });
    }
    let mut seen = Vec::new();
    let mut statics = Vec::new();
    let mut push = |ty: &syn::Path, name: &syn::Ident, statics: &mut Vec<TokenStream>| {
        let key = format!("{}::{name}", path_text(ty));
        if seen.contains(&key) {
            return;
        }
        seen.push(key);
        let konst = format_ident!("__cudajit_method_{}", name);
        statics.push(quote!(&<#ty>::#konst));
    };
    for ty in &types {
        for name in calls.names.iter().filter(|n| Some(*n) != own) {
            push(ty, name, &mut statics);
        }
    }
    for (ty, name) in &calls.paths {
        if Some(name) == own && path_text(ty) == "Self" {
            continue;
        }
        let ty = nested(ty.clone());
        let written = format!("{}::{name}", path_text(&ty));
        let konst = format_ident!("__cudajit_method_{}", name);
        if path_text(&ty) != "Self" && Some(name) != own {
            let message = format!(
                "`{written}` is not a `#[device]` method, so device code cannot call it: add `#[device]` to `{name}` in the type's `impl` block (its body must then be in the kernel subset)"
            );
            let span = name.span();
            items.push(quote_spanned! {span=>
                const _: () = if <#ty>::#konst.text.is_empty() {
                    ::core::panic!(#message)
                };
            });
        }
        if Some(name) != own {
            push(&ty, name, &mut statics);
        }
    }
    MethodProbes {
        items: quote!(#(#items)*),
        statics,
    }
}

/// `const _: () = ..;` in a device function's `mod`: fails to compile with cudajit's
/// message when the function reaches itself through other device functions. Direct
/// recursion is the frontend's to report; this catches cycles through other functions,
/// reported once, at the cycle's first function.
pub fn recursion_check(name: &syn::Ident) -> TokenStream {
    let message = format!(
        "`{name}` calls itself through other `#[device]` functions: recursion is not supported on the device (GPU threads have tiny stacks); rewrite it as a loop"
    );
    quote_spanned! {name.span()=>
        const _: () = if ::cudajit::__private::first_of_a_call_cycle(&__CUDAJIT_FN) {
            ::core::panic!(#message)
        };
    }
}

/// The path as the user wrote it, for messages (`helpers::scale`).
pub fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_callees_keep_the_first_arity_and_skip_paths_and_turbofish() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn k(c: &mut [f32]) {
                c[0] = square(c[0]) + square(c[1]) + helpers::cube(c[2]);
                c[1] = clamp(c[1], 0.0, 1.0) + twice::<f32>(c[3]) + twice(c[4]);
            }
        };
        let callees = kernel_device::front::device_calls(&item);
        let bare: Vec<(String, usize)> = bare_callees(&item, &callees)
            .into_iter()
            .map(|b| (b.name.to_string(), b.arity))
            .collect();
        assert_eq!(bare, [("square".to_string(), 1), ("clamp".to_string(), 3)]);
    }

    #[test]
    fn every_call_of_a_bare_callee_is_routed_and_only_the_first_checks() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn k(c: &mut [f32]) { c[0] = square(square(c[0])); c[1] = other::square(c[1]); }
        };
        let bare = bare_callees(&item, &kernel_device::front::device_calls(&item));
        let module = format_ident!("k_callee_fallbacks");
        let routed = route_bare_calls((*item.block).clone(), &bare, &module, "a kernel");
        let text = routed.to_token_stream().to_string();
        assert_eq!(
            text.matches("use self :: k_callee_fallbacks :: *").count(),
            2
        );
        assert_eq!(text.matches("callable_from_device_code (&").count(), 1);
        // A path names its module: it is not routed.
        assert!(text.contains("other :: square (c [1])"), "{text}");
    }
}
