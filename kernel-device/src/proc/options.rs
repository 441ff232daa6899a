//! The kernel options, `#[kernel(boundscheck = false, fastmath = true, launch_bounds =
//! (256, 2), block_dim = (32, 8))]`: one parser that the macro and the offline scanner
//! (`source::offline`, behind `cargo xtask build-device` and cargo-cudajit) both call, so
//! an AOT build reads a kernel's options exactly as the macro does. The options type is
//! [`FunctionOptions`]; its defaults live in its one `Default` (and `DEFAULT`).

use crate::diag::{pretty, Diagnostic};
use crate::ir::FunctionOptions;
use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

const ARGUMENTS_HINT: &str = "the arguments are `boundscheck = bool`, `fastmath = bool`, `launch_bounds = threads` or `(threads, blocks per SM)` and `block_dim = (x, y, z)`";
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
                let bounds = value_of(
                    &meta,
                    &name,
                    LAUNCH_BOUNDS_HINT,
                    crate::source::launch_bounds_of,
                    errors,
                );
                if bounds.is_some() {
                    options.launch_bounds = bounds;
                }
            }
            "block_dim" => {
                block_dim = value_of(
                    &meta,
                    &name,
                    BLOCK_DIM_HINT,
                    crate::source::block_dim_of,
                    errors,
                )
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
        match crate::source::with_block_dim(options.launch_bounds, Some(block)) {
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
/// `source::launch_bounds_of`, `block_dim = (32, 8)` with `source::block_dim_of`).
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
                    launch_bounds: None
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
