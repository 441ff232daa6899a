//! Callees resolved without an import that can fail (see `callees`' module docs): a
//! call of `square(x)`, `helpers::square(x)` or `square::<f32>(x)` in a function at
//! module level goes, in the rustc-checked copy of the body, through a block that
//! glob-imports fallbacks of the callee's name and, in a block inside it, the callee's
//! module (`use self::*`, `use helpers::*`); an inner glob shadows an outer one, so the
//! name is the module's item where there is one and the fallback otherwise. The first
//! call of each callee also checks that it is a `#[device]` function: one error, in
//! cudajit's words, whether the fn is ordinary or missing (an import of a missing name
//! would add rustc's "unresolved import" and "cannot find function").

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

/// A callee whose calls are routed: `name` is the last segment of its path.
pub struct RoutedCallee {
    pub name: syn::Ident,
    /// The path before the name (`helpers` of `helpers::square`), `None` for a bare name.
    pub module: Option<syn::Path>,
    /// The callee as written, without generic arguments (`helpers::square`), for
    /// messages and to find its calls.
    pub written: String,
    /// The number of arguments of its first call (a bare fallback takes as many).
    pub arity: usize,
    /// The shape of the generic arguments of a turbofish call (`square::<f32>(x)`),
    /// the same at every call; the fallback then declares as many.
    pub turbofish: Option<Vec<GenericShape>>,
    /// The function sits in a fn body: its fallbacks module is an item of that block,
    /// named without `self::`.
    pub in_block: bool,
}

/// What one explicit generic argument is, for the fallback's parameter list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GenericShape {
    Type,
    /// A literal or a `{ .. }` block: a const parameter (declared `usize`).
    Const,
    Lifetime,
}

fn is_keyword(ident: &syn::Ident) -> bool {
    matches!(
        ident.to_string().as_str(),
        "self" | "super" | "crate" | "Self"
    )
}

/// The path without the generic arguments of its last segment (what `device_calls`
/// lists), as text.
fn callee_key(path: &syn::Path) -> String {
    let mut path = path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
    }
    crate::callees::path_text(&path)
}

