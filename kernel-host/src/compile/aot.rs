//! Kernels compiled ahead of time and embedded in the binary: a launch whose kernel
//! name and IR key match an entry, for an architecture the device can run, loads the
//! embedded PTX and never needs libnvvm; on a device the entry's machine code runs on
//! (ptxas made it at build time, when a ptxas was found), it loads that instead and
//! needs no JIT either: the driver's PTX JIT costs a first launch 8–18 ms on the
//! H200's host even for an empty kernel (issue 27), loading machine code a fraction of
//! a millisecond.
//!
//! Two tables are searched: the one kernel-host's `build.rs` embeds from
//! `CUDAJIT_AOT_DIR` (`cargo xtask build-device`), and those a user's crate embeds with
//! `cudajit::embed_device_code!()` after its `build.rs` ran `cudajit-build`; each of
//! those registers itself through `inventory` (no call needed in `main`).

use crate::compile::aot_manifest::{parse_arch, sass_arch, sass_runs_on};
use crate::compile::disk::ir_key;
use crate::error::Result;
use kernel_device::back::nvvm::Options;
use kernel_device::source::FnSource;
use kernel_device::CompiledUnit;

/// One embedded PTX module.
#[derive(Clone, Copy, Debug)]
pub struct AotEntry {
    pub kernel: &'static str,
    /// [`crate::compile::disk::ir_key`] of the kernel's NVVM IR.
    pub key: &'static str,
    /// `compute_XY` the PTX targets.
    pub arch: &'static str,
    pub ptx: &'static str,
    /// ptxas's machine code (a cubin) of `ptx` for `arch`'s own GPUs (`sm_XY`), empty
    /// when the build had no ptxas.
    pub sass: &'static [u8],
}

/// The variable that makes launches ignore embedded machine code (`0`) and load the
/// embedded PTX through the driver's JIT instead: for measuring what the machine code
/// saves, or for a driver that refuses it.
pub const AOT_SASS_VARIABLE: &str = "CUDAJIT_AOT_SASS";

impl AotEntry {
    /// The machine code a device of `capability` runs, if the entry has it (and
    /// `CUDAJIT_AOT_SASS=0` does not turn it off).
    pub fn sass_for(&self, capability: (u32, u32)) -> Option<&'static [u8]> {
        static DISABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let disabled =
            *DISABLED.get_or_init(|| std::env::var_os(AOT_SASS_VARIABLE).is_some_and(|v| v == "0"));
        let runs = sass_arch(self.arch).is_some_and(|sm| sass_runs_on(&sm, capability));
        (!disabled && runs && !self.sass.is_empty()).then_some(self.sass)
    }
}

include!(concat!(env!("OUT_DIR"), "/aot_table.rs"));

/// The entries embedded in this build (empty without `CUDAJIT_AOT_DIR`).
pub fn table() -> &'static [AotEntry] {
    AOT_TABLE
}

/// A table of PTX that a crate embedded with `cudajit::embed_device_code!()`.
pub struct EmbeddedTable(pub &'static [AotEntry]);

inventory::collect!(EmbeddedTable);

/// Every embedded entry: kernel-host's own table, then each crate's.
pub fn entries() -> impl Iterator<Item = &'static AotEntry> {
    AOT_TABLE.iter().chain(
        inventory::iter::<EmbeddedTable>
            .into_iter()
            .flat_map(|table| table.0.iter()),
    )
}

/// The embedded PTX a launch of `source` on a device of `capability` would load, found
/// exactly as the first launch finds it (the same key over the same IR); `Ok(None)`
/// when the launch would compile it with libnvvm instead.
pub fn find(
    source: &'static FnSource,
    capability: (u32, u32),
) -> Result<Option<&'static AotEntry>> {
    let unit = crate::compile::lower::lower(source, &Options::default())?;
    Ok(find_for_unit(&unit, capability).1)
}

