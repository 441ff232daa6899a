//! The runtime's one door to libnvvm (kernel-device's binding), so that a change in
//! that binding's shape touches this file only. Errors become text here because the
//! runtime reports them inside `Error::Nvvm` with the kernel's name.

use std::sync::OnceLock;

use kernel_device::nvvm::{CompileOptions, Nvvm};

use crate::disk::{toolchain_identity_cached, DiskCache};

/// Options of one compile, as the runtime chooses them.
pub(crate) struct Options {
    pub(crate) arch: String,
    pub(crate) opt_level: u8,
    pub(crate) fast_math: bool,
    pub(crate) line_info: bool,
}

/// The process-wide libnvvm, loaded on first use.
pub(crate) fn shared() -> Result<Compiler, String> {
    Nvvm::shared().map(Compiler).map_err(|e| e.to_string())
}

pub(crate) struct Compiler(&'static Nvvm);

impl Compiler {
    /// libnvvm's version (part of the disk cache key).
    pub(crate) fn version(&self) -> (i32, i32) {
        self.0.version()
    }

    /// The identity of this libnvvm and its libdevice for the disk cache key: digests
    /// of both files, once per process (on the first compile, never on the launch
    /// path), remembered in the disk cache by the files' identity so that a later
    /// process does not hash them again (`disk::digests`). `Err` (unreadable file):
    /// the caller compiles without the disk cache.
    pub(crate) fn identity(&self) -> Result<&'static str, String> {
        static IDENTITY: OnceLock<Result<String, String>> = OnceLock::new();
        IDENTITY
            .get_or_init(|| {
                let cache = DiskCache::from_env();
                toolchain_identity_cached(cache.as_ref(), self.0.path(), self.0.libdevice_path())
                    .map_err(|e| {
                        format!(
                            "cannot read {} or {}: {e}",
                            self.0.path().display(),
                            self.0.libdevice_path().display()
                        )
                    })
            })
            .as_deref()
            .map_err(Clone::clone)
    }

    /// The library file.
    pub(crate) fn path(&self) -> &'static std::path::Path {
        self.0.path()
    }

    /// The `!nvvmir.version` this libnvvm accepts.
    pub(crate) fn ir_version(&self) -> (u32, u32, u32, u32) {
        self.0.ir_version()
    }

    pub(crate) fn compile(&self, nvvm_ir: &str, options: &Options) -> Result<String, String> {
        let options = CompileOptions {
            arch: options.arch.clone(),
            opt_level: options.opt_level,
            fast_math: options.fast_math,
            line_info: options.line_info,
        };
        self.0.compile(nvvm_ir, &options).map_err(|e| e.to_string())
    }
}
