//! The cache directory is untrusted input: anyone who can write a PTX file into it can
//! run code on the user's GPU with the user's data. A directory or an entry is used
//! only when it belongs to the user running the process and nobody else can write it;
//! entries are opened without following symlinks, without blocking on a FIFO, and only
//! when they are regular files of bounded size.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Mutex;

/// The largest entry read back (PTX of one kernel is kilobytes to a few megabytes).
pub const MAX_ENTRY_BYTES: u64 = 64 << 20;

/// Why a directory or an entry was not trusted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Distrust {
    /// Owned by another user (`owner`), not by the effective user (`me`).
    Owner { owner: u32, me: u32 },
    /// Writable by the group or by everyone (the mode's `0o022` bits).
    Writable { mode: u32 },
    /// Not a directory (for the cache directory) or not a regular file (for an entry):
    /// a symlink, a FIFO, a device...
    Kind,
    /// An entry larger than [`MAX_ENTRY_BYTES`].
    TooLarge { bytes: u64 },
}

impl std::fmt::Display for Distrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Distrust::Owner { owner, me } => {
                write!(f, "it is owned by uid {owner}, not by this user (uid {me})")
            }
            Distrust::Writable { mode } => write!(
                f,
                "other users can write it (mode {:o}); `chmod go-w` it",
                mode & 0o7777
            ),
            Distrust::Kind => write!(f, "it is not a regular file or directory"),
            Distrust::TooLarge { bytes } => {
                write!(
                    f,
                    "it holds {bytes} bytes, over the {MAX_ENTRY_BYTES}-byte limit"
                )
            }
        }
    }
}

/// The effective user id of this process.
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The ownership and permission rule, as a pure function of a file's owner and mode
/// (unit-tested for owners that an unprivileged test cannot `chown` to).
pub fn check_owner_and_mode(owner: u32, mode: u32, me: u32) -> Result<(), Distrust> {
    if owner != me {
        return Err(Distrust::Owner { owner, me });
    }
    if mode & 0o022 != 0 {
        return Err(Distrust::Writable { mode });
    }
    Ok(())
}

/// Creates `dir` (and missing parents) with mode 0700, then checks the directory it
/// names (a symlinked cache directory is allowed; the directory it leads to is checked).
pub fn open_dir(dir: &Path) -> Result<(), String> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create it: {e}"))?;
    let meta = fs::metadata(dir).map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.is_dir() {
        return Err(Distrust::Kind.to_string());
    }
    check_owner_and_mode(meta.uid(), meta.mode(), effective_uid()).map_err(|d| d.to_string())
}

/// What opening an entry found.
pub enum Opened {
    Missing,
    Refused(Distrust),
    /// The entry's bytes, and the open file (to mark it used).
    Read(Vec<u8>, File),
}

/// Reads the entry at `path` if it is trusted: `O_NOFOLLOW` (a symlink fails with
/// `ELOOP`), `O_NONBLOCK` (opening a FIFO returns at once instead of waiting for a
/// writer), then `fstat` of the opened file decides (no window between check and use).
pub fn read_entry(path: &Path) -> io::Result<Opened> {
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Opened::Missing),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Ok(Opened::Refused(Distrust::Kind))
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Ok(Opened::Refused(Distrust::Kind));
    }
    if let Err(d) = check_owner_and_mode(meta.uid(), meta.mode(), effective_uid()) {
        return Ok(Opened::Refused(d));
    }
    if meta.len() > MAX_ENTRY_BYTES {
        return Ok(Opened::Refused(Distrust::TooLarge { bytes: meta.len() }));
    }
    // Bounded even if the file grows after the `fstat`.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&file).take(MAX_ENTRY_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_ENTRY_BYTES {
        return Ok(Opened::Refused(Distrust::TooLarge {
            bytes: bytes.len() as u64,
        }));
    }
    Ok(Opened::Read(bytes, file))
}

/// Prints `message` to stderr once per process (a refused cache is reported, not
/// repeated at every kernel's first launch).
pub fn warn_once(message: String) {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    if seen
        .get_or_insert_with(HashSet::new)
        .insert(message.clone())
    {
        eprintln!("cudajit: warning: {message}");
    }
}