fn shapes(arguments: &syn::PathArguments) -> Option<Option<Vec<GenericShape>>> {
    match arguments {
        syn::PathArguments::None => Some(None),
        syn::PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .map(|arg| match arg {
                syn::GenericArgument::Type(_) => Some(GenericShape::Type),
                syn::GenericArgument::Const(_) => Some(GenericShape::Const),
                syn::GenericArgument::Lifetime(_) => Some(GenericShape::Lifetime),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(Some),
        syn::PathArguments::Parenthesized(_) => None,
    }
}

/// The callees of `item` (`callees` are `front::device_calls`) whose calls can be
/// routed: a bare name or a relative module path, called with the same generic
/// arguments' shape everywhere, and no two with the same last name (they would share
/// a fallback).
pub fn routed_callees(item: &syn::ItemFn, callees: &[syn::Path]) -> Vec<RoutedCallee> {
    struct Calls {
        key: String,
        arity: Option<usize>,
        turbofish: Option<Option<Vec<GenericShape>>>,
        mixed: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Calls {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                if p.qself.is_none() && callee_key(&p.path) == self.key {
                    let last = p.path.segments.last().map(|s| &s.arguments);
                    let shape = last.and_then(shapes);
                    match (&self.turbofish, shape) {
                        (_, None) => self.mixed = true,
                        (None, Some(shape)) => self.turbofish = Some(shape),
                        (Some(seen), Some(shape)) => self.mixed |= *seen != shape,
                    }
                    self.arity.get_or_insert(call.args.len());
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
        // Nested items are rejected anyway; their calls are not this function's.
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut out: Vec<RoutedCallee> = Vec::new();
    for path in callees {
        let Some(last) = path.segments.last() else {
            continue;
        };
        let name = last.ident.clone();
        if path.leading_colon.is_some()
            || is_keyword(&name)
            || path.segments.iter().any(|s| !s.arguments.is_none())
            || out.iter().any(|r| r.name == name)
        {
            continue;
        }
        let mut calls = Calls {
            key: crate::callees::path_text(path),
            arity: None,
            turbofish: None,
            mixed: false,
        };
        syn::visit::Visit::visit_block(&mut calls, &item.block);
        let (Some(arity), Some(turbofish), false) = (calls.arity, calls.turbofish, calls.mixed)
        else {
            continue;
        };
        let module = (path.segments.len() > 1).then(|| {
            let mut module = path.clone();
            module.segments.pop();
            module.segments.pop_punct();
            module
        });
        out.push(RoutedCallee {
            name,
            module,
            written: crate::callees::path_text(path),
            arity,
            turbofish,
            in_block: false,
        });
    }
    out
}

/// `body` (the rustc-checked copy) with each call of a [`RoutedCallee`] made through a
/// block that resolves the name to the module's item or to a silent fallback; the
/// first call of each callee also checks, in cudajit's words, that it is a `#[device]`
/// function. `what` names the caller's kind ("a kernel", ..).
pub fn route_calls(
    mut body: syn::Block,
    routed: &[RoutedCallee],
    fallbacks_module: &syn::Ident,
    what: &str,
) -> syn::Block {
    struct Router<'b> {
        routed: &'b [RoutedCallee],
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
            if p.qself.is_some() {
                return;
            }
            let key = callee_key(&p.path);
            let Some(callee) = self.routed.iter().find(|r| r.written == key) else {
                return;
            };
            let Some(last) = p.path.segments.last() else {
                return;
            };
            let first = !self.checked.contains(&key);
            if first {
                self.checked.push(key);
            }
            let module = callee
                .module
                .clone()
                .unwrap_or_else(|| syn::parse_quote!(self));
            let fallbacks = self.fallbacks_module;
            let fallbacks = if callee.in_block {
                quote!(#fallbacks)
            } else {
                quote!(self::#fallbacks)
            };
            let target = call_target(
                &last.ident,
                &last.arguments,
                &module,
                &fallbacks,
                first.then_some((self.what, callee.written.as_str())),
            );
            let span = last.ident.span();
            // As tokens: the block is printed as built, not parsed into an expression
            // first (issue 27: the macro's cost in `cargo check`).
            *call.func = syn::Expr::Verbatim(quote_spanned!(span=> (#target)));
        }
    }
    let mut router = Router {
        routed,
        fallbacks_module,
        what,
        checked: Vec::new(),
    };
    syn::visit_mut::VisitMut::visit_block_mut(&mut router, &mut body);
    body
}

/// The block a call of `name` goes through, all spanned at `name`: the fallbacks
/// glob-imported outside, `module`'s items inside. With `check` (the caller's kind and
/// the callee as written), it also checks that `name` is a `#[device]` function.
fn call_target(
    name: &syn::Ident,
    arguments: &syn::PathArguments,
    module: &syn::Path,
    fallbacks: &TokenStream,
    check: Option<(&str, &str)>,
) -> TokenStream {
    let span = name.span();
    let check = check.map(|(what, written)| {
        let message =
            format!("`{written}` is not a `#[device]` function, so {what} cannot call it");
        let note = match numba_name_hint(written) {
            Some(hint) => hint.to_string(),
            None => format!(
                "add `#[device]` to the definition of `{written}`, or define it with `#[device]` if there is none (its body must then be in the kernel subset)"
            ),
        };
        let bound = crate::callees::device_function_bound(span, &message, &note);
        quote_spanned! {span=>
            #bound
            fn a_kernel_calls_device_functions_only<T: DeviceFunction>(_: &T) {}
            a_kernel_calls_device_functions_only(&#name::__CUDAJIT_MARK);
        }
    });
    quote_spanned! {span=> {
        #[allow(unused_imports)]
        use #fallbacks::*;
        {
            #[allow(unused_imports)]
            use #module::*;
            #check
            #name #arguments
        }
    }}
}

/// The `deps` entry of a routed callee: its `__CUDAJIT_FN` looked up as its calls are
/// (the check is in the body). `home` is `self` or, from a device function's
/// generated module, `super`; `module` is the callee's module seen from there.
pub fn dependency_lookup(
    callee: &RoutedCallee,
    module: Option<syn::Path>,
    home: &TokenStream,
    fallbacks_module: &syn::Ident,
) -> TokenStream {
    let name = &callee.name;
    let module = match module {
        Some(module) => quote!(#module),
        None => home.clone(),
    };
    let fallbacks = if callee.in_block {
        quote!(#fallbacks_module)
    } else {
        quote!(#home::#fallbacks_module)
    };
    quote_spanned! {name.span()=> {
        #[allow(unused_imports)]
        use #fallbacks::*;
        {
            #[allow(unused_imports)]
            use #module::*;
            &#name::__CUDAJIT_FN
        }
    }}
}

/// The module `fallbacks_module`, beside a function whose body calls the `routed`
/// callees: for each, a type of the callee's name (its marker fails the `#[device]`
/// check, its source is empty) and a function of that name whose call adds nothing to
/// the one error: for a call without generic arguments it takes the call's number of
/// arguments of any type and returns any type; for a turbofish call it declares the
/// turbofish's parameters, takes any arguments and returns `!`. A braced struct: a
/// unit struct would also be a value.
pub fn fallback_module(
    fallbacks_module: &syn::Ident,
    routed: &[RoutedCallee],
    cfgs: &[&syn::Attribute],
) -> TokenStream {
    if routed.is_empty() {
        return TokenStream::new();
    }
    let items = routed.iter().map(|callee| {
        let name = &callee.name;
        let params: Vec<syn::Ident> = (0..callee.arity).map(|i| format_ident!("A{}", i)).collect();
        let function = match &callee.turbofish {
            None => quote_spanned! {name.span()=>
                pub fn #name<#(#params,)* R>(#(_: #params),*) -> R {
                    loop {}
                }
            },
            Some(shapes) => {
                let generics = shapes.iter().enumerate().map(|(i, shape)| match shape {
                    GenericShape::Type => {
                        let g = format_ident!("G{}", i);
                        quote!(#g)
                    }
                    GenericShape::Const => {
                        let g = format_ident!("G{}", i);
                        quote!(const #g: usize)
                    }
                    GenericShape::Lifetime => {
                        let g = syn::Lifetime::new(&format!("'g{i}"), name.span());
                        quote!(#g)
                    }
                });
                let args = params.iter().map(|_| quote!(_: impl ::core::marker::Sized));
                quote_spanned! {name.span()=>
                    pub fn #name<#(#generics),*>(#(#args),*) -> ! {
                        loop {}
                    }
                }
            }
        };
        quote_spanned! {name.span()=>
            pub struct #name {}
            impl #name {
                pub const __CUDAJIT_MARK: ::cudajit::launch_traits::NotADeviceFunction =
                    ::cudajit::launch_traits::NotADeviceFunction;
                pub const __CUDAJIT_FN: ::cudajit::__private::FnSource =
                    ::cudajit::__private::FnSource::NOT_A_DEVICE_FUNCTION;
            }
            #function
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

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn routed_callees_keep_the_first_arity_and_skip_mixed_turbofish_and_shared_names() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn k(c: &mut [f32]) {
                c[0] = square(c[0]) + square(c[1]) + helpers::cube(c[2]);
                c[1] = clamp(c[1], 0.0, 1.0) + twice::<f32>(c[3]) + twice(c[4]);
                c[2] = tile::<f32, 16>(c[5]) + other::square(c[6]);
            }
        };
        let callees = kernel_device::front::device_calls(&item);
        let routed: Vec<(String, usize, Option<Vec<GenericShape>>)> =
            routed_callees(&item, &callees)
                .into_iter()
                .map(|r| (r.written, r.arity, r.turbofish))
                .collect();
        assert_eq!(
            routed,
            [
                ("square".to_string(), 1, None),
                ("helpers::cube".to_string(), 1, None),
                ("clamp".to_string(), 3, None),
                (
                    "tile".to_string(),
                    1,
                    Some(vec![GenericShape::Type, GenericShape::Const])
                ),
            ]
        );
    }

    #[test]
    fn every_call_of_a_routed_callee_is_routed_and_only_the_first_checks() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn k(c: &mut [f32]) {
                c[0] = square(square(c[0])) + helpers::cube(c[1]) + twice::<f32>(c[2]);
            }
        };
        let routed = routed_callees(&item, &kernel_device::front::device_calls(&item));
        let module = format_ident!("k_callee_fallbacks");
        let body = route_calls((*item.block).clone(), &routed, &module, "a kernel");
        let text = body.to_token_stream().to_string();
        assert_eq!(
            text.matches("use self :: k_callee_fallbacks :: *").count(),
            4
        );
        assert_eq!(
            text.matches("a_kernel_calls_device_functions_only (&")
                .count(),
            3
        );
        assert!(text.contains("use helpers :: * ;"), "{text}");
        assert!(text.contains("twice :: < f32 >"), "{text}");
    }
}

/// What a Numba user reaching for a CUDA helper by its Numba name should write instead.
fn numba_name_hint(written: &str) -> Option<&'static str> {
    match written {
        "this_grid" => Some(
            "cudajit's grid barrier is `grid_sync()` (Numba's `cuda.cg.this_grid().sync()`); the kernel is then launched cooperatively",
        ),
        "syncthreads" => Some("cudajit's block barrier is `sync_threads()` (Numba's `cuda.syncthreads()`)"),
        _ => None,
    }
}