/// The key of a kernel's IR lowered with default options (so it does not depend on
/// which libnvvm is installed and an ahead-of-time build computes the same) and the
/// embedded entry for it, if any.
pub(crate) fn find_for_unit(
    unit: &CompiledUnit,
    capability: (u32, u32),
) -> (String, Option<&'static AotEntry>) {
    let key = ir_key(&unit.nvvm_ir);
    let entry = lookup(&unit.kernel_name, &key, capability);
    (key, entry)
}

/// The embedded PTX for `kernel` with IR `key` on a device of `capability`.
/// `CUDAJIT_AOT=0` in the environment ignores the table (forces the JIT), so one
/// binary can check both paths.
fn lookup(kernel: &str, key: &str, capability: (u32, u32)) -> Option<&'static AotEntry> {
    if table_ignored() {
        return None;
    }
    lookup_in(entries(), kernel, key, capability)
}

/// `CUDAJIT_AOT=0`: the embedded entries are ignored.
fn table_ignored() -> bool {
    static DISABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DISABLED.get_or_init(|| std::env::var_os("CUDAJIT_AOT").is_some_and(|v| v == "0"))
}

/// Whether this binary embeds machine code that a device of `capability` runs (and
/// uses it): its launches then load that, and the driver's JIT is likely not needed
/// (`compile::jit_warm_up` skips its warm-up).
pub(crate) fn has_machine_code_for(capability: (u32, u32)) -> bool {
    !table_ignored() && entries().any(|e| e.sass_for(capability).is_some())
}

