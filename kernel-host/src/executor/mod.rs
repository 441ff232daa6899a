//! The executor seam: what executes a device's work. A [`Device`](crate::Device) holds
//! one `Box<dyn Executor>`: the CUDA driver ([`cuda::CudaDevice`]) or the CPU simulator
//! ([`sim::SimDevice`]), so that nothing above this trait matches on the backend
//! (CubeCL's `ComputeServer` is the anchor: one trait per runtime, operations on
//! handles). The trait, and how each backend answers it, are here; each backend's
//! state is in its own file, beside what the state is made of (the context's `health`,
//! the `panic` records, the `limits`, `attribute`s and `id`).
//!
//! This is the lowest layer above the errors: nothing here names [`Device`](crate::Device)
//! or anything above it. Device memory (`crate::memory::backing`), the simulated
//! launch (`crate::launch::sim`) and opening a device (`crate::device::open_gpu`,
//! `open_sim`) sit in the layers that use them.
//!
//! Operations only a GPU has (a context reset, memory pools, graphs, interop with
//! cudarc) reach its driver state through [`Executor::cuda`], which is `None` on the
//! simulator, and answer `Err(NotSupported)` there.

pub(crate) mod attribute;
pub(crate) mod cuda;
pub(crate) mod formatted_panics;
pub(crate) mod health;
pub(crate) mod id;
pub(crate) mod limits;
pub(crate) mod panic;
pub(crate) mod sim;

use std::sync::Arc;

use cudarc::driver::{result, sys};

use crate::backend::Backend;
use crate::error::{DriverResultExt, Error, Result};
use crate::executor::attribute::{DeviceAttribute, DeviceProperties};
use crate::executor::health::ContextGuard;
use crate::executor::id::DeviceId;
use crate::executor::panic::StreamFaults;
use crate::SimOptions;

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

    /// Free and total device memory in bytes (the context is bound and guarded).
    fn mem_info(&self) -> Result<(usize, usize)>;

    /// Fills in the figures of `properties` only a driver knows (memory, clocks, PCI,
    /// per-multiprocessor resources); the simulator has none and keeps its limits'.
    fn driver_properties(&self, _properties: &mut DeviceProperties) -> Result<()> {
        Ok(())
    }

    /// Whether the device allocates from stream-ordered memory pools.
    fn has_async_alloc(&self) -> bool {
        false
    }

    /// A new driver stream (the context is bound and guarded); `None` on the
    /// simulator, whose launches complete before they return.
    fn create_stream(&self) -> Result<Option<sys::CUstream>> {
        Ok(None)
    }

    /// A new timing event (the context is bound and guarded); `None` on the simulator,
    /// which times with the host clock.
    fn create_event(&self) -> Result<Option<sys::CUevent>> {
        Ok(None)
    }

    /// `bytes` (more than 0) of uninitialised page-locked host memory (the context is
    /// bound and guarded); `None` on the simulator, whose copies need none.
    fn alloc_page_locked(&self, _bytes: usize) -> Result<Option<*mut u8>> {
        Ok(None)
    }

    /// Waits for the work queued on stream `raw` (NULL: the legacy stream) of this
    /// device (the context is bound and guarded; the stream is current).
    fn synchronize_stream(&self, raw: sys::CUstream) -> Result<()>;

    /// Makes the context current on the calling thread and keeps a reset from running
    /// until the guard drops; a guard of nothing on the simulator.
    fn bind(&self) -> Result<ContextGuard<'_>> {
        Ok(ContextGuard::none())
    }

    /// For destructors of objects made in context `generation`: the context bound and
    /// guarded if the object is still live in it; `None` if a reset frees (or freed)
    /// it, the context is lost, or there is no context (the simulator).
    fn bind_if_current(&self, _generation: u64) -> Option<ContextGuard<'_>> {
        None
    }

    /// The simulator's options (`None` on a GPU).
    fn sim_options(&self) -> Option<SimOptions> {
        None
    }

    /// Sets the simulator's options for the launches that follow (`Err` on a GPU).
    fn set_sim_options(&self, _options: SimOptions) -> Result<()> {
        Err(Error::NotSupported {
            operation: "set_sim_options",
            backend: self.backend(),
        })
    }

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

    fn mem_info(&self) -> Result<(usize, usize)> {
        result::mem_get_info().call("cuMemGetInfo")
    }

    fn driver_properties(&self, properties: &mut DeviceProperties) -> Result<()> {
        use DeviceAttribute as D;
        let read = |a: D| -> Result<u32> { Ok(self.attribute(a)?.max(0) as u32) };
        properties.total_memory = {
            let _guard = self.bind()?;
            self.mem_info()?.1
        };
        properties.max_threads_per_multiprocessor = read(D::MaxThreadsPerMultiprocessor)?;
        properties.shared_memory_per_multiprocessor = read(D::MaxSharedMemoryPerMultiprocessor)?;
        properties.registers_per_block = read(D::MaxRegistersPerBlock)?;
        properties.registers_per_multiprocessor = read(D::MaxRegistersPerMultiprocessor)?;
        properties.l2_cache_bytes = read(D::L2CacheSize)?;
        properties.clock_rate_khz = read(D::ClockRate)?;
        properties.memory_clock_rate_khz = read(D::MemoryClockRate)?;
        properties.memory_bus_width_bits = read(D::GlobalMemoryBusWidth)?;
        properties.concurrent_kernels = read(D::ConcurrentKernels)? != 0;
        properties.ecc_enabled = read(D::EccEnabled)? != 0;
        properties.pci_bus_id = format!(
            "{:04x}:{:02x}:{:02x}",
            read(D::PciDomainId)?,
            read(D::PciBusId)?,
            read(D::PciDeviceId)?
        );
        Ok(())
    }

    fn has_async_alloc(&self) -> bool {
        self.ctx.has_async_alloc()
    }

    fn create_stream(&self) -> Result<Option<sys::CUstream>> {
        // Non-blocking: no implicit order with the legacy NULL stream, which costs the
        // driver work at every launch (issue 27: bare `cuLaunchKernel` 4.325 µs on a
        // blocking stream against 4.272 on a non-blocking one, H200). Device arrays
        // order their uses across streams themselves (`crate::memory::allocation`),
        // the NULL stream's copies included.
        let raw = result::stream::create(result::stream::StreamKind::NonBlocking)
            .call("cuStreamCreate")?;
        Ok(Some(raw))
    }

    fn create_event(&self) -> Result<Option<sys::CUevent>> {
        let raw =
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).call("cuEventCreate")?;
        Ok(Some(raw))
    }

    fn alloc_page_locked(&self, bytes: usize) -> Result<Option<*mut u8>> {
        // SAFETY: a plain page-locked allocation, zeroed by the caller before any use.
        let ptr = unsafe { result::malloc_host(bytes, 0) }.call("cuMemHostAlloc")?;
        Ok(Some(ptr as *mut u8))
    }

    fn synchronize_stream(&self, raw: sys::CUstream) -> Result<()> {
        // SAFETY: `raw` is NULL or a live stream of this context (the caller's guard
        // keeps a reset from destroying it).
        unsafe { result::stream::synchronize(raw) }.call("cuStreamSynchronize")
    }

    fn bind(&self) -> Result<ContextGuard<'_>> {
        let guard = self.health.enter();
        make_current(&self.ctx)?;
        Ok(guard)
    }

    fn bind_if_current(&self, generation: u64) -> Option<ContextGuard<'_>> {
        let guard = self.health.enter_if_current(generation)?;
        make_current(&self.ctx).ok()?;
        Some(guard)
    }

    fn cuda(&self) -> Option<&CudaDevice> {
        Some(self)
    }
}

