//! The on-disk PTX cache (`cudajit::cache`): where it is, what is in it, clearing it.
//!
//! One file per key under `$CUDAJIT_CACHE_DIR`, `$XDG_CACHE_HOME/cudajit` or
//! `~/.cache/cudajit`. The directory is untrusted input (see `trust`): it is created
//! 0700, and when it or an entry belongs to another user or others can write it, the
//! cache (or that entry) is refused with one warning and kernels are compiled in
//! memory. An entry is written to an exclusive temporary file (`tempfile`) and renamed
//! into place, so readers see the old file or the whole new one. The size is bounded
//! (`CUDAJIT_CACHE_MAX_BYTES`, default 1 GiB) by least-recently-used eviction.
//!
//! The runtime writes an entry only after the driver loaded its PTX (`jit`), so PTX
//! from a libnvvm newer than the driver never lands here. The CPU simulator interprets
//! the IR and never reads or writes this cache.

mod digests;
mod entry;
mod key;
mod maintain;
mod store;
mod trust;

use std::io;
use std::path::Path;

pub use digests::{toolchain_identity_cached, toolchain_identity_remembered};
pub use key::{
    digest_hex, disk_key, file_digest_hex, ir_key, resolve_dir, toolchain_identity, DiskKeyParts,
    CACHE_DIR_ENV,
};
pub use maintain::{Removed, DIGEST_SUFFIX};
use store::max_bytes_from_env;
pub use store::{CacheInfo, DiskCache, Lookup, CACHE_MAX_BYTES_ENV, DEFAULT_MAX_BYTES};
pub use trust::{check_owner_and_mode, Distrust, MAX_ENTRY_BYTES};

/// The process's kernel cache: location (from the environment), entries and bytes.
/// Creates the directory if missing, as the first compile would.
pub fn info() -> io::Result<CacheInfo> {
    let Some(dir) = resolve_dir(|name| std::env::var_os(name)) else {
        return Ok(CacheInfo {
            dir: None,
            entries: 0,
            bytes: 0,
            max_bytes: max_bytes_from_env(),
            refused: None,
        });
    };
    match DiskCache::open(&dir) {
        Ok(cache) => cache.with_max_bytes(max_bytes_from_env()).info(),
        Err(why) => Ok(CacheInfo {
            dir: Some(dir),
            entries: 0,
            bytes: 0,
            max_bytes: max_bytes_from_env(),
            refused: Some(why),
        }),
    }
}

/// Removes every entry, dump and temporary file of the cache in `dir`.
pub fn clear_dir(dir: &Path) -> io::Result<Removed> {
    maintain::clear(dir)
}

/// Removes every entry of the process's kernel cache (only cudajit's files; a refused
/// directory too, since clearing is what its owner asks for). Kernels already loaded
/// in this process stay loaded.
pub fn clear() -> io::Result<Removed> {
    match resolve_dir(|name| std::env::var_os(name)) {
        Some(dir) => maintain::clear(&dir),
        None => Ok(Removed::default()),
    }
}

/// A freshly compiled kernel's place in the disk cache, written once it has loaded.
pub(crate) struct PendingEntry {
    pub(crate) disk: DiskCache,
    pub(crate) key: String,
}

impl PendingEntry {
    pub(crate) fn store(&self, kernel: &str, ptx: &str) {
        // The cache only saves time: a read-only or full disk must not fail a launch.
        let _ = self.disk.put(kernel, &self.key, ptx);
    }

    /// The entry's file.
    pub(crate) fn path(&self, kernel: &str) -> std::path::PathBuf {
        self.disk.path(kernel, &self.key)
    }
}

#[cfg(test)]
mod tests;