/// Among matching entries, the newest architecture the device supports: PTX for
/// `compute_XY` runs (JIT-compiled by the driver) on any device of capability ≥ X.Y,
/// except arch-specific (`compute_90a`) PTX, which needs exactly X.Y.
fn lookup_in<'t>(
    table: impl IntoIterator<Item = &'t AotEntry>,
    kernel: &str,
    key: &str,
    capability: (u32, u32),
) -> Option<&'t AotEntry> {
    table
        .into_iter()
        .filter(|e| e.kernel == kernel && e.key.eq_ignore_ascii_case(key))
        .filter_map(|e| {
            let (major, minor, specific) = parse_arch(e.arch)?;
            let fits = if specific {
                (major, minor) == capability
            } else {
                (major, minor) <= capability
            };
            fits.then_some(((major, minor), e))
        })
        .max_by_key(|(arch, _)| *arch)
        .map(|(_, e)| e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::aot_manifest::{parse_manifest, ManifestEntry};

    const TABLE: &[AotEntry] = &[
        AotEntry {
            kernel: "vecadd",
            key: "aa",
            arch: "compute_80",
            ptx: "ptx80",
            sass: &[],
        },
        AotEntry {
            kernel: "vecadd",
            key: "aa",
            arch: "compute_90",
            ptx: "ptx90",
            sass: &[],
        },
        AotEntry {
            kernel: "vecadd",
            key: "aa",
            arch: "compute_100",
            ptx: "ptx100",
            sass: &[],
        },
        AotEntry {
            kernel: "vecadd",
            key: "bb",
            arch: "compute_70",
            ptx: "stale",
            sass: &[],
        },
        AotEntry {
            kernel: "saxpy",
            key: "cc",
            arch: "compute_90a",
            ptx: "ptx90a",
            sass: &[],
        },
    ];

    #[test]
    fn picks_newest_supported_arch() {
        let ptx = |k, key, cc| lookup_in(TABLE, k, key, cc).map(|e| e.ptx);
        assert_eq!(ptx("vecadd", "aa", (9, 0)), Some("ptx90"));
        assert_eq!(ptx("vecadd", "AA", (8, 9)), Some("ptx80"));
        assert_eq!(ptx("vecadd", "aa", (12, 0)), Some("ptx100"));
        assert_eq!(ptx("vecadd", "aa", (7, 5)), None);
        // A different key (the kernel changed since the AOT build) never matches.
        assert_eq!(ptx("vecadd", "dd", (9, 0)), None);
        assert_eq!(ptx("saxpy", "cc", (9, 0)), Some("ptx90a"));
        assert_eq!(ptx("saxpy", "cc", (10, 0)), None);
    }

    #[test]
    fn parses_manifest_and_archs() {
        let text =
            "# built by xtask\n\nvecadd 0123ABcd compute_90 vecadd.ptx\n  k2 ff sm_100 k2.ptx  \n";
        let entries = parse_manifest(text).unwrap();
        assert_eq!(
            entries[0],
            ManifestEntry {
                kernel: "vecadd".into(),
                key: "0123abcd".into(),
                arch: "compute_90".into(),
                file: "vecadd.ptx".into(),
                sass: None,
            }
        );
        assert_eq!(entries[1].arch, "sm_100");
        assert!(parse_manifest("vecadd aa compute_90")
            .unwrap_err()
            .contains("line 1"));
        assert!(parse_manifest("\nvecadd zz compute_90 f.ptx")
            .unwrap_err()
            .contains("line 2"));
        assert!(parse_manifest("vecadd aa sm90 f.ptx").is_err());
        assert_eq!(parse_arch("compute_90"), Some((9, 0, false)));
        assert_eq!(parse_arch("compute_86"), Some((8, 6, false)));
        assert_eq!(parse_arch("compute_100"), Some((10, 0, false)));
        assert_eq!(parse_arch("compute_90a"), Some((9, 0, true)));
        assert_eq!(parse_arch("compute_9"), None);
        let with_sass = parse_manifest("vecadd aa compute_90a v.ptx v.sm_90a.cubin").unwrap();
        assert_eq!(with_sass[0].sass.as_deref(), Some("v.sm_90a.cubin"));
        assert!(parse_manifest("vecadd aa compute_90 v.ptx v.cubin extra")
            .unwrap_err()
            .contains("[<file.cubin>]"));
        assert_eq!(parse_arch("gfx90"), None);
    }

    #[test]
    fn machine_code_runs_on_its_major_version_only() {
        assert_eq!(sass_arch("compute_90").as_deref(), Some("sm_90"));
        assert_eq!(sass_arch("compute_90a").as_deref(), Some("sm_90a"));
        assert_eq!(sass_arch("compute_100").as_deref(), Some("sm_100"));
        assert_eq!(sass_arch("gfx90"), None);
        // PTX for compute_80 runs on an H100; its machine code does not.
        assert!(sass_runs_on("sm_80", (8, 0)));
        assert!(sass_runs_on("sm_80", (8, 9)));
        assert!(!sass_runs_on("sm_80", (9, 0)));
        assert!(!sass_runs_on("sm_86", (8, 0)));
        assert!(sass_runs_on("sm_90a", (9, 0)));
        assert!(!sass_runs_on("sm_90a", (9, 1)));
        assert!(!sass_runs_on("sm_9", (9, 0)));
        let entry = |arch, sass| AotEntry {
            kernel: "k",
            key: "aa",
            arch,
            ptx: "ptx",
            sass,
        };
        let code: &'static [u8] = b"\x7fELF";
        assert_eq!(entry("compute_90", code).sass_for((9, 0)), Some(code));
        assert_eq!(entry("compute_80", code).sass_for((9, 0)), None);
        assert_eq!(entry("compute_90", &[]).sass_for((9, 0)), None);
    }

    #[test]
    fn table_matches_the_build_environment() {
        match option_env!("CUDAJIT_AOT_DIR") {
            None | Some("") => assert!(table().is_empty()),
            Some(dir) => {
                let text = std::fs::read_to_string(std::path::Path::new(dir).join("manifest.txt"))
                    .unwrap();
                let entries = parse_manifest(&text).unwrap();
                assert_eq!(table().len(), entries.len());
                for (entry, embedded) in entries.iter().zip(table()) {
                    assert_eq!(entry.kernel, embedded.kernel);
                    assert_eq!(entry.key, embedded.key);
                    let ptx = std::fs::read_to_string(std::path::Path::new(dir).join(&entry.file));
                    assert_eq!(ptx.unwrap(), embedded.ptx);
                    match &entry.sass {
                        Some(file) => {
                            let sass = std::fs::read(std::path::Path::new(dir).join(file));
                            assert_eq!(sass.unwrap(), embedded.sass);
                        }
                        None => assert!(embedded.sass.is_empty()),
                    }
                }
            }
        }
    }
}
