//! The cache's rules in isolation; `kernel-host/tests/disk_cache.rs` attacks a real
//! directory (symlinks, FIFOs, other owners, other processes).

use std::ffi::OsString;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::*;

const PTX: &str =
    "//\n.version 9.0\n.target sm_90\n.address_size 64\n\n.visible .entry k() { ret; }\n";

fn parts() -> DiskKeyParts<'static> {
    DiskKeyParts {
        ir_key: "00",
        arch: "compute_90",
        toolchain: "libnvvm blake3:aa libdevice blake3:bb",
        opt_level: 3,
        fast_math: false,
        line_info: false,
    }
}

#[test]
fn keys_are_sha256_and_cover_every_part() {
    // The published SHA-256 test vectors.
    assert_eq!(
        ir_key(""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        ir_key("abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    let base = disk_key(&parts());
    assert_eq!(base, disk_key(&parts()));
    let variants = [
        DiskKeyParts {
            ir_key: "01",
            ..parts()
        },
        DiskKeyParts {
            arch: "compute_80",
            ..parts()
        },
        DiskKeyParts {
            toolchain: "libnvvm blake3:ab libdevice blake3:bb",
            ..parts()
        },
        DiskKeyParts {
            toolchain: "libnvvm blake3:aa libdevice blake3:bc",
            ..parts()
        },
        DiskKeyParts {
            opt_level: 0,
            ..parts()
        },
        DiskKeyParts {
            fast_math: true,
            ..parts()
        },
        DiskKeyParts {
            line_info: true,
            ..parts()
        },
    ];
    let mut seen = std::collections::HashSet::from([base]);
    for v in &variants {
        assert!(seen.insert(disk_key(v)), "{v:?} collides");
    }
}

#[test]
fn file_digest_matches_the_in_memory_digest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    // Several MiB, so the memory-mapped file is split across threads.
    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    fs::write(&path, &data).unwrap();
    let in_memory = |bytes: &[u8]| blake3::hash(bytes).to_hex().to_string();
    assert_eq!(file_digest_hex(&path).unwrap(), in_memory(&data));
    let other = dir.path().join("g");
    fs::write(&other, b"libdevice").unwrap();
    let id = toolchain_identity(&path, &other).unwrap();
    assert_eq!(
        id,
        format!(
            "libnvvm blake3:{} libdevice blake3:{}",
            in_memory(&data),
            in_memory(b"libdevice")
        )
    );
    // BLAKE3's published digest of the empty input.
    let empty = dir.path().join("empty");
    fs::write(&empty, b"").unwrap();
    assert_eq!(
        file_digest_hex(&empty).unwrap(),
        "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
    );
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
    let c = env(&[
        (CACHE_DIR_ENV, "/c"),
        ("XDG_CACHE_HOME", "/x"),
        ("HOME", "/h"),
    ]);
    assert_eq!(resolve_dir(c), Some(PathBuf::from("/c")));
    let x = env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]);
    assert_eq!(resolve_dir(x), Some(PathBuf::from("/x/cudajit")));
    // A relative XDG_CACHE_HOME is ignored (XDG specification), a relative HOME too.
    let rel = env(&[("XDG_CACHE_HOME", "x"), ("HOME", "/h")]);
    assert_eq!(resolve_dir(rel), Some(PathBuf::from("/h/.cache/cudajit")));
    assert_eq!(resolve_dir(env(&[("HOME", "h")])), None);
    assert_eq!(
        resolve_dir(env(&[(CACHE_DIR_ENV, ""), ("HOME", "/h")])),
        None
    );
    assert_eq!(resolve_dir(env(&[])), None);
    // An explicit relative directory is anchored once, not left to follow the cwd.
    let explicit = resolve_dir(env(&[(CACHE_DIR_ENV, "rel")])).unwrap();
    assert_eq!(explicit, std::env::current_dir().unwrap().join("rel"));
}

#[test]
fn owner_and_mode_rule() {
    assert_eq!(check_owner_and_mode(1000, 0o100600, 1000), Ok(()));
    assert_eq!(check_owner_and_mode(1000, 0o40755, 1000), Ok(()));
    assert_eq!(
        check_owner_and_mode(0, 0o100600, 1000),
        Err(Distrust::Owner { owner: 0, me: 1000 })
    );
    assert_eq!(
        check_owner_and_mode(1000, 0o100602, 1000),
        Err(Distrust::Writable { mode: 0o100602 })
    );
    assert_eq!(
        check_owner_and_mode(1000, 0o40770, 1000),
        Err(Distrust::Writable { mode: 0o40770 })
    );
    // Another owner is reported first, even if the mode is fine.
    assert!(matches!(
        check_owner_and_mode(7, 0o100644, 1000),
        Err(Distrust::Owner { .. })
    ));
}

