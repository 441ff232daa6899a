//! The bytes of one cache file: header lines (magic, the key it was written under, the
//! PTX's SHA-256 and length), an empty line, then the PTX. The checksum catches
//! truncation and bit rot; the key line catches a valid entry copied or renamed under
//! another key (a forged name). Neither stops a writer who can compute SHA-256: that is
//! what the ownership and mode checks in `trust` are for.

use super::key::digest_hex;

const MAGIC: &str = "cudajit-ptx 2";

pub fn encode(key: &str, ptx: &str) -> Vec<u8> {
    let header = format!(
        "{MAGIC}\nkey {key}\nsha256 {}\nlength {}\n\n",
        digest_hex(ptx.as_bytes()),
        ptx.len()
    );
    let mut out = header.into_bytes();
    out.extend_from_slice(ptx.as_bytes());
    out
}

/// The PTX of a well-formed entry written under `key`, else `None`.
pub fn decode(bytes: &[u8], key: &str) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (header, body) = text.split_once("\n\n")?;
    let mut lines = header.lines();
    if lines.next()? != MAGIC || lines.next()?.strip_prefix("key ")? != key {
        return None;
    }
    let checksum = lines.next()?.strip_prefix("sha256 ")?;
    let length: usize = lines.next()?.strip_prefix("length ")?.parse().ok()?;
    if lines.next().is_some() || body.len() != length || digest_hex(body.as_bytes()) != checksum {
        return None;
    }
    Some(body.to_string())
}
