//! Emits the items for `#[kernel]` and `#[device]` (shapes fixed by the contract):
//!
//! - kernel `k`: in the value namespace `fn k` (the kernel's signature, never callable:
//!   `twin::kernel_twin`), in the type namespace `struct k {}` with `k::source()` (the
//!   embedded `FnSource`), `k::launch(config, args..)` and `k::args(args..)` (what
//!   `launch!` expands to), plus the hidden rustc-checked twin `__cudajit_twin_k`;
//! - device `f`: the fn itself (body with the device API imported) plus
//!   `mod f { pub static __CUDAJIT_FN: FnSource }`, which kernels reach as a dependency.
//!
//! Generated code names the runtime only through `::cudajit::__private`.

use crate::{callees, parse, twin};
use kernel_device::ir::FunctionOptions;
use kernel_device::proc::abi::NdPart;
use kernel_device::source::{render_preserving_lines, SourceKind};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

pub fn expand(kind: SourceKind, args: TokenStream, input: TokenStream) -> TokenStream {
    expand_with(kind, args, input, TokenStream::new())
}

/// [`expand`], with `extra` items placed in a device function's module (`#[vectorize]`
/// adds its `apply` functions there).
pub fn expand_with(
    kind: SourceKind,
    args: TokenStream,
    input: TokenStream,
    extra: TokenStream,
) -> TokenStream {
    let item: syn::ItemFn = match crate::profile::phase("parse", || syn::parse2(input.clone())) {
        Ok(item) => item,
        Err(e) => {
            let error = parse::not_a_fn(kind, &input, e).to_compile_error();
            return quote!(#error #input);
        }
    };
    // Read once: each question about the site would read the file again.
    let site = crate::profile::phase("site", crate::context::Site::of_attribute);
    if let Some(rejected) = crate::context::reject_in_impl_or_trait(kind, &item, &site) {
        return rejected;
    }
    // A `#[device]` method is checked as the device function it compiles to (`self`
    // a parameter); a receiver kernels cannot take is then the one error.
    let method = crate::context::is_device_method(kind, &item, &site);
    let as_free_fn;
    let (checked, receiver_diags) = if method {
        let (free, diags) = kernel_device::front::methods::as_free_fn(&item, None);
        as_free_fn = free;
        (&as_free_fn, diags)
    } else {
        (&item, Vec::new())
    };
    // Frontend diagnostics first; the macro's own structural ones only where the
    // frontend said nothing at that place.
    let mut reported = if receiver_diags.is_empty() {
        crate::profile::phase("check", || kernel_device::front::check_item(checked, kind))
    } else {
        receiver_diags
    };
    let static_muts = crate::globals::static_mut_reads(&item, &reported);
    reported.extend(static_muts);
    let mut own = Vec::new();
    let options = parse::options(args, kind, &mut own);
    let body = crate::profile::phase("twin", || {
        twin::body(&item.block, &item.sig.generics, &mut own)
    });
    let params = match kind {
        SourceKind::Kernel => parse::kernel_params(&item, &reported, &mut own),
        SourceKind::Device => Vec::new(),
    };
    let mut all = reported.clone();
    all.extend(
        own.into_iter()
            .filter(|d| !parse::already_reported(d, &reported)),
    );
    // A function with `self` sits in an `impl` block, where the items generated beside
    // it could not be: only the function itself is emitted, so the one error is about
    // what the user wrote.
    if item.sig.receiver().is_some() && !method {
        let errors = kernel_device::diag::combine(&all).map(|e| e.to_compile_error());
        let mut method = item.clone();
        *method.block = twin::stub_body();
        method
            .attrs
            .push(syn::parse_quote!(#[allow(unused_variables, dead_code)]));
        return quote!(#errors #method);
    }
    // Once something is reported, the body is not handed to rustc as well: each problem
    // is then shown once, and the signature still type-checks its callers.
    let failed = !all.is_empty();
    let what = match kind {
        SourceKind::Kernel => "a kernel",
        SourceKind::Device if method => "a `#[device]` method",
        SourceKind::Device => "a `#[device]` function",
    };
    // Callees resolved without an import that could fail (see `callees`); not in a
    // method (its `impl` block holds no other items). Inside a fn body `self::*` would
    // miss the items of the enclosing blocks: there only a kernel's callees whose
    // fallback cannot hide such an item (`context::only_called_in_file`), its
    // fallbacks named without `self::` (they sit in the block).
    // Callees the file surely defines as `#[device]` fns of this module are called
    // and named as they are written: no fallback to route them to (issue 27: each
    // routed call costs rustc a glob import of the module).
    // One walk of the body for them: routing, the direct calls and `deps` all read it.
    let calls = if failed {
        Vec::new()
    } else {
        kernel_device::front::device_calls(&item)
    };
    let device_fns_here: Vec<String> = if failed || method {
        Vec::new()
    } else {
        calls
            .iter()
            .filter_map(|path| path.get_ident().map(|name| name.to_string()))
            .filter(|name| {
                site.defines_device_fn(name) && !kernel_device::front::twin_glob_may_shadow(name)
            })
            .collect()
    };
    let routable = || {
        let mut routed = crate::routed_callees::routed_callees(&item, &calls);
        routed.retain(|c| !device_fns_here.contains(&c.written));
        routed
    };
    let bare = crate::profile::phase("routable", || {
        if failed || method {
            Vec::new()
        } else if site.at_module_level() {
            routable()
        } else if kind == SourceKind::Kernel {
            let mut routed = routable();
            routed.retain(|c| crate::context::only_called_in_file(&c.name.to_string()));
            for callee in &mut routed {
                callee.in_block = true;
            }
            routed
        } else {
            Vec::new()
        }
    });
    // A turbofish call's fallback returns `!` (see `routed_callees::fallback_module`):
    // where it is used, the one error is not followed by "unreachable expression".
    let item = if bare.iter().any(|c| c.turbofish.is_some()) {
        let mut item = item;
        item.attrs
            .push(syn::parse_quote!(#[allow(unreachable_code)]));
        item
    } else {
        item
    };
    let fallbacks_module = format_ident!("{}_callee_fallbacks", item.sig.ident);
    let body = if failed {
        twin::stub_body()
    } else {
        crate::profile::phase("route", || {
            crate::routed_callees::route_calls(body, &bare, &fallbacks_module, what)
        })
    };
    // A function that did not check is never compiled: it names no callees and no
    // constants, so nothing is reported about them twice.
    // A device function's generated items sit in a module of their own; a method's
    // in its `impl` block, as a kernel's.
    let nested = kind == SourceKind::Device && !method;
    // With it, whether the entries name anything by a path relative to the function's
    // module (a device function's generated module then imports its parent's names),
    // and whether there are any.
    let (deps, deps_name_items, has_deps) = crate::profile::phase("deps", || {
        if failed {
            (quote!(&[]), false, false)
        } else {
            let types: Vec<syn::Path> = kernel_device::front::struct_refs(&item)
                .into_iter()
                .map(|(_, path)| from_generated_module(path, nested))
                .collect();
            let callees = dependencies(&calls, nested);
            // A `#[device]` fn of the module is named through `super::` (no glob needed).
            let names_items = !types.is_empty()
                || callees
                    .iter()
                    .any(|(written, _)| !device_fns_here.contains(written));
            let has_deps = !types.is_empty() || !callees.is_empty();
            let own = method.then_some(&item.sig.ident);
            let probes =
                callees::method_probes(&item, types, own, |p| from_generated_module(p, nested));
            let block = callees::dependency_block(
                &callees,
                &probes,
                what,
                (&bare, &device_fns_here),
                &fallbacks_module,
                nested,
            );
            (block, names_items, has_deps)
        }
    });
    // From the input tokens, not from `item`: re-printing a syn item makes new groups,
    // whose closing delimiters lose their own position inside a proc macro.
    // A free function from the file's text where it holds the input's tokens (one
    // print of the tokens, not a call into the compiler per token: issue 27); a
    // method, as the AOT build renders it, from its tokens.
    let rendered = crate::profile::phase("render", || {
        let tokens = parse::without_attrs_and_vis(input);
        let from_file = if method {
            None
        } else {
            site.render_from_file(&tokens)
        };
        from_file.unwrap_or_else(|| render_preserving_lines(tokens))
    });
    let items = crate::profile::phase("items", || match kind {
        SourceKind::Kernel => kernel(&item, &rendered, &options, &deps, &params, body, failed),
        SourceKind::Device if method => method_items(&item, &rendered, &deps, body, failed),
        SourceKind::Device => device(
            &item,
            &rendered,
            (&deps, deps_name_items, has_deps),
            body,
            failed,
            extra,
        ),
    });
    let cfgs: Vec<&syn::Attribute> = item.attrs.iter().filter(|a| twin::is_cfg(a)).collect();
    let fallbacks = crate::routed_callees::fallback_module(&fallbacks_module, &bare, &cfgs);
    let errors = kernel_device::diag::combine(&all).map(|e| e.to_compile_error());
    quote!(#errors #items #fallbacks)
}

/// The path of every device function the body calls (`calls`, the front end's
/// `device_calls`), as seen from where the generated statics live, spanned at the
/// call so that a call to an ordinary fn is reported there.
fn dependencies(calls: &[syn::Path], nested: bool) -> Vec<(String, syn::Path)> {
    calls
        .iter()
        // `self(..)` and the like name no function (rustc reports the call in the twin)
        // and cannot be imported under an alias.
        .filter(|path| {
            path.segments.last().is_some_and(|last| {
                !matches!(
                    last.ident.to_string().as_str(),
                    "self" | "super" | "crate" | "Self"
                )
            })
        })
        .map(|path| {
            let written = callees::path_text(path);
            (written, callee_from_generated_module(path.clone(), nested))
        })
        .collect()
}

/// `path` as written in the function, seen from where its generated statics live: a
/// device function's sit one module deeper (`mod f { use super::*; .. }`), so its
/// `self::` becomes `super::` and its `super::` `super::super::`.
fn from_generated_module(mut path: syn::Path, nested: bool) -> syn::Path {
    let first = path.segments.first().map(|s| s.ident.to_string());
    if nested && path.leading_colon.is_none() {
        match first.as_deref() {
            Some("self") => {
                path.segments[0].ident = syn::Ident::new("super", path.segments[0].ident.span())
            }
            Some("super") => path.segments.insert(0, syn::parse_quote!(super)),
            _ => {}
        }
    }
    path
}

/// A callee path for a device function's generated module: as [`from_generated_module`],
/// and a bare name through `super::` (the same item the module's glob import gives),
/// which lets rustc print the fallback marker of an ordinary function by its bare name.
fn callee_from_generated_module(path: syn::Path, nested: bool) -> syn::Path {
    let mut path = from_generated_module(path, nested);
    if nested && path.leading_colon.is_none() && path.segments.len() == 1 {
        let span = path.segments[0].ident.span();
        path.segments
            .insert(0, syn::PathSegment::from(syn::Ident::new("super", span)));
    }
    path
}

/// The `FnSource { .. }` expression for `item` (attributes and visibility dropped,
/// printed line-preserving so the runtime maps spans to the user's lines).
fn fn_source(
    item: &syn::ItemFn,
    rendered: &(String, u32),
    kind: SourceKind,
    options: &FunctionOptions,
    deps: &TokenStream,
    failed: bool,
    is_method: bool,
) -> (TokenStream, bool) {
    let (text, line) = rendered;
    let name = item.sig.ident.to_string();
    let nested = kind == SourceKind::Device && !is_method;
    let (consts, mut structs) = if failed {
        (Vec::new(), Vec::new())
    } else {
        (const_items(item, nested), struct_items(item, nested))
    };
    if is_method {
        structs.push(self_struct_item(item));
    }
    let names_items = !consts.is_empty() || !structs.is_empty();
    let kind = match kind {
        SourceKind::Kernel => quote!(Kernel),
        SourceKind::Device => quote!(Device),
    };
    let options = options_tokens(options);
    // The lists as fields, not arguments: a struct literal's fields borrow for as long
    // as the static (a method's probes and `Self` entry call `const fn`s, which are
    // never promoted), and a `const` block would make mutually recursive functions'
    // statics a cycle of constants instead of cudajit's error.
    let consts = (!consts.is_empty()).then(|| quote!(consts: &[#(#consts),*],));
    let structs = (!structs.is_empty()).then(|| quote!(structs: &[#(#structs),*],));
    let source = quote! {
        ::cudajit::__private::FnSource {
            deps: #deps,
            #consts
            #structs
            ..::cudajit::__private::FnSource::generated(
                ::cudajit::__private::SourceKind::#kind,
                #name,
                #text,
                ::core::file!(),
                #line,
                #options,
                ::core::cfg!(debug_assertions),
            )
        }
    };
    (source, names_items)
}

/// `options` as `FnSource::generated` takes them: the defaults by name, the common case
/// (fewer tokens: issue 27), else the literal. `debug_assertions` is passed apart, from
/// the defining crate's `cfg!`, so it is `false` here.
fn options_tokens(options: &FunctionOptions) -> TokenStream {
    let defaults = FunctionOptions {
        debug_assertions: false,
        ..*options
    } == FunctionOptions::DEFAULT;
    if defaults {
        return quote!(::cudajit::__private::FunctionOptions::DEFAULT);
    }
    let launch_bounds = match options.launch_bounds {
        Some(kernel_device::ir::LaunchBounds {
            max_threads,
            min_blocks,
            block_dim,
        }) => {
            let block_dim = match block_dim {
                Some([x, y, z]) => quote!(::core::option::Option::Some([#x, #y, #z])),
                None => quote!(::core::option::Option::None),
            };
            quote!(::core::option::Option::Some(
                ::cudajit::__private::LaunchBounds {
                    max_threads: #max_threads,
                    min_blocks: #min_blocks,
                    block_dim: #block_dim,
                }
            ))
        }
        None => quote!(::core::option::Option::None),
    };
    let (bounds_check, fast_math, debug_info) =
        (options.bounds_check, options.fast_math, options.debug_info);
    quote! {
        ::cudajit::__private::FunctionOptions {
            bounds_check: #bounds_check,
            fast_math: #fast_math,
            launch_bounds: #launch_bounds,
            debug_assertions: false,
            debug_info: #debug_info,
        }
    }
}

/// A `ConstItem` for each crate constant the body names: rustc evaluates the item and
/// the run-time compiler receives its value. The name keeps the user's span, so a name
/// that is no constant is reported at its use.
fn const_items(item: &syn::ItemFn, nested: bool) -> Vec<TokenStream> {
    kernel_device::front::const_refs(item)
        .into_iter()
        .map(|(name, path)| {
            let path = from_generated_module(path, nested);
            // Spanned at the name: a constant of a type kernels cannot read is
            // reported where the body names it.
            let value = quote::quote_spanned! {path.span()=>
                ::cudajit::__private::ToConstValue::to_const_value(&#path)
            };
            quote! {
                ::cudajit::__private::ConstItem {
                    name: #name,
                    value: &|| #value,
                }
            }
        })
        .collect()
}

/// A `StructItem` for each struct type the function names: the `DeviceCopy` derive
/// describes its fields to the run-time compiler. Spanned at the name, so a struct
/// without the derive is reported where the function uses it.
fn struct_items(item: &syn::ItemFn, nested: bool) -> Vec<TokenStream> {
    kernel_device::front::struct_refs(item)
        .into_iter()
        .map(|(name, path)| {
            let path = from_generated_module(path, nested);
            let def = quote::quote_spanned! {path.span()=>
                <#path as ::cudajit::__private::DeviceCopy>::device_type()
            };
            let enum_def = quote::quote_spanned! {path.span()=>
                <#path as ::cudajit::__private::DeviceCopy>::device_enum()
            };
            quote! {
                ::cudajit::__private::StructItem {
                    name: #name,
                    def: &|| #def,
                    enum_def: &|| #enum_def,
                }
            }
        })
        .collect()
}

fn kernel(
    item: &syn::ItemFn,
    rendered: &(String, u32),
    options: &FunctionOptions,
    deps: &TokenStream,
    params: &[parse::Param],
    body: syn::Block,
    failed: bool,
) -> TokenStream {
    let twin = twin::kernel_twin(item, body);
    let (source, _) = fn_source(
        item,
        rendered,
        SourceKind::Kernel,
        options,
        deps,
        failed,
        false,
    );
    let name = &item.sig.ident;
    let vis = &item.vis;
    let docs = item.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let cfgs: Vec<_> = item.attrs.iter().filter(|a| twin::is_cfg(a)).collect();

    let config = if params.iter().any(|p| p.name == "config") {
        format_ident!("__cudajit_config")
    } else {
        format_ident!("config")
    };
    let mut launch_params = Vec::new();
    let mut args = Vec::new();
    // Statements before the arguments (an N-d argument split into its parts).
    let mut split = Vec::new();
    let mut all_supported = true;
    for param in params {
        let p = &param.name;
        if let parse::Shape::Nd {
            elem: t,
            dims,
            mutable,
        } = &param.shape
        {
            let d = proc_macro2::Literal::usize_unsuffixed(*dims);
            let bound = if *mutable {
                format_ident!("NdArgMut")
            } else {
                format_ident!("NdArg")
            };
            launch_params.push(
                quote::quote_spanned!(t.span()=> #p: impl ::cudajit::__private::#bound<'a, #t, #d>),
            );
            split.push(quote! {
                let #p = ::cudajit::__private::#bound::<'a, #t, #d>::into_nd_parts(#p);
            });
            // The arguments of `proc::abi::nd_parts`, in its order (`front::nd` declares
            // the kernel's parameters from the same list).
            for part in kernel_device::proc::abi::nd_parts(*dims) {
                args.push(match part {
                    NdPart::Data => quote!(#p.data),
                    NdPart::Origin => {
                        quote!(::cudajit::__private::KernelArg::scalar::<usize>(#p.origin))
                    }
                    NdPart::Shape(axis) => {
                        quote!(::cudajit::__private::KernelArg::scalar::<usize>(#p.shape[#axis]))
                    }
                    NdPart::Stride(axis) => {
                        quote!(::cudajit::__private::KernelArg::scalar::<isize>(#p.strides[#axis]))
                    }
                });
            }
            continue;
        }
        let (ty, arg) = match &param.shape {
            // Spanned at the element type: a struct without the derive is reported there.
            parse::Shape::Slice(t) => (
                quote::quote_spanned!(t.span()=> impl ::cudajit::launch_traits::KernelSlice<'a, #t>),
                quote!(::cudajit::launch_traits::KernelSlice::<'a, #t>::into_kernel_arg(#p)),
            ),
            parse::Shape::SliceMut(t) => (
                quote::quote_spanned!(t.span()=> impl ::cudajit::launch_traits::KernelSliceMut<'a, #t>),
                quote!(::cudajit::launch_traits::KernelSliceMut::<'a, #t>::into_kernel_arg(#p)),
            ),
            parse::Shape::Scalar(t) => (
                quote!(#t),
                quote!(::cudajit::__private::KernelArg::scalar::<#t>(#p)),
            ),
            // Spanned at the type, bounded by `DeviceCopy` alone: a type without the
            // derive is reported there once, by the bound the signature carries anyway.
            parse::Shape::Value(t) => (
                quote!(#t),
                if is_plain_path(t) {
                    quote! {{
                        #[allow(unused_imports)]
                        use ::cudajit::__private::{ByValueArg as _, ByValueFallback as _};
                        (::cudajit::__private::ByValue::<#t>(#p)).kernel_arg()
                    }}
                } else {
                    quote::quote_spanned!(t.span()=> ::cudajit::__private::KernelArg::by_value::<#t>(#p))
                },
            ),
            // Hopper: TMA
            parse::Shape::TensorMap { ty, writable } => (
                quote!(&'a #ty),
                if *writable {
                    quote!(::cudajit::__private::KernelArg::tensor_map_mut(#p))
                } else {
                    quote!(::cudajit::__private::KernelArg::tensor_map(#p))
                },
            ),
            parse::Shape::Unsupported => {
                all_supported = false;
                (quote!(impl ::core::marker::Sized), quote!())
            }
            parse::Shape::Nd { .. } => unreachable!("split above"),
        };
        launch_params.push(quote!(#p: #ty));
        args.push(arg);
    }
    let count = args.len();
    let generics = GenericLauncher::new(item);
    let (params_decl, params_use) = (&generics.decl, &generics.args);
    // With an unsupported parameter there is nothing to launch; the error is reported.
    // `launch` is `args(..).launch(config)` (what `launch!` runs): one copy of the
    // argument conversions per kernel for rustc to check, not two (issue 27).
    let names = params.iter().map(|p| &p.name);
    let launch_pending = quote!(Self::args::<#(#params_use),*>(#(#names),*).launch(#config));
    let body = if !(all_supported && !(failed && generics.is_generic())) {
        quote!(::core::unreachable!("cudajit: this kernel did not compile"))
    } else if options.bounds_check {
        launch_pending
    } else {
        quote!(unsafe { #launch_pending })
    };
    let pending = quote!(::cudajit::__private::PendingLaunch { source, cache, args: [#(#args),*] });
    let (pending, pending_ty) = if options.bounds_check {
        (
            pending,
            quote!(::cudajit::__private::PendingLaunch<'a, #count>),
        )
    } else {
        (
            quote!(::cudajit::launch_traits::BoundscheckFalseLaunch::new(#pending)),
            quote!(::cudajit::launch_traits::BoundscheckFalseLaunch<'a, #count>),
        )
    };
    let args_body = if all_supported && !(failed && generics.is_generic()) {
        quote! {
            #(#split)*
            let (source, cache) = Self::__cudajit_instance::<#(#params_use),*>();
            #pending
        }
    } else {
        quote!(::core::unreachable!("cudajit: this kernel did not compile"))
    };
    let instance_body = generics.instance_body();
    // Only a generic kernel has instantiations (its `__cudajit_instance` reads them).
    let instances = generics.is_generic().then(|| {
        quote! {
            // A generic kernel's instantiations launched so far.
            #[doc(hidden)]
            pub fn instances() -> &'static ::cudajit::__private::GenericKernels {
                static INSTANCES: ::cudajit::__private::GenericKernels = ::cudajit::__private::GenericKernels::new();
                &INSTANCES
            }
        }
    });
    // A non-generic kernel registers itself, so that opening a GPU compiles it while
    // the context is created (kernel_host's `compile::while_opening`).
    let registration = (all_supported && !failed && !generics.is_generic()).then(|| {
        quote! {
            #(#cfgs)*
            ::cudajit::__private::inventory::submit! {
                ::cudajit::__private::RegisteredKernel(#name::source)
            }
        }
    });
    // `boundscheck = false` is a promise the compiler cannot check (an index out of
    // range writes outside the buffer, even into a host `&mut [bool]`): launching such
    // a kernel is `unsafe`, so `launch!` of it must sit in an `unsafe {}` block.
    let (unsafety, safety_doc) = if options.bounds_check {
        (TokenStream::new(), String::new())
    } else {
        (
            quote!(unsafe),
            format!(
                "\n\n# Safety\n\n`{name}` is compiled with `boundscheck = false`: every index \
                 its body uses must be in bounds for the slices passed here. An index out of \
                 range reads or writes outside the buffer (undefined behaviour, possibly a lost \
                 GPU context), where a checked kernel would return `Err(KernelPanic)`."
            ),
        )
    };
    let launch_doc = format!(
        "Launches `{name}` with `config` (grid, block, stream, shared bytes). Host slices are copied \
         to the device (and back for `&mut` parameters, then synchronized); device arrays are passed \
         without a copy and the launch stays asynchronous. Same as `launch!({name}[grid, block](..))`.{safety_doc}"
    );
    // The hidden items' explanations are `//` comments, which leave no tokens: a `///`
    // line is a `#[doc]` attribute in every kernel's expansion (issue 27).
    quote! {
        // The type namespace: everything of the kernel but its signature (the value
        // `#name` is the fn of `twin::kernel_twin`). Braced, so it is no value.
        #(#cfgs)*
        #(#docs)*
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #(#cfgs)*
        impl #name {
            ::cudajit::__kernel_items!([#(#params_decl),*] [#(#params_use),*]);

            // The kernel's source as embedded for the run-time compiler.
            #[doc(hidden)]
            pub fn source() -> &'static ::cudajit::__private::FnSource {
                static SOURCE: ::cudajit::__private::FnSource = #source;
                &SOURCE
            }

            #instances

            // The source and cache of the instantiation a launch with these generic
            // arguments runs (the kernel's own for a non-generic kernel).
            #[doc(hidden)]
            #[allow(unused_variables)]
            pub fn __cudajit_instance<#(#params_decl),*>() -> (&'static ::cudajit::__private::FnSource, &'static ::cudajit::__private::KernelCache) {
                #instance_body
            }

            #[doc = ::cudajit::__kernel_args_doc!()]
            #[allow(unused_variables, clippy::too_many_arguments)]
            pub fn args<'a, #(#params_decl),*>(
                #(#launch_params),*
            ) -> #pending_ty {
                #args_body
            }

            /// The launch shape `launch!(k[grid, block](..))` gives: `grid` and `block`
            /// each an integer, a pair or a triple (Numba's `griddim`, `blockdim`).
            /// Generated here, not by `__kernel_items!`: a shape rustc rejects is then
            /// reported at the kernel, in no macro of cudajit's.
            pub fn launch_config<'c>(
                grid: impl ::core::convert::Into<::cudajit::Dim>,
                block: impl ::core::convert::Into<::cudajit::Dim>,
            ) -> ::cudajit::LaunchConfig<'c> {
                ::cudajit::LaunchConfig::new(grid, block)
            }

            #[doc = #launch_doc]
            #[allow(unused_variables, unused_unsafe, clippy::too_many_arguments)]
            pub #unsafety fn launch<'a, #(#params_decl),*>(
                #config: impl ::core::convert::Into<::cudajit::LaunchConfig<'a>>,
                #(#launch_params),*
            ) -> ::cudajit::Result<()> {
                #body
            }
        }

        #registration

        #twin
    }
}

/// A `#[device]` function's (or method's) `FnSource` and the function itself for the
/// host, its body the checked twin's (silenced when the checks failed).
fn device_source_and_host_fn(
    item: &syn::ItemFn,
    rendered: &(String, u32),
    deps: &TokenStream,
    body: syn::Block,
    failed: bool,
    is_method: bool,
) -> (TokenStream, bool, syn::ItemFn) {
    let (source, names_items) = fn_source(
        item,
        rendered,
        SourceKind::Device,
        &FunctionOptions::DEFAULT,
        deps,
        failed,
        is_method,
    );
    let mut host_fn = item.clone();
    *host_fn.block = body;
    if failed {
        host_fn
            .attrs
            .push(syn::parse_quote!(#[allow(unused_variables, unreachable_code)]));
    }
    (source, names_items, host_fn)
}

fn device(
    item: &syn::ItemFn,
    rendered: &(String, u32),
    (deps, deps_name_items, has_deps): (&TokenStream, bool, bool),
    body: syn::Block,
    failed: bool,
    extra: TokenStream,
) -> TokenStream {
    let (source, source_names_items, host_fn) =
        device_source_and_host_fn(item, rendered, deps, body, failed, false);
    // The parent's names, where the source's entries or `extra` name any by a relative
    // path: a glob import costs rustc work for each name of the parent module, each
    // time (issue 27: the macro's cost in `cargo check`), so only where it is read.
    let parent_names = (deps_name_items || source_names_items || !extra.is_empty()).then(|| {
        quote!(
            use super::*;
        )
    });
    let name = &item.sig.ident;
    let vis = &item.vis;
    let cfgs = item.attrs.iter().filter(|a| twin::is_cfg(a));
    // A function that calls no device function (no entry in its source's `deps`)
    // cannot be on a call cycle: no check for rustc to evaluate (issue 27).
    let recursion_check = if failed || !has_deps {
        TokenStream::new()
    } else {
        callees::recursion_check(name)
    };
    quote! {
        #host_fn

        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code, unused_imports)]
        #vis mod #name {
            #parent_names
            pub static __CUDAJIT_FN: ::cudajit::__private::FnSource = #source;
            pub const __CUDAJIT_MARK: ::cudajit::__private::IsDevice = ::cudajit::__private::IsDevice;
            #recursion_check
            #extra
        }
    }
}

/// The `StructItem` of a method's own type, listed as `Self` (`front::methods`).
/// Spanned at the method's name: a method of a type without `#[derive(DeviceCopy)]`
/// is reported there, once, in the words of `DeviceMethodOwner`.
fn self_struct_item(item: &syn::ItemFn) -> TokenStream {
    let span = item.sig.ident.span();
    let self_type = kernel_device::front::methods::SELF_TYPE;
    let def = quote::quote_spanned! {span=>
        <Self as ::cudajit::__private::DeviceMethodOwner>::owner_type()
    };
    let enum_def = quote::quote_spanned! {span=>
        <Self as ::cudajit::__private::DeviceMethodOwner>::owner_enum()
    };
    quote! {
        ::cudajit::__private::StructItem {
            name: #self_type,
            def: &|| #def,
            enum_def: &|| #enum_def,
        }
    }
}

/// A `#[device]` method: the method itself (callable on the host as before) and, in
/// the same `impl` block, `const __cudajit_method_NAME: FnSource` (what callers find,
/// see `callees::method_probes`). Nothing else can sit in an `impl` block.
fn method_items(
    item: &syn::ItemFn,
    rendered: &(String, u32),
    deps: &TokenStream,
    body: syn::Block,
    failed: bool,
) -> TokenStream {
    let (source, _, host_fn) = device_source_and_host_fn(item, rendered, deps, body, failed, true);
    let konst = format_ident!("__cudajit_method_{}", item.sig.ident);
    let cfgs = item.attrs.iter().filter(|a| twin::is_cfg(a));
    quote! {
        #host_fn

        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        pub const #konst: ::cudajit::__private::FnSource = #source;
    }
}

/// A generic kernel's parameters as its launcher declares and passes them: each type
/// parameter keeps its bound and must also cross to the device (`DeviceScalar`, which
/// every member of cudajit's numeric traits is); lifetimes are reported by the
/// frontend and left out here.
struct GenericLauncher {
    decl: Vec<TokenStream>,
    args: Vec<TokenStream>,
    /// Each parameter's `GenericArg` in the instantiation's argument list.
    instance: Vec<TokenStream>,
}

impl GenericLauncher {
    fn new(item: &syn::ItemFn) -> Self {
        let mut out = GenericLauncher {
            decl: Vec::new(),
            args: Vec::new(),
            instance: Vec::new(),
        };
        // `where T: Float` joins `T`'s own bounds (other predicates are reported).
        let where_bounds = |name: &syn::Ident| {
            let predicates = item
                .sig
                .generics
                .where_clause
                .iter()
                .flat_map(|w| &w.predicates);
            predicates
                .filter_map(|p| match p {
                    syn::WherePredicate::Type(p) => match &p.bounded_ty {
                        syn::Type::Path(tp) if tp.path.is_ident(name) => Some(p.bounds.clone()),
                        _ => None,
                    },
                    _ => None,
                })
                .flatten()
                .collect::<Vec<_>>()
        };
        for param in &item.sig.generics.params {
            match param {
                syn::GenericParam::Type(t) => {
                    let name = &t.ident;
                    // `Float` becomes `launch_traits::FloatArg` (which implies it and
                    // `DeviceScalar`): `launch!(k::<i32>..)` is then one error in its
                    // words, not rustc's list of `Float`'s impls in cudajit's sources.
                    let bounds = t
                        .bounds
                        .iter()
                        .cloned()
                        .chain(where_bounds(name))
                        .map(|b| launcher_bound(&b));
                    out.decl
                        .push(quote!(#name: #(#bounds +)* ::cudajit::__private::DeviceScalar));
                    out.args.push(quote!(#name));
                    out.instance
                        .push(quote!(::cudajit::__private::GenericArg::Type(
                            <#name as ::cudajit::__private::DeviceScalar>::SCALAR
                        )));
                }
                syn::GenericParam::Const(c) => {
                    let (name, ty) = (&c.ident, &c.ty);
                    out.decl.push(quote!(const #name: #ty));
                    out.args.push(quote!(#name));
                    out.instance
                        .push(quote!(::cudajit::__private::GenericArg::Const(#name as i128)));
                }
                syn::GenericParam::Lifetime(_) => {}
            }
        }
        out
    }

    fn is_generic(&self) -> bool {
        !self.args.is_empty()
    }

    /// The body of `__cudajit_instance`: the instantiation's arguments are a constant
    /// per monomorphised launcher, so the lookup compares them by address first.
    fn instance_body(&self) -> TokenStream {
        if !self.is_generic() {
            return quote!((Self::source(), Self::cache()));
        }
        let instance = &self.instance;
        quote! {
            let instance: &'static [::cudajit::__private::GenericArg] = const { &[#(#instance),*] };
            Self::instances().get(Self::source(), instance)
        }
    }
}

/// A type path without generic arguments (`Params`, `geo::Vec3`): concrete wherever it
/// is written, so the launcher's autoref choice between `ByValueArg` and its fallback
/// is exact (see `kernel_host::args::ByValue`).
fn is_plain_path(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .iter()
                    .all(|s| matches!(s.arguments, syn::PathArguments::None))
        }
        _ => false,
    }
}

/// A generic kernel's bound as its launcher declares it: cudajit's numeric traits by
/// their launch-side twins (`Float` → `launch_traits::FloatArg`), others as written.
fn launcher_bound(bound: &syn::TypeParamBound) -> TokenStream {
    if let syn::TypeParamBound::Trait(t) = bound {
        if let Some(last) = t.path.segments.last() {
            let arg = match last.ident.to_string().as_str() {
                "Float" => Some(quote!(::cudajit::launch_traits::FloatArg)),
                "Int" => Some(quote!(::cudajit::launch_traits::IntArg)),
                "Num" => Some(quote!(::cudajit::launch_traits::NumArg)),
                _ => None,
            };
            if let Some(arg) = arg {
                return arg;
            }
        }
    }
    quote!(#bound)
}
