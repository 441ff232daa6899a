//! Compile-fail tests (trybuild): each `tests/ui/*.rs` must fail to compile with exactly
//! the errors in its `.stderr`, at the user's tokens. A case without a `.stderr` yet is
//! listed as pending (write or bless it with `TRYBUILD=overwrite cargo test --test ui`)
//! rather than failing, so cases can be written before the check that catches them.

#[test]
fn ui() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/ui exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    cases.sort();
    let blessing = std::env::var_os("TRYBUILD").is_some_and(|v| v == "overwrite");
    let t = trybuild::TestCases::new();
    for case in &cases {
        if blessing || case.with_extension("stderr").exists() {
            t.compile_fail(case);
        } else {
            println!("pending (no .stderr): {}", case.display());
        }
    }
}
