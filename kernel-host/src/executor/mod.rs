//! The executor seam: what executes a device's work. A [`Device`] holds one
//! `Box<dyn Executor>`: the CUDA driver ([`cuda::CudaDevice`]) or the CPU simulator
//! ([`sim::SimDevice`]), so that nothing above this trait matches on the backend
//! (CubeCL's `ComputeServer` is the anchor: one trait per runtime, operations on
//! handles). Device memory is the same seam for arrays: [`memory::Memory`] is the one
//! place that tells a driver allocation from a simulator buffer.
//!
//! Operations only a GPU has (streams with events, graphs capture, interop with
//! cudarc) reach its driver state through [`Executor::cuda`], which is `None` on the
//! simulator, and answer `Err(NotSupported)` there.

pub(crate) mod cuda;
pub(crate) mod memory;
pub(crate) mod sim;

use std::sync::Arc;

use crate::backend::Backend;
use crate::device::attribute::DeviceAttribute;
use crate::device::panic::StreamFaults;
use crate::device::{Device, DeviceId};
use crate::error::Result;

use self::cuda::CudaDevice;
use self::memory::Memory;
use self::sim::SimDevice;

/// A backend that executes a device's work.
pub(crate) trait Executor: Send + Sync {
    /// Which backend this is.
    fn backend(&self) -> Backend;

    /// The GPU's ordinal (0 for the simulator).
    fn ordinal(&self) -> usize;

    /// What `Device`'s `Display` says after the device's name.
    fn describe(&self, name: &str, compute_capability: (u32, u32)) -> String;

    /// Which device `device` (whose executor this is) is, for argument checks.
    fn id(&self, device: &Device) -> DeviceId;

    /// Fresh fault records for a stream of this device.
    fn new_faults(&self) -> Result<Arc<StreamFaults>>;

    /// Waits for all work queued on `device` (the context is bound).
    fn synchronize(&self, device: &Device) -> Result<()>;

    /// `bytes` of device memory (the context is bound and guarded).
    fn alloc(&self, device: &Device, bytes: usize) -> Result<Memory>;

    /// A device attribute, read from the driver now.
    fn attribute(&self, attribute: DeviceAttribute) -> Result<i32>;

    /// The GPU's driver state (`None` on the simulator).
    fn cuda(&self) -> Option<&CudaDevice> {
        None
    }

    /// The simulated device's state (`None` on a GPU).
    fn sim(&self) -> Option<&SimDevice> {
        None
    }
}
