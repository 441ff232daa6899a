//! The cache directory itself: opening it (trust checks), looking an entry up, writing
//! one (a temporary file renamed into place), eviction to the size limit, and what it
//! holds ([`CacheInfo`]).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::key::{resolve_dir, CACHE_DIR_ENV};
use super::trust::{self, Distrust};
use super::{entry, maintain};

/// The cache's size limit in bytes.
pub const CACHE_MAX_BYTES_ENV: &str = "CUDAJIT_CACHE_MAX_BYTES";
/// The size limit when `CUDAJIT_CACHE_MAX_BYTES` is not set.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// A directory of cached PTX files that passed the trust checks.
#[derive(Clone, Debug)]
pub struct DiskCache {
    dir: PathBuf,
    max_bytes: u64,
}

/// What a lookup found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    Hit(String),
    /// No entry, or one that fails its checks (truncated, edited, another key's).
    Miss,
    /// An entry that is not used: why (a symlink, a FIFO, another owner, writable by
    /// others, too large). The caller recompiles; the next write replaces it.
    Refused(Distrust),
}

impl DiskCache {
    /// The cache in `dir`, created 0700 if missing; `Err` says why it is not trusted.
    pub fn open(dir: impl Into<PathBuf>) -> Result<DiskCache, String> {
        let dir = dir.into();
        trust::open_dir(&dir)?;
        Ok(DiskCache {
            dir,
            max_bytes: DEFAULT_MAX_BYTES,
        })
    }

    /// The cache at the location and with the limit the environment selects. `None`
    /// when disabled or refused (then after one warning on stderr).
    pub fn from_env() -> Option<DiskCache> {
        let dir = resolve_dir(|name| std::env::var_os(name))?;
        match DiskCache::open(&dir) {
            Ok(cache) => Some(cache.with_max_bytes(max_bytes_from_env())),
            Err(reason) => {
                trust::warn_once(format!(
                    "the kernel cache {} is not used ({reason}); kernels are compiled in memory",
                    dir.display()
                ));
                None
            }
        }
    }

    /// The same cache with another size limit.
    pub fn with_max_bytes(self, max_bytes: u64) -> DiskCache {
        DiskCache { max_bytes, ..self }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file for `kernel` under `key` (the kernel name is only there for people
    /// looking at the directory; the key identifies the entry).
    pub fn path(&self, kernel: &str, key: &str) -> PathBuf {
        let name: String = kernel
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        self.dir
            .join(format!("{name}-{key}{}", maintain::ENTRY_SUFFIX))
    }

    /// The cached PTX for `kernel` under `key`, checked (see [`Lookup`]). A hit marks
    /// the entry as recently used.
    pub fn lookup(&self, kernel: &str, key: &str) -> Lookup {
        let path = self.path(kernel, key);
        match trust::read_entry(&path) {
            Ok(trust::Opened::Read(bytes, file)) => match entry::decode(&bytes, key) {
                Some(ptx) => {
                    // Best effort: a failed touch only makes eviction less exact.
                    let _ = file.set_modified(std::time::SystemTime::now());
                    Lookup::Hit(ptx)
                }
                None => Lookup::Miss,
            },
            Ok(trust::Opened::Refused(why)) => {
                trust::warn_once(format!(
                    "the kernel cache entry {} is not used ({why}); the kernel is recompiled",
                    path.display()
                ));
                Lookup::Refused(why)
            }
            Ok(trust::Opened::Missing) | Err(_) => Lookup::Miss,
        }
    }

    /// The cached PTX, if there is a trusted, intact entry.
    pub fn get(&self, kernel: &str, key: &str) -> Option<String> {
        match self.lookup(kernel, key) {
            Lookup::Hit(ptx) => Some(ptx),
            _ => None,
        }
    }

    /// Stores `ptx` (exclusive temporary file, then rename over whatever is at the
    /// entry's name, a refused file included), then evicts down to the size limit.
    pub fn put(&self, kernel: &str, key: &str, ptx: &str) -> io::Result<()> {
        let target = self.path(kernel, key);
        let mut temp = tempfile::Builder::new()
            .prefix(maintain::TEMP_PREFIX)
            .tempfile_in(&self.dir)?;
        temp.write_all(&entry::encode(key, ptx))?;
        // No `fsync` before the rename: it cost the first launch of every new kernel a
        // disk flush (issue 27), and a crash that leaves the new name empty or torn
        // leaves an entry whose length and SHA-256 do not match: a miss, recompiled
        // and written again.
        temp.persist(&target).map_err(|e| e.error)?;
        maintain::evict(&self.dir, self.max_bytes, &target)
    }

    /// Location, entries and size.
    pub fn info(&self) -> io::Result<CacheInfo> {
        let found = maintain::scan(&self.dir)?;
        Ok(CacheInfo {
            dir: Some(self.dir.clone()),
            entries: found.len(),
            bytes: found.iter().map(|f| f.bytes).sum(),
            max_bytes: self.max_bytes,
            refused: None,
        })
    }
}

/// The size limit `CUDAJIT_CACHE_MAX_BYTES` sets (a number of bytes), else the default.
pub(super) fn max_bytes_from_env() -> u64 {
    let Some(text) = std::env::var_os(CACHE_MAX_BYTES_ENV) else {
        return DEFAULT_MAX_BYTES;
    };
    match text.to_str().and_then(|t| t.trim().parse().ok()) {
        Some(bytes) => bytes,
        None => {
            trust::warn_once(format!(
                "{CACHE_MAX_BYTES_ENV}={text:?} is not a number of bytes; using {DEFAULT_MAX_BYTES}"
            ));
            DEFAULT_MAX_BYTES
        }
    }
}

/// Where the kernel cache is and what it holds ([`info`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheInfo {
    /// `None`: no disk cache (`CUDAJIT_CACHE_DIR=` or no home directory).
    pub dir: Option<PathBuf>,
    pub entries: usize,
    pub bytes: u64,
    pub max_bytes: u64,
    /// Why the directory is not used, when it is refused.
    pub refused: Option<String>,
}

impl std::fmt::Display for CacheInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(dir) = &self.dir else {
            return write!(
                f,
                "no disk cache ({CACHE_DIR_ENV} is empty or there is no home directory)"
            );
        };
        write!(
            f,
            "{}: {} entries, {} bytes (limit {} bytes)",
            dir.display(),
            self.entries,
            self.bytes,
            self.max_bytes
        )?;
        if let Some(why) = &self.refused {
            write!(f, "; not used: {why}")?;
        }
        Ok(())
    }
}