#[test]
fn round_trip_leaves_one_private_file() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("new/cache");
    let cache = DiskCache::open(&dir).unwrap();
    assert_eq!(
        fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(cache.lookup("vecadd", "k1"), Lookup::Miss);
    cache.put("vecadd", "k1", PTX).unwrap();
    assert_eq!(cache.get("vecadd", "k1").as_deref(), Some(PTX));
    let mode = fs::metadata(cache.path("vecadd", "k1"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "entry readable by others: {mode:o}");
    cache.put("vecadd", "k1", "other").unwrap();
    assert_eq!(cache.get("vecadd", "k1").as_deref(), Some("other"));
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![OsString::from("vecadd-k1.ptx")]);
    let info = cache.info().unwrap();
    assert_eq!(
        (info.entries, info.bytes),
        (1, fs::metadata(cache.path("vecadd", "k1")).unwrap().len())
    );
}

#[test]
fn least_recently_used_entries_are_evicted() {
    let tmp = tempfile::tempdir().unwrap();
    let payload = "x".repeat(1000);
    let cache = DiskCache::open(tmp.path()).unwrap();
    let entry_bytes = {
        cache.put("probe", "p", &payload).unwrap();
        let n = fs::metadata(cache.path("probe", "p")).unwrap().len();
        fs::remove_file(cache.path("probe", "p")).unwrap();
        n
    };
    // Room for three entries.
    let cache = cache.with_max_bytes(entry_bytes * 3);
    let base = SystemTime::now() - Duration::from_secs(1000);
    for (i, key) in ["a", "b", "c"].iter().enumerate() {
        cache.put("k", key, &payload).unwrap();
        let file = fs::File::options()
            .write(true)
            .open(cache.path("k", key))
            .unwrap();
        file.set_modified(base + Duration::from_secs(10 * i as u64))
            .unwrap();
    }
    // Using `a` makes `b` the least recently used.
    assert!(cache.get("k", "a").is_some());
    cache.put("k", "d", &payload).unwrap();
    let present: Vec<bool> = ["a", "b", "c", "d"]
        .iter()
        .map(|k| cache.path("k", k).exists())
        .collect();
    assert_eq!(present, [true, false, true, true]);
    assert_eq!(cache.info().unwrap().bytes, entry_bytes * 3);
}

#[test]
fn stale_temporary_files_are_removed_fresh_ones_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = DiskCache::open(tmp.path()).unwrap();
    let stale = tmp.path().join(".cudajit-tmp-dead");
    let fresh = tmp.path().join(".cudajit-tmp-busy");
    fs::write(&stale, b"half").unwrap();
    fs::write(&fresh, b"half").unwrap();
    fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(7200))
        .unwrap();
    cache.put("k", "key", PTX).unwrap();
    assert!(!stale.exists(), "a temporary file of a dead writer is left");
    assert!(fresh.exists(), "a live writer's temporary file was removed");
}

#[test]
fn clear_removes_only_cache_files() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = DiskCache::open(tmp.path()).unwrap();
    cache.put("a", "1", PTX).unwrap();
    cache.put("b", "2", PTX).unwrap();
    fs::write(tmp.path().join("notes.txt"), b"mine").unwrap();
    let removed = maintain::clear(tmp.path()).unwrap();
    assert_eq!(removed.files, 2);
    assert_eq!(cache.info().unwrap().entries, 0);
    assert!(tmp.path().join("notes.txt").exists());
    assert_eq!(
        maintain::clear(&tmp.path().join("absent")).unwrap(),
        Removed::default()
    );
}

#[test]
fn concurrent_writers_never_tear() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = DiskCache::open(tmp.path()).unwrap();
    // Large, distinct payloads make a torn write detectable if writes were not atomic.
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
            for _ in 0..200 {
                match reader.lookup("k", "same") {
                    Lookup::Hit(got) => assert!(payloads.contains(&got)),
                    Lookup::Miss => {}
                    Lookup::Refused(why) => panic!("refused own entry: {why}"),
                }
            }
        });
    });
    assert!(payloads.contains(&cache.get("k", "same").expect("an entry after the writers")));
    assert_eq!(
        fs::read_dir(tmp.path()).unwrap().count(),
        1,
        "temporary files left behind"
    );
}
