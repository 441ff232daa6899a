//! Compiles every `#[kernel]` found in source files to PTX, one file per kernel (and
//! generic instantiation) and architecture, with ptxas's machine code for the
//! architecture's own GPUs beside it when a ptxas is given, plus `manifest.txt`
//! (`<kernel_name> <key_hex> <arch> <file.ptx> [<file.cubin>]`, kernel-host's
//! `aot_manifest` format).
//! The key is kernel-host's own (`aot_support::ir_key` over the IR made with default
//! options) and the PTX is compiled with the options the JIT would use, so an AOT hit
//! is indistinguishable from a JIT compile. `cargo xtask build-device`,
//! `cargo cudajit build-device` and a crate's `build.rs` all come here.

use crate::scan;
use kernel_device::back::nvvm::debug_info::DebugLevel;
use kernel_device::back::nvvm::Options;
use kernel_device::nvvm::{CompileOptions, Nvvm};
use kernel_device::source::{instance_text, GenericArg, SourceKind};
use std::path::{Path, PathBuf};

/// What to compile, and where.
pub struct Request<'a> {
    /// `compute_XY` targets, each kernel compiled once per entry.
    pub arches: &'a [String],
    /// Where the PTX files and `manifest.txt` go (created if missing).
    pub out: &'a Path,
    /// Directories (or files) scanned for `.rs` files.
    pub srcs: &'a [PathBuf],
    /// Directory suffixes not scanned (e.g. `tests/ui`).
    pub skip: &'a [&'a str],
    /// The directory `file!()` is relative to: the root of the workspace the crate is
    /// built in (cargo runs rustc there). Part of each kernel's IR, so of its key.
    pub root: &'a Path,
    /// ptxas, to make each PTX file's machine code (`sm_XY`), which a launch on such a
    /// device loads without the driver's JIT; `None`: PTX alone.
    pub ptxas: Option<&'a Path>,
}

/// Where a build is, for a progress bar.
pub enum Progress<'a> {
    /// The sources are scanned: at most this many compiles (kernels × architectures)
    /// follow (a kernel is not built for an architecture whose devices lack a feature it
    /// uses).
    Planned(usize),
    /// One kernel (or instantiation) compiled for one architecture.
    Compiled { kernel: &'a str, arch: &'a str },
    /// One kernel (or instantiation) left to the JIT, for every architecture.
    Skipped { kernel: &'a str },
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
    /// The `.rs` files scanned (a `build.rs` reruns when one changes).
    pub scanned: Vec<PathBuf>,
}

impl BuildReport {
    /// Prints the kernels left to the JIT as a warning from `tool`; with `strict`
    /// (`--strict`), they are an error instead.
    pub fn warn_or_fail(&self, tool: &str, strict: bool) -> Result<(), String> {
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
            "{tool}: warning: {} kernels left to the JIT (compiled at their first launch):\n{list}",
            self.left_to_jit.len()
        );
        Ok(())
    }
}

/// Compiles every kernel it can from the source files alone with `nvvm`.
pub fn build(
    request: &Request,
    nvvm: &Nvvm,
    progress: &mut dyn FnMut(Progress),
) -> Result<BuildReport, String> {
    let mut all = Vec::new();
    let mut named = Vec::new();
    let files = scan::rust_files(request.srcs, request.skip);
    for file in &files {
        all.extend(scan::scan_file(file, request.root)?);
        for instance in scan::scan_instantiations(file)? {
            if !named.contains(&instance) {
                named.push(instance);
            }
        }
    }
    let out = request.out;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;

    let kernels: Vec<usize> = (0..all.len())
        .filter(|&i| all[i].kind == SourceKind::Kernel)
        .collect();
    let mut manifest = String::from(
        "# <kernel_name> <key_hex> <arch> <file.ptx> [<file.cubin>], by cudajit-build\n",
    );
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
    progress(Progress::Planned(builds.len() * request.arches.len()));
    for &(k, instance) in &builds {
        let name = all[k].item.sig.ident.to_string();
        let shown = if instance.is_empty() {
            name.clone()
        } else {
            format!("{name}::<{}>", instance_text(instance))
        };
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
            // Same-named kernels in different files, or instantiations of one.
            let duplicate = builds
                .iter()
                .filter(|&&(j, _)| all[j].item.sig.ident == name)
                .count()
                > 1;
            let mut built = 0;
            for requested in request.arches {
                // The architecture the JIT would compile for on a device of the requested
                // one (`compute_90a` for a kernel with sm_90a-only instructions, such as
                // wgmma); none where such a device lacks a feature the kernel uses: its
                // launches there are refused, at run time, with the feature named.
                let Some(arch) = aot_arch(&keyed.target_needs, requested) else {
                    continue;
                };
                let arch = &arch;
                built += 1;
                // Lowered per architecture: the writer uses the `bf16` instructions the
                // architecture has. The key stays the default lowering's, as at run time.
                // Rust line tables, as run-time compiles have (they leave the machine
                // code unchanged); a `debug = true` kernel is compiled at run time.
                let debug = if kernel.options.debug_info {
                    DebugLevel::None
                } else {
                    DebugLevel::LineTables
                };
                let options = Options {
                    ir_version: nvvm.ir_version(),
                    arch: Options::arch_number(arch),
                    debug,
                    ..Options::default()
                };
                let unit = kernel_device::nvvm_ir_for_kernel(kernel, &options)
                    .map_err(|e| e.to_string())?;
                let compile = CompileOptions {
                    arch: arch.clone(),
                    opt_level: 3,
                    fast_math: kernel.options.fast_math,
                    line_info: debug == DebugLevel::LineTables,
                    debug: false,
                };
                let ptx = nvvm
                    .compile(&unit.nvvm_ir, &compile)
                    .map_err(|e| e.to_string())?;
                // Same-named kernels in different files get the key in their file name.
                let stem = if duplicate {
                    format!("{name}-{}", &key[..12])
                } else {
                    name.clone()
                };
                let file = format!("{stem}.{arch}.ptx");
                std::fs::write(out.join(&file), ptx).map_err(|e| format!("{file}: {e}"))?;
                let sass = match request.ptxas {
                    Some(ptxas) => {
                        let line_info = compile.line_info;
                        format!(" {}", assemble(ptxas, out, &stem, &file, arch, line_info)?)
                    }
                    None => String::new(),
                };
                manifest.push_str(&format!("{name} {key} {arch} {file}{sass}\n"));
                written += 1;
                progress(Progress::Compiled {
                    kernel: &shown,
                    arch,
                });
            }
            if built == 0 {
                let needs: Vec<&str> = keyed.target_needs.iter().map(|n| n.feature).collect();
                return Err(format!(
                    "it uses {}, which no device of the requested architectures ({}) runs",
                    needs.join(", "),
                    request.arches.join(", ")
                ));
            }
            Ok(())
        })();
        if let Err(e) = result {
            progress(Progress::Skipped { kernel: &shown });
            errors.push(format!("kernel `{shown}` ({}): {e}", all[k].file));
        }
    }
    std::fs::write(out.join("manifest.txt"), manifest).map_err(|e| format!("manifest.txt: {e}"))?;
    Ok(BuildReport {
        written,
        left_to_jit: errors,
        scanned: files,
    })
}

