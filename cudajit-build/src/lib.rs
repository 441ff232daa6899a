//! Ahead-of-time compilation of a crate's cudajit kernels, from its `build.rs`: every
//! `#[kernel]` under `src/` (and each generic instantiation named in
//! `cudajit::instantiate!`) is compiled with libnvvm to PTX in `OUT_DIR`, and
//! `cudajit::embed_device_code!()` at the crate root embeds it in the binary. A launch
//! of such a kernel then loads the embedded PTX and never needs libnvvm.
//!
//! ```toml
//! [build-dependencies]
//! cudajit-build = "0.1"
//! ```
//! ```ignore
//! // build.rs
//! fn main() {
//!     cudajit_build::embed_device_code();
//! }
//! ```
//! ```ignore
//! // src/main.rs
//! cudajit::embed_device_code!();
//! ```
//!
//! Without libnvvm at build time the build does not fail: a cargo warning says so and
//! the kernels are compiled at their first launch, as without this crate. The keys and
//! the manifest are the runtime's own (kernel-host's `aot_support`), and the same code
//! serves `cargo xtask build-device` and `cargo cudajit build-device`.

pub mod compile;
pub mod scan;

pub use compile::{build, BuildReport, Progress, Request};
pub use kernel_device::nvvm::Nvvm;

use std::path::{Path, PathBuf};

/// The architecture compiled for when none is named: the PTX runs on any device of
/// compute capability 9.0 or newer (the driver compiles it for the device at load).
pub const DEFAULT_ARCH: &str = "compute_90";

/// The file `embed_device_code!()` includes, in `OUT_DIR`.
pub const TABLE_FILE: &str = "cudajit_device_code.rs";

/// Compiles this crate's kernels into `OUT_DIR` for `embed_device_code!()`, with the
/// defaults: the sources under `src/`, the architectures in `CUDAJIT_AOT_ARCHES`
/// (comma-separated, e.g. `compute_80,compute_90`) or [`DEFAULT_ARCH`].
pub fn embed_device_code() {
    DeviceCode::new().embed();
}

/// What [`DeviceCode::embed`] compiles.
pub struct DeviceCode {
    arches: Vec<String>,
    srcs: Vec<PathBuf>,
}

impl Default for DeviceCode {
    fn default() -> Self {
        Self::new()
    }
}

impl DeviceCode {
    /// The crate's `src/`, the architectures of `CUDAJIT_AOT_ARCHES` or [`DEFAULT_ARCH`].
    pub fn new() -> Self {
        let manifest_dir = manifest_dir();
        let arches = std::env::var("CUDAJIT_AOT_ARCHES")
            .ok()
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| vec![DEFAULT_ARCH.to_string()]);
        DeviceCode {
            arches,
            srcs: vec![manifest_dir.join("src")],
        }
    }

    /// Compiles for these architectures (`compute_XY`) instead.
    pub fn arches<I: IntoIterator<Item = S>, S: Into<String>>(mut self, arches: I) -> Self {
        self.arches = arches.into_iter().map(Into::into).collect();
        self
    }

    /// Also scans `dir` (relative to the crate's directory) for kernels.
    pub fn source_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.srcs.push(manifest_dir().join(dir));
        self
    }

    /// Compiles and writes `OUT_DIR/cudajit_device_code.rs`. Never fails the build: a
    /// missing libnvvm, or a kernel that cannot be compiled from its source alone, is a
    /// cargo warning, and those kernels are compiled at their first launch instead.
    /// `CUDAJIT_AOT=0` at build time skips the compile (an empty table).
    pub fn embed(self) {
        for var in [
            "CUDAJIT_AOT",
            "CUDAJIT_AOT_ARCHES",
            kernel_device::nvvm::NVVM_PATH_ENV,
            kernel_device::nvvm::LIBDEVICE_PATH_ENV,
            kernel_host::aot_support::PTXAS_ENV,
            "CUDA_HOME",
            "CUDA_PATH",
        ] {
            println!("cargo:rerun-if-env-changed={var}");
        }
        for src in &self.srcs {
            println!("cargo:rerun-if-changed={}", src.display());
        }
        let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect(
            "cudajit_build::embed_device_code runs in a build script (cargo sets OUT_DIR)",
        ));
        let table = match self.compile(&out_dir.join("cudajit-aot")) {
            Ok(table) => table,
            Err(message) => {
                warn(&message);
                String::from("&[]")
            }
        };
        let path = out_dir.join(TABLE_FILE);
        if let Err(e) = std::fs::write(&path, table) {
            panic!("cudajit-build: cannot write {}: {e}", path.display());
        }
    }

    /// The table's code, or why there is none.
    fn compile(&self, dir: &Path) -> Result<String, String> {
        if std::env::var_os("CUDAJIT_AOT").is_some_and(|v| v == "0") {
            return Ok(String::from("&[]"));
        }
        let nvvm = Nvvm::load().map_err(|e| {
            format!(
                "cudajit: kernels not compiled ahead of time, they will be compiled at their first launch: {e}"
            )
        })?;
        let root = workspace_root(&manifest_dir());
        // Machine code beside the PTX where a ptxas is found (beside libnvvm, in the
        // CUDA toolkit, or `CUDAJIT_PTXAS`): a launch on such a GPU needs no JIT.
        let ptxas = ptxas_for(&nvvm);
        let report = build(
            &Request {
                arches: &self.arches,
                out: dir,
                srcs: &self.srcs,
                skip: &[],
                root: &root,
                ptxas: ptxas.as_deref(),
            },
            &nvvm,
            &mut |_| {},
        )
        .map_err(|e| format!("cudajit: kernels not compiled ahead of time: {e}"))?;
        for kernel in &report.left_to_jit {
            warn(&format!(
                "cudajit: left to the JIT (compiled at its first launch): {kernel}"
            ));
        }
        table_code(dir)
    }
}

