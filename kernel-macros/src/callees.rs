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
//! errors for one mistake. So a callee written as a bare name (`square(x)`), a relative
//! module path (`helpers::square(x)`) or with a turbofish (`square::<f32>(x)`) is
//! resolved without an import that can fail (`routed_callees`), in a function at
//! module level and in a kernel inside a fn body (there only where its fallback cannot
//! hide an item of an enclosing block); the import is kept for the others.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// The block expression `{ ..checks..; &[&callee_0::__CUDAJIT_FN, ..] }`, for the
/// `deps` field of the caller's `FnSource`. `paths` are seen from where the block sits.
/// `what` names the caller's kind in messages ("a kernel", "a `#[device]` function").
/// `bare` are the callees resolved as in `routed_callees` (their fallbacks in the module
/// `fallbacks_module` beside the function): their calls are checked in the copy of the
/// body (`routed_callees::route_calls`), so here they are only looked up. Beside them,
/// the names of the `#[device]` fns the file surely defines in the caller's module
/// (`context::Site::defines_device_fn`): named directly. `nested`: the block sits in a
/// device function's generated module, one below the function's.
pub fn dependency_block(
    callees: &[(String, syn::Path)],
    methods: &MethodProbes,
    what: &str,
    (bare, device_fns_here): (&[crate::routed_callees::RoutedCallee], &[String]),
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
        if device_fns_here.contains(written) {
            statics.push(quote_spanned! {span=> &#path::__CUDAJIT_FN });
            continue;
        }
        if let Some(callee) = bare.iter().find(|b| b.written == *written) {
            let module = (path.segments.len() > 1).then(|| {
                let mut module = path.clone();
                module.segments.pop();
                module.segments.pop_punct();
                module
            });
            statics.push(crate::routed_callees::dependency_lookup(
                callee,
                module,
                &home,
                fallbacks_module,
            ));
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
        let bound = device_function_bound(span, &message, &note);
        checks.push(quote_spanned! {span=>
            const _: () = {
                #bound
                const fn a_kernel_calls_device_functions_only<T: DeviceFunction>(_: &T) {}
                a_kernel_calls_device_functions_only(&#alias::__CUDAJIT_MARK)
            };
        });
        statics.push(quote_spanned! {span=> &#alias::__CUDAJIT_FN });
    }
    let MethodProbes {
        items: probe_items,
        statics: probe_statics,
    } = methods;
    // No module where no callee is imported: a module and a glob import per function
    // that calls none would be rustc's to resolve for nothing (issue 27).
    let fallbacks = (!fallbacks.is_empty()).then(|| {
        quote! {
            #[allow(non_camel_case_types, dead_code, unreachable_pub)]
            mod callee_fallbacks {
                #(#fallbacks)*
            }
            #[allow(unused_imports)]
            use callee_fallbacks::*;
        }
    });
    quote! {{
        #fallbacks
        #(#imports)*
        #(#checks)*
        #probe_items
        &[#(#statics,)* #(#probe_statics),*]
    }}
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
    // A probe trait only where a lookup above names its const: a body that names no
    // struct type (`x.sqrt()` on scalars) then adds no trait and no blanket impl for
    // rustc to check (issue 27: three per kernel of the macro-cost crate).
    let probed = |name: &syn::Ident| {
        !types.is_empty() || calls.paths.iter().any(|(_, called)| called == name)
    };
    let probes = names.iter().filter(|name| probed(name)).map(|name| {
        let probe = format_ident!("__cudajit_probe_{}", name);
        let konst = format_ident!("__cudajit_method_{}", name);
        quote! {
            #[allow(non_camel_case_types, non_upper_case_globals, dead_code)]
            trait #probe {
                const #konst: ::cudajit::__private::FnSource =
                    ::cudajit::__private::FnSource::NOT_A_DEVICE_FUNCTION;
            }
            impl<T: ?::core::marker::Sized> #probe for T {}
        }
    });
    let items: Vec<TokenStream> = probes.chain(items).collect();
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

/// The trait only `#[device]` functions' marks implement, with the error rustc shows
/// (`message`, `note`) for a callee that is not one; the caller adds the check that a
/// callee's `__CUDAJIT_MARK` implements it.
pub(crate) fn device_function_bound(span: Span, message: &str, note: &str) -> TokenStream {
    quote_spanned! {span=>
        #[diagnostic::on_unimplemented(
            message = #message,
            label = "not a `#[device]` function",
            note = #note
        )]
        trait DeviceFunction {}
        #[diagnostic::do_not_recommend]
        impl DeviceFunction for ::cudajit::__private::IsDevice {}
    }
}
