//! Issue 10's attacks on the disk cache, on a real directory (no GPU needed): each bad
//! entry or directory is refused or recompiled, never loaded. Some cases run this test
//! binary again as a child process (`CHILD_ROLE` selects what the child does), for
//! real concurrency between processes and for process-wide state (the environment,
//! the one-time warning).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use kernel_host::disk::{DiskCache, Distrust, Lookup, MAX_ENTRY_BYTES};

/// Set in a child process: what it should do.
const CHILD_ROLE: &str = "CUDAJIT_DISK_TEST_ROLE";

const PTX: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\n.visible .entry k() { ret; }\n";

fn fresh_cache() -> (tempfile::TempDir, DiskCache) {
    let tmp = tempfile::tempdir().unwrap();
    let cache = DiskCache::open(tmp.path().join("cache")).unwrap();
    (tmp, cache)
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

fn is_root() -> bool {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Runs this test binary's `child_process` test as a child with `role` and `envs`.
fn child(role: &str, envs: &[(&str, &Path)]) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "child_process",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD_ROLE, role);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd
}

#[test]
fn tampered_entry_is_recompiled() {
    let (_tmp, cache) = fresh_cache();
    cache.put("k", "key", PTX).unwrap();
    let path = cache.path("k", "key");
    let good = fs::read(&path).unwrap();
    // One flipped bit in the PTX: the checksum no longer holds.
    let mut bytes = good.clone();
    let at = bytes.len() - 5;
    bytes[at] ^= 0x01;
    fs::write(&path, &bytes).unwrap();
    assert_eq!(cache.lookup("k", "key"), Lookup::Miss);
    // A changed header field.
    let text = String::from_utf8(good.clone()).unwrap();
    fs::write(&path, text.replacen("length ", "length 1", 1)).unwrap();
    assert_eq!(cache.lookup("k", "key"), Lookup::Miss);
    fs::write(&path, [0xffu8, 0xfe, 0x00]).unwrap();
    assert_eq!(cache.lookup("k", "key"), Lookup::Miss);
    // Recompiling writes a good entry over it.
    cache.put("k", "key", PTX).unwrap();
    assert_eq!(cache.lookup("k", "key"), Lookup::Hit(PTX.into()));
}

#[test]
fn truncated_entry_is_recompiled() {
    let (_tmp, cache) = fresh_cache();
    cache.put("k", "key", PTX).unwrap();
    let path = cache.path("k", "key");
    let full = fs::read(&path).unwrap();
    for cut in 0..full.len() {
        fs::write(&path, &full[..cut]).unwrap();
        assert_eq!(cache.lookup("k", "key"), Lookup::Miss, "cut at {cut}");
    }
}

#[test]
fn forged_entry_under_another_key_is_not_loaded() {
    let (_tmp, cache) = fresh_cache();
    // A well-formed, checksummed entry for another kernel, copied under `victim`'s name.
    cache.put("evil", "other-key", "// evil PTX").unwrap();
    fs::copy(cache.path("evil", "other-key"), cache.path("victim", "key")).unwrap();
    assert_eq!(cache.lookup("victim", "key"), Lookup::Miss);
    // The entry itself stays valid for the key it names inside.
    assert_eq!(
        cache.lookup("evil", "other-key"),
        Lookup::Hit("// evil PTX".into())
    );
}

#[test]
fn symlinked_entry_is_refused_and_replaced() {
    let (tmp, cache) = fresh_cache();
    // The link's target is a perfectly valid entry for this key: only the link is wrong.
    let elsewhere = DiskCache::open(tmp.path().join("elsewhere")).unwrap();
    elsewhere.put("k", "key", "// planted").unwrap();
    std::os::unix::fs::symlink(elsewhere.path("k", "key"), cache.path("k", "key")).unwrap();
    assert_eq!(cache.lookup("k", "key"), Lookup::Refused(Distrust::Kind));
    cache.put("k", "key", PTX).unwrap();
    assert_eq!(cache.lookup("k", "key"), Lookup::Hit(PTX.into()));
    // The write replaced the link, it did not write through it.
    assert_eq!(elsewhere.get("k", "key").as_deref(), Some("// planted"));
}

