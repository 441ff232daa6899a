//! Property test of the whole expansion (issue 3: the macro never panics, whatever
//! tokens it is given). 100,000 mutants from the shared generator (also those that no
//! longer parse as a function), with attribute arguments drawn from valid and broken
//! ones, go through `expand`; it must return, its output must be well-formed Rust when
//! the input was a function, and every error in it must point at a token of the input.

#[path = "../../kernel-device/tests/fuzz/mod.rs"]
mod generator;

use crate::expand::expand;
use kernel_device::source::SourceKind;
use proc_macro2::{Span, TokenStream, TokenTree};
use std::panic::{catch_unwind, AssertUnwindSafe};

const ARGS: &[&str] = &[
    "",
    "",
    "",
    "boundscheck = false",
    "fastmath = true",
    "boundscheck = false, fastmath = true",
    "boundscheck",
    "fastmath = 1",
    "unknown = true",
    "boundscheck = false,",
    "= =",
    "boundscheck = \"no\"",
];

/// The spans and messages of the `compile_error!` invocations in an expansion.
fn error_spans(tokens: TokenStream, out: &mut Vec<(Span, String)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) if ident == "compile_error" => {
                let message = trees.get(i + 2).map(|t| t.to_string()).unwrap_or_default();
                out.push((ident.span(), message));
            }
            TokenTree::Group(group) => error_spans(group.stream(), out),
            _ => {}
        }
    }
}

fn kind_of(tokens: &TokenStream, rng: &mut generator::Rng) -> SourceKind {
    let returns = tokens
        .clone()
        .into_iter()
        .any(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '>'));
    if returns || rng.below(4) == 0 {
        SourceKind::Device
    } else {
        SourceKind::Kernel
    }
}

/// Names only generated code has: a message must never show them (issue 11).
const INTERNAL_NAMES: &[&str] = &["__", "{error}", "callee_", "cudajit_twin", "DeviceFunction"];

fn assert_no_internal_name(message: &str, source: &str) {
    for name in INTERNAL_NAMES {
        assert!(
            !message.contains(name),
            "a diagnostic shows the internal name `{name}` ({message}) for:\n{source}"
        );
    }
}

/// The mutants are split into this many streams, each from its own seed, run on threads
/// (CI has two cores; a fixed count keeps a seed's mutants the same on any machine).
const SHARDS: u64 = 4;

#[test]
fn expansion_never_panics_on_100k_mutants() {
    let (seed, iterations) = generator::settings();
    println!("fuzz seed {seed:#x}, {iterations} expansions in {SHARDS} shards");
    let with_errors: usize = std::thread::scope(|scope| {
        let shards: Vec<_> = (0..SHARDS)
            .map(|shard| {
                let share = iterations / SHARDS as usize
                    + usize::from((shard as usize) < iterations % SHARDS as usize);
                scope.spawn(move || expand_mutants(seed, shard, share))
            })
            .collect();
        shards
            .into_iter()
            .map(|s| s.join().expect("a shard panicked: its message is above"))
            .sum()
    });
    println!("{with_errors} of {iterations} expansions reported errors");
    // Both outcomes must be exercised: the mutants are not all rejected, nor all accepted.
    assert!(with_errors > iterations / 10 && with_errors < iterations);
}

/// Expands `count` mutants of shard `shard`'s stream; returns how many reported errors.
fn expand_mutants(seed: u64, shard: u64, count: usize) -> usize {
    let mut rng = generator::Rng::with_seed(seed ^ 0x0005_DEEC_E66D ^ (shard << 48));
    let mut with_errors = 0usize;
    for round in 1..=count {
        let tokens = generator::next_function(&mut rng, round);
        let kind = kind_of(&tokens, &mut rng);
        let args: TokenStream = syn::parse_str(ARGS[rng.below(ARGS.len())]).unwrap_or_default();
        let source = tokens.to_string();
        let is_fn = syn::parse2::<syn::ItemFn>(tokens.clone()).is_ok();
        let output = catch_unwind(AssertUnwindSafe(|| expand(kind, args, tokens)))
            .unwrap_or_else(|_| panic!("the macro panicked on (shard {shard}):\n{source}"));
        if is_fn {
            if let Err(e) = syn::parse2::<syn::File>(output.clone()) {
                panic!("expansion is not well-formed Rust ({e}) for:\n{source}\n---\n{output}");
            }
        }
        let mut spans = Vec::new();
        error_spans(output, &mut spans);
        with_errors += usize::from(!spans.is_empty());
        for (span, message) in spans {
            assert_no_internal_name(&message, &source);
            // An attribute argument list that ends early is reported at the call site,
            // which in a real build is the `#[kernel(..)]` attribute itself.
            let at_attribute = message.contains("arguments");
            assert!(
                at_attribute || generator::is_located(span),
                "an error without a location ({message}) for:\n{source}"
            );
        }
    }
    with_errors
}

#[test]
fn corpus_expands_without_errors() {
    for text in generator::CORPUS {
        let item: syn::ItemFn = syn::parse_str(text).expect("corpus parses");
        let kind = if item.sig.output == syn::ReturnType::Default {
            SourceKind::Kernel
        } else {
            SourceKind::Device
        };
        let tokens: TokenStream = syn::parse_str(text).expect("corpus tokenizes");
        let output = expand(kind, TokenStream::new(), tokens);
        let mut spans = Vec::new();
        error_spans(output.clone(), &mut spans);
        assert!(spans.is_empty(), "valid kernel rejected: {text}\n{output}");
        syn::parse2::<syn::File>(output).expect("expansion parses");
    }
}
