//! Issue 7's generated programs in CI (no GPU): every program of the committed sample
//! (`tests/gpu/fidelity/programs.rs`, written by `cargo xtask gen-fidelity`) is accepted
//! by the frontend and the validator, and with the toolchain configured (see
//! `common::toolchain`) compiles through libnvvm and assembles with ptxas. The GPU
//! bundle's `gpu_fidelity` test runs the same programs and compares them with rustc.

mod common;

use kernel_device::back::nvvm::Options;
use kernel_device::nvvm::CompileOptions;
use kernel_device::nvvm_ir_for_kernel;
use kernel_device::offline;
use kernel_device::source::SourceKind;

const FILE: &str = "tests/gpu/fidelity/programs.rs";

/// How many programs CI compiles through libnvvm and ptxas (all are lowered).
fn toolchain_count() -> usize {
    std::env::var("CUDAJIT_FIDELITY_COUNT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(250)
}

#[test]
fn every_generated_program_compiles() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(FILE);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let found = offline::scan(&text, FILE).unwrap_or_else(|e| panic!("{e}"));
    let kernels: Vec<usize> = (0..found.len())
        .filter(|&i| found[i].kind == SourceKind::Kernel)
        .collect();
    assert!(
        kernels.len() >= 100,
        "only {} kernels in {FILE}",
        kernels.len()
    );
    let mut units = Vec::new();
    let mut failures = Vec::new();
    for &k in &kernels {
        let name = found[k].item.sig.ident.to_string();
        let unit = offline::kernel_source(k, &found)
            .and_then(|s| nvvm_ir_for_kernel(s, &Options::default()).map_err(|e| e.to_string()));
        match unit {
            Ok(unit) => units.push((name, unit.nvvm_ir)),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} generated kernels rejected:\n{}",
        failures.len(),
        kernels.len(),
        failures.join("\n")
    );
    let Some((nvvm, ptxas)) = common::toolchain() else {
        return;
    };
    // One libnvvm program per kernel, as at run time; ptxas once on all of the PTX.
    let mut ptx_failures = Vec::new();
    let count = toolchain_count().min(units.len());
    let mut all_ptx = Vec::new();
    for (name, ir) in &units[..count] {
        match nvvm.compile(ir, &CompileOptions::default()) {
            Ok(ptx) => all_ptx.push((name.clone(), ptx)),
            Err(e) => ptx_failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        ptx_failures.is_empty(),
        "libnvvm failed:\n{}",
        ptx_failures.join("\n")
    );
    for (name, ptx) in &all_ptx {
        common::assemble(&ptxas, name, ptx);
    }
}
