//! Finds libnvvm and ptxas: `CUDAJIT_NVVM_PATH` / `CUDAJIT_PTXAS`, then `CUDA_HOME`,
//! then `/usr/local/cuda`, else the pinned pip wheels installed under
//! `target/cuda-toolchain` (once; later runs reuse them). The pins are the libnvvm whose
//! PTX the project's GPU machine (driver 580) loads; see DESIGN.md.

use std::path::{Path, PathBuf};
use std::process::Command;

pub const WHEELS: [&str; 2] = ["nvidia-nvvm==13.0.88", "nvidia-cuda-nvcc==13.0.88"];

pub struct Toolchain {
    pub nvvm: PathBuf,
    pub ptxas: PathBuf,
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// libnvvm and ptxas of a CUDA toolkit installed at `home`.
fn in_toolkit(home: &Path) -> Option<Toolchain> {
    let lib = home.join("nvvm/lib64");
    let nvvm = ["libnvvm.so", "libnvvm.so.4", "libnvvm.so.3"]
        .iter()
        .map(|n| lib.join(n))
        .find(|p| p.is_file())?;
    let ptxas = home.join("bin/ptxas");
    ptxas.is_file().then_some(Toolchain { nvvm, ptxas })
}

/// Where the pinned wheels unpack (`nvidia/cu13/{lib,bin}`).
fn in_wheels(dir: &Path) -> Option<Toolchain> {
    let base = dir.join("nvidia/cu13");
    let nvvm = base.join("lib/libnvvm.so.4");
    let ptxas = base.join("bin/ptxas");
    (nvvm.is_file() && ptxas.is_file()).then_some(Toolchain { nvvm, ptxas })
}

pub fn locate() -> Option<Toolchain> {
    if let Some(nvvm) = env_path("CUDAJIT_NVVM_PATH").filter(|p| p.is_file()) {
        let ptxas = env_path("CUDAJIT_PTXAS")
            .filter(|p| p.is_file())
            .or_else(|| locate_ptxas_near(&nvvm))?;
        return Some(Toolchain { nvvm, ptxas });
    }
    let homes = [
        env_path("CUDA_HOME"),
        env_path("CUDA_PATH"),
        Some("/usr/local/cuda".into()),
    ];
    homes
        .into_iter()
        .flatten()
        .find_map(|h| in_toolkit(&h))
        .or_else(|| in_wheels(&wheel_dir()))
}

fn locate_ptxas_near(nvvm: &Path) -> Option<PathBuf> {
    // <home>/nvvm/lib64/libnvvm.so → <home>/bin/ptxas; wheels: <cu13>/lib → <cu13>/bin.
    nvvm.ancestors()
        .skip(1)
        .take(3)
        .map(|a| a.join("bin/ptxas"))
        .find(|p| p.is_file())
}

pub fn wheel_dir() -> PathBuf {
    crate::root().join("target/cuda-toolchain")
}

pub fn locate_or_install() -> Result<Toolchain, String> {
    if let Some(tc) = locate() {
        return Ok(tc);
    }
    let dir = wheel_dir();
    eprintln!(
        "xtask: no libnvvm/ptxas found (CUDAJIT_NVVM_PATH, CUDA_HOME, /usr/local/cuda); installing {} into {}",
        WHEELS.join(" "),
        dir.display()
    );
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let mut pip = Command::new(&python);
    pip.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--upgrade",
        "--target",
    ])
    .arg(&dir)
    .args(WHEELS);
    crate::run_checked(&mut pip).map_err(|e| {
        format!("{e}\n(installing libnvvm/ptxas failed: install `python3 -m pip`, or set CUDAJIT_NVVM_PATH and CUDAJIT_PTXAS)")
    })?;
    let tc = in_wheels(&dir).ok_or_else(|| {
        format!(
            "pip succeeded but {}/nvidia/cu13/{{lib/libnvvm.so.4,bin/ptxas}} are missing",
            dir.display()
        )
    })?;
    make_executable(&tc.ptxas);
    Ok(tc)
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(path) {
        let mut perms = meta.permissions();
        perms.set_mode(perms.mode() | 0o755);
        let _ = std::fs::set_permissions(path, perms);
    }
}
