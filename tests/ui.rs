//! Compile-fail and pass tests (trybuild). `tests/ui/<category>/*.rs` each hold ONE
//! construct outside the kernel subset and must fail to compile with exactly the errors
//! in the `.stderr` beside it, at the user's tokens; `tests/ui/pass/*.rs` must compile.
//! A compile-fail case without its reviewed `.stderr` is a failure: write the case,
//! bless it with `TRYBUILD=overwrite cargo test --test ui`, then read what it prints.
//! `tests/ui/pass/subset_*.rs` hold one `#[kernel]` per construct of the README's
//! "The kernel subset", named after the construct, one file per bullet.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, at any depth, sorted so the run order is stable.
fn cases_under(dir: &Path) -> Vec<PathBuf> {
    let mut cases = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable tests/ui folder") {
            let path = entry.expect("a readable entry").path();
            if path.is_dir() {
                // `modules/` folders hold files that cases load with `#[path]` (a
                // construct spread over two files): not cases themselves.
                if !path.ends_with("modules") {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                cases.push(path);
            }
        }
    }
    cases.sort();
    cases
}

#[test]
fn ui() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let pass_dir = root.join("pass");
    let blessing = std::env::var_os("TRYBUILD").is_some_and(|v| v == "overwrite");
    // `CUDAJIT_UI_ONLY=pass/subset` runs only the cases whose path contains it (or any
    // of several, comma-separated), for quick iteration on a few cases; CI sets
    // nothing and runs them all.
    let only = std::env::var("CUDAJIT_UI_ONLY").unwrap_or_default();
    let cases: Vec<_> = cases_under(&root)
        .into_iter()
        .filter(|c| {
            let path = c.to_string_lossy();
            only.split(',').any(|part| path.contains(part))
        })
        .collect();
    let missing: Vec<_> = cases
        .iter()
        .filter(|c| !c.starts_with(&pass_dir) && !c.with_extension("stderr").exists())
        .collect();
    assert!(
        blessing || missing.is_empty(),
        "compile-fail cases without a reviewed .stderr (bless with TRYBUILD=overwrite, then review): {missing:#?}"
    );
    let t = trybuild::TestCases::new();
    for case in &cases {
        if case.starts_with(&pass_dir) {
            t.pass(case);
        } else {
            t.compile_fail(case);
        }
    }
}
