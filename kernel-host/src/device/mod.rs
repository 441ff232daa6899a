//! A device kernels run on: a GPU and its (primary) context, or the CPU simulator,
//! behind one [`Device`] type, which holds its executor (`crate::executor`, the layer
//! below: the trait, each backend's state, context health and panic records), its
//! limits and where its launches report faults. How a GPU is opened is `open_gpu`'s,
//! the simulator `open_sim`'s; which device is the default (a GPU, or the simulator
//! when there is none) is decided in `default`; binding the context and its reset are
//! `context`'s; streams and events are `stream`'s (with the per-reader events of
//! `marks`); properties are `properties`'.

pub(crate) mod context;
pub(crate) mod default;
pub(crate) mod marks;
pub(crate) mod open_gpu;
pub(crate) mod open_sim;
pub(crate) mod properties;
pub(crate) mod stream;

use std::sync::Arc;

use cudarc::driver::CudaContext;

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::executor::cuda::CudaDevice;
use crate::executor::health::Health;
pub(crate) use crate::executor::id::DeviceId;
use crate::executor::limits::DeviceLimits;
use crate::executor::panic::{DeviceFaults, ModuleTable, RecordPool, StreamFaults};
use crate::executor::sim::SimDevice;
use crate::executor::Executor;

/// Work the layers above do at every synchronisation of a device or stream
/// (`inventory::submit!`): the print buffers' drain (`crate::print`), so that `device`
/// names no layer above it. Each must return at once when it has nothing to do.
pub(crate) struct AtSynchronize(pub(crate) fn(&Device));

inventory::collect!(AtSynchronize);

/// Runs every [`AtSynchronize`] hook for `device`.
pub(crate) fn run_at_synchronize(device: &Device) {
    for hook in inventory::iter::<AtSynchronize> {
        (hook.0)(device);
    }
}

/// A GPU or the CPU simulator. Cheap to clone (a reference count); every `Device` for
/// the same GPU ordinal shares one context, as the CUDA runtime does.
#[derive(Clone)]
pub struct Device {
    inner: Arc<DeviceInner>,
}

/// `repr(C)`: what every launch reads first comes first (issue 27).
#[repr(C)]
struct DeviceInner {
    /// The GPU context's health and handle, copied out of the executor so that a
    /// launch binds the context and checks its health without the executor's dynamic
    /// call and the two structures behind it (dependent loads that miss after a driver
    /// call); `None` and 0 on the simulator. The executor keeps the context retained.
    health: Option<Arc<Health>>,
    cu_ctx: usize,
    /// The GPU's ordinal (0 on the simulator), for [`Device::id`] on the same path.
    gpu_ordinal: usize,
    name: String,
    limits: DeviceLimits,
    /// What executes its work (the seam: see `crate::executor`).
    executor: Box<dyn Executor>,
    /// Where launches report device-side faults, per stream (see `crate::executor::panic`).
    faults: DeviceFaults,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("backend", &self.backend())
            .field("ordinal", &self.ordinal())
            .field("name", &self.inner.name)
            .field("compute_capability", &self.inner.limits.compute_capability)
            .finish()
    }
}

/// `CUDA device 0 (NVIDIA H100 80GB HBM3, sm_90)` or `the CPU simulator (sm_90 limits,
/// race detection on, seed 0)`: what an example prints to say where it ran.
impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            &self
                .inner
                .executor
                .describe(&self.inner.name, self.compute_capability()),
        )
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.id() == other.id()
    }
}
impl Eq for Device {}

impl Device {
    pub(crate) fn from_executor(
        name: String,
        limits: DeviceLimits,
        executor: Box<dyn Executor>,
    ) -> Device {
        let health = executor.cuda().map(|cuda| cuda.health.clone());
        let cu_ctx = executor.cuda().map_or(0, |cuda| cuda.ctx.cu_ctx() as usize);
        let gpu_ordinal = executor.cuda().map_or(0, |cuda| cuda.ordinal);
        Device {
            inner: Arc::new(DeviceInner {
                health,
                cu_ctx,
                gpu_ordinal,
                name,
                limits,
                executor,
                faults: DeviceFaults::new(),
            }),
        }
    }

