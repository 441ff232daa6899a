//! A device kernels run on: a GPU and its (primary) context, or the CPU simulator
//! (`crate::executor::sim`), behind one [`Device`] type. A GPU is opened once per ordinal per
//! process, with the limits a launch is checked against read at creation, and keeps the
//! registry of panic records of the modules loaded into it.
//!
//! libcuda is loaded at run time by cudarc, whose loader panics when the library is
//! missing; opening a GPU checks for the library first (and catches any panic from a
//! symbol an old driver lacks), so a machine without a GPU gets `Err(Error::NoDriver)`
//! and never a panic. Which device is the default (a GPU, or the simulator when there
//! is none) is decided in `crate::device::backend`.

pub(crate) mod default;
pub(crate) mod health;
pub(crate) mod panic;
pub(crate) mod properties;
pub(crate) mod stream;

use std::sync::{Arc, Mutex};

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use cudarc::driver::CudaContext;

use crate::backend::Backend;
use crate::device::health::Health;
use crate::device::panic::{DeviceFaults, ModuleTable, RecordPool, StreamFaults};
use crate::device::stream::Stream;
use crate::error::{DriverResultExt, Error, Result};
use crate::executor::cuda::CudaDevice;
use crate::executor::sim::SimDevice;
use crate::executor::Executor;
use crate::launch::args::DeviceElem;
use crate::launch::config::DeviceLimits;
use crate::memory::array::DeviceArray;

/// A GPU or the CPU simulator. Cheap to clone (a reference count); every `Device` for
/// the same GPU ordinal shares one context, as the CUDA runtime does.
#[derive(Clone)]
pub struct Device {
    inner: Arc<DeviceInner>,
}

struct DeviceInner {
    name: String,
    limits: DeviceLimits,
    /// What executes its work (the seam: see `crate::executor`).
    executor: Box<dyn Executor>,
    /// Where launches report device-side faults, per stream (see `crate::device::panic`).
    faults: DeviceFaults,
}

/// Which device an array lives on, for the launch's argument check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeviceId {
    /// A GPU by ordinal, and the generation of its context (see `crate::device::health`).
    Cuda(usize, u64),
    /// A simulated device, by the address of its shared state (each is distinct).
    Sim(usize),
}

impl std::fmt::Display for DeviceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceId::Cuda(ordinal, _) => write!(f, "CUDA device {ordinal}"),
            DeviceId::Sim(_) => f.write_str("the CPU simulator"),
        }
    }
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

/// GPUs opened so far, by ordinal: each is opened once per process.
static DEVICES: Mutex<Vec<Device>> = Mutex::new(Vec::new());

impl Device {
    /// The process-wide default device: a GPU (ordinal `$CUDAJIT_DEVICE`, or 0) when
    /// there is one, else the CPU simulator (said once on stderr).
    /// `CUDAJIT_BACKEND=cuda|sim` or [`crate::set_backend`] force either.
    #[allow(clippy::should_implement_trait)] // fallible, unlike `Default::default`
    pub fn default() -> Result<Device> {
        Device::default_ref().cloned()
    }

