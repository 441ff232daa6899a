//! The AOT manifest format, shared by `build.rs` (which embeds the PTX files it lists)
//! and the runtime (which matches launches against it), so both read it the same way.
//!
//! `manifest.txt`, one kernel per line: `<kernel_name> <key_hex> <arch> <file.ptx>`,
//! e.g. `vecadd 3f2a...c1 compute_90 vecadd-3f2a...c1.ptx`. Blank lines and lines
//! starting with `#` are ignored. `cargo xtask build-device` writes it.

/// One line of the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    pub kernel: String,
    pub key: String,
    pub arch: String,
    /// Relative to the manifest's directory.
    pub file: String,
}

/// Parses a manifest; an error names the offending line.
#[allow(dead_code)] // build.rs uses this half
pub fn parse_manifest(text: &str) -> Result<Vec<ManifestEntry>, String> {
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [kernel, key, arch, file] = fields[..] else {
            return Err(format!(
                "line {}: expected `<kernel_name> <key_hex> <arch> <file.ptx>`, found `{line}`",
                number + 1
            ));
        };
        if parse_arch(arch).is_none() {
            return Err(format!(
                "line {}: `{arch}` is not an architecture like `compute_90`",
                number + 1
            ));
        }
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!(
                "line {}: key `{key}` is not hexadecimal",
                number + 1
            ));
        }
        entries.push(ManifestEntry {
            kernel: kernel.to_string(),
            key: key.to_ascii_lowercase(),
            arch: arch.to_string(),
            file: file.to_string(),
        });
    }
    Ok(entries)
}

/// `compute_90` → `(9, 0, false)`, `compute_100` → `(10, 0, false)`,
/// `compute_90a` → `(9, 0, true)` (arch-specific: runs only on exactly that version).
pub fn parse_arch(arch: &str) -> Option<(u32, u32, bool)> {
    let digits = arch
        .strip_prefix("compute_")
        .or_else(|| arch.strip_prefix("sm_"))?;
    let (digits, specific) = match digits.strip_suffix(['a', 'f']) {
        Some(d) => (d, true),
        None => (digits, false),
    };
    if digits.len() < 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let number: u32 = digits.parse().ok()?;
    Some((number / 10, number % 10, specific))
}