    /// What runs this device's kernels: the CUDA driver or the CPU simulator.
    pub fn backend(&self) -> Backend {
        self.inner.executor.backend()
    }

    /// Whether kernels on this device run on the CPU simulator.
    pub fn is_simulator(&self) -> bool {
        self.backend() == Backend::Simulator
    }

    /// The GPU's ordinal (0 for the simulator).
    pub fn ordinal(&self) -> usize {
        self.inner.executor.ordinal()
    }

    /// On a GPU from the device's own copies (the launch path's argument check).
    #[inline]
    pub(crate) fn id(&self) -> DeviceId {
        match self.launch_health() {
            Some(health) => DeviceId::Cuda(self.inner.gpu_ordinal, health.generation()),
            None => self.inner.executor.id(),
        }
    }

    /// What executes this device's work.
    pub(crate) fn executor(&self) -> &dyn Executor {
        &*self.inner.executor
    }

    /// The GPU context's health, from the device's own copy (`None` on the simulator).
    #[inline]
    pub(crate) fn launch_health(&self) -> Option<&Health> {
        self.inner.health.as_deref()
    }

    /// The GPU context's health and handle (`None` on the simulator).
    #[inline]
    pub(crate) fn launch_context(&self) -> Option<(&Health, cudarc::driver::sys::CUcontext)> {
        let health = self.inner.health.as_deref()?;
        Some((health, self.inner.cu_ctx as cudarc::driver::sys::CUcontext))
    }

    /// The simulated device's state, `None` on a GPU.
    pub(crate) fn as_sim(&self) -> Option<&SimDevice> {
        self.inner.executor.sim()
    }

    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// `(major, minor)`, e.g. `(9, 0)` for an H100 (and for the simulator, which
    /// reports an H100's limits).
    pub fn compute_capability(&self) -> (u32, u32) {
        self.inner.limits.compute_capability
    }

    /// The libnvvm target for this device, e.g. `compute_90`.
    pub fn arch(&self) -> String {
        let (major, minor) = self.compute_capability();
        format!("compute_{major}{minor}")
    }

    pub fn limits(&self) -> &DeviceLimits {
        &self.inner.limits
    }

    pub fn warp_size(&self) -> u32 {
        self.inner.limits.warp_size
    }

    pub fn multiprocessor_count(&self) -> u32 {
        self.inner.limits.multiprocessor_count
    }

    /// The underlying cudarc context, for interoperating with code that uses cudarc
    /// (`None` on the simulator).
    pub fn cuda_context(&self) -> Option<&Arc<CudaContext>> {
        self.inner.executor.cuda().map(|cuda| &cuda.ctx)
    }

    /// The simulator's options (`None` on a GPU).
    pub fn sim_options(&self) -> Option<crate::SimOptions> {
        self.inner.executor.sim_options()
    }

    /// Sets the simulator's options for the launches that follow (`Err` on a GPU).
    pub fn set_sim_options(&self, options: crate::SimOptions) -> Result<()> {
        self.inner.executor.set_sim_options(options)
    }

    /// The GPU's driver state, or `Err` naming `operation` on the simulator.
    pub(crate) fn cuda(&self, operation: &'static str) -> Result<&CudaDevice> {
        self.inner
            .executor
            .cuda()
            .ok_or_else(|| Error::NotSupported {
                operation,
                backend: self.backend(),
            })
    }

