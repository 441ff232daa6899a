//! The on-disk PTX cache and the keys that name compiled kernels.
//!
//! One file per key under `$CUDAJIT_CACHE_DIR`, `$XDG_CACHE_HOME/cudajit` or
//! `~/.cache/cudajit`. A file is written to a private temporary name and renamed into
//! place, so readers (other threads, other processes) see the old file or the whole new
//! one, never a torn one. Each file carries the length and a 128-bit checksum of its
//! PTX; a file that fails the check (truncated by a crash, edited, bit rot) reads as a
//! miss, and the kernel is recompiled and the file replaced.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// 128-bit FNV-1a. Stable across Rust versions and platforms (unlike std's hasher),
/// which matters because `cargo xtask build-device` computes the AOT keys in another
/// process that must agree with the runtime.
pub fn hash128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62272e_07bb0142_62b82175_6295c58d;
    const PRIME: u128 = 0x00000000_01000000_00000000_0000013b;
    let mut h = OFFSET;
    for &b in bytes {
        h ^= u128::from(b);
        h = h.wrapping_mul(PRIME);
    }
    h
}

/// The key of a kernel's NVVM IR (as produced with `back::nvvm::Options::default()`):
/// 32 lowercase hex digits. The AOT manifest names kernels by this key.
pub fn ir_key(nvvm_ir: &str) -> String {
    format!("{:032x}", hash128(nvvm_ir.as_bytes()))
}

/// Everything besides the IR that changes the PTX libnvvm produces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskKeyParts<'a> {
    pub ir_key: &'a str,
    pub arch: &'a str,
    pub nvvm_version: (i32, i32),
    pub opt_level: u8,
    pub fast_math: bool,
    pub line_info: bool,
}

/// The disk cache key: the IR key plus target and compiler settings. The leading
/// version changes whenever the libnvvm options derived from these settings change
/// (2: exact kernels are compiled with `-fma=0`, so PTX cached by version 1 with
/// contracted `a * b + c` is never reused).
pub fn disk_key(parts: &DiskKeyParts<'_>) -> String {
    let text = format!(
        "cudajit-disk-key 2|{}|{}|nvvm {}.{}|O{}|fast_math {}|line_info {}",
        parts.ir_key,
        parts.arch,
        parts.nvvm_version.0,
        parts.nvvm_version.1,
        parts.opt_level,
        parts.fast_math,
        parts.line_info
    );
    format!("{:032x}", hash128(text.as_bytes()))
}

