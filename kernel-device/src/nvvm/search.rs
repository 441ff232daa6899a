//! Where libnvvm and libdevice are looked for, in the documented order.

use std::ffi::OsString;
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
    library_candidates_in(&|name| std::env::var_os(name))
}

/// [`library_candidates`] with the environment as a parameter, so the rule is tested
/// without touching the process environment.
///
/// Nothing is ever searched relative to the current directory or its parents: a
/// library planted under `target/cuda-toolchain` of any directory a user happens to
/// run from would otherwise be loaded into their process. The copy `cargo xtask`
/// installs is found because xtask passes it in `CUDAJIT_NVVM_PATH`. For the same
/// reason an environment root that is a relative path (`CUDA_HOME=cuda`) is skipped,
/// and a relative explicit path is made absolute before `dlopen` sees it (a name
/// without a slash would make `dlopen` search the system paths instead of the file
/// that was checked).
pub fn library_candidates_in(env: &dyn Fn(&str) -> Option<OsString>) -> (Vec<PathBuf>, bool) {
    if let Some(explicit) = env(NVVM_PATH_ENV).filter(|v| !v.is_empty()) {
        let path = std::path::absolute(PathBuf::from(&explicit))
            .unwrap_or_else(|_| PathBuf::from(explicit));
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
        if let Some(root) = absolute_root(env, var) {
            out.push(root.join("nvvm/lib64/libnvvm.so"));
        }
    }
    out.push(PathBuf::from("/usr/local/cuda/nvvm/lib64/libnvvm.so"));
    for site in python_site_dirs(env) {
        out.push(site.join("nvidia/cu13/lib/libnvvm.so.4"));
        out.push(site.join("nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so"));
    }
    // `CUDA_HOME` and `CUDA_PATH` may name one place: list each place once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    (out, false)
}

/// The directory an environment variable names, if set to an absolute path.
fn absolute_root(env: &dyn Fn(&str) -> Option<OsString>, var: &str) -> Option<PathBuf> {
    env(var).map(PathBuf::from).filter(|p| p.is_absolute())
}

/// Python package directories where pip puts the `nvidia-*` wheels: the active
/// environment (`$VIRTUAL_ENV`, `$CONDA_PREFIX`), the user's (`~/.local`) and the
/// system's.
fn python_site_dirs(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(prefix) = absolute_root(env, var) {
            out.extend(python_versions(&prefix.join("lib"), "site-packages"));
        }
    }
    if let Some(home) = absolute_root(env, "HOME") {
        out.extend(python_versions(&home.join(".local/lib"), "site-packages"));
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

    /// Issue 10: a `target/cuda-toolchain` planted in the current directory or any of
    /// its parents is never a candidate, nor is anything under a relative root.
    #[test]
    fn never_searches_the_working_directory() {
        let cwd = std::env::current_dir().unwrap();
        let env = |name: &str| match name {
            "CUDA_HOME" => Some(OsString::from("relative/cuda")),
            "VIRTUAL_ENV" => Some(OsString::from("venv")),
            "CARGO_TARGET_DIR" => Some(OsString::from("target")),
            "HOME" => Some(OsString::from("/home/someone")),
            _ => None,
        };
        let (candidates, explicit) = library_candidates_in(&env);
        assert!(!explicit);
        for c in &candidates {
            assert!(c.is_absolute(), "relative candidate {}", c.display());
            let text = c.to_string_lossy();
            assert!(
                !text.contains("cuda-toolchain"),
                "toolchain searched: {text}"
            );
            assert!(
                !text.contains("relative/cuda") && !text.contains("venv"),
                "{text}"
            );
            for dir in cwd.ancestors().filter(|d| *d != Path::new("/")) {
                assert!(
                    !c.starts_with(dir) || c.starts_with("/usr"),
                    "{} is under the working directory's ancestor {}",
                    c.display(),
                    dir.display()
                );
            }
        }
        assert!(candidates.contains(&PathBuf::from("/usr/local/cuda/nvvm/lib64/libnvvm.so")));
    }

    #[test]
    fn explicit_path_is_made_absolute_and_exclusive() {
        let env = |name: &str| (name == NVVM_PATH_ENV).then(|| OsString::from("lib/libnvvm.so"));
        let (candidates, explicit) = library_candidates_in(&env);
        assert!(explicit);
        assert_eq!(
            candidates,
            [std::env::current_dir().unwrap().join("lib/libnvvm.so")]
        );
        let env = |name: &str| match name {
            "CUDA_HOME" => Some(OsString::from("/opt/cuda")),
            "CUDA_PATH" => Some(OsString::from("/opt/cuda")),
            _ => None,
        };
        let (candidates, _) = library_candidates_in(&env);
        assert_eq!(
            candidates[0],
            PathBuf::from("/opt/cuda/nvvm/lib64/libnvvm.so")
        );
        assert_eq!(
            candidates[1],
            PathBuf::from("/usr/local/cuda/nvvm/lib64/libnvvm.so")
        );
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