    /// The default device without a reference-count increment, for the launch path.
    pub(crate) fn default_ref() -> Result<&'static Device> {
        crate::device::default::default_device()
    }

    /// Opens GPU `ordinal` (or returns the already opened one). Always a GPU: without
    /// one this is `Err(NoDriver)` or `Err(NoDevice)`.
    pub fn new(ordinal: usize) -> Result<Device> {
        let mut devices = DEVICES.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(device) = devices.iter().find(|d| d.ordinal() == ordinal) {
            return Ok(device.clone());
        }
        let device = open(ordinal)?;
        devices.push(device.clone());
        Ok(device)
    }

    /// The process-wide simulated device, with the options of `CUDAJIT_SIM_SEED`,
    /// `CUDAJIT_SIM_SCHEDULES`, `CUDAJIT_SIM_DETECT` and `CUDAJIT_SIM_WORKERS`
    /// (`Err` naming the variable when one is not a number).
    pub fn simulator() -> Result<Device> {
        crate::executor::sim::shared_simulator().cloned()
    }

    /// A new simulated device of its own with `options` (seed, schedules, detection,
    /// worker threads); its arrays are not shared with other simulated devices.
    pub fn simulator_with(options: crate::SimOptions) -> Device {
        Device::from_executor(
            crate::executor::sim::SIMULATOR_NAME.to_string(),
            crate::executor::sim::SIMULATED_LIMITS,
            Box::new(SimDevice::new(options)),
        )
    }

    fn from_executor(name: String, limits: DeviceLimits, executor: Box<dyn Executor>) -> Device {
        Device {
            inner: Arc::new(DeviceInner {
                name,
                limits,
                executor,
                faults: DeviceFaults::new(),
            }),
        }
    }

    /// Number of CUDA devices; `Err(NoDriver)` without a driver.
    pub fn count() -> Result<usize> {
        driver_present()?;
        guard_panics(|| {
            result::init().map_err(|e| init_error(0, e))?;
            Ok(result::device::get_count().call("cuDeviceGetCount")? as usize)
        })
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

    pub(crate) fn id(&self) -> DeviceId {
        self.inner.executor.id(self)
    }

    /// This device's identity among simulated devices: the address of its shared state.
    pub(crate) fn address(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }

    /// What executes this device's work.
    pub(crate) fn executor(&self) -> &dyn Executor {
        &*self.inner.executor
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
        self.as_sim().map(SimDevice::options)
    }

    /// Sets the simulator's options for the launches that follow (`Err` on a GPU).
    pub fn set_sim_options(&self, options: crate::SimOptions) -> Result<()> {
        match self.as_sim() {
            Some(sim) => {
                sim.set_options(options);
                Ok(())
            }
            None => Err(Error::NotSupported {
                operation: "set_sim_options",
                backend: Backend::Cuda,
            }),
        }
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

    /// The device's default stream: on a GPU the legacy NULL stream, which orders
    /// itself with every stream made by [`Device::new_stream`].
    pub fn default_stream(&self) -> Stream {
        Stream::null(self.clone())
    }

    /// A new stream. On a GPU it synchronises with the default stream (CUDA's
    /// blocking-stream semantics, as `cudaStreamCreate`), so copies on the default
    /// stream see kernels launched on it; on the simulator every launch completes
    /// before it returns.
    pub fn new_stream(&self) -> Result<Stream> {
        Stream::create(self.clone())
    }

    /// Waits for all work on the device, then reports the first device-side panic of
    /// the calling thread's asynchronous launches: on the default stream, or on a
    /// stream whose latest launch this thread made (on the simulator: the first fault
    /// of such a launch on device arrays). Another thread's panics are never reported
    /// here: they reach that thread's synchronisations, or the stream's own.
    pub fn synchronize(&self) -> Result<()> {
        let _guard = self.bind()?;
        self.inner.executor.synchronize(self)?;
        self.check_panics()
    }

    /// Copies `data` into a new device array on this device.
    pub fn to_device<T: DeviceElem>(&self, data: &[T]) -> Result<DeviceArray<T>> {
        DeviceArray::from_slice_on(self, data)
    }

    /// A zero-initialised device array on this device.
    pub fn zeros<T: DeviceElem>(&self, len: usize) -> Result<DeviceArray<T>> {
        DeviceArray::zeros_on(self, len)
    }

    /// Whether this is the process's default device (the launch fast path).
    pub(crate) fn is_default(&self) -> bool {
        matches!(crate::device::default::default_if_chosen(), Some(d) if Arc::ptr_eq(&d.inner, &self.inner))
    }

    /// The panic-site table of this GPU's modules (`None` on the simulator).
    pub(crate) fn modules(&self) -> Option<&ModuleTable> {
        self.inner.executor.cuda().map(|cuda| &cuda.modules)
    }

    /// Where the calling thread's asynchronous launches on the default stream report
    /// faults (see `crate::device::panic`).
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
    /// panic of another thread's launches reaches that thread (see `crate::device::panic`).
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

/// Opens the GPU the default device is on: ordinal `$CUDAJIT_DEVICE`, or 0.
pub(crate) fn open_default_gpu() -> Result<Device> {
    default_ordinal().and_then(Device::new)
}

fn default_ordinal() -> Result<usize> {
    match std::env::var("CUDAJIT_DEVICE") {
        Err(_) => Ok(0),
        Ok(text) => text.trim().parse().map_err(|_| Error::NoDevice {
            ordinal: 0,
            detail: format!("CUDAJIT_DEVICE={text:?} is not a device ordinal (0, 1, ...)"),
        }),
    }
}

/// cudarc's loader panics when libcuda is missing; ask first.
fn driver_present() -> Result<()> {
    // SAFETY: only tries to dlopen the candidate names; loads nothing it keeps.
    if unsafe { sys::is_culib_present() } {
        return Ok(());
    }
    // cudarc tries many Windows-style spellings too; name the ones a Linux user knows.
    let mut tried: Vec<String> = cudarc::get_lib_name_candidates("cuda")
        .into_iter()
        .filter(|name| name.starts_with("libcuda.so"))
        .collect();
    tried.dedup();
    Err(Error::NoDriver {
        reason: format!(
            "the NVIDIA driver library could not be loaded (tried {}); install an NVIDIA \
             driver or add its directory to LD_LIBRARY_PATH",
            tried.join(", ")
        ),
    })
}

/// Runs driver calls, turning a panic inside cudarc's lazy symbol loader (a driver
/// too old for a symbol) into `Err(NoDriver)`.
fn guard_panics<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let text = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic in the CUDA driver loader".into());
        Err(Error::NoDriver { reason: text })
    })
}

