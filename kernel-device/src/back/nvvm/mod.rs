//! NVVM IR writer: typed IR → LLVM 7.0.1 "legacy dialect" text that libnvvm accepts
//! (typed pointers, no attributes newer than LLVM 7).
//!
//! Layout follows naga's backends: this file holds the public surface ([`Options`],
//! [`Output`], [`Error`], [`write_string`]); `writer` owns module-level state
//! (declarations, panic sites, metadata); `function` owns per-function state (names,
//! blocks, locals, loops) and statements/control flow; `loops` writes `for` loops over
//! ranges (`.rev()`, `.step_by(n)`); `expr` lowers expressions;
//! `intrinsics` maps special registers, barriers and math onto NVVM intrinsics and
//! libdevice; `atomics` writes the atomics; `warp` the warp operations; `numeric` the integer and float methods libdevice lacks; `panic` writes the device-side panic
//! protocol (the helper's inline PTX: `panic_call`); `versioning` and `loop_versioning` print the versioned statements that
//! `opt::version` builds (a guard, a fast copy, the code as written), `predicated` the
//! prefetches it marks; `state` holds the writers' shared types (a leaf: no import
//! cycle); `grid_sync` the grid-wide barrier; `slices` sub-slices, `split_at` and
//! dynamic shared memory; `types` spells types and constants. The writer prints: what
//! to version, elide or predicate is decided in `opt`.
//!
//! Conventions the generated text relies on:
//! - every local (parameters included) lives in an `alloca` of the entry block; NVVM's
//!   `-opt=3` promotes them to registers, so the writer never needs phis;
//! - slices are `{T*, i64}` values inside functions; kernels receive them flattened as
//!   `T*, i64` (the host ABI); device functions are `internal`, named
//!   `__cudajit_dev_<name>`, take slices as aggregates by value and are `alwaysinline`;
//! - output is deterministic: names come from a per-function counter, declarations
//!   are sorted, nothing iterates a hash map.

// async copies
mod async_copy;
mod atomics;
mod expr;
mod function;
mod grid_sync;
// Hopper: clusters
mod cluster;
mod half;
mod intrinsics;
mod loop_versioning;
mod loops;
// Hopper
mod mbarrier;
// Hopper: TMA
pub mod tma;
mod tma_calls;
// tensor cores: the inline PTX of `mma.sync`, `ldmatrix`, `stmatrix`
pub mod mma;
mod numeric;
mod panic;
mod panic_call;
mod place;
mod predicated;
// Hopper: the kernel prologue that lets graph nodes overlap
pub mod prologue;
// debug info
pub mod debug_info;
mod debug_loc;
mod debug_vars;
// print
pub mod print;
mod slices;
mod state;
#[cfg(test)]
mod tests;
mod types;
mod versioning;
mod warp;
mod writer;
// Hopper: wgmma
mod wgmma;

use crate::ir;
/// The launch proofs now live in the optimiser; kept here for the host's paths.
pub use crate::opt::launch_proof;
use crate::opt::Optimised;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// `!nvvmir.version` (major, minor, debug major, debug minor), from libnvvm.
    pub ir_version: (u32, u32, u32, u32),
    /// Lower `f32` transcendental functions in every function to libdevice's
    /// approximate `__nv_fast_*` variants, as a function's own `fastmath = true` does.
    /// (Flush-to-zero and approximate division/sqrt are libnvvm options, not IR.)
    pub fast_math: bool,
    /// The target's compute capability as `10 * major + minor` (90 for sm_90), when
    /// known: `bf16` arithmetic then uses the instructions that architecture has
    /// (`half`). `None` (the default, and the key the caches use) writes only what
    /// every architecture has, which computes `bf16` through `f32` with the same
    /// results.
    pub arch: Option<u32>,
    /// Rust lines (or full debug information) in the IR, for NVIDIA's tools.
    pub debug: debug_info::DebugLevel,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ir_version: (2, 0, 3, 2),
            fast_math: false,
            arch: None,
            debug: debug_info::DebugLevel::None,
        }
    }
}

impl Options {
    /// The compute capability a libnvvm architecture names: `compute_90` and `sm_90a`
    /// give 90; anything else `None`.
    pub fn arch_number(arch: &str) -> Option<u32> {
        let digits = arch
            .strip_prefix("compute_")
            .or_else(|| arch.strip_prefix("sm_"))?;
        let digits = digits.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        digits.parse().ok()
    }
}

/// Where a device-side panic can come from. `message` may contain `{0}` and `{1}`,
/// replaced by the record's operands when the host reports the panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanicSite {
    /// 1-based, unique within the module; the value the device stores in the record.
    pub id: u32,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
#[error("NVVM IR backend: {0}")]
pub struct Error(pub String);

pub struct Output {
    pub text: String,
    pub panic_sites: Vec<PanicSite>,
    /// The kernels written twice, with and without the checks a launch can prove.
    pub launch_proofs: Vec<launch_proof::LaunchProof>,
}

/// The symbol every module defines for the host to store the module's tag in: a
/// nonzero number the host chose at load time, which a panicking thread copies into
/// the record so that the host knows whose panic sites the record's site id indexes.
pub const MODULE_TAG_SYMBOL: &str = "__cudajit_module_tag";

/// The hidden last parameter of every kernel and device function: the device address
/// of the panic record this launch reports into (0: none, a panic just ends the thread).
/// Kernels take it after their Rust parameters (the host ABI); device functions
/// receive their caller's. Per launch, so two launches of one kernel never share it.
pub const PANIC_RECORD_PARAM: &str = "%__cudajit.panic.record";

/// The LLVM symbol of a device function (kernels keep their Rust name).
pub fn device_function_symbol(name: &str) -> String {
    // A method is `Vec3::dot` in the IR; PTX names have no `:`.
    format!("__cudajit_dev_{}", name.replace("::", "__"))
}

/// Writes `module` as one NVVM IR module. Never panics on malformed IR: anything the
/// writer cannot express comes back as an [`Error`].
/// Runs the optimiser first: for callers that hold only a validated module.
pub fn write_string(module: &ir::Module, options: &Options) -> Result<Output, Error> {
    write_optimised(&crate::opt::optimise(module.clone()), options)
}

/// Writes an optimised module as one NVVM IR module (see [`write_string`]).
pub fn write_optimised(module: &Optimised, options: &Options) -> Result<Output, Error> {
    state::Writer::new(module, options).write()
}
