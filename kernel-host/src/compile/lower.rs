//! A kernel's source to NVVM IR (kernel-device's pipeline) and the libnvvm options of a
//! run-time compile: the front of the JIT, shared by the JIT, the AOT lookup (whose key
//! is the IR's) and inspection.

use kernel_device::back::nvvm::debug_info::DebugLevel;
use kernel_device::back::nvvm::Options;
use kernel_device::source::FnSource;
use kernel_device::CompiledUnit;

use crate::compile::libnvvm;
use crate::error::{Error, Result};

/// libnvvm optimisation level for run-time compiles (Numba's default too).
const OPT_LEVEL: u8 = 3;

pub(crate) fn lower(source: &'static FnSource, options: &Options) -> Result<CompiledUnit> {
    Lowered::new(source)?.write(options)
}

/// A kernel's unit through the front end and the optimiser once, written as NVVM IR as
/// often as the JIT needs: the caches' key IR (default options) and the IR for the
/// target and the loaded libnvvm, a first launch's two, from one front-end run.
pub(crate) struct Lowered {
    pub(crate) source: &'static FnSource,
    optimised: kernel_device::opt::Optimised,
}

impl Lowered {
    pub(crate) fn new(source: &'static FnSource) -> Result<Lowered> {
        let optimised =
            kernel_device::optimised_unit(source).map_err(|e| compile_error(source, e))?;
        Ok(Lowered { source, optimised })
    }

    pub(crate) fn write(&self, options: &Options) -> Result<CompiledUnit> {
        kernel_device::write_unit(self.source, &self.optimised, options)
            .map_err(|e| compile_error(self.source, e))
    }
}

fn compile_error(source: &FnSource, error: kernel_device::CompileError) -> Error {
    Error::Compile {
        kernel: source.name.to_string(),
        message: error.to_string(),
    }
}

/// The libnvvm options of a run-time compile for `arch` (inspection uses the same).
pub(crate) fn runtime_options(source: &FnSource, arch: String) -> libnvvm::Options {
    let level = debug_level(source);
    libnvvm::Options {
        arch,
        // `-g` code is unoptimised whatever `-opt` says; say so.
        opt_level: if level == DebugLevel::Full {
            0
        } else {
            OPT_LEVEL
        },
        fast_math: source.options.fast_math,
        line_info: level != DebugLevel::None,
        debug: level == DebugLevel::Full,
    }
}

/// The variable that turns full device debug information on for every kernel.
pub const DEBUG_VARIABLE: &str = "CUDAJIT_DEBUG";
/// The variable that turns line tables off (`0`); they are on by default.
pub const LINE_INFO_VARIABLE: &str = "CUDAJIT_LINE_INFO";

/// How much debug information a run-time compile of `source` carries: full with
/// `#[kernel(debug = true)]` or `CUDAJIT_DEBUG=1`, else Rust line tables (which leave
/// the machine code unchanged) unless `CUDAJIT_LINE_INFO=0`.
pub(crate) fn debug_level(source: &FnSource) -> DebugLevel {
    let set = |name: &str, value: &str| std::env::var(name).is_ok_and(|v| v.trim() == value);
    if source.options.debug_info || set(DEBUG_VARIABLE, "1") {
        DebugLevel::Full
    } else if set(LINE_INFO_VARIABLE, "0") {
        DebugLevel::None
    } else {
        DebugLevel::LineTables
    }
}
