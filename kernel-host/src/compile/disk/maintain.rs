//! Keeping the cache bounded: least-recently-used eviction (a hit refreshes an entry's
//! modification time, so the oldest time is the least recently used), removal of
//! temporary files a crashed writer left behind, and `clear`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Suffix of remembered digests.
pub const DIGEST_SUFFIX: &str = ".blake3";
/// The suffixes of dump files, which `cache::clear` removes with the entries.
const DUMP_SUFFIXES: [&str; 3] = [".nvvm.ll", ".ptx.txt", ".info.txt"];

/// Prefix of the temporary files a writer creates before renaming into place.
pub const TEMP_PREFIX: &str = ".cudajit-tmp-";
/// Suffix of cache entries.
pub const ENTRY_SUFFIX: &str = ".ptx";
/// A temporary file this old belongs to a writer that died: no write takes an hour.
const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// One entry found by [`scan`].
pub struct Found {
    pub path: PathBuf,
    pub bytes: u64,
    pub used: SystemTime,
}

/// The entries in `dir` (regular files named `*.ptx`; links and other kinds are not
/// counted, never followed), removing stale temporary files on the way.
pub fn scan(dir: &Path) -> io::Result<Vec<Found>> {
    let mut found = Vec::new();
    let now = SystemTime::now();
    for item in fs::read_dir(dir)? {
        let item = item?;
        let name = item.file_name();
        let name = name.to_string_lossy();
        let Ok(meta) = item.path().symlink_metadata() else {
            continue; // removed by another process meanwhile
        };
        let modified = meta.modified().unwrap_or(now);
        if name.starts_with(TEMP_PREFIX) {
            let age = now.duration_since(modified).unwrap_or_default();
            if meta.is_file() && age > STALE_TEMP_AGE {
                let _ = fs::remove_file(item.path());
            }
        } else if name.ends_with(ENTRY_SUFFIX) && meta.is_file() {
            found.push(Found {
                path: item.path(),
                bytes: meta.len(),
                used: modified,
            });
        }
    }
    Ok(found)
}

/// Removes the least recently used entries until the rest fit in `limit` bytes,
/// keeping `keep` (the entry just written). Another process evicting at the same time
/// may remove a file first: that is not an error.
pub fn evict(dir: &Path, limit: u64, keep: &Path) -> io::Result<()> {
    let mut found = scan(dir)?;
    let mut total: u64 = found.iter().map(|f| f.bytes).sum();
    if total <= limit {
        return Ok(());
    }
    found.sort_by_key(|f| f.used);
    for f in found.iter().filter(|f| f.path != keep) {
        if total <= limit {
            break;
        }
        match fs::remove_file(&f.path) {
            Ok(()) => total -= f.bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => total -= f.bytes,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Files and bytes removed by a clear.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    pub files: usize,
    pub bytes: u64,
}

/// Removes every entry, dump and temporary file of the cache in `dir` (and nothing else: a
/// misconfigured `CUDAJIT_CACHE_DIR=$HOME` loses no other file). A missing directory is
/// an empty cache.
pub fn clear(dir: &Path) -> io::Result<Removed> {
    let mut removed = Removed::default();
    let items = match fs::read_dir(dir) {
        Ok(items) => items,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(removed),
        Err(e) => return Err(e),
    };
    for item in items {
        let item = item?;
        let name = item.file_name();
        let name = name.to_string_lossy();
        let ours = name.starts_with(TEMP_PREFIX)
            || (name.ends_with(ENTRY_SUFFIX) && !name.starts_with('.'))
            || (name.ends_with(DIGEST_SUFFIX) && name.starts_with("file-"))
            || DUMP_SUFFIXES.iter().any(|s| name.ends_with(s));
        let Ok(meta) = item.path().symlink_metadata() else {
            continue;
        };
        if ours && !meta.is_dir() {
            match fs::remove_file(item.path()) {
                Ok(()) => {
                    removed.files += 1;
                    removed.bytes += meta.len();
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(removed)
}
