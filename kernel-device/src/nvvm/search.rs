//! Where libnvvm and libdevice are looked for, in the documented order.

use std::path::{Path, PathBuf};

/// Environment variable naming libnvvm (a file) or a directory holding it.
pub const NVVM_PATH_ENV: &str = "CUDAJIT_NVVM_PATH";
/// Optional override for libdevice (`libdevice.10.bc`).
pub const LIBDEVICE_PATH_ENV: &str = "CUDAJIT_LIBDEVICE_PATH";

/// Library file names inside a directory, most specific first.
const LIB_NAMES: &[&str] = &["libnvvm.so", "libnvvm.so.4", "libnvvm.so.3"];

/// Candidate library files, in search order. `explicit` is true when the first
/// candidates come from `CUDAJIT_NVVM_PATH` (then nothing else is searched: a wrong
/// explicit setting should be reported, not papered over by another copy).
pub fn library_candidates() -> (Vec<PathBuf>, bool) {
    if let Some(explicit) = std::env::var_os(NVVM_PATH_ENV).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(explicit);
        let mut out = Vec::new();
        if path.is_dir() {
            for sub in ["", "lib", "lib64", "nvvm/lib64", "nvidia/cu13/lib"] {
                let dir = if sub.is_empty() {
                    path.clone()
                } else {
                    path.join(sub)
                };
                out.extend(LIB_NAMES.iter().map(|n| dir.join(n)));
            }
        } else {
            out.push(path);
        }
        return (out, true);
    }

    let mut out = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            out.push(PathBuf::from(root).join("nvvm/lib64/libnvvm.so"));
        }
    }
    out.push(PathBuf::from("/usr/local/cuda/nvvm/lib64/libnvvm.so"));
    for site in python_site_dirs() {
        out.push(site.join("nvidia/cu13/lib/libnvvm.so.4"));
        out.push(site.join("nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so"));
    }
    let mut toolchains = Vec::new();
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        toolchains.push(PathBuf::from(target).join("cuda-toolchain"));
    }
    if let Ok(cwd) = std::env::current_dir() {
        for dir in cwd.ancestors() {
            toolchains.push(dir.join("target/cuda-toolchain"));
        }
    }
    for tc in toolchains {
        out.push(tc.join("nvidia/cu13/lib/libnvvm.so.4"));
        out.push(tc.join("lib/libnvvm.so.4"));
        out.push(tc.join("nvvm/lib64/libnvvm.so"));
    }
    // `CARGO_TARGET_DIR` may repeat an ancestor's target/: list each place once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    (out, false)
}

/// Python package directories where pip puts the `nvidia-*` wheels.
fn python_site_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(prefix) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            out.extend(python_versions(
                &PathBuf::from(prefix).join("lib"),
                "site-packages",
            ));
        }
    }
    if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        out.extend(python_versions(
            &PathBuf::from(home).join(".local/lib"),
            "site-packages",
        ));
    }
    out.push(PathBuf::from("/usr/lib/python3/dist-packages"));
    out.extend(python_versions(
        Path::new("/usr/local/lib"),
        "dist-packages",
    ));
    out.extend(python_versions(
        Path::new("/usr/local/lib"),
        "site-packages",
    ));
    out.extend(python_versions(Path::new("/usr/lib"), "site-packages"));
    out
}

/// `<lib>/python3*/<leaf>`, newest version first (sorted, so the order is stable).
fn python_versions(lib: &Path, leaf: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(lib)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path().join(leaf))
        .collect();
    dirs.sort_by_key(|p| {
        // python3.12 sorts after python3.9: compare the minor version numerically.
        let name = p
            .parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        let minor = name
            .as_deref()
            .and_then(|n| n.strip_prefix("python3."))
            .and_then(|m| m.parse::<u32>().ok())
            .unwrap_or(0);
        std::cmp::Reverse(minor)
    });
    dirs
}

/// Candidate libdevice files for a libnvvm at `library`.
pub fn libdevice_candidates(library: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(explicit) = std::env::var_os(LIBDEVICE_PATH_ENV).filter(|v| !v.is_empty()) {
        out.push(PathBuf::from(explicit));
    }
    let mut dirs = Vec::new();
    if let Some(dir) = library.parent() {
        dirs.push(dir.to_path_buf());
    }
    if let Some(dir) = std::fs::canonicalize(library)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
    {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    for dir in dirs {
        // CUDA toolkit: nvvm/lib64/libnvvm.so → nvvm/libdevice/.
        out.push(dir.join("../libdevice/libdevice.10.bc"));
        // pip wheel: nvidia/cu13/lib/libnvvm.so.4 → nvidia/cu13/nvvm/libdevice/.
        out.push(dir.join("../nvvm/libdevice/libdevice.10.bc"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libdevice_beside_both_layouts() {
        let toolkit = libdevice_candidates(Path::new("/usr/local/cuda/nvvm/lib64/libnvvm.so"));
        assert!(toolkit.contains(&PathBuf::from(
            "/usr/local/cuda/nvvm/lib64/../libdevice/libdevice.10.bc"
        )));
        let wheel = libdevice_candidates(Path::new("/x/nvidia/cu13/lib/libnvvm.so.4"));
        assert!(wheel.contains(&PathBuf::from(
            "/x/nvidia/cu13/lib/../nvvm/libdevice/libdevice.10.bc"
        )));
    }

    #[test]
    fn options_spell_libnvvm_flags() {
        let o = crate::nvvm::CompileOptions {
            fast_math: true,
            line_info: true,
            ..Default::default()
        };
        assert_eq!(
            o.to_args(),
            [
                "-arch=compute_90",
                "-opt=3",
                "-ftz=1",
                "-prec-div=0",
                "-prec-sqrt=0",
                "-fma=1",
                "-generate-line-info"
            ]
        );
        // Exact (the default): no contraction of `a * b + c`.
        assert_eq!(
            crate::nvvm::CompileOptions::default().to_args(),
            ["-arch=compute_90", "-opt=3", "-fma=0"]
        );
    }
}
