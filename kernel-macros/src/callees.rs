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

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// The block expression `{ ..checks..; &[&callee_0::__CUDAJIT_FN, ..] }`, for the
/// `deps` field of the caller's `FnSource`. `paths` are seen from where the block sits.
/// `what` names the caller's kind in messages ("a kernel", "a `#[device]` function").
pub fn dependency_block(callees: &[(String, syn::Path)], what: &str) -> TokenStream {
    let mut imports = Vec::new();
    let mut fallbacks = Vec::new();
    let mut checks = Vec::new();
    let mut statics = Vec::new();
    for (n, (written, path)) in callees.iter().enumerate() {
        let span = path.span();
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
    quote! {{
        #[allow(non_camel_case_types, dead_code, unreachable_pub)]
        mod callee_fallbacks {
            #(#fallbacks)*
        }
        #[allow(unused_imports)]
        use callee_fallbacks::*;
        #(#imports)*
        #(#checks)*
        &[#(#statics),*]
    }}
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
