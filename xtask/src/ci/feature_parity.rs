//! CI builds the compiler and the runtime once, in `cargo test --workspace`'s build. Two
//! other builds of the workspace's packages reuse those artifacts only when cargo
//! resolves every shared package with the same features: `cargo xtask`'s own build (`xtask/Cargo.toml`) and the user crate
//! that `aot_crate` builds (`tests/aot_crate/Cargo.toml`). Both list features they do not
//! use for that reason. When a dev-dependency's features change (s41 added cudarc's
//! `cublas`), the lists fall behind without any error, and CI compiles cudarc,
//! kernel-host and cudajit again: these tests fail instead.

use std::collections::{BTreeMap, BTreeSet};

/// Every package `cargo tree` resolves for `args`, with each set of features it is
/// built with (a package built for build scripts and for the target may have two).
fn features(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let output = crate::cargo()
        .arg("tree")
        .args(args)
        .args(["--prefix", "none", "--format", "{p}|{f}"])
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let line = line.trim_end_matches(" (*)");
        if let Some((package, features)) = line.split_once('|') {
            packages
                .entry(package.to_string())
                .or_default()
                .insert(features.to_string());
        }
    }
    packages
}

/// The test build's graph: `cargo xtask test`'s `--no-run` build (the workspace without
/// the user crate, which only its own test builds).
fn test_build() -> BTreeMap<String, BTreeSet<String>> {
    features(&[
        "--workspace",
        "--exclude",
        super::AOT_CRATE,
        "--edges",
        "normal,build,dev",
    ])
}

/// The packages `build` compiles with features the workspace's test build does not use
/// for them, among the `shared` packages (of `build`'s own graph when `None`).
fn rebuilt(
    build: &BTreeMap<String, BTreeSet<String>>,
    shared: Option<&BTreeMap<String, BTreeSet<String>>>,
) -> Vec<String> {
    let workspace = test_build();
    build
        .iter()
        .filter(|(package, _)| shared.is_none_or(|s| s.contains_key(*package)))
        .filter_map(|(package, sets)| {
            let tested = workspace.get(package)?;
            let missing: Vec<_> = sets.difference(tested).collect();
            (!missing.is_empty()).then(|| {
                format!("{package}: built with {missing:?}, the test build has {tested:?}")
            })
        })
        .collect()
}

/// The user crate's graph, as its test builds it (that package alone).
fn aot_crate() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = features(&["--package", "aot-crate", "--edges", "normal,build"]);
    graph.retain(|package, _| !package.starts_with("aot-crate "));
    graph
}

#[test]
fn the_aot_crate_builds_nothing_the_test_build_built_differently() {
    let rebuilt = rebuilt(&aot_crate(), None);
    assert!(
        rebuilt.is_empty(),
        "tests/aot_crate would compile these again (add the features to its Cargo.toml):\n{}",
        rebuilt.join("\n")
    );
}

/// xtask's own tools (serde_json for `cargo metadata`, plotters) may differ: they are
/// small. The compiler and the runtime, the user crate's graph, may not.
#[test]
fn xtask_builds_the_compiler_and_runtime_as_the_test_build_does() {
    let xtask = features(&["--package", "xtask", "--edges", "normal,build"]);
    let rebuilt = rebuilt(&xtask, Some(&aot_crate()));
    assert!(
        rebuilt.is_empty(),
        "`cargo xtask test` would compile these twice (add the features to xtask/Cargo.toml):\n{}",
        rebuilt.join("\n")
    );
}

/// The check itself: cudarc without the first of the test build's features is reported.
#[test]
fn a_shorter_feature_list_is_reported() {
    let workspace = test_build();
    let (cudarc, sets) = workspace
        .iter()
        .find(|(package, _)| package.starts_with("cudarc "))
        .expect("the test build has cudarc");
    let all = sets.iter().next().expect("a feature set");
    let fewer = all.split(',').skip(1).collect::<Vec<_>>().join(",");
    let build = BTreeMap::from([(cudarc.clone(), BTreeSet::from([fewer]))]);
    let rebuilt = rebuilt(&build, None);
    assert!(
        rebuilt.len() == 1 && rebuilt[0].starts_with(&format!("{cudarc}: built with")),
        "{rebuilt:?}"
    );
}
