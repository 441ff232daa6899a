//! Shared by the integration tests: the real toolchain, when configured.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Says why a test did not run, on stderr written directly so that the test
/// harness's output capture does not hide the reason.
macro_rules! skip {
    ($($reason:tt)*) => {{
        use std::io::Write as _;
        let test = std::thread::current().name().unwrap_or("test").to_string();
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", format_args!($($reason)*));
    }};
}

use kernel_device::nvvm::{CompileOptions, Nvvm};

/// libnvvm (from `CUDAJIT_NVVM_PATH`) and ptxas (from `CUDAJIT_PTXAS`), or `None`
/// after printing why the caller skips. Locally:
/// `CUDAJIT_NVVM_PATH=/tmp/cudatc/nvidia/cu13/lib/libnvvm.so.4
///  CUDAJIT_PTXAS=/tmp/cudatc/nvidia/cu13/bin/ptxas`.
pub fn toolchain() -> Option<(Nvvm, PathBuf)> {
    let Some(lib) = std::env::var_os("CUDAJIT_NVVM_PATH").filter(|v| !v.is_empty()) else {
        skip!("CUDAJIT_NVVM_PATH is not set (cargo xtask test sets it)");
        return None;
    };
    let Some(ptxas) = std::env::var_os("CUDAJIT_PTXAS").filter(|v| !v.is_empty()) else {
        skip!("CUDAJIT_PTXAS is not set (cargo xtask test sets it)");
        return None;
    };
    // Both set: from here on a failure is a test failure, not a skip.
    let nvvm = Nvvm::load_from(Path::new(&lib)).unwrap_or_else(|e| panic!("{e}"));
    Some((nvvm, PathBuf::from(ptxas)))
}

/// NVVM IR → PTX (compute_90) → `ptxas -arch=sm_90`; panics with the logs on failure.
pub fn compile_and_assemble(nvvm: &Nvvm, ptxas: &Path, name: &str, ir: &str) -> String {
    let ptx = nvvm
        .compile(ir, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}\n--- NVVM IR ---\n{ir}"));
    assemble(ptxas, name, &ptx);
    ptx
}

/// Runs `ptxas -arch=sm_90` on `ptx` in a temporary directory.
pub fn assemble(ptxas: &Path, name: &str, ptx: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let ptx_path = dir.join(format!("{name}.ptx"));
    std::fs::write(&ptx_path, ptx).unwrap();
    let output = std::process::Command::new(ptxas)
        .arg("-arch=sm_90")
        .arg("-o")
        .arg(dir.join(format!("{name}.cubin")))
        .arg(&ptx_path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", ptxas.display()));
    assert!(
        output.status.success(),
        "{name}: ptxas failed:\n{}\n--- PTX ---\n{ptx}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The NVVM IR of `kernel` among the functions of `source` (as if in `file`), written
/// with debug information `debug`.
pub fn kernel_nvvm_ir(
    source: &str,
    file: &str,
    kernel: &str,
    debug: kernel_device::back::nvvm::debug_info::DebugLevel,
) -> String {
    let found = kernel_device::offline::scan(source, file).expect("parses");
    let k = found
        .iter()
        .position(|f| f.item.sig.ident == kernel)
        .expect("kernel present");
    let unit = kernel_device::offline::kernel_source(k, &found).expect("unit");
    let options = kernel_device::back::nvvm::Options {
        debug,
        ..kernel_device::back::nvvm::Options::default()
    };
    kernel_device::nvvm_ir_for_kernel(unit, &options)
        .unwrap_or_else(|e| panic!("{e}"))
        .nvvm_ir
}
