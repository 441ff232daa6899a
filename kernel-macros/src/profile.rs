//! `CUDAJIT_MACRO_PROFILE=1`: each `#[kernel]` / `#[device]` expansion prints its
//! time and the size of what it generated to stderr (issue 27's split of the macro's
//! cost between the expansion itself and rustc checking its output);
//! `CUDAJIT_MACRO_PROFILE=expansions` prints each expansion as well. Off by default;
//! the variable is read once per compilation.

use proc_macro2::{TokenStream, TokenTree};
use std::cell::RefCell;
use std::sync::OnceLock;

static SETTING: OnceLock<Option<String>> = OnceLock::new();

fn setting() -> Option<&'static str> {
    SETTING
        .get_or_init(|| std::env::var("CUDAJIT_MACRO_PROFILE").ok())
        .as_deref()
}

thread_local! {
    /// Each named phase's time in the expansion being timed, in microseconds.
    static PHASES: RefCell<Vec<(&'static str, u128)>> = const { RefCell::new(Vec::new()) };
}

/// Runs one phase of an expansion, adding its time to the expansion's report when
/// profiling is on.
pub fn phase<T>(name: &'static str, run: impl FnOnce() -> T) -> T {
    if setting().is_none() {
        return run();
    }
    let start = std::time::Instant::now();
    let out = run();
    let micros = start.elapsed().as_micros();
    PHASES.with(|phases| phases.borrow_mut().push((name, micros)));
    out
}

/// Runs `expand`, reporting its time and output size when profiling is on.
pub fn timed(what: &str, expand: impl FnOnce() -> TokenStream) -> TokenStream {
    let Some(setting) = setting() else {
        return expand();
    };
    PHASES.with(|phases| phases.borrow_mut().clear());
    let start = std::time::Instant::now();
    let out = expand();
    let micros = start.elapsed().as_micros();
    let phases = PHASES.with(|phases| {
        phases
            .borrow()
            .iter()
            .map(|(name, us)| format!(" {name}={us}"))
            .collect::<String>()
    });
    eprintln!(
        "cudajit macro profile: #[{what}] {micros} us, {} tokens out;{phases}",
        token_count(&out)
    );
    if setting == "expansions" {
        eprintln!("{out}");
    }
    out
}

/// Leaves and groups, nested groups included.
fn token_count(tokens: &TokenStream) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(group) => 1 + token_count(&group.stream()),
            _ => 1,
        })
        .sum()
}
