//! `CUDAJIT_MACRO_PROFILE=1`: each `#[kernel]` / `#[device]` expansion prints its
//! time and the size of what it generated to stderr (issue 27's split of the macro's
//! cost between the expansion itself and rustc checking its output);
//! `CUDAJIT_MACRO_PROFILE=expansions` prints each expansion as well. Off by default;
//! the variable is read once per compilation.

use proc_macro2::{TokenStream, TokenTree};
use std::sync::OnceLock;

/// Runs `expand`, reporting its time and output size when profiling is on.
pub fn timed(what: &str, expand: impl FnOnce() -> TokenStream) -> TokenStream {
    static SETTING: OnceLock<Option<String>> = OnceLock::new();
    let Some(setting) = SETTING.get_or_init(|| std::env::var("CUDAJIT_MACRO_PROFILE").ok()) else {
        return expand();
    };
    let start = std::time::Instant::now();
    let out = expand();
    let micros = start.elapsed().as_micros();
    eprintln!(
        "cudajit macro profile: #[{what}] {micros} us, {} tokens out",
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
