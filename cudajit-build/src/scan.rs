//! Finds `#[kernel]` / `#[device]` functions in source files and builds their
//! `FnSource`s exactly as the macro does (attributes and visibility dropped, text from
//! `render_preserving_lines`, `line` of the `fn` token, `file` relative to the
//! workspace root as `file!()` gives it: cargo runs rustc there), so the NVVM IR — and its key — are the ones
//! the run-time compiler would produce.

pub use kernel_device::offline::{self, Found};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dirs` (recursively), skipping `target` and any directory
/// whose path ends with one of `skip` (e.g. `tests/ui`).
pub fn rust_files(dirs: &[PathBuf], skip: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                if name != "target" && !skip.iter().any(|s| path.ends_with(s)) {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The attributed functions of one file (see `kernel_device::offline`).
pub fn scan_file(path: &Path, root: &Path) -> Result<Vec<Found>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    offline::scan(&text, &rel)
}

/// The generic-kernel instantiations one file names (see
/// `kernel_device::offline::instantiations`).
pub fn scan_instantiations(path: &Path) -> Result<Vec<offline::NamedInstance>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(offline::instantiations(&text))
}
