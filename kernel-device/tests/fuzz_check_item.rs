//! Property test for the macro-time checker: whatever function it is given,
//! `front::check_item` must return (never panic), and every diagnostic it returns
//! must carry a message free of internal names and point at a token of the input. 100,000 functions that
//! parse reach the checker (see `fuzz/mod.rs` for how they are made; the failing seed
//! is printed, `CUDAJIT_FUZZ_SEED` / `CUDAJIT_FUZZ_ITERATIONS` replay or shorten).

mod fuzz;

use kernel_device::front::check_item;
use kernel_device::source::SourceKind;
use proc_macro2::TokenStream;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs the checker on `tokens` if they still form a function; returns whether it ran.
fn check_one(source: &str, tokens: TokenStream) -> bool {
    let Ok(item) = syn::parse2::<syn::ItemFn>(tokens) else {
        return false; // not a function any more: the macro's own parse error covers it
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| check_item(&item, SourceKind::Kernel)));
    let diagnostics = match outcome {
        Ok(d) => d,
        Err(_) => panic!("check_item panicked on:\n{source}"),
    };
    for d in &diagnostics {
        assert!(!d.message.trim().is_empty(), "empty message for:\n{source}");
        // No placeholder of the checker's own (issue 11): `{error}` is an already
        // reported type, `__` starts every generated name.
        for internal in ["{error}", "__"] {
            assert!(
                !d.text().contains(internal),
                "a diagnostic shows `{internal}` ({}) for:\n{source}",
                d.text()
            );
        }
        assert!(
            fuzz::is_located(d.span),
            "diagnostic without a location ({}) for:\n{source}",
            d.message
        );
    }
    true
}

/// The functions are split into this many streams, each from its own seed, run on
/// threads (CI has two cores; a fixed count keeps a seed's functions the same anywhere).
const SHARDS: u64 = 4;

#[test]
fn check_item_never_panics_on_100k_mutated_functions() {
    let (seed, iterations) = fuzz::settings();
    println!("fuzz seed {seed:#x}, {iterations} functions in {SHARDS} shards");
    let (checked, rounds) = std::thread::scope(|scope| {
        let shards: Vec<_> = (0..SHARDS)
            .map(|shard| {
                let share = iterations / SHARDS as usize
                    + usize::from((shard as usize) < iterations % SHARDS as usize);
                scope.spawn(move || check_mutants(seed, shard, share))
            })
            .collect();
        shards.into_iter().fold((0, 0), |(c, r), s| {
            let (sc, sr) = s.join().expect("a shard panicked: its message is above");
            (c + sc, r + sr)
        })
    });
    println!("{checked} functions checked out of {rounds} generated");
    assert!(
        checked >= iterations,
        "only {checked} of {rounds} inputs parsed as functions"
    );
}

/// Checks `count` functions of shard `shard`'s stream that reach the checker; returns
/// (checked, generated). Gives up if the generator stops producing functions.
fn check_mutants(seed: u64, shard: u64, count: usize) -> (usize, usize) {
    let mut rng = fuzz::Rng::with_seed(seed ^ (shard << 48));
    let mut checked = 0usize;
    let mut round = 0usize;
    while checked < count && round < count * 20 {
        round += 1;
        let tokens = fuzz::next_function(&mut rng, round);
        let rendered = tokens.to_string();
        if check_one(&rendered, tokens) {
            checked += 1;
        }
    }
    (checked, round)
}

#[test]
fn corpus_is_accepted() {
    for text in fuzz::CORPUS {
        let item: syn::ItemFn = syn::parse_str(text).expect("corpus parses");
        let kind = if item.sig.output == syn::ReturnType::Default {
            SourceKind::Kernel
        } else {
            SourceKind::Device
        };
        let diagnostics = check_item(&item, kind);
        assert!(
            diagnostics.is_empty(),
            "valid kernel rejected: {text}\n{:?}",
            diagnostics.iter().map(|d| d.text()).collect::<Vec<_>>()
        );
    }
}