/// The ptxas that makes machine code beside the PTX `nvvm` compiles: `CUDAJIT_PTXAS`,
/// else beside libnvvm, else in the CUDA toolkit; `None`: PTX alone (launches then
/// JIT-compile it, as without machine code).
pub fn ptxas_for(nvvm: &Nvvm) -> Option<PathBuf> {
    kernel_host::aot_support::ptxas_path(nvvm.path())
}

/// A cargo warning, one `cargo:warning=` per line.
fn warn(message: &str) {
    for line in message.lines() {
        println!("cargo:warning={line}");
    }
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR")
            .expect("cudajit_build runs in a build script (cargo sets CARGO_MANIFEST_DIR)"),
    )
}

/// The root of the workspace a package is built in (where cargo runs rustc, so what
/// `file!()` is relative to): `cargo locate-project --workspace`, else the package's
/// own directory.
pub fn workspace_root(package_dir: &Path) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let located = std::process::Command::new(cargo)
        .args(["locate-project", "--workspace", "--message-format", "plain"])
        .current_dir(package_dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| PathBuf::from(s.trim()))
        .and_then(|toml| toml.parent().map(Path::to_path_buf));
    located.unwrap_or_else(|| package_dir.to_path_buf())
}

/// Rust code for the entries of `dir/manifest.txt` as `embed_device_code!()` includes
/// them: `&[::cudajit::aot::AotEntry { .., ptx: include_str!("/abs/file.ptx"), sass:
/// include_bytes!("/abs/file.cubin") }, ..]`.
pub fn table_code(dir: &Path) -> Result<String, String> {
    let manifest = dir.join("manifest.txt");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let entries = kernel_host::aot_support::parse_manifest(&text)
        .map_err(|e| format!("{}: {e}", manifest.display()))?;
    let mut code = String::from("&[\n");
    for entry in entries {
        let file = kernel_host::aot_support::listed_file_path(dir, &manifest, &entry.file)?;
        let sass = match &entry.sass {
            Some(sass) => format!(
                "::core::include_bytes!({:?})",
                kernel_host::aot_support::listed_file_path(dir, &manifest, sass)?
            ),
            None => String::from("&[]"),
        };
        code.push_str(&format!(
            "    ::cudajit::aot::AotEntry {{ kernel: {:?}, key: {:?}, arch: {:?}, ptx: ::core::include_str!({:?}), sass: {sass} }},\n",
            entry.kernel, entry.key, entry.arch, file
        ));
    }
    code.push(']');
    Ok(code)
}
