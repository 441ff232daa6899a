//! Embeds ahead-of-time compiled PTX: with `CUDAJIT_AOT_DIR=DIR` set at build time, the
//! kernels listed in `DIR/manifest.txt` are compiled into the runtime (`include_str!`,
//! and their machine code with `include_bytes!` where the manifest lists it) and launch
//! without libnvvm. Without the variable the table is empty.

use std::path::{Path, PathBuf};

#[path = "src/compile/aot_manifest.rs"]
mod aot_manifest;

fn main() {
    println!("cargo:rerun-if-env-changed=CUDAJIT_AOT_DIR");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let table = match std::env::var_os("CUDAJIT_AOT_DIR").filter(|d| !d.is_empty()) {
        None => String::new(),
        Some(dir) => entries_from(Path::new(&dir)),
    };
    let code = format!("static AOT_TABLE: &[AotEntry] = &[\n{table}];\n");
    std::fs::write(out.join("aot_table.rs"), code).expect("write aot_table.rs");
}

/// The table's entries for the manifest in `dir`. A broken AOT directory is a build
/// error (the person who set `CUDAJIT_AOT_DIR` asked for these kernels).
fn entries_from(dir: &Path) -> String {
    let manifest = dir.join("manifest.txt");
    println!("cargo:rerun-if-changed={}", manifest.display());
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("CUDAJIT_AOT_DIR: cannot read {}: {e}", manifest.display()));
    let entries = aot_manifest::parse_manifest(&text)
        .unwrap_or_else(|e| panic!("CUDAJIT_AOT_DIR: {}: {e}", manifest.display()));
    let mut code = String::new();
    for entry in entries {
        let file = embedded_path(dir, &manifest, &entry.file);
        let sass = match &entry.sass {
            Some(sass) => format!("include_bytes!({:?})", embedded_path(dir, &manifest, sass)),
            None => "&[]".to_string(),
        };
        code.push_str(&format!(
            "    AotEntry {{ kernel: {:?}, key: {:?}, arch: {:?}, ptx: include_str!({:?}), sass: {sass} }},\n",
            entry.kernel, entry.key, entry.arch, file
        ));
    }
    code
}

/// The absolute path of `file`, listed in `manifest` (in `dir`), for `include_str!` or
/// `include_bytes!`; the build reruns when it changes.
fn embedded_path(dir: &Path, manifest: &Path, file: &str) -> String {
    let path = aot_manifest::listed_file_path(dir, manifest, file)
        .unwrap_or_else(|e| panic!("CUDAJIT_AOT_DIR: {e}"));
    println!("cargo:rerun-if-changed={path}");
    path
}