    /// Waits for all work on the device, then reports the first device-side panic of
    /// the calling thread's asynchronous launches: on the default stream, or on a
    /// stream whose latest launch this thread made (on the simulator: the first fault
    /// of such a launch on device arrays). Another thread's panics are never reported
    /// here: they reach that thread's synchronisations, or the stream's own.
    pub fn synchronize(&self) -> Result<()> {
        let _guard = self.bind()?;
        self.ensure_alive()?;
        self.watch(self.inner.executor.synchronize())?;
        run_at_synchronize(self);
        self.check_panics()
    }

    /// The panic-site table of this GPU's modules (`None` on the simulator).
    pub(crate) fn modules(&self) -> Option<&ModuleTable> {
        self.inner.executor.cuda().map(|cuda| &cuda.modules)
    }

    /// Where the calling thread's asynchronous launches on the default stream report
    /// faults (see `crate::executor::panic`), borrowed: `None` before its first launch.
    #[inline]
    pub(crate) fn thread_faults_borrowed(&self) -> Option<&StreamFaults> {
        self.inner.faults.this_thread_borrowed()
    }

    /// As [`thread_faults_borrowed`](Self::thread_faults_borrowed), made (or lent)
    /// when the thread has none yet.
    #[inline]
    pub(crate) fn thread_faults(&self) -> Result<Arc<StreamFaults>> {
        self.inner.faults.for_this_thread(|| self.new_faults())
    }

    /// [`Device::thread_faults`], for tests of the simulator (which cannot fail).
    #[cfg(test)]
    pub(crate) fn default_faults(&self) -> Arc<StreamFaults> {
        self.thread_faults().expect("simulated faults")
    }

    /// Fresh faults for a stream of this device (a pinned record on a GPU).
    pub(crate) fn new_faults(&self) -> Result<Arc<StreamFaults>> {
        self.inner.executor.new_faults()
    }

    /// The GPU's context, health and pool of panic records for launches with host
    /// slices.
    pub(crate) fn record_pool(&self) -> Option<(&Arc<CudaContext>, &Arc<Health>, &RecordPool)> {
        self.inner
            .executor
            .cuda()
            .map(|cuda| (&cuda.ctx, &cuda.health, &cuda.records))
    }

    /// The faults of the default stream and of every live stream.
    pub(crate) fn all_faults(&self) -> Vec<Arc<StreamFaults>> {
        self.inner.faults.all()
    }

    /// Remembers a new stream's faults for device-wide checks.
    pub(crate) fn register_stream(&self, faults: &Arc<StreamFaults>) {
        self.inner.faults.register(faults);
    }

    /// Reports (and clears) the first device-side panic of an asynchronous launch
    /// made by the calling thread, on the default stream or on a stream it launched on
    /// last (on the simulator: the first fault of such a launch on device arrays); a
    /// panic of another thread's launches reaches that thread (see `crate::executor::panic`).
    /// Call only after a synchronisation covering the kernels in question. A launch
    /// with host slices reports its own panic and never leaves one here.
    pub fn check_panics(&self) -> Result<()> {
        let _guard = self.bind()?;
        self.inner.faults.take_mine(self.modules())
    }

    /// Reports (and clears) the first fault of the calling thread's asynchronous
    /// launches on the default stream: what a copy on the default stream reports.
    pub(crate) fn check_default_stream(&self) -> Result<()> {
        let _guard = self.bind()?;
        self.thread_faults()?.take(self.modules())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::default::synchronize;
    use crate::memory::array::to_device;

    /// On a machine without libcuda (this project's build machine) every entry point
    /// answers `Err(NoDriver)`; with a GPU they succeed. Either way: no panic.
    #[test]
    fn no_panic_without_driver() {
        match Device::default() {
            Ok(device) => assert!(!device.name().is_empty()),
            Err(Error::NoDriver { reason }) => assert!(reason.contains("driver"), "{reason}"),
            Err(Error::NoDevice { .. }) => {}
            Err(other) => panic!("unexpected error {other}"),
        }
        let _ = Device::new(12345);
        let _ = Device::count();
        let _ = synchronize();
        let _ = to_device(&[1.0f32, 2.0]);
    }
}
