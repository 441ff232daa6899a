//! `#[kernel]` and `#[device]`: cudajit's attributes.
//!
//! Thin by design (the thiserror / serde_derive pattern): `parse` reads the attribute
//! arguments and the launcher-relevant shape of the signature, the subset and type
//! checks live in `kernel_device::front::check_item`, `twin` builds the rustc-checked
//! copy of the body, and `expand` emits the items. The macro never panics; on errors
//! it still emits every item so the rest of the crate type-checks. Its only I/O is
//! `context`: reading the source before its attribute, to tell an `impl` or `trait`
//! item (which the generated items cannot sit beside) from a module-level fn.

use proc_macro::TokenStream;

mod callees;
mod context;
mod derive;
mod derive_enum;
mod device_impl;
mod expand;
mod globals;
mod launch_generics;
mod parse;
mod profile;
mod routed_callees;
mod twin;
mod vectorize;

/// Turns `fn k(a: &[f32], c: &mut [f32], n: u32) { .. }` into a kernel: the type `k`
/// with `k::launch(config, a, c, n)` and `k::source()`, and a fn `k` of the same
/// signature that is never called (calling it is a compile error pointing to
/// `launch!`); see the `cudajit` crate for the subset and `launch!`.
/// Arguments: `boundscheck = bool` (default true), `fastmath = bool` (default false).
///
/// Without `fastmath` a kernel computes exactly what rustc computes: no contraction of
/// `a * b + c` into a fused multiply-add (only `mul_add` fuses), IEEE division, square
/// root and `%`. `fastmath = true` gives that up for speed: it may contract
/// `a * b + c` (one rounding instead of two), flushes subnormals to zero, divides and
/// takes square roots approximately and uses libdevice's fast `f32` transcendentals.
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    profile::timed("kernel", || {
        expand::expand(
            kernel_device::source::SourceKind::Kernel,
            args.into(),
            item.into(),
        )
    })
    .into()
}

/// Marks a function callable from kernels (and from host code, as an ordinary fn).
/// On a method of a `#[derive(DeviceCopy)]` type's `impl` block, a device method; on
/// the `impl` block itself, registers the block's `#[device]` methods so that kernels
/// find them without naming the type.
#[proc_macro_attribute]
pub fn device(args: TokenStream, item: TokenStream) -> TokenStream {
    // `#[device] impl T { .. }`: registers the block's `#[device]` methods.
    if names_an_impl(&item) {
        if let Ok(block) = syn::parse::<syn::ItemImpl>(item.clone()) {
            return device_impl::device_impl(args.into(), block).into();
        }
    }
    profile::timed("device", || {
        expand::expand(
            kernel_device::source::SourceKind::Device,
            args.into(),
            item.into(),
        )
    })
    .into()
}

/// Whether `item` reads as an `impl` block: its first keyword, past attributes (each a
/// `#` and a bracketed group) and qualifiers, is `impl`. Only then is it parsed as one,
/// so that a `#[device]` function is parsed once, not first as an `impl` block that
/// fails (issue 27: the macro's cost in `cargo check`).
fn names_an_impl(item: &TokenStream) -> bool {
    for tree in item.clone() {
        if let proc_macro::TokenTree::Ident(ident) = tree {
            match ident.to_string().as_str() {
                "pub" | "unsafe" | "default" | "crate" => continue,
                word => return word == "impl",
            }
        }
    }
    false
}

/// Makes a scalar function a GPU ufunc: `#[vectorize] fn f(x: f32, y: f32) -> f32`
/// stays an ordinary (and `#[device]`) function, and `f::apply(&xs, &ys)?` applies it
/// to each element of equal-length slices or `DeviceArray`s, returning a new
/// `DeviceArray` (`f::apply_into` writes into one; `_on` forms take a stream). One or
/// two scalar parameters, one scalar result.
#[proc_macro_attribute]
pub fn vectorize(args: TokenStream, item: TokenStream) -> TokenStream {
    vectorize::vectorize(args.into(), item.into()).into()
}

#[cfg(test)]
mod fuzz_tests;

/// `#[derive(DeviceCopy)]` on a `#[repr(C)]` struct of scalars, arrays and other
/// `DeviceCopy` structs: usable in kernels (parameters, slice elements, locals) and
/// in `DeviceArray`s.
/// What `launch!` expands a generic launch to (`launch!(k::<..>[..](..))`): the
/// launch, or cudajit's error when a const generic argument is a run-time value. Not a
/// public API.
#[doc(hidden)]
#[proc_macro]
pub fn launch_generics(input: TokenStream) -> TokenStream {
    launch_generics::check(input.into()).into()
}

#[proc_macro_derive(DeviceCopy)]
pub fn derive_device_copy(item: TokenStream) -> TokenStream {
    derive::derive_device_copy(item.into()).into()
}
