//! The AOT manifest format, shared by `build.rs` (which embeds the PTX files it lists)
//! and the runtime (which matches launches against it), so both read it the same way.
//!
//! `manifest.txt`, one kernel per line: `<kernel_name> <key_hex> <arch> <file.ptx>
//! [<file.cubin>]`, e.g. `vecadd 3f2a...c1 compute_90 vecadd.compute_90.ptx
//! vecadd.sm_90.cubin`: the PTX, and the machine code ptxas made of it for the
//! architecture's own GPUs ([`sass_arch`]) when a ptxas was found at build time. Blank
//! lines and lines starting with `#` are ignored. `cargo xtask build-device` writes it.

/// One line of the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    pub kernel: String,
    pub key: String,
    pub arch: String,
    /// Relative to the manifest's directory.
    pub file: String,
    /// The machine code for [`sass_arch`] of `arch`, relative to the manifest's
    /// directory, if the build made it.
    pub sass: Option<String>,
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
        let (kernel, key, arch, file, sass) = match fields[..] {
            [kernel, key, arch, file] => (kernel, key, arch, file, None),
            [kernel, key, arch, file, sass] => (kernel, key, arch, file, Some(sass)),
            _ => {
                return Err(format!(
                    "line {}: expected `<kernel_name> <key_hex> <arch> <file.ptx> [<file.cubin>]`, found `{line}`",
                    number + 1
                ))
            }
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
            sass: sass.map(str::to_string),
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

/// The absolute path of `file`, which `manifest` (in `dir`) lists, as `include_str!`
/// and `include_bytes!` take it (`build.rs` and `cudajit-build` embed entries so).
pub fn listed_file_path(
    dir: &std::path::Path,
    manifest: &std::path::Path,
    file: &str,
) -> Result<String, String> {
    let file = dir.join(file);
    let file = file
        .canonicalize()
        .map_err(|e| format!("{} lists {}: {e}", manifest.display(), file.display()))?;
    file.to_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{} is not valid UTF-8", file.display()))
}

/// The machine-code architecture of PTX for `arch`: `compute_90` → `sm_90`,
/// `compute_90a` → `sm_90a`.
#[allow(dead_code)] // the runtime's half
pub fn sass_arch(arch: &str) -> Option<String> {
    parse_arch(arch)?;
    Some(match arch.strip_prefix("compute_") {
        Some(rest) => format!("sm_{rest}"),
        None => arch.to_string(),
    })
}

/// Whether machine code for `sass_arch` (`sm_XY`, `sm_XYa`) runs on a device of
/// `capability`: the same major version and a minor one at least as new, exactly that
/// version for arch-specific code (unlike PTX, which the driver compiles for any newer
/// device).
#[allow(dead_code)] // the runtime's half
pub fn sass_runs_on(sass_arch: &str, capability: (u32, u32)) -> bool {
    match parse_arch(sass_arch) {
        Some((major, minor, true)) => (major, minor) == capability,
        Some((major, minor, false)) => major == capability.0 && minor <= capability.1,
        None => false,
    }
}
