//! The runtime's one door to libnvvm (kernel-device's binding), so that a change in
//! that binding's shape touches this file only. Errors become text here because the
//! runtime reports them inside `Error::Nvvm` with the kernel's name.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kernel_device::nvvm::{CompileOptions, Nvvm};

use crate::compile::disk::{toolchain_identity_cached, toolchain_identity_remembered, DiskCache};

/// Options of one compile, as the runtime chooses them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Options {
    pub(crate) arch: String,
    pub(crate) opt_level: u8,
    pub(crate) fast_math: bool,
    pub(crate) line_info: bool,
    /// `-g` (full debug information, for cuda-gdb).
    pub(crate) debug: bool,
}

/// The process-wide libnvvm, loaded on first use.
pub(crate) fn shared() -> Result<Compiler, String> {
    Nvvm::shared().map(Compiler).map_err(|e| e.to_string())
}

pub(crate) struct Compiler(&'static Nvvm);

type FilesAndIdentity = ((PathBuf, PathBuf), Result<String, String>);

/// The toolchain identity, for the files it was computed from.
static TOOLCHAIN_IDENTITY: OnceLock<FilesAndIdentity> = OnceLock::new();

fn identify(library: &Path, libdevice: &Path) -> FilesAndIdentity {
    let cache = DiskCache::from_env();
    let identity = toolchain_identity_cached(cache.as_ref(), library, libdevice).map_err(|e| {
        format!(
            "cannot read {} or {}: {e}",
            library.display(),
            libdevice.display()
        )
    });
    ((library.to_path_buf(), libdevice.to_path_buf()), identity)
}

inventory::submit! {
    crate::device::open_gpu::WhenAGpuOpens(identify_toolchain_in_background)
}

/// Starts hashing the compiler's files on a thread of its own (once per process), so
/// that the first compile finds the cache key's toolchain digests ready: called when a
/// GPU is opened, since a kernel launch usually follows. The thread only reads files
/// (no library is loaded on it), so a process may exit while it runs. Without the
/// disk cache there is nothing to key, and no thread.
pub(crate) fn identify_toolchain_in_background(_: &cudarc::driver::CudaContext) {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        if DiskCache::from_env().is_none() {
            return;
        }
        let _ = std::thread::Builder::new()
            .name("cudajit-toolchain-digests".into())
            .spawn(|| {
                if let Some((library, libdevice)) = Nvvm::locate() {
                    TOOLCHAIN_IDENTITY.get_or_init(|| identify(&library, &libdevice));
                }
            });
    });
}

/// The identity of the libnvvm (and libdevice) a compile in this process would load,
/// if it is known without hashing (identified earlier in this process, or digests
/// remembered in `cache` for the files as they are now), found without loading the
/// library: what a disk cache lookup needs, so that a process whose kernels are all on
/// disk never pays libnvvm's load (~5 ms for its 60 MB). `None` when the files must
/// still be hashed (the caller loads libnvvm meanwhile, which a miss needs anyway),
/// when no libnvvm is found, or when the files cannot be read.
pub(crate) fn identity_if_ready(cache: &DiskCache) -> Option<String> {
    let (library, libdevice) = Nvvm::locate()?;
    match TOOLCHAIN_IDENTITY.get() {
        Some((found_for, identity)) if found_for.0 == library && found_for.1 == libdevice => {
            identity.clone().ok()
        }
        // Identified for other files (the search changed its answer), or not yet.
        _ => toolchain_identity_remembered(cache, &library, &libdevice),
    }
}

impl Compiler {
    /// The identity of this libnvvm and its libdevice for the disk cache key: digests
    /// of both files, once per process (on the first compile, or ahead of it by
    /// [`identify_toolchain_in_background`]; never on the launch path), remembered in
    /// the disk cache by the files' identity so that a later process does not hash them
    /// again (`disk::digests`). `Err` (unreadable file): the caller compiles without
    /// the disk cache.
    pub(crate) fn identity(&self) -> Result<&'static str, String> {
        let (library, libdevice) = (self.0.path(), self.0.libdevice_path());
        let (found_for, identity) = TOOLCHAIN_IDENTITY.get_or_init(|| identify(library, libdevice));
        if found_for.0 == library && found_for.1 == libdevice {
            return identity.as_deref().map_err(Clone::clone);
        }
        // Hashed ahead for files other than the ones loaded (the search found another
        // library between the two looks): this process's own files, once.
        static LOADED: OnceLock<Result<String, String>> = OnceLock::new();
        LOADED
            .get_or_init(|| identify(library, libdevice).1)
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
            debug: options.debug,
        };
        self.0.compile(nvvm_ir, &options).map_err(|e| e.to_string())
    }
}