fn init_error(ordinal: usize, e: result::DriverError) -> Error {
    match e.0 {
        sys::CUresult::CUDA_ERROR_NO_DEVICE => Error::NoDevice {
            ordinal,
            detail: "the driver reports no CUDA-capable device".into(),
        },
        sys::CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
        | sys::CUresult::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE => Error::NoDriver {
            reason: crate::error::describe_driver_error(e),
        },
        _ => Error::driver("cuInit", e),
    }
}

fn open(ordinal: usize) -> Result<Device> {
    driver_present()?;
    guard_panics(|| {
        result::init().map_err(|e| init_error(ordinal, e))?;
        let count = result::device::get_count().call("cuDeviceGetCount")?;
        if ordinal >= count.max(0) as usize {
            return Err(Error::NoDevice {
                ordinal,
                detail: format!("this machine has {count} CUDA device(s)"),
            });
        }
        let ctx = CudaContext::new(ordinal).call("cuDevicePrimaryCtxRetain")?;
        // A launch, and so usually a first compile, follows: its cache key's digests of
        // the compiler's files are computed meanwhile.
        crate::compile::libnvvm::identify_toolchain_in_background();
        let name = ctx.name().call("cuDeviceGetName")?;
        let attr = |a: Attr| -> Result<u32> {
            Ok(ctx.attribute(a).call("cuDeviceGetAttribute")?.max(0) as u32)
        };
        let limits = DeviceLimits {
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid_dim: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_shared_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            max_shared_per_block_optin: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            warp_size: attr(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            compute_capability: (
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessor_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            cooperative_launch: attr(Attr::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
        };
        Ok(Device::from_executor(
            name,
            limits,
            Box::new(CudaDevice {
                ctx,
                ordinal,
                modules: ModuleTable::default(),
                records: RecordPool::default(),
                health: Default::default(),
                pool: Default::default(),
            }),
        ))
    })
}

/// Waits for all work on the default device and reports the first device-side panic
/// of the calling thread's asynchronous launches (see [`Device::synchronize`]).
pub fn synchronize() -> Result<()> {
    Device::default_ref()?.synchronize()
}

/// Copies `data` to a new array on the default device.
pub fn to_device<T: DeviceElem>(data: &[T]) -> Result<DeviceArray<T>> {
    DeviceArray::from_slice(data)
}

#[cfg(test)]
mod tests {
    use super::*;

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
