//! `cargo xtask build-device`: ahead-of-time PTX for every `#[kernel]` in the scanned
//! sources and its machine code for each architecture's own GPUs (the toolchain's
//! ptxas), plus `manifest.txt` (`<kernel_name> <key_hex> <arch> <file.ptx>
//! <file.cubin>`) that kernel-host embeds when built with `CUDAJIT_AOT_DIR=DIR`. The compile itself is
//! cudajit-build's (shared with users' `build.rs` and `cargo cudajit`), which keys each
//! kernel as the runtime does.

use kernel_device::nvvm::Nvvm;
use std::path::PathBuf;

pub fn run(args: &[String]) -> Result<(), String> {
    let arches = crate::values(args, "--arch")?;
    let out = crate::values(args, "--out-dir")?
        .pop()
        .ok_or("--out-dir DIR is required")?;
    let arches = if arches.is_empty() {
        DEFAULT_ARCHES.iter().map(|a| a.to_string()).collect()
    } else {
        arches
    };
    let root = crate::root();
    let mut srcs: Vec<PathBuf> = crate::values(args, "--src")?
        .into_iter()
        .map(PathBuf::from)
        .collect();
    if srcs.is_empty() {
        srcs = ["examples", "tests", "src"]
            .iter()
            .map(|d| root.join(d))
            .collect();
    }
    let srcs: Vec<PathBuf> = srcs
        .into_iter()
        .map(|s| if s.is_absolute() { s } else { root.join(s) })
        .collect();
    let strict = crate::has(args, "--strict");
    let report = build(&arches, &root.join(&out), &srcs)?;
    eprintln!("xtask: wrote {} PTX files to {out}", report.written);
    warn_or_fail(&report, strict)
}

pub use cudajit_build::BuildReport;

/// The architectures built when no `--arch` is given: Ampere, Hopper and the two
/// Blackwells, so that one build serves every GPU with tensor cores; the runtime loads
/// the newest PTX the device supports (`kernel-host`'s `compile::aot::lookup`).
pub const DEFAULT_ARCHES: &[&str] = &["compute_80", "compute_90", "compute_100", "compute_120"];

/// The workspace's own sources not compiled ahead of time: the compile-fail and pass cases in
/// `tests/ui` and `tests/ui_pass`, the generated fidelity programs in `tests/gpu/fidelity` (a thousand
/// kernels: their PTX embedded would add tens of MB to every binary of the bundle, so
/// the `gpu_fidelity` test compiles them at run time), and the user crate of
/// cudajit-build's test (it embeds its own).
const SKIPPED: &[&str] = &[
    "tests/ui",
    "tests/ui_pass",
    "tests/gpu/fidelity",
    "tests/aot_crate",
];

/// Prints the kernels left to the JIT; with `strict`, they are an error.
pub fn warn_or_fail(report: &BuildReport, strict: bool) -> Result<(), String> {
    report.warn_or_fail("xtask", strict)
}

