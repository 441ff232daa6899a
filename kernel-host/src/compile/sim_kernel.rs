//! A kernel ready for the simulator: its validated IR, lowered once per process and
//! kept by the kernel's cache (`crate::compile::cache`), below the launch that runs it.

use kernel_device::ir::{self, AddressSpace, Type};
use kernel_device::source::FnSource;

use crate::error::{Error, Result};

/// A kernel ready for the simulator: its validated IR, lowered once per process.
pub(crate) struct SimKernel {
    pub(crate) name: String,
    pub(crate) module: ir::Module,
    pub(crate) params: Vec<Type>,
    pub(crate) cooperative: bool,
    /// Bytes of its shared arrays, laid out as the NVVM writer does (16-byte aligned).
    pub(crate) static_shared: u32,
}

impl SimKernel {
    pub(crate) fn lower(source: &'static FnSource) -> Result<SimKernel> {
        let module = kernel_device::lower_unit(source).map_err(|e| Error::Compile {
            kernel: source.name.to_string(),
            message: e.to_string(),
        })?;
        let params = module.param_types(source.name);
        let static_shared = module
            .globals
            .iter()
            .filter(|(_, g)| g.space == AddressSpace::Shared)
            .map(|(_, g)| {
                let (scalar, count) = g.ty.array_scalar().unwrap_or((ir::ScalarType::U8, 0));
                (u64::from(scalar.size_bytes()) * count).next_multiple_of(16)
            })
            .sum::<u64>();
        Ok(SimKernel {
            name: source.name.to_string(),
            cooperative: module.needs_cooperative_launch(),
            params,
            module,
            static_shared: u32::try_from(static_shared).unwrap_or(u32::MAX),
        })
    }
}