/// Makes `ctx` current on the calling thread unless it already is: one
/// `cuCtxGetCurrent` (a launch skips it where [`bound_here`] says `ctx`),
/// `cuCtxSetCurrent` only when the thread's current context differs. Not cudarc's `bind_to_thread`, which does the same but first swaps
/// the context's shared error flag: a locked write to one cache line that every
/// launching thread would contend for (issue 27). cudarc's own calls still report what
/// that flag holds.
#[inline]
fn make_current(ctx: &cudarc::driver::CudaContext) -> Result<()> {
    make_current_raw(ctx.cu_ctx())
}

/// [`make_current`] of a context handle that a `CudaContext` retains (the launch path's
/// copy of it, one pointer hop nearer: see `crate::device`).
#[inline]
pub(crate) fn make_current_raw(ctx: sys::CUcontext) -> Result<()> {
    if !is_current(ctx)? {
        BOUND_HERE.set(0);
        // SAFETY: the caller's context is retained (cudarc's primary-context retain).
        unsafe { sys::cuCtxSetCurrent(ctx) }
            .result()
            .call("cuCtxSetCurrent")?;
    }
    BOUND_HERE.set(ctx as usize);
    Ok(())
}

/// Whether `ctx` is the calling thread's current context, as the driver says.
#[inline]
pub(crate) fn is_current(ctx: sys::CUcontext) -> Result<bool> {
    let mut current: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    unsafe { sys::cuCtxGetCurrent(&mut current) }
        .result()
        .call("cuCtxGetCurrent")?;
    Ok(current == ctx)
}

thread_local! {
    /// The context this thread's latest [`make_current_raw`] left current (0: none
    /// known). A launch whose every driver call is its `cuLaunchKernel` trusts it in
    /// place of `cuCtxGetCurrent` (issue 27); since another library may have made
    /// another context current since, such a launch asks the driver when
    /// `cuLaunchKernel` refuses, and launches again after binding (`crate::launch`).
    /// A reset keeps the primary context's handle (`crate::device::context`), so the
    /// handle alone says what `cuCtxGetCurrent` would.
    static BOUND_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether this thread's latest [`make_current_raw`] left `ctx` current: what the
/// driver says too unless code outside cudajit changed the thread's context since.
#[inline]
pub(crate) fn bound_here(ctx: sys::CUcontext) -> bool {
    BOUND_HERE.get() == ctx as usize
}

impl Executor for SimDevice {
    fn backend(&self) -> Backend {
        Backend::Simulator
    }

    fn ordinal(&self) -> usize {
        self.ordinal().unwrap_or(0)
    }

    fn describe(&self, name: &str, _: (u32, u32)) -> String {
        format!("{name} ({})", self.options_text())
    }

    fn id(&self) -> DeviceId {
        DeviceId::Sim(self as *const SimDevice as usize, self.ordinal())
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

    fn mem_info(&self) -> Result<(usize, usize)> {
        Err(Error::NotSupported {
            operation: "mem_info",
            backend: Backend::Simulator,
        })
    }

    /// Every launch has completed when it returns.
    fn synchronize_stream(&self, _: sys::CUstream) -> Result<()> {
        Ok(())
    }

    fn sim_options(&self) -> Option<SimOptions> {
        Some(self.options())
    }

    fn set_sim_options(&self, options: SimOptions) -> Result<()> {
        self.set_options(options);
        Ok(())
    }

    fn sim(&self) -> Option<&SimDevice> {
        Some(self)
    }
}
