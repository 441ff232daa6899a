//! Inspection, as Numba's `inspect_llvm`/`inspect_asm`/`get_regs_per_thread`: a kernel's
//! NVVM IR and PTX for an architecture, without a GPU (libnvvm only), and its resource
//! use (registers per thread, static shared and local bytes) from `ptxas -v` when
//! `ptxas` is installed, and its SASS when `nvdisasm` is installed too; each with the
//! Rust source lines interleaved (`annotate`). `CUDAJIT_DUMP=1` writes the same next
//! to the kernel's disk cache entry when the runtime compiles it.

use std::path::{Path, PathBuf};
use std::process::Command;

use kernel_device::back::nvvm::Options;
use kernel_device::source::FnSource;

use crate::compile::annotate::{self, SourceLines};
use crate::compile::libnvvm;
use crate::error::{Error, Result};

/// Names `ptxas` (otherwise looked for beside libnvvm, in `$CUDA_HOME`/`$CUDA_PATH`
/// and `/usr/local/cuda`).
pub const PTXAS_ENV: &str = "CUDAJIT_PTXAS";
/// Non-empty and not `0`: the runtime writes IR, PTX and resources beside each cache
/// entry it creates.
pub const DUMP_ENV: &str = "CUDAJIT_DUMP";

/// A kernel compiled for one architecture, as the runtime would compile it.
#[derive(Clone, Debug)]
pub struct Inspection {
    pub kernel: String,
    /// `compute_XY`.
    pub arch: String,
    pub nvvm_ir: String,
    pub ptx: String,
    /// From `ptxas -v`; `None` when no `ptxas` was found.
    pub resources: Option<Resources>,
    /// `nvdisasm --print-line-info` of the kernel's cubin; `None` when `ptxas` or
    /// `nvdisasm` was not found.
    pub sass: Option<String>,
    /// The Rust text of the kernel's lines (and its device functions').
    pub sources: SourceLines,
}

impl Inspection {
    /// The PTX with `// file:line: text` before the instructions of each Rust line.
    pub fn ptx_with_rust_lines(&self) -> String {
        annotate::ptx_with_rust_lines(&self.ptx, &self.sources)
    }

    /// The NVVM IR with `; file:line: text` before the instructions of each Rust line.
    pub fn nvvm_ir_with_rust_lines(&self) -> String {
        annotate::ir_with_rust_lines(&self.nvvm_ir, &self.sources)
    }

    /// The SASS with `// file:line: text` before each Rust line's instructions, when
    /// `nvdisasm` was found.
    pub fn sass_with_rust_lines(&self) -> Option<String> {
        let sass = self.sass.as_deref()?;
        Some(annotate::sass_with_rust_lines(sass, &self.sources))
    }
}

/// What one thread and one block of the kernel use, as `ptxas -v` reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    pub registers_per_thread: u32,
    /// Static shared memory per block (the kernel's shared arrays).
    pub shared_bytes: u32,
    /// Local memory per thread (the stack frame).
    pub local_bytes: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

/// The NVVM IR and PTX of `source`'s kernel for `arch` (e.g. `"compute_90"`), and its
/// resources when `ptxas` is available. Needs libnvvm, not a GPU.
pub fn inspect(source: &'static FnSource, arch: &str) -> Result<Inspection> {
    let kernel = source.name;
    let nvvm_error = |message: String| Error::Nvvm {
        kernel: kernel.to_string(),
        message,
    };
    let nvvm = libnvvm::shared().map_err(nvvm_error)?;
    let unit = crate::compile::lower::lower(
        source,
        &Options {
            ir_version: nvvm.ir_version(),
            arch: Options::arch_number(arch),
            debug: crate::compile::lower::debug_level(source),
            ..Options::default()
        },
    )?;
    let options = crate::compile::lower::runtime_options(source, arch.to_string());
    let ptx = nvvm.compile(&unit.nvvm_ir, &options).map_err(nvvm_error)?;
    let ptxas = ptxas_path(nvvm.path());
    let resources = ptxas
        .as_ref()
        .map(|ptxas| ptxas_resources(ptxas, &ptx, kernel, arch))
        .transpose()?;
    let sass = ptxas
        .as_ref()
        .and_then(|ptxas| crate::compile::sass::disassemble(ptxas, &ptx, arch));
    Ok(Inspection {
        kernel: unit.kernel_name,
        arch: arch.to_string(),
        nvvm_ir: unit.nvvm_ir,
        ptx,
        resources,
        sass,
        sources: SourceLines::of(source),
    })
}

