//! Runs every pass case (`src/bin/*.rs`): each must have compiled (cargo builds a
//! package's binaries before its tests) and its `main` must exit successfully. Some
//! `main`s assert what the macro generated (kernel names, the device functions a kernel
//! pulls in); the others launch their kernels, whose result they may ignore (no GPU here).
//! `src/bin/modules/` holds files that cases load with `#[path]`: not cases themselves.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The case names, from the files under `src/bin`, sorted so the run order is stable.
fn case_names() -> Vec<String> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bin");
    let mut names: Vec<String> = std::fs::read_dir(&bin)
        .expect("a readable src/bin")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Where cargo put this package's binaries: the test runs from `<profile>/deps/`, the
/// binaries sit in `<profile>/`.
fn binary_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    exe.parent()
        .and_then(Path::parent)
        .expect("a test binary inside <target>/<profile>/deps")
        .to_path_buf()
}

#[test]
fn every_pass_case_compiles_and_runs() {
    let names = case_names();
    assert!(
        names.len() >= 40,
        "expected the subset's pass cases, found {names:?}"
    );
    let dir = binary_dir();
    let mut failures = Vec::new();
    for name in &names {
        let binary = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        match Command::new(&binary).env("CUDAJIT_BACKEND", "sim").output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => failures.push(format!(
                "{name}: {}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )),
            Err(e) => failures.push(format!(
                "{name}: cannot run {} ({e}): a case needs its [[bin]] entry in Cargo.toml",
                binary.display()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "pass cases that failed:\n{}",
        failures.join("\n")
    );
}
