//! The CUDA driver as an executor: a GPU's primary context, its health, its pool of
//! panic records and its stream-ordered memory pool. How it is opened stays in
//! `crate::device` (the driver's loader and its errors); what it does is here.

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::CudaContext;

use crate::backend::Backend;
use crate::device::health::Health;
use crate::device::panic::{ModuleTable, RecordPool, StreamFaults};
use crate::device::properties::DeviceAttribute;
use crate::device::{Device, DeviceId};
use crate::error::{DriverResultExt, Result};
use crate::memory::allocation::Allocation;

use super::memory::Memory;
use super::Executor;

/// A GPU's driver state.
pub(crate) struct CudaDevice {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) ordinal: usize,
    /// Every module loaded into this context that can report a device-side panic, by
    /// the tag its panics carry.
    pub(crate) modules: ModuleTable,
    /// Panic records of launches with host slices (one per launch in flight).
    pub(crate) records: RecordPool,
    /// Whether the context works (see `crate::device::health`).
    pub(crate) health: Arc<Health>,
    /// The stream-ordered pool device arrays are allocated from (see `crate::memory::allocation`).
    pub(crate) pool: crate::memory::allocation::PoolState,
}

impl Executor for CudaDevice {
    fn backend(&self) -> Backend {
        Backend::Cuda
    }

    fn ordinal(&self) -> usize {
        self.ordinal
    }

    fn describe(&self, name: &str, (major, minor): (u32, u32)) -> String {
        format!("CUDA device {} ({name}, sm_{major}{minor})", self.ordinal)
    }

    fn id(&self, device: &Device) -> DeviceId {
        DeviceId::Cuda(self.ordinal, device.generation())
    }

    fn new_faults(&self) -> Result<Arc<StreamFaults>> {
        StreamFaults::cuda(&self.ctx, &self.health)
    }

    fn synchronize(&self, device: &Device) -> Result<()> {
        device.ensure_alive()?;
        device.watch(result::ctx::synchronize().call("cuCtxSynchronize"))
    }

    fn alloc(&self, device: &Device, bytes: usize) -> Result<Memory> {
        device.ensure_alive()?;
        Ok(Memory::Cuda(device.watch(Allocation::new(device, bytes))?))
    }

    fn attribute(&self, attribute: DeviceAttribute) -> Result<i32> {
        self.ctx
            .attribute(attribute.raw())
            .call("cuDeviceGetAttribute")
    }

    fn cuda(&self) -> Option<&CudaDevice> {
        Some(self)
    }
}