/// `ptxas`: `CUDAJIT_PTXAS`, else beside libnvvm (pip wheel `nvidia/cu13/{lib,bin}`,
/// toolkit `nvvm/lib64` → `bin`), else the CUDA toolkit roots.
pub fn ptxas_path(libnvvm: &Path) -> Option<PathBuf> {
    if let Some(explicit) = std::env::var_os(PTXAS_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(explicit));
    }
    let mut candidates = Vec::new();
    if let Some(lib) = libnvvm.parent() {
        candidates.push(lib.join("../bin/ptxas"));
        candidates.push(lib.join("../../bin/ptxas"));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var).map(PathBuf::from) {
            if root.is_absolute() {
                candidates.push(root.join("bin/ptxas"));
            }
        }
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/ptxas"));
    candidates.into_iter().find(|p| p.is_file())
}

/// Runs `ptxas -v` on `ptx` for the `sm_XY` of `arch` and reads the kernel's resources.
fn ptxas_resources(ptxas: &Path, ptx: &str, kernel: &str, arch: &str) -> Result<Resources> {
    let failed = |message: String| Error::Compile {
        kernel: kernel.to_string(),
        message: format!("{}: {message}", ptxas.display()),
    };
    let dir = tempfile::tempdir().map_err(|e| failed(e.to_string()))?;
    let input = dir.path().join("kernel.ptx");
    std::fs::write(&input, ptx).map_err(|e| failed(e.to_string()))?;
    let sm = crate::compile::aot_manifest::sass_arch(arch)
        .ok_or_else(|| failed(format!("`{arch}` is not an architecture like `compute_90`")))?;
    let out = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("kernel.cubin"))
        .output()
        .map_err(|e| failed(e.to_string()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(failed(text));
    }
    parse_ptxas_info(&text, kernel).ok_or_else(|| failed(format!("no resource lines in:\n{text}")))
}

/// The resources of `kernel` in `ptxas -v` output:
/// `Function properties for K` / `N bytes stack frame, N bytes spill stores, N bytes
/// spill loads` / `Used N registers, N bytes smem, N bytes cmem[0]`.
pub fn parse_ptxas_info(text: &str, kernel: &str) -> Option<Resources> {
    let mut resources = Resources::default();
    let mut in_kernel = false;
    let mut found = false;
    for line in text.lines() {
        if let Some(name) = line.split("Function properties for ").nth(1) {
            in_kernel = name.trim() == kernel;
            continue;
        }
        if let Some(name) = line.split("Compiling entry function '").nth(1) {
            in_kernel = name.split('\'').next() == Some(kernel);
            continue;
        }
        if !in_kernel {
            continue;
        }
        for part in line.split([',', ':']) {
            let mut words = part.split_whitespace();
            let (Some(n), rest) = (words.next().and_then(|w| w.parse::<u32>().ok()), words) else {
                // "Used N registers": the number follows "Used".
                if let Some(n) = part.trim().strip_prefix("Used ") {
                    if let Some(n) = n.strip_suffix(" registers").and_then(|n| n.parse().ok()) {
                        resources.registers_per_thread = n;
                        found = true;
                    }
                }
                continue;
            };
            match rest.collect::<Vec<_>>().join(" ").as_str() {
                "bytes stack frame" => resources.local_bytes = n,
                "bytes spill stores" => resources.spill_store_bytes = n,
                "bytes spill loads" => resources.spill_load_bytes = n,
                "bytes smem" => resources.shared_bytes = n,
                _ => {}
            }
        }
    }
    found.then_some(resources)
}

impl std::fmt::Display for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} registers per thread, {} bytes static shared memory, {} bytes local memory \
             ({} bytes spill stores, {} bytes spill loads)",
            self.registers_per_thread,
            self.shared_bytes,
            self.local_bytes,
            self.spill_store_bytes,
            self.spill_load_bytes
        )
    }
}

