//! `cargo xtask build-device`: ahead-of-time PTX for every `#[kernel]` in the scanned
//! sources, plus `manifest.txt` (`<kernel_name> <key_hex> <arch> <file.ptx>`) that
//! kernel-host embeds when built with `CUDAJIT_AOT_DIR=DIR`. The key is kernel-host's
//! own (`aot_support::ir_key` over the IR made with default options), and the PTX is
//! compiled with the options the JIT would use, so an AOT hit is indistinguishable
//! from a JIT compile.

use crate::scan;
use kernel_device::back::nvvm::Options;
use kernel_device::nvvm::{CompileOptions, Nvvm};
use kernel_device::source::{instance_text, GenericArg, SourceKind};
use std::path::PathBuf;

pub fn run(args: &[String]) -> Result<(), String> {
    let arches = crate::values(args, "--arch")?;
    let out = crate::values(args, "--out-dir")?
        .pop()
        .ok_or("--out-dir DIR is required")?;
    let arches = if arches.is_empty() {
        vec!["compute_90".to_string()]
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
    let strict = args.iter().any(|a| a == "--strict");
    let report = build(&arches, &root.join(&out), &srcs)?;
    eprintln!("xtask: wrote {} PTX files to {out}", report.written);
    report.warn_or_fail(strict)
}

/// What an ahead-of-time build produced.
pub struct BuildReport {
    /// PTX files written (one per kernel and architecture).
    pub written: usize,
    /// Kernels that could not be compiled from the source files alone, each with why.
    /// rustc accepted them (the macro checked them), so what fails here is what only
    /// rustc knows, such as a `static` initialised by a `const fn`: the runtime finds
    /// no PTX for them and JIT-compiles them at their first launch instead.
    pub left_to_jit: Vec<String>,
}

impl BuildReport {
    /// Prints the kernels left to the JIT; with `strict`, they are an error.
    pub fn warn_or_fail(&self, strict: bool) -> Result<(), String> {
        if self.left_to_jit.is_empty() {
            return Ok(());
        }
        let list = self.left_to_jit.join("\n");
        if strict {
            return Err(format!(
                "{} kernels could not be compiled ahead of time (--strict):\n{list}",
                self.left_to_jit.len()
            ));
        }
        eprintln!(
            "xtask: warning: {} kernels left to the JIT (compiled at their first launch):\n{list}",
            self.left_to_jit.len()
        );
        Ok(())
    }
}

/// Compiles every kernel it can from the source files alone.
pub fn build(
    arches: &[String],
    out: &std::path::Path,
    srcs: &[PathBuf],
) -> Result<BuildReport, String> {
    let root = crate::root();
    let mut all = Vec::new();
    let mut named = Vec::new();
    for file in scan::rust_files(srcs) {
        all.extend(scan::scan_file(&file, &root)?);
        for instance in scan::scan_instantiations(&file)? {
            if !named.contains(&instance) {
                named.push(instance);
            }
        }
    }
    let tc = crate::toolchain::locate_or_install()?;
    let nvvm =
        Nvvm::load_from(&tc.nvvm).map_err(|e| format!("loading {}: {e}", tc.nvvm.display()))?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;

    let kernels: Vec<usize> = (0..all.len())
        .filter(|&i| all[i].kind == SourceKind::Kernel)
        .collect();
    let mut manifest =
        String::from("# <kernel_name> <key_hex> <arch> <file.ptx>, by cargo xtask build-device\n");
    let mut written = 0;
    let mut errors = Vec::new();
    // A generic kernel is built once per instantiation the sources name (a launch
    // that infers its arguments is compiled at its first launch unless listed in
    // `cudajit::instantiate!`); a non-generic one once, with no arguments.
    let mut builds: Vec<(usize, &'static [GenericArg])> = Vec::new();
    for &k in &kernels {
        let name = all[k].item.sig.ident.to_string();
        if all[k].item.sig.generics.params.is_empty() {
            builds.push((k, &[]));
            continue;
        }
        for instance in named.iter().filter(|i| i.kernel == name) {
            builds.push((k, Box::leak(instance.args.clone().into_boxed_slice())));
        }
    }
    for &(k, instance) in &builds {
        let name = all[k].item.sig.ident.to_string();
        let result = (|| -> Result<(), String> {
            let kernel = scan::offline::kernel_source(k, &all)?;
            let kernel = if instance.is_empty() {
                kernel
            } else {
                kernel.instantiate(instance)
            };
            let keyed = kernel_device::nvvm_ir_for_kernel(kernel, &Options::default())
                .map_err(|e| e.to_string())?;
            let key = kernel_host::aot_support::ir_key(&keyed.nvvm_ir);
            let options = Options {
                ir_version: nvvm.ir_version(),
                ..Options::default()
            };
            let unit =
                kernel_device::nvvm_ir_for_kernel(kernel, &options).map_err(|e| e.to_string())?;
            // Same-named kernels in different files, or instantiations of one.
            let duplicate = builds
                .iter()
                .filter(|&&(j, _)| all[j].item.sig.ident == name)
                .count()
                > 1;
            for arch in arches {
                let compile = CompileOptions {
                    arch: arch.clone(),
                    opt_level: 3,
                    fast_math: kernel.fast_math,
                    line_info: false,
                };
                let ptx = nvvm
                    .compile(&unit.nvvm_ir, &compile)
                    .map_err(|e| e.to_string())?;
                // Same-named kernels in different files get the key in their file name.
                let file = if duplicate {
                    format!("{name}-{}.{arch}.ptx", &key[..12])
                } else {
                    format!("{name}.{arch}.ptx")
                };
                std::fs::write(out.join(&file), ptx).map_err(|e| format!("{file}: {e}"))?;
                manifest.push_str(&format!("{name} {key} {arch} {file}\n"));
                written += 1;
            }
            Ok(())
        })();
        if let Err(e) = result {
            let name = if instance.is_empty() {
                name
            } else {
                format!("{name}::<{}>", instance_text(instance))
            };
            errors.push(format!("kernel `{name}` ({}): {e}", all[k].file));
        }
    }
    std::fs::write(out.join("manifest.txt"), manifest).map_err(|e| format!("manifest.txt: {e}"))?;
    Ok(BuildReport {
        written,
        left_to_jit: errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    /// Generic kernels are built once per instantiation the sources name: the
    /// behaviour tests' `instantiate!` list gives each its own PTX and its own key.
    #[test]
    fn build_device_compiles_each_named_instantiation() {
        let Some(_) = crate::toolchain::locate() else {
            let _ = writeln!(
                std::io::stderr(),
                "skipped: build_device test: no libnvvm/ptxas (cargo xtask test provides them)"
            );
            return;
        };
        let base = std::env::temp_dir().join(format!("cudajit-aot-generic-{}", std::process::id()));
        let (src, out) = (base.join("src"), base.join("out"));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&src).unwrap();
        let text = include_str!("../../tests/gpu/generics.rs");
        std::fs::write(src.join("generics.rs"), text).unwrap();
        let report = build(&["compute_90".into()], &out, &[src]).unwrap();
        assert_eq!(report.left_to_jit, Vec::<String>::new());
        let manifest = std::fs::read_to_string(out.join("manifest.txt")).unwrap();
        let entries: Vec<Vec<&str>> = manifest
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split_whitespace().collect())
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
        let _ = std::fs::remove_dir_all(&base);
    }

    /// Ahead-of-time build of the workspace's examples: one PTX per kernel in the
    /// manifest, each accepted by `ptxas -arch=sm_90`, keyed as the runtime looks up.
    #[test]
    fn build_device_writes_ptx_and_manifest_for_the_examples() {
        let Some(toolchain) = crate::toolchain::locate() else {
            let _ = writeln!(
                std::io::stderr(),
                "skipped: build_device test: no libnvvm/ptxas (cargo xtask test provides them)"
            );
            return;
        };
        let out = std::env::temp_dir().join(format!("cudajit-aot-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let root = crate::root();
        let report = build(&["compute_90".into()], &out, &[root.join("examples")]).unwrap();
        assert_eq!(report.left_to_jit, Vec::<String>::new());
        let written = report.written;
        let manifest = std::fs::read_to_string(out.join("manifest.txt")).unwrap();
        let entries: Vec<Vec<&str>> = manifest
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(entries.len(), written);
        let mut kernels: Vec<&str> = entries.iter().map(|e| e[0]).collect();
        kernels.sort();
        assert_eq!(kernels, ["blur", "saxpy", "vecadd"]);
        for entry in &entries {
            let [kernel, key, arch, file] = entry[..] else {
                panic!("malformed manifest line {entry:?}");
            };
            assert_eq!(arch, "compute_90");
            assert_eq!(key, key.to_lowercase(), "hex key for {kernel}");
            assert_eq!(key.len(), 64, "SHA-256 hex key for {kernel}");
            let ptx = std::fs::read_to_string(out.join(file)).unwrap();
            assert!(ptx.contains(&format!(".entry {kernel}(")), "{file}");
            let status = std::process::Command::new(&toolchain.ptxas)
                .args(["-arch=sm_90", "-o"])
                .arg(out.join(format!("{kernel}.cubin")))
                .arg(out.join(file))
                .status()
                .unwrap();
            assert!(status.success(), "ptxas rejected {file}");
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}