#[test]
fn fifo_entry_is_refused_without_blocking() {
    let (_tmp, cache) = fresh_cache();
    let path = cache.path("k", "key");
    let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let (done, result) = std::sync::mpsc::channel();
    let reader = cache.clone();
    // Opening a FIFO without O_NONBLOCK waits for a writer forever: a thread with a
    // deadline turns that hang into a failure.
    std::thread::spawn(move || done.send(reader.lookup("k", "key")));
    let got = result
        .recv_timeout(Duration::from_secs(20))
        .expect("reading a FIFO entry blocked");
    assert_eq!(got, Lookup::Refused(Distrust::Kind));
    cache.put("k", "key", PTX).unwrap();
    assert_eq!(cache.lookup("k", "key"), Lookup::Hit(PTX.into()));
}

#[test]
fn oversized_entry_is_refused() {
    let (_tmp, cache) = fresh_cache();
    let path = cache.path("k", "key");
    let file = fs::File::create(&path).unwrap();
    set_mode(&path, 0o600);
    file.set_len(MAX_ENTRY_BYTES + 1).unwrap(); // sparse: no 64 MiB written
    assert_eq!(
        cache.lookup("k", "key"),
        Lookup::Refused(Distrust::TooLarge {
            bytes: MAX_ENTRY_BYTES + 1
        })
    );
}

#[test]
fn entry_writable_by_others_is_refused() {
    let (_tmp, cache) = fresh_cache();
    cache.put("k", "key", PTX).unwrap();
    let path = cache.path("k", "key");
    for mode in [0o666, 0o602, 0o620] {
        set_mode(&path, mode);
        match cache.lookup("k", "key") {
            Lookup::Refused(Distrust::Writable { mode: m }) => assert_eq!(m & 0o777, mode),
            other => panic!("mode {mode:o}: {other:?}"),
        }
    }
    set_mode(&path, 0o644);
    assert_eq!(cache.lookup("k", "key"), Lookup::Hit(PTX.into()));
}

#[test]
fn directory_writable_by_others_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cache");
    DiskCache::open(&dir).unwrap();
    for mode in [0o777, 0o775, 0o722] {
        set_mode(&dir, mode);
        let err = DiskCache::open(&dir).unwrap_err();
        assert!(err.contains("other users can write it"), "{mode:o}: {err}");
    }
    set_mode(&dir, 0o755);
    assert!(DiskCache::open(&dir).is_ok());
    // A file where the directory should be.
    let file = tmp.path().join("file");
    fs::write(&file, b"").unwrap();
    assert!(DiskCache::open(&file).is_err());
}

/// Files owned by another user: needs root to `chown` (CI's container runs as root);
/// unprivileged, the rule itself is covered by `disk::tests::owner_and_mode_rule`.
#[test]
fn entries_and_directories_of_another_owner_are_refused() {
    if !is_root() {
        eprintln!("skipped: chown needs root; the owner rule is unit-tested in disk::tests");
        return;
    }
    let nobody = 65534;
    let (tmp, cache) = fresh_cache();
    cache.put("k", "key", PTX).unwrap();
    let path = cache.path("k", "key");
    std::os::unix::fs::chown(&path, Some(nobody), None).unwrap();
    assert_eq!(
        cache.lookup("k", "key"),
        Lookup::Refused(Distrust::Owner {
            owner: nobody,
            me: 0
        })
    );
    // Recompiling replaces it with an entry of ours.
    cache.put("k", "key", PTX).unwrap();
    assert_eq!(cache.lookup("k", "key"), Lookup::Hit(PTX.into()));
    let dir = tmp.path().join("theirs");
    fs::create_dir(&dir).unwrap();
    std::os::unix::fs::chown(&dir, Some(nobody), None).unwrap();
    let err = DiskCache::open(&dir).unwrap_err();
    assert!(err.contains("owned by uid 65534"), "{err}");
}

