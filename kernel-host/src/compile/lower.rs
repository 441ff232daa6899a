//! A kernel's source to NVVM IR (kernel-device's pipeline) and the libnvvm options of a
//! run-time compile: the front of the JIT, shared by the JIT, the AOT lookup (whose key
//! is the IR's) and inspection.

use kernel_device::back::nvvm::Options;
use kernel_device::source::FnSource;
use kernel_device::CompiledUnit;

use crate::compile::libnvvm;
use crate::error::{Error, Result};

/// libnvvm optimisation level for run-time compiles (Numba's default too).
const OPT_LEVEL: u8 = 3;

pub(crate) fn lower(source: &'static FnSource, options: &Options) -> Result<CompiledUnit> {
    kernel_device::nvvm_ir_for_kernel(source, options).map_err(|e| Error::Compile {
        kernel: source.name.to_string(),
        message: e.to_string(),
    })
}

/// The libnvvm options of a run-time compile for `arch` (inspection uses the same).
pub(crate) fn runtime_options(source: &FnSource, arch: String) -> libnvvm::Options {
    libnvvm::Options {
        arch,
        opt_level: OPT_LEVEL,
        fast_math: source.options.fast_math,
        line_info: false,
    }
}
