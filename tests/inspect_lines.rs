//! `cudajit::inspect` with the Rust source lines interleaved: the PTX of a real kernel,
//! compiled by libnvvm with the runtime's options (line tables on), carries a comment
//! naming each Rust line, with that line's text, before the instructions of that line.

use cudajit::prelude::*;

#[kernel]
fn saxpy_lines(a: f32, x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        let scaled = a * x[i];
        y[i] = scaled + y[i];
    }
}

/// The line of this file that contains `text`.
fn line_of(text: &str) -> u32 {
    include_str!("inspect_lines.rs")
        .lines()
        .position(|l| l.contains(text))
        .expect("the line exists") as u32
        + 1
}

#[test]
fn ptx_names_each_rust_line_before_its_instructions() {
    if std::env::var_os("CUDAJIT_NVVM_PATH").is_none() {
        eprintln!("skipped: CUDAJIT_NVVM_PATH is not set (cargo xtask test sets it)");
        return;
    }
    let inspection = cudajit::inspect::inspect(saxpy_lines::source(), "compute_90").unwrap();
    let ptx = inspection.ptx_with_rust_lines();
    let scaled = line_of("let scaled = a * x[i];");
    let store = line_of("y[i] = scaled + y[i];");
    for (line, text) in [
        (scaled, "let scaled = a * x[i];"),
        (store, "y[i] = scaled + y[i];"),
    ] {
        let comment = format!("// tests/inspect_lines.rs:{line}: {text}");
        assert!(ptx.contains(&comment), "no `{comment}` in\n{ptx}");
    }
    // The store's comment comes before the global store, the one for `scaled`
    // before the store's.
    let comment_at = |line: u32| {
        ptx.find(&format!("inspect_lines.rs:{line}:"))
            .expect("the line's comment")
    };
    let store_at = ptx.find("st.global.f32").expect("a global store");
    assert!(
        comment_at(scaled) < comment_at(store) && comment_at(store) < store_at,
        "{ptx}"
    );
    // Nothing of the PTX is lost: without the comments it is the PTX.
    let without: Vec<&str> = ptx
        .lines()
        .filter(|l| !l.trim_start().starts_with("// tests/inspect_lines.rs:"))
        .collect();
    assert_eq!(without, inspection.ptx.lines().collect::<Vec<_>>());
    // The IR names the same lines.
    let ir = inspection.nvvm_ir_with_rust_lines();
    assert!(
        ir.contains(&format!(
            "; tests/inspect_lines.rs:{store}: y[i] = scaled + y[i];"
        )),
        "{ir}"
    );
    // SASS only where nvdisasm is installed (it is not part of the pip wheels).
    match inspection.sass_with_rust_lines() {
        Some(sass) => assert!(
            sass.contains(&format!("inspect_lines.rs:{store}:")),
            "{sass}"
        ),
        None => eprintln!("no nvdisasm found: SASS not checked"),
    }
}
