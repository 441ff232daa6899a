//! The kernel options, `#[kernel(boundscheck = false, fastmath = true, launch_bounds =
//! (256, 2), block_dim = (32, 8))]`: one parser that the macro and the offline scanner
//! (`offline`, behind `cargo xtask build-device` and cargo-cudajit) both call, so
//! an AOT build reads a kernel's options exactly as the macro does. The options type is
//! [`FunctionOptions`]; its defaults live in its one `Default` (and `DEFAULT`).

use crate::diag::{pretty, Diagnostic};
use crate::ir::{FunctionOptions, LaunchBounds};
use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

const ARGUMENTS_HINT: &str = "the arguments are `boundscheck = bool`, `fastmath = bool`, `launch_bounds = threads` or `(threads, blocks per SM)`, `block_dim = (x, y, z)` and `debug = bool`";
const LAUNCH_BOUNDS_HINT: &str = "write `#[kernel(launch_bounds = 256)]` or `#[kernel(launch_bounds = (256, 2))]` (threads per block, blocks per SM)";
const BLOCK_DIM_HINT: &str = "write `#[kernel(block_dim = 256)]` or `#[kernel(block_dim = (32, 8))]` (threads along x, y, z)";

/// The options `args` (the tokens inside `#[kernel(..)]`) ask for; every mistake is
/// pushed to `errors` at its token, and the option it concerns keeps its default.
pub fn parse_kernel_options(args: TokenStream, errors: &mut Vec<Diagnostic>) -> FunctionOptions {
    let mut options = FunctionOptions::DEFAULT;
    if args.is_empty() {
        return options;
    }
    let parser = Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
    let list = match parser.parse2(args) {
        Ok(list) => list,
        Err(e) => {
            errors.push(
                Diagnostic::new(e.span(), format!("invalid `#[kernel]` arguments: {e}"))
                    .with_hint("write `#[kernel(boundscheck = false, fastmath = true)]`"),
            );
            return options;
        }
    };
    let mut block_dim = None;
    for meta in list {
        let path = meta.path();
        let name = path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        match name.as_str() {
            "launch_bounds" => {
                let bounds = value_of(&meta, &name, LAUNCH_BOUNDS_HINT, launch_bounds_of, errors);
                if bounds.is_some() {
                    options.launch_bounds = bounds;
                }
            }
            "block_dim" => {
                block_dim = value_of(&meta, &name, BLOCK_DIM_HINT, block_dim_of, errors)
                    .map(|block| (block, meta.span()));
            }
            "boundscheck" => {
                if let Some(value) = flag(&meta, &name, errors) {
                    options.bounds_check = value;
                }
            }
            "fastmath" => {
                if let Some(value) = flag(&meta, &name, errors) {
                    options.fast_math = value;
                }
            }
            // print
            "debug" => {
                if let Some(value) = flag(&meta, &name, errors) {
                    options.debug_info = value;
                }
            }
            _ => errors.push(
                Diagnostic::new(
                    path.span(),
                    format!("unknown `#[kernel]` argument `{}`", pretty(path)),
                )
                .with_hint(ARGUMENTS_HINT),
            ),
        }
    }
    if let Some((block, span)) = block_dim {
        match with_block_dim(options.launch_bounds, Some(block)) {
            Ok(bounds) => options.launch_bounds = bounds,
            Err(message) => errors.push(Diagnostic::new(span, message).with_hint(
                "make `launch_bounds` at least the block's size, or leave it out: `block_dim` bounds the block by itself",
            )),
        }
    }
    options
}