/// Writes `<entry>.nvvm.ll`, `<entry>.ptx.txt` (both with the Rust lines interleaved)
/// and `<entry>.info.txt` beside the cache entry `entry` when `CUDAJIT_DUMP` asks for
/// it. Best effort: a dump never fails a launch.
pub(crate) fn dump_if_asked(entry: &Path, source: &FnSource, nvvm_ir: &str, ptx: &str, info: &str) {
    if dumps_asked() {
        let sources = SourceLines::of(source);
        let ir = annotate::ir_with_rust_lines(nvvm_ir, &sources);
        let ptx = annotate::ptx_with_rust_lines(ptx, &sources);
        write_dumps(entry, &ir, &ptx, info);
    }
}

/// Whether `CUDAJIT_DUMP` asks for dumps (then the JIT compiles whole modules, which
/// are what is dumped: `crate::compile::deferred`).
pub(crate) fn dumps_asked() -> bool {
    std::env::var_os(DUMP_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The dump files beside `entry`.
fn write_dumps(entry: &Path, nvvm_ir: &str, ptx: &str, info: &str) {
    for (suffix, text) in [
        (".nvvm.ll", nvvm_ir),
        (".ptx.txt", ptx),
        (".info.txt", info),
    ] {
        let mut path = entry.as_os_str().to_owned();
        path.push(suffix);
        let _ = write_private(Path::new(&path), text);
    }
}

/// Writes `text` to a new file only the user can read (a dump holds the kernel's code).
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::remove_file(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?
        .write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ptxas_verbose_output() {
        let text = "ptxas info    : 0 bytes gmem\n\
            ptxas info    : Compiling entry function 'other' for 'sm_90'\n\
            ptxas info    : Function properties for other\n\
            \x20   8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
            ptxas info    : Used 40 registers, 380 bytes cmem[0]\n\
            ptxas info    : Compiling entry function 'tiled' for 'sm_90'\n\
            ptxas info    : Function properties for tiled\n\
            \x20   16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads\n\
            ptxas info    : Used 12 registers, 2048 bytes smem, 380 bytes cmem[0]\n";
        assert_eq!(
            parse_ptxas_info(text, "tiled"),
            Some(Resources {
                registers_per_thread: 12,
                shared_bytes: 2048,
                local_bytes: 16,
                spill_store_bytes: 4,
                spill_load_bytes: 8,
            })
        );
        assert_eq!(
            parse_ptxas_info(text, "other")
                .unwrap()
                .registers_per_thread,
            40
        );
        assert_eq!(parse_ptxas_info(text, "absent"), None);
    }

    #[test]
    fn dumps_are_private_files_beside_the_entry_and_cleared_with_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cache = crate::compile::disk::DiskCache::open(dir.path()).unwrap();
        cache.put("k", "key", "// ptx").unwrap();
        let entry = cache.path("k", "key");
        write_dumps(&entry, "; ir", "// ptx", "registers per thread: 8");
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "k-key.ptx",
                "k-key.ptx.info.txt",
                "k-key.ptx.nvvm.ll",
                "k-key.ptx.ptx.txt"
            ]
        );
        let ir = dir.path().join("k-key.ptx.nvvm.ll");
        assert_eq!(std::fs::read_to_string(&ir).unwrap(), "; ir");
        assert_eq!(
            std::fs::metadata(&ir).unwrap().permissions().mode() & 0o077,
            0
        );
        // Dumps are not entries.
        assert_eq!(cache.info().unwrap().entries, 1);
        // Rewriting replaces, through no symlink.
        std::fs::remove_file(&ir).unwrap();
        std::os::unix::fs::symlink("/nonexistent/target", &ir).unwrap();
        write_dumps(&entry, "; ir 2", "// ptx", "");
        assert_eq!(std::fs::read_to_string(&ir).unwrap(), "; ir 2");
        let removed = crate::compile::disk::clear_dir(dir.path()).unwrap();
        assert_eq!(removed.files, 4);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
