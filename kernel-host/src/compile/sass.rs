//! A kernel's SASS for inspection: its PTX assembled by `ptxas -lineinfo` and
//! disassembled by `nvdisasm --print-line-info` (found beside `ptxas`, in the CUDA
//! toolkit, or on `PATH`), so that each instruction can be shown under its Rust line.
//! Best effort: `None` when either tool is missing or fails.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The SASS of `ptx` for the `sm_XY` of `arch` (`compute_XY`), with nvdisasm's
/// `//## File "...", line N` comments.
pub(crate) fn disassemble(ptxas: &Path, ptx: &str, arch: &str) -> Option<String> {
    let nvdisasm = nvdisasm_path(ptxas)?;
    let dir = tempfile::tempdir().ok()?;
    let input = dir.path().join("kernel.ptx");
    let cubin = dir.path().join("kernel.cubin");
    std::fs::write(&input, ptx).ok()?;
    let sm = crate::compile::aot_manifest::sass_arch(arch)?;
    let assembled = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .arg("-lineinfo")
        .arg(&input)
        .arg("-o")
        .arg(&cubin)
        .output()
        .ok()?;
    if !assembled.status.success() {
        return None;
    }
    let listed = Command::new(nvdisasm)
        .arg("--print-line-info")
        .arg(&cubin)
        .output()
        .ok()?;
    listed
        .status
        .success()
        .then(|| String::from_utf8_lossy(&listed.stdout).into_owned())
}

fn nvdisasm_path(ptxas: &Path) -> Option<PathBuf> {
    let beside = ptxas.with_file_name("nvdisasm");
    let toolkit = PathBuf::from("/usr/local/cuda/bin/nvdisasm");
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("nvdisasm"))
            .find(|p| p.is_file())
    });
    [Some(beside), Some(toolkit), on_path]
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
}
