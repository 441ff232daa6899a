//! Digests of the compiler's files (libnvvm, ~60 MB, and libdevice), remembered in the
//! cache directory so that a new process does not hash them again: hashing them cost
//! ~200 ms at every process's first launch on the H100 (with SHA-256; BLAKE3 on all
//! cores now takes a few milliseconds, still worth remembering).
//!
//! A remembered digest is keyed by the file's identity as `stat` gives it: path, size,
//! inode and device, modification *and* change time in nanoseconds (the change time
//! cannot be set back by `touch`, so a file rewritten in place within one mtime tick
//! still gets a new key). The entry repeats that identity and is used only when it
//! matches the file now. Entries are untrusted input like the PTX entries (read
//! through `trust::read_entry`: no symlinks, regular files of the user, not writable
//! by others, bounded) and are parsed strictly; anything else is ignored and the file
//! hashed again.

use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::key::{digest_hex, file_digest_hex};
use super::maintain::{self, DIGEST_SUFFIX};
use super::store::DiskCache;
use super::trust;

/// The first line of an entry.
const HEADER: &str = "cudajit-file-digest 2";

/// `path`'s identity as an entry states it.
fn identity(path: &Path) -> io::Result<String> {
    let meta = std::fs::metadata(path)?;
    Ok(format!(
        "{}\nsize {} ino {} dev {} mtime {}.{:09} ctime {}.{:09}",
        path.display(),
        meta.len(),
        meta.ino(),
        meta.dev(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec()
    ))
}

/// The entry's text for `identity` and `digest`.
fn encode(identity: &str, digest: &str) -> String {
    format!("{HEADER}\n{identity}\n{digest}\n")
}

/// The digest in `text` if it is an entry for exactly `identity`.
fn decode(text: &str, identity: &str) -> Option<String> {
    let rest = text.strip_prefix(HEADER)?.strip_prefix('\n')?;
    let rest = rest.strip_prefix(identity)?.strip_prefix('\n')?;
    let digest = rest.strip_suffix('\n')?;
    let valid = digest.len() == 64
        && digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    valid.then(|| digest.to_string())
}

impl DiskCache {
    /// BLAKE3 of the file at `path`, from the entry remembered for its current
    /// identity when there is a valid one, else computed and remembered (a failed
    /// write only costs the next process the hashing).
    pub fn file_digest(&self, path: &Path) -> io::Result<String> {
        let before = identity(path)?;
        let entry = self.digest_entry(&before);
        if let Some(digest) = remembered(&entry, &before) {
            return Ok(digest);
        }
        let digest = file_digest_hex(path)?;
        // Remember it only if the file did not change while it was read.
        if identity(path)? == before {
            let _ = self.remember(&entry, &encode(&before, &digest));
        }
        Ok(digest)
    }

    /// The digest remembered for the file at `path` as it is now, without hashing it:
    /// `None` when none is remembered (or the file cannot be read).
    pub fn remembered_digest(&self, path: &Path) -> Option<String> {
        let now = identity(path).ok()?;
        remembered(&self.digest_entry(&now), &now)
    }

    fn digest_entry(&self, identity: &str) -> std::path::PathBuf {
        self.dir().join(format!(
            "file-{}{DIGEST_SUFFIX}",
            digest_hex(identity.as_bytes())
        ))
    }

    fn remember(&self, entry: &Path, text: &str) -> io::Result<()> {
        let mut temp = tempfile::Builder::new()
            .prefix(maintain::TEMP_PREFIX)
            .tempfile_in(self.dir())?;
        temp.write_all(text.as_bytes())?;
        temp.persist(entry).map_err(|e| e.error)?;
        Ok(())
    }
}

/// The digest in the trusted, valid `entry` for a file of `identity`.
fn remembered(entry: &Path, identity: &str) -> Option<String> {
    match trust::read_entry(entry) {
        Ok(trust::Opened::Read(bytes, _)) => std::str::from_utf8(&bytes)
            .ok()
            .and_then(|text| decode(text, identity)),
        _ => None,
    }
}

/// The toolchain identity from remembered digests alone (no hashing): `None` unless
/// both files' digests are remembered for the files as they are now.
pub fn toolchain_identity_remembered(
    cache: &DiskCache,
    libnvvm: &Path,
    libdevice: &Path,
) -> Option<String> {
    Some(format!(
        "libnvvm blake3:{} libdevice blake3:{}",
        cache.remembered_digest(libnvvm)?,
        cache.remembered_digest(libdevice)?
    ))
}

/// `libnvvm blake3:… libdevice blake3:…` as [`super::toolchain_identity`] gives it,
/// with the digests remembered in `cache` (hashed every time without one).
pub fn toolchain_identity_cached(
    cache: Option<&DiskCache>,
    libnvvm: &Path,
    libdevice: &Path,
) -> io::Result<String> {
    let Some(cache) = cache else {
        return super::toolchain_identity(libnvvm, libdevice);
    };
    Ok(format!(
        "libnvvm blake3:{} libdevice blake3:{}",
        cache.file_digest(libnvvm)?,
        cache.file_digest(libdevice)?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn random_bytes(n: usize) -> Vec<u8> {
        let mut seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1;
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect()
    }

    fn entries(dir: &Path) -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(DIGEST_SUFFIX))
            .collect()
    }

    #[test]
    fn digests_are_remembered_and_match_a_fresh_hash() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path().join("cache")).unwrap();
        let file = dir.path().join("libnvvm.so");
        std::fs::write(&file, random_bytes(3 << 20)).unwrap();
        let fresh = file_digest_hex(&file).unwrap();
        assert_eq!(cache.file_digest(&file).unwrap(), fresh);
        let remembered = entries(cache.dir());
        assert_eq!(remembered.len(), 1, "one entry written");
        let text = std::fs::read_to_string(&remembered[0]).unwrap();
        assert!(text.ends_with(&format!("{fresh}\n")), "{text}");
        // The second call reads the entry: a forged digest in a valid entry is what it
        // returns (proving it did not hash), which the next test shows is refused once
        // the file's identity changes.
        let forged = "0".repeat(64);
        std::fs::write(&remembered[0], text.replace(&fresh, &forged)).unwrap();
        assert_eq!(cache.file_digest(&file).unwrap(), forged);
    }

    /// The lookup that must not hash (a disk hit's): nothing before the digests are
    /// remembered, both once they are, nothing for a file changed since.
    #[test]
    fn remembered_digests_are_read_without_hashing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path().join("cache")).unwrap();
        let (library, libdevice) = (dir.path().join("libnvvm.so"), dir.path().join("l.bc"));
        std::fs::write(&library, random_bytes(4000)).unwrap();
        std::fs::write(&libdevice, random_bytes(3000)).unwrap();
        assert_eq!(cache.remembered_digest(&library), None);
        assert_eq!(
            toolchain_identity_remembered(&cache, &library, &libdevice),
            None
        );
        let hashed = toolchain_identity_cached(Some(&cache), &library, &libdevice).unwrap();
        assert_eq!(
            toolchain_identity_remembered(&cache, &library, &libdevice),
            Some(hashed.clone())
        );
        assert_eq!(
            hashed,
            crate::compile::disk::toolchain_identity(&library, &libdevice).unwrap()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&libdevice, random_bytes(3000)).unwrap();
        assert_eq!(
            toolchain_identity_remembered(&cache, &library, &libdevice),
            None
        );
        assert!(cache.remembered_digest(&library).is_some());
    }

    #[test]
    fn a_changed_file_is_hashed_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path().join("cache")).unwrap();
        let file = dir.path().join("libdevice.bc");
        std::fs::write(&file, random_bytes(1000)).unwrap();
        let first = cache.file_digest(&file).unwrap();
        // Same size, new contents: the change time (and mostly the mtime) differ.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&file, random_bytes(1000)).unwrap();
        let second = cache.file_digest(&file).unwrap();
        assert_eq!(second, file_digest_hex(&file).unwrap());
        assert_ne!(first, second);
    }

    #[test]
    fn untrusted_or_malformed_entries_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path().join("cache")).unwrap();
        let file = dir.path().join("libnvvm.so");
        std::fs::write(&file, random_bytes(5000)).unwrap();
        let fresh = file_digest_hex(&file).unwrap();
        cache.file_digest(&file).unwrap();
        let entry = entries(cache.dir()).pop().unwrap();
        let valid = std::fs::read_to_string(&entry).unwrap();
        let forged = valid.replace(&fresh, &"1".repeat(64));
        // World-writable: refused, hashed again (and rewritten).
        std::fs::write(&entry, &forged).unwrap();
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(cache.file_digest(&file).unwrap(), fresh);
        // A symlink to a forged entry: refused.
        let elsewhere = dir.path().join("forged");
        std::fs::write(&elsewhere, &forged).unwrap();
        std::fs::remove_file(&entry).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &entry).unwrap();
        assert_eq!(cache.file_digest(&file).unwrap(), fresh);
        // Malformed: truncated, a non-hex digest, another file's identity.
        for bad in [
            valid[..valid.len() - 10].to_string(),
            valid.replace(&fresh, &"g".repeat(64)),
            valid.replace("size ", "size 1"),
        ] {
            let _ = std::fs::remove_file(&entry);
            std::fs::write(&entry, &bad).unwrap();
            assert_eq!(cache.file_digest(&file).unwrap(), fresh, "{bad:?}");
        }
    }
}