/// `name = true` / `name = false`.
fn flag(meta: &syn::Meta, name: &str, errors: &mut Vec<Diagnostic>) -> Option<bool> {
    let syn::Meta::NameValue(pair) = meta else {
        // `fastmath` or `fastmath(true)`: the flag is not implied.
        errors.push(
            Diagnostic::new(
                meta.span(),
                format!("`{name}` takes a value, `true` or `false`"),
            )
            .with_hint(format!("write `#[kernel({name} = true)]`")),
        );
        return None;
    };
    match &pair.value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(b),
            ..
        }) => Some(b.value),
        other => {
            errors.push(
                Diagnostic::new(
                    other.span(),
                    format!("`{name}` takes `true` or `false`, not `{}`", pretty(other)),
                )
                .with_hint(format!(
                    "write `#[kernel({name} = false)]` or `#[kernel({name} = true)]`"
                )),
            );
            None
        }
    }
}

/// `name = value`, read by `parse` (`launch_bounds = (256, 2)` with
/// [`launch_bounds_of`], `block_dim = (32, 8)` with [`block_dim_of`]).
fn value_of<T>(
    meta: &syn::Meta,
    name: &str,
    hint: &str,
    parse: fn(&syn::Expr) -> Result<T, String>,
    errors: &mut Vec<Diagnostic>,
) -> Option<T> {
    let syn::Meta::NameValue(pair) = meta else {
        errors
            .push(Diagnostic::new(meta.span(), format!("`{name}` takes a value")).with_hint(hint));
        return None;
    };
    match parse(&pair.value) {
        Ok(value) => Some(value),
        Err(message) => {
            errors.push(Diagnostic::new(pair.value.span(), message).with_hint(hint));
            None
        }
    }
}

/// The most threads a block may have on any CUDA device, and the most blocks an SM can
/// hold (sm_90): the ranges of `launch_bounds`.
const MAX_BLOCK_THREADS: u32 = 1024;
const MAX_BLOCKS_PER_SM: u32 = 32;

/// `launch_bounds = N` or `launch_bounds = (N, M)` as written in `#[kernel(..)]`: the
/// bounds, or what is wrong with them (shared by the macro, which reports it at the
/// value, and the offline scanner of `xtask build-device`).
pub fn launch_bounds_of(value: &syn::Expr) -> Result<LaunchBounds, String> {
    let (max_threads, min_blocks) = match value {
        syn::Expr::Tuple(t) if t.elems.len() == 2 => {
            (u32_literal(&t.elems[0]), u32_literal(&t.elems[1]))
        }
        syn::Expr::Paren(p) => (u32_literal(&p.expr), Some(0)),
        other => (u32_literal(other), Some(0)),
    };
    let (Some(max_threads), Some(min_blocks)) = (max_threads, min_blocks) else {
        return Err("`launch_bounds` takes an integer literal, the most threads per block, or a pair `(threads, blocks per SM)`".into());
    };
    if !(1..=MAX_BLOCK_THREADS).contains(&max_threads) {
        return Err(format!(
            "`launch_bounds` allows 1 to {MAX_BLOCK_THREADS} threads per block, not {max_threads}"
        ));
    }
    if min_blocks > MAX_BLOCKS_PER_SM {
        return Err(format!(
            "`launch_bounds` asks for at most {MAX_BLOCKS_PER_SM} resident blocks per SM, not {min_blocks}"
        ));
    }
    Ok(LaunchBounds {
        max_threads,
        min_blocks,
        block_dim: None,
    })
}

/// The most threads a block may have along z (x and y allow 1024).
const MAX_BLOCK_Z: u32 = 64;