/// ptxas's machine code of `out/ptx_file` (PTX for `arch`) for `arch`'s own GPUs,
/// written beside it as `<stem>.sm_XY.cubin`; its file name. The options are those
/// the driver's JIT compiles the same PTX with at run time (ptxas's default `-O3`,
/// Rust lines kept where the PTX has them), so either way the kernel is the same
/// machine code.
fn assemble(
    ptxas: &Path,
    out: &Path,
    stem: &str,
    ptx_file: &str,
    arch: &str,
    line_info: bool,
) -> Result<String, String> {
    let sm = kernel_host::aot_support::sass_arch(arch)
        .ok_or_else(|| format!("`{arch}` is not an architecture like `compute_90`"))?;
    let file = format!("{stem}.{sm}.cubin");
    let mut command = std::process::Command::new(ptxas);
    command.arg(format!("-arch={sm}"));
    if line_info {
        command.arg("-lineinfo");
    }
    let output = command
        .arg("-o")
        .arg(out.join(&file))
        .arg(out.join(ptx_file))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    if !output.status.success() {
        return Err(format!(
            "ptxas -arch={sm} rejected {ptx_file}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(file)
}

/// The architecture to compile a kernel with `needs` for, asked for `requested`
/// (`compute_XY`): what the JIT chooses on a device of that compute capability
/// (`kernel_device::proc::target::choose_arch`), `None` where such a device lacks a
/// feature the kernel uses.
fn aot_arch(needs: &[kernel_device::proc::target::TargetNeed], requested: &str) -> Option<String> {
    let number = Options::arch_number(requested)?;
    if requested.ends_with('a') {
        // Asked for an arch-specific target by name: compiled as asked.
        return Some(requested.to_string());
    }
    kernel_device::proc::target::choose_arch(needs, (number / 10, number % 10)).ok()
}

#[cfg(test)]
mod tests {
    use super::aot_arch;
    use kernel_device::proc::target::TargetNeed;

    #[test]
    fn kernels_with_arch_specific_instructions_build_for_that_arch_alone() {
        let wgmma = TargetNeed {
            feature: "wgmma",
            min_arch: 90,
            arch_specific: true,
        };
        let plain = TargetNeed {
            feature: "mbarrier",
            min_arch: 80,
            arch_specific: false,
        };
        assert_eq!(aot_arch(&[], "compute_80").as_deref(), Some("compute_80"));
        assert_eq!(
            aot_arch(&[plain], "compute_90").as_deref(),
            Some("compute_90")
        );
        assert_eq!(
            aot_arch(&[plain, wgmma], "compute_90").as_deref(),
            Some("compute_90a")
        );
        assert_eq!(aot_arch(&[wgmma], "compute_80"), None);
        assert_eq!(aot_arch(&[wgmma], "compute_100"), None);
        assert_eq!(aot_arch(&[plain], "compute_70"), None);
        assert_eq!(
            aot_arch(&[wgmma], "compute_90a").as_deref(),
            Some("compute_90a")
        );
    }
}
