//! The names of compiled kernels: SHA-256 digests (the `sha2` crate) of the IR and of
//! everything else that changes the PTX libnvvm produces; the compiler's own files are
//! named by BLAKE3 digests (the `blake3` crate), which hash large files much faster.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Names the cache directory (empty: no disk cache).
pub const CACHE_DIR_ENV: &str = "CUDAJIT_CACHE_DIR";

/// SHA-256 of `bytes`, as 64 lowercase hex digits. Stable across Rust versions and
/// platforms, which matters because `cargo xtask build-device` computes the AOT keys in
/// another process that must agree with the runtime.
pub fn digest_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// BLAKE3 of a file's contents, as 64 lowercase hex digits: memory-mapped and hashed on
/// all cores (libnvvm is ~60 MB; SHA-256 took ~55 ms of a process's first compile).
pub fn file_digest_hex(path: &Path) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_mmap_rayon(path)?;
    Ok(hasher.finalize().to_hex().to_string())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The key of a kernel's NVVM IR (as produced with `back::nvvm::Options::default()`).
/// The AOT manifest names kernels by this key.
pub fn ir_key(nvvm_ir: &str) -> String {
    digest_hex(nvvm_ir.as_bytes())
}

/// Everything besides the IR that changes the PTX libnvvm produces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskKeyParts<'a> {
    pub ir_key: &'a str,
    pub arch: &'a str,
    /// The full identity of the compiler: digests of the libnvvm file and of the
    /// libdevice it links ([`toolchain_identity`]). Two builds that report the same
    /// version but differ (a patched or a planted library) never share entries. The
    /// digest determines libnvvm's version and IR version too, so neither is a part of
    /// its own: the key is computed without loading libnvvm, and a process whose
    /// kernels are all on disk never loads it.
    pub toolchain: &'a str,
    pub opt_level: u8,
    pub fast_math: bool,
    pub line_info: bool,
}

/// The disk cache key. The leading version changes whenever the libnvvm options derived
/// from these settings or the key's own makeup change (3: SHA-256, toolchain digests;
/// 4: the toolchain's files digested with BLAKE3; 5: the IR is written for the
/// architecture, `bf16` with its native instructions; 6: libnvvm's PTX is rewritten
/// around ptxas's 16-bit negation defect, `nvvm::ptx_fixups`; 7: no libnvvm version,
/// which only a loaded libnvvm can tell and the toolchain digests already imply; 8: sm_90
/// kernels begin with `griddepcontrol.wait`, which the key's IR, written for no
/// target, does not show; 9: no `griddepcontrol.launch_dependents` before it).
pub fn disk_key(parts: &DiskKeyParts<'_>) -> String {
    let text = format!(
        "cudajit-disk-key 9|{}|{}|{}|O{}|fast_math {}|line_info {}",
        parts.ir_key,
        parts.arch,
        parts.toolchain,
        parts.opt_level,
        parts.fast_math,
        parts.line_info
    );
    digest_hex(text.as_bytes())
}

/// `libnvvm blake3:… libdevice blake3:…` for the files at these paths.
pub fn toolchain_identity(libnvvm: &Path, libdevice: &Path) -> std::io::Result<String> {
    Ok(format!(
        "libnvvm blake3:{} libdevice blake3:{}",
        file_digest_hex(libnvvm)?,
        file_digest_hex(libdevice)?
    ))
}

/// Where the cache lives, given a way to read environment variables (a parameter so
/// the rule is tested without touching the process environment). `None`: no cache
/// (`CUDAJIT_CACHE_DIR` set to an empty string, or no absolute home directory). A
/// relative `XDG_CACHE_HOME` is ignored, as the XDG specification says; a relative
/// `CUDAJIT_CACHE_DIR` (explicit configuration) is taken from the working directory.
pub fn resolve_dir(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if let Some(dir) = env(CACHE_DIR_ENV) {
        return (!dir.is_empty()).then(|| std::path::absolute(&dir).unwrap_or(dir.into()));
    }
    if let Some(xdg) = env("XDG_CACHE_HOME").filter(|x| Path::new(x).is_absolute()) {
        return Some(PathBuf::from(xdg).join("cudajit"));
    }
    let home = env("HOME").filter(|h| Path::new(h).is_absolute())?;
    Some(PathBuf::from(home).join(".cache").join("cudajit"))
}
