//! The executor seam: what executes a device's work. A [`Device`](crate::Device) holds one
//! `Box<dyn Executor>`: the CUDA driver ([`cuda::CudaDevice`]) or the CPU simulator
//! ([`sim::SimDevice`]), so that nothing above this trait matches on the backend
//! (CubeCL's `ComputeServer` is the anchor: one trait per runtime, operations on
//! handles). Device memory is the same seam for arrays: [`memory::Memory`] is the one
//! place that tells a driver allocation from a simulator buffer, and makes them.
//!
//! The trait, and how each backend answers it, are here; each backend's state is in
//! its own file. The trait and the executors' state sit below [`Device`](crate::Device), which holds
//! one: they never name it. How a GPU or the simulator is opened as a `Device` is
//! `open_gpu`'s and `sim::open`'s.
//!
//! Operations only a GPU has (streams with events, graphs capture, interop with
//! cudarc) reach its driver state through [`Executor::cuda`], which is `None` on the
//! simulator, and answer `Err(NotSupported)` there.

pub(crate) mod cuda;
pub(crate) mod memory;
pub(crate) mod open_gpu;
pub(crate) mod sim;

use std::sync::Arc;

use cudarc::driver::result;

use crate::backend::Backend;
use crate::device::attribute::DeviceAttribute;
use crate::device::id::DeviceId;
use crate::device::panic::StreamFaults;
use crate::error::{DriverResultExt, Error, Result};

use self::cuda::CudaDevice;
use self::sim::SimDevice;

/// A backend that executes a device's work.
pub(crate) trait Executor: Send + Sync {
    /// Which backend this is.
    fn backend(&self) -> Backend;

    /// The GPU's ordinal (0 for the simulator).
    fn ordinal(&self) -> usize;

    /// What `Device`'s `Display` says after the device's name.
    fn describe(&self, name: &str, compute_capability: (u32, u32)) -> String;

    /// Which device this executor's is, for argument checks.
    fn id(&self) -> DeviceId;

    /// Fresh fault records for a stream of this device.
    fn new_faults(&self) -> Result<Arc<StreamFaults>>;

    /// Waits for all work queued on the device (the context is bound and guarded, and
    /// was alive).
    fn synchronize(&self) -> Result<()>;

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

    fn id(&self) -> DeviceId {
        DeviceId::Cuda(self.ordinal, self.health.generation())
    }

    fn new_faults(&self) -> Result<Arc<StreamFaults>> {
        StreamFaults::cuda(&self.ctx, &self.health)
    }

    fn synchronize(&self) -> Result<()> {
        result::ctx::synchronize().call("cuCtxSynchronize")
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

impl Executor for SimDevice {
    fn backend(&self) -> Backend {
        Backend::Simulator
    }

    fn ordinal(&self) -> usize {
        0
    }

    fn describe(&self, name: &str, _: (u32, u32)) -> String {
        format!("{name} ({})", self.options_text())
    }

    fn id(&self) -> DeviceId {
        DeviceId::Sim(self as *const SimDevice as usize)
    }

    fn new_faults(&self) -> Result<Arc<StreamFaults>> {
        Ok(StreamFaults::sim())
    }

    /// Every launch has completed when it returns.
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn attribute(&self, _: DeviceAttribute) -> Result<i32> {
        Err(Error::NotSupported {
            operation: "attribute",
            backend: Backend::Simulator,
        })
    }

    fn sim(&self) -> Option<&SimDevice> {
        Some(self)
    }
}