/// Where the cache lives, given a way to read environment variables (a parameter so
/// the rule is tested without touching the process environment). `None`: no cache
/// (`CUDAJIT_CACHE_DIR` set to an empty string, or no home directory).
pub fn resolve_dir(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if let Some(dir) = env("CUDAJIT_CACHE_DIR") {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    if let Some(xdg) = env("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return Some(PathBuf::from(xdg).join("cudajit"));
    }
    let home = env("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".cache").join("cudajit"))
}

const MAGIC: &str = "cudajit-ptx 1";

/// A directory of cached PTX files.
#[derive(Clone, Debug)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    pub fn new(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache { dir: dir.into() }
    }

    /// The cache at the location the environment selects, if any.
    pub fn from_env() -> Option<DiskCache> {
        resolve_dir(|name| std::env::var_os(name)).map(DiskCache::new)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file for `kernel` under `key` (the kernel name is only there for people
    /// looking at the directory; the key alone identifies the entry).
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
        self.dir.join(format!("{name}-{key}.ptx"))
    }

    /// The cached PTX, or `None` when missing or failing its checksum.
    pub fn get(&self, kernel: &str, key: &str) -> Option<String> {
        let bytes = fs::read(self.path(kernel, key)).ok()?;
        decode_entry(&bytes)
    }

    /// Stores `ptx` atomically (temporary file, then rename).
    pub fn put(&self, kernel: &str, key: &str, ptx: &str) -> std::io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let target = self.path(kernel, key);
        let temp = self.dir.join(format!(
            ".{}.{}.{}.tmp",
            target.file_name().unwrap_or_default().to_string_lossy(),
            std::process::id(),
            unique_suffix()
        ));
        let written = (|| {
            let mut file = fs::File::create(&temp)?;
            file.write_all(&encode_entry(ptx))?;
            // On disk before the rename makes it visible: a crash leaves the old file
            // or the new one, not an empty one under the final name.
            file.sync_all()?;
            fs::rename(&temp, &target)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written
    }
}

/// Distinct per call within a process (threads writing the same key must not share a
/// temporary file).
fn unique_suffix() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Header lines (magic, checksum, length), an empty line, then the PTX.
fn encode_entry(ptx: &str) -> Vec<u8> {
    let header = format!(
        "{MAGIC}\nchecksum {:032x}\nlength {}\n\n",
        hash128(ptx.as_bytes()),
        ptx.len()
    );
    let mut out = header.into_bytes();
    out.extend_from_slice(ptx.as_bytes());
    out
}

fn decode_entry(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (header, body) = text.split_once("\n\n")?;
    let mut lines = header.lines();
    if lines.next()? != MAGIC {
        return None;
    }
    let checksum = u128::from_str_radix(lines.next()?.strip_prefix("checksum ")?, 16).ok()?;
    let length: usize = lines.next()?.strip_prefix("length ")?.parse().ok()?;
    if lines.next().is_some() || body.len() != length || hash128(body.as_bytes()) != checksum {
        return None;
    }
    Some(body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);
    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!(
                "cudajit-disk-test-{tag}-{}-{}",
                std::process::id(),
                unique_suffix()
            ));
            let _ = fs::remove_dir_all(&dir);
            TempDir(dir)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const PTX: &str =
        "//\n.version 9.0\n.target sm_90\n.address_size 64\n\n.visible .entry k() { ret; }\n";

    #[test]
    fn hashes_are_stable_and_distinct() {
        assert_eq!(ir_key(""), "6c62272e07bb014262b821756295c58d");
        assert_ne!(ir_key("a"), ir_key("b"));
        assert_eq!(ir_key("abc").len(), 32);
        let parts = DiskKeyParts {
            ir_key: "00",
            arch: "compute_90",
            nvvm_version: (2, 0),
            opt_level: 3,
            fast_math: false,
            line_info: false,
        };
        let other_arch = DiskKeyParts {
            arch: "compute_80",
            ..parts.clone()
        };
        let fast = DiskKeyParts {
            fast_math: true,
            ..parts.clone()
        };
        assert_ne!(disk_key(&parts), disk_key(&other_arch));
        assert_ne!(disk_key(&parts), disk_key(&fast));
        assert_eq!(disk_key(&parts), disk_key(&parts.clone()));
    }

    #[test]
    fn dir_resolution_order() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        assert_eq!(
            resolve_dir(env(&[
                ("CUDAJIT_CACHE_DIR", "/c"),
                ("XDG_CACHE_HOME", "/x"),
                ("HOME", "/h")
            ])),
            Some(PathBuf::from("/c"))
        );
        assert_eq!(
            resolve_dir(env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/cudajit"))
        );
        assert_eq!(
            resolve_dir(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/cudajit"))
        );
        assert_eq!(
            resolve_dir(env(&[("CUDAJIT_CACHE_DIR", ""), ("HOME", "/h")])),
            None
        );
        assert_eq!(resolve_dir(env(&[])), None);
    }

    #[test]
    fn round_trip() {
        let tmp = TempDir::new("roundtrip");
        let cache = DiskCache::new(&tmp.0);
        assert_eq!(cache.get("vecadd", "k1"), None);
        cache.put("vecadd", "k1", PTX).unwrap();
        assert_eq!(cache.get("vecadd", "k1").as_deref(), Some(PTX));
        // Overwriting replaces the entry.
        cache.put("vecadd", "k1", "other").unwrap();
        assert_eq!(cache.get("vecadd", "k1").as_deref(), Some("other"));
        // No temporary files are left behind.
        let names: Vec<_> = fs::read_dir(&tmp.0)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![OsString::from("vecadd-k1.ptx")]);
    }

    #[test]
    fn corrupt_entry_is_a_miss() {
        let tmp = TempDir::new("corrupt");
        let cache = DiskCache::new(&tmp.0);
        cache.put("k", "key", PTX).unwrap();
        let path = cache.path("k", "key");
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 0x01; // one flipped bit in the PTX
        fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.get("k", "key"), None);
        fs::write(&path, b"garbage without a header").unwrap();
        assert_eq!(cache.get("k", "key"), None);
        fs::write(&path, [0xffu8, 0xfe, 0x00]).unwrap();
        assert_eq!(cache.get("k", "key"), None);
        // A fresh put repairs it.
        cache.put("k", "key", PTX).unwrap();
        assert_eq!(cache.get("k", "key").as_deref(), Some(PTX));
    }

    #[test]
    fn truncated_entry_is_a_miss() {
        let tmp = TempDir::new("truncated");
        let cache = DiskCache::new(&tmp.0);
        cache.put("k", "key", PTX).unwrap();
        let path = cache.path("k", "key");
        let full = fs::read(&path).unwrap();
        for cut in [0, 5, 20, full.len() / 2, full.len() - 1] {
            fs::write(&path, &full[..cut]).unwrap();
            assert_eq!(cache.get("k", "key"), None, "cut at {cut}");
        }
    }

    #[test]
    fn concurrent_writers_never_tear() {
        let tmp = TempDir::new("concurrent");
        let cache = DiskCache::new(&tmp.0);
        // Large, distinct payloads make a torn write detectable and likely if the
        // write were not atomic.
        let payloads: Vec<String> = (0..8)
            .map(|i| format!("// writer {i}\n{}", format!("{i}").repeat(200_000)))
            .collect();
        std::thread::scope(|s| {
            for p in &payloads {
                let cache = cache.clone();
                s.spawn(move || {
                    for _ in 0..10 {
                        cache.put("k", "same", p).unwrap();
                    }
                });
            }
            let reader = cache.clone();
            let payloads = &payloads;
            s.spawn(move || {
                // Any file visible under the final name must be complete: a checksum
                // failure here would mean a reader saw a torn file.
                for _ in 0..200 {
                    if let Ok(bytes) = fs::read(reader.path("k", "same")) {
                        let got = decode_entry(&bytes).expect("torn file under the final name");
                        assert!(payloads.contains(&got));
                    }
                }
            });
        });
        let last = cache.get("k", "same").expect("an entry after the writers");
        assert!(payloads.contains(&last));
        let leftovers = fs::read_dir(&tmp.0).unwrap().count();
        assert_eq!(leftovers, 1, "temporary files left behind");
    }
}
