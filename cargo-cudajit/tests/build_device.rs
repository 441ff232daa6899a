//! `cargo cudajit build-device` on the user crate of `tests/aot_crate`: one PTX file per
//! kernel and instantiation (listed by `instantiate!` or named in a `launch!`), and a
//! manifest the runtime reads.

use std::path::Path;
use std::process::Command;

#[test]
fn build_device_compiles_a_crates_kernels_into_a_manifest() {
    if let Err(e) = cudajit_build::Nvvm::load() {
        eprintln!("skipped: no libnvvm ({e}); `cargo xtask test` provides one");
        return;
    }
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/aot_crate");
    let base = tempfile::tempdir().unwrap();
    let out = base.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-cudajit"))
        .args([
            "cudajit",
            "build-device",
            "--strict",
            "--arch",
            "compute_80",
            "--arch",
            "compute_90",
            "--out-dir",
        ])
        .arg(&out)
        .current_dir(&crate_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("wrote 8 PTX files"), "{stderr}");
    let manifest = std::fs::read_to_string(out.join("manifest.txt")).unwrap();
    let entries = kernel_host::aot_support::parse_manifest(&manifest).unwrap();
    let mut listed: Vec<(String, String)> = entries
        .iter()
        .map(|e| (e.kernel.clone(), e.arch.clone()))
        .collect();
    listed.sort();
    let want: Vec<(String, String)> = [
        ("axpy2", "compute_80"),
        ("axpy2", "compute_80"),
        ("axpy2", "compute_90"),
        ("axpy2", "compute_90"),
        ("stride_fill", "compute_80"),
        ("stride_fill", "compute_90"),
        ("vecadd", "compute_80"),
        ("vecadd", "compute_90"),
    ]
    .iter()
    .map(|(k, a)| (k.to_string(), a.to_string()))
    .collect();
    assert_eq!(listed, want);
    for entry in &entries {
        let ptx = std::fs::read_to_string(out.join(&entry.file)).unwrap();
        assert!(
            ptx.contains(&format!(".entry {}(", entry.kernel)),
            "{}",
            entry.file
        );
        let target = entry.arch.replace("compute_", ".target sm_");
        assert!(ptx.contains(&target), "{} lacks {target}", entry.file);
    }
    // Two instantiations of one kernel: two keys, two files.
    let axpy_keys: Vec<&str> = entries
        .iter()
        .filter(|e| e.kernel == "axpy2" && e.arch == "compute_90")
        .map(|e| e.key.as_str())
        .collect();
    assert_ne!(axpy_keys[0], axpy_keys[1]);
}