/// `block_dim = 256`, `(32, 8)` or `(32, 8, 2)` as written in `#[kernel(..)]`: the
/// block shape, or what is wrong with it (shared by the macro and the offline scanner).
pub fn block_dim_of(value: &syn::Expr) -> Result<[u32; 3], String> {
    let dims: Vec<Option<u32>> = match value {
        syn::Expr::Tuple(t) if (1..=3).contains(&t.elems.len()) => {
            t.elems.iter().map(u32_literal).collect()
        }
        syn::Expr::Paren(p) => vec![u32_literal(&p.expr)],
        other => vec![u32_literal(other)],
    };
    let Some(dims) = dims.into_iter().collect::<Option<Vec<u32>>>() else {
        return Err("`block_dim` takes integer literals: the block's threads along x, and optionally y and z, as `256` or `(32, 8)`".into());
    };
    let mut block = [1u32; 3];
    block[..dims.len()].copy_from_slice(&dims);
    let limits = [MAX_BLOCK_THREADS, MAX_BLOCK_THREADS, MAX_BLOCK_Z];
    for ((axis, size), limit) in ["x", "y", "z"].iter().zip(block).zip(limits) {
        if !(1..=limit).contains(&size) {
            return Err(format!(
                "`block_dim` allows 1 to {limit} threads along {axis}, not {size}"
            ));
        }
    }
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if threads > u64::from(MAX_BLOCK_THREADS) {
        return Err(format!(
            "`block_dim` of {} x {} x {} is {threads} threads; a block has at most {MAX_BLOCK_THREADS}",
            block[0], block[1], block[2]
        ));
    }
    Ok(block)
}

/// `launch_bounds` and `block_dim` together as the kernel's [`LaunchBounds`]
/// (`block_dim` alone bounds the block to its size), or why they disagree.
pub fn with_block_dim(
    bounds: Option<LaunchBounds>,
    block_dim: Option<[u32; 3]>,
) -> Result<Option<LaunchBounds>, String> {
    let Some(block) = block_dim else {
        return Ok(bounds);
    };
    let threads = block.iter().product::<u32>();
    let min_blocks = match bounds {
        Some(b) if b.max_threads < threads => {
            return Err(format!(
                "`block_dim` of {} x {} x {} is {threads} threads, more than `launch_bounds` allows ({})",
                block[0], block[1], block[2], b.max_threads
            ))
        }
        Some(b) => b.min_blocks,
        None => 0,
    };
    Ok(Some(LaunchBounds {
        max_threads: threads,
        min_blocks,
        block_dim: Some(block),
    }))
}

/// An integer literal that fits `u32` (the numbers `launch_bounds` and `block_dim` take).
fn u32_literal(e: &syn::Expr) -> Option<u32> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u32>().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(args: TokenStream) -> (FunctionOptions, Vec<String>) {
        let mut errors = Vec::new();
        let options = parse_kernel_options(args, &mut errors);
        (options, errors.iter().map(|e| e.message.clone()).collect())
    }

    #[test]
    fn no_arguments_give_the_defaults() {
        assert_eq!(
            parse(quote!()),
            (
                FunctionOptions {
                    bounds_check: true,
                    fast_math: false,
                    launch_bounds: None,
                    debug_assertions: false,
                    debug_info: false,
                },
                vec![]
            )
        );
        assert_eq!(FunctionOptions::default(), FunctionOptions::DEFAULT);
    }

    #[test]
    fn every_option_is_read() {
        let (options, errors) = parse(quote!(
            boundscheck = false,
            fastmath = true,
            launch_bounds = (256, 2),
            block_dim = (32, 8)
        ));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!options.bounds_check && options.fast_math);
        let bounds = options.launch_bounds.unwrap();
        assert_eq!(
            (bounds.max_threads, bounds.min_blocks, bounds.block_dim),
            (256, 2, Some([32, 8, 1]))
        );
    }

    #[test]
    fn mistakes_are_reported_and_keep_the_default() {
        let (options, errors) = parse(quote!(
            boundscheck,
            fastmath = 1,
            speed = true,
            launch_bounds,
            block_dim(32)
        ));
        assert_eq!(options, FunctionOptions::DEFAULT);
        assert_eq!(
            errors,
            [
                "`boundscheck` takes a value, `true` or `false`",
                "`fastmath` takes `true` or `false`, not `1`",
                "unknown `#[kernel]` argument `speed`",
                "`launch_bounds` takes a value",
                "`block_dim` takes a value",
            ]
        );
    }
}