/// Compiles every kernel it can from the source files alone (cudajit-build's `build`
/// with the workspace's toolchain, root and skipped directories).
pub fn build(
    arches: &[String],
    out: &std::path::Path,
    srcs: &[PathBuf],
) -> Result<BuildReport, String> {
    let tc = crate::toolchain::locate_or_install()?;
    let nvvm =
        Nvvm::load_from(&tc.nvvm).map_err(|e| format!("loading {}: {e}", tc.nvvm.display()))?;
    cudajit_build::build(
        &cudajit_build::Request {
            arches,
            out,
            srcs,
            skip: SKIPPED,
            root: &crate::root(),
            ptxas: Some(&tc.ptxas),
        },
        &nvvm,
        &mut |_| {},
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    /// The located toolchain, or `None` after saying on stderr why the test is skipped.
    fn toolchain_or_skip() -> Option<crate::toolchain::Toolchain> {
        let found = crate::toolchain::locate();
        if found.is_none() {
            let _ = writeln!(
                std::io::stderr(),
                "skipped: build_device test: no libnvvm/ptxas (cargo xtask test provides them)"
            );
        }
        found
    }

    /// The manifest's entries (`kernel key arch file`), comments and blank lines left out.
    fn manifest_entries(out: &std::path::Path) -> Vec<Vec<String>> {
        std::fs::read_to_string(out.join("manifest.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect()
    }

    /// The machine code a manifest line lists: an ELF image ptxas made for `arch`'s own
    /// GPUs (ptxas's command line, in the image's notes, names the `sm_XY`).
    fn assert_machine_code(out: &std::path::Path, entry: &[String]) {
        let [_kernel, _key, arch, _ptx, sass] = entry else {
            panic!("no machine code in manifest line {entry:?}");
        };
        let image = std::fs::read(out.join(sass)).unwrap();
        assert_eq!(&image[..4], b"\x7fELF", "{sass}");
        let sm = arch.replace("compute_", "sm_");
        let named = format!("-arch {sm}");
        assert!(
            image.windows(named.len()).any(|w| w == named.as_bytes()),
            "{sass} was not made for {sm}"
        );
    }

    /// Generic kernels are built once per instantiation the sources name: the
    /// behaviour tests' `instantiate!` list gives each its own PTX and its own key.
    #[test]
    fn build_device_compiles_each_named_instantiation() {
        let Some(_) = toolchain_or_skip() else {
            return;
        };
        let base = tempfile::tempdir().unwrap();
        let (src, out) = (base.path().join("src"), base.path().join("out"));
        std::fs::create_dir_all(&src).unwrap();
        let text = include_str!("../../tests/gpu/generics.rs");
        std::fs::write(src.join("generics.rs"), text).unwrap();
        let report = build(&["compute_90".into()], &out, &[src]).unwrap();
        assert_eq!(report.left_to_jit, Vec::<String>::new());
        let manifest = manifest_entries(&out);
        let entries: Vec<Vec<&str>> = manifest
            .iter()
            .map(|e| e.iter().map(String::as_str).collect())
            .collect();
        let mut names: Vec<&str> = entries.iter().map(|e| e[0]).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "axpy",
                "axpy",
                "axpy",
                "black_scholes",
                "black_scholes",
                "transpose",
                "transpose",
                "transpose",
                // The file's non-generic kernel, which calls generic device functions.
                "windows"
            ]
        );
        let mut keys: Vec<&str> = entries.iter().map(|e| e[1]).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 9, "one key per instantiation");
        for entry in &entries {
            let ptx = std::fs::read_to_string(out.join(entry[3])).unwrap();
            assert!(ptx.contains(&format!(".entry {}", entry[0])), "{entry:?}");
        }
    }

    /// The default build covers compute_80, 90, 100 and 120 at once, tensor-core and
    /// async-copy kernels included: every PTX is accepted by `ptxas` for its own sm,
    /// whose machine code is listed beside it.
    #[test]
    fn the_default_build_serves_every_tensor_core_architecture() {
        let Some(_) = toolchain_or_skip() else {
            return;
        };
        let base = tempfile::tempdir().unwrap();
        let (src, out) = (base.path().join("src"), base.path().join("out"));
        std::fs::create_dir_all(&src).unwrap();
        for (name, text) in [
            ("mma_typed.rs", include_str!("../../tests/gpu/mma_typed.rs")),
            (
                "async_copy.rs",
                include_str!("../../tests/gpu/async_copy.rs"),
            ),
        ] {
            std::fs::write(src.join(name), text).unwrap();
        }
        let arches: Vec<String> = DEFAULT_ARCHES.iter().map(|a| a.to_string()).collect();
        let report = build(&arches, &out, &[src]).unwrap();
        assert_eq!(report.left_to_jit, Vec::<String>::new());
        // ptxas accepted every PTX for its own sm: a rejection would have left the
        // kernel to the JIT.
        let mut per_arch = std::collections::BTreeMap::<String, usize>::new();
        for entry in manifest_entries(&out) {
            *per_arch.entry(entry[2].clone()).or_default() += 1;
            assert_machine_code(&out, &entry);
        }
        let counts: Vec<usize> = per_arch.values().copied().collect();
        assert_eq!(per_arch.keys().cloned().collect::<Vec<_>>(), {
            let mut a = arches.clone();
            a.sort();
            a
        });
        assert!(
            counts.iter().all(|&c| c == counts[0] && c >= 8),
            "{per_arch:?}"
        );
    }

    /// Ahead-of-time build of the workspace's examples: one PTX per kernel in the
    /// manifest, each with its `sm_90` machine code, keyed as the runtime looks up.
    #[test]
    fn build_device_writes_ptx_and_manifest_for_the_examples() {
        let Some(_) = toolchain_or_skip() else {
            return;
        };
        let base = tempfile::tempdir().unwrap();
        let out = base.path().join("out");
        let root = crate::root();
        let report = build(&["compute_90".into()], &out, &[root.join("examples")]).unwrap();
        assert_eq!(report.left_to_jit, Vec::<String>::new());
        let written = report.written;
        let manifest = manifest_entries(&out);
        let entries: Vec<Vec<&str>> = manifest
            .iter()
            .map(|e| e.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(entries.len(), written);
        let mut kernels: Vec<&str> = entries.iter().map(|e| e[0]).collect();
        kernels.sort();
        assert_eq!(
            kernels,
            [
                "blur",
                "nbody_step",
                "saxpy",
                "say_hello",
                "scale_for_gdb",
                "shared_race",
                "stencil",
                "vecadd",
                "write_past"
            ]
        );
        for (entry, line) in entries.iter().zip(&manifest) {
            let [kernel, key, arch, file, _sass] = entry[..] else {
                panic!("malformed manifest line {entry:?}");
            };
            assert_eq!(arch, "compute_90");
            assert_eq!(key, key.to_lowercase(), "hex key for {kernel}");
            assert_eq!(key.len(), 64, "SHA-256 hex key for {kernel}");
            let ptx = std::fs::read_to_string(out.join(file)).unwrap();
            assert!(ptx.contains(&format!(".entry {kernel}(")), "{file}");
            // Rust line tables, as run-time compiles have; a `debug = true` kernel
            // is always compiled at run time (with `-g`), so its AOT PTX has none.
            let has_lines = ptx.contains(".loc\t") && ptx.contains(".file\t");
            assert_eq!(has_lines, kernel != "scale_for_gdb", "{file}: Rust lines");
            assert_machine_code(&out, line);
        }
    }
}