/// A refused directory from the environment: one warning, then no disk cache (the
/// runtime compiles in memory).
#[test]
fn refused_directory_warns_once_and_is_not_used() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cache");
    DiskCache::open(&dir).unwrap();
    set_mode(&dir, 0o777);
    let out = child("from-env-twice", &[("CUDAJIT_CACHE_DIR", &dir)])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("from_env: None None"), "{stdout}");
    let warnings = stderr.matches("cudajit: warning: the kernel cache").count();
    assert_eq!(warnings, 1, "{stderr}");
    assert!(stderr.contains("compiled in memory"), "{stderr}");
}

/// Six processes write one entry at once while this one reads it: every read sees
/// nothing or one writer's whole entry, and no temporary file is left.
#[test]
fn six_processes_write_one_entry() {
    let (_tmp, cache) = fresh_cache();
    let writers: Vec<_> = (0..6)
        .map(|i| {
            child("writer", &[("CUDAJIT_CACHE_DIR", cache.dir())])
                .env("CUDAJIT_DISK_TEST_WRITER", i.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let expected: Vec<String> = (0..6).map(writer_payload).collect();
    let mut hits = 0;
    for _ in 0..2000 {
        match cache.lookup("k", "shared") {
            Lookup::Hit(ptx) => {
                assert!(expected.contains(&ptx), "torn or foreign entry");
                hits += 1;
            }
            Lookup::Miss => {}
            Lookup::Refused(why) => panic!("refused a writer's entry: {why}"),
        }
    }
    for mut w in writers {
        assert!(w.wait().unwrap().success());
    }
    let last = cache
        .get("k", "shared")
        .expect("an entry after the writers");
    assert!(expected.contains(&last));
    let names: Vec<_> = fs::read_dir(cache.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 1, "temporary files left behind: {names:?}");
    eprintln!("six_processes_write_one_entry: {hits} of 2000 reads were hits");
}

/// `cudajit::cache::info` and `clear` on the cache the environment names.
#[test]
fn info_and_clear_follow_the_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cache");
    let out = child("info-clear", &[("CUDAJIT_CACHE_DIR", &dir)])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("before: {}: 3 entries", dir.display())),
        "{stdout}"
    );
    assert!(stdout.contains("removed 3 files"), "{stdout}");
    assert!(
        stdout.contains(&format!("after: {}: 0 entries, 0 bytes", dir.display())),
        "{stdout}"
    );
    assert!(
        dir.join("keep.txt").exists(),
        "clear removed a file that is not the cache's"
    );
}

fn writer_payload(i: usize) -> String {
    format!("// writer {i}\n{}", format!("{i}").repeat(300_000))
}

/// The child side of the tests above; a no-op in a normal test run.
#[test]
fn child_process() {
    let Some(role) = std::env::var_os(CHILD_ROLE) else {
        return;
    };
    match role.to_str().unwrap() {
        "from-env-twice" => {
            let first = DiskCache::from_env().map(|c| c.dir().to_path_buf());
            let second = DiskCache::from_env().map(|c| c.dir().to_path_buf());
            println!("from_env: {first:?} {second:?}");
        }
        "writer" => {
            let i: usize = std::env::var("CUDAJIT_DISK_TEST_WRITER")
                .unwrap()
                .parse()
                .unwrap();
            let cache = DiskCache::from_env().expect("the writer's cache");
            let payload = writer_payload(i);
            for _ in 0..20 {
                cache.put("k", "shared", &payload).unwrap();
            }
        }
        "info-clear" => {
            let cache = DiskCache::from_env().expect("the cache");
            for (i, key) in ["a", "b", "c"].iter().enumerate() {
                cache.put("k", key, &"x".repeat(100 * (i + 1))).unwrap();
            }
            fs::write(cache.dir().join("keep.txt"), b"not cudajit's").unwrap();
            let before = kernel_host::disk::info().unwrap();
            let sizes: u64 = ["a", "b", "c"]
                .iter()
                .map(|k| fs::metadata(cache.path("k", k)).unwrap().len())
                .sum();
            assert_eq!(before.bytes, sizes);
            println!("before: {before}");
            let removed = kernel_host::disk::clear().unwrap();
            println!("removed {} files", removed.files);
            println!("after: {}", kernel_host::disk::info().unwrap());
        }
        other => panic!("unknown role {other}"),
    }
}
