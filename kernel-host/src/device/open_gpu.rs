//! How a GPU is opened as a [`Device`]: once per ordinal per process, with the limits a
//! launch is checked against read at creation.
//!
//! libcuda is loaded at run time by cudarc, whose loader panics when the library is
//! missing; opening a GPU checks for the library first (and catches any panic from a
//! symbol an old driver lacks), so a machine without a GPU gets `Err(Error::NoDriver)`
//! and never a panic.

use std::sync::Mutex;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use cudarc::driver::CudaContext;

use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};
use crate::executor::limits::DeviceLimits;
use crate::executor::panic::{ModuleTable, RecordPool};

use crate::executor::cuda::CudaDevice;

impl Device {
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

    /// Number of CUDA devices; `Err(NoDriver)` without a driver.
    pub fn count() -> Result<usize> {
        driver_present()?;
        guard_panics(|| {
            result::init().map_err(|e| init_error(0, e))?;
            Ok(result::device::get_count().call("cuDeviceGetCount")? as usize)
        })
    }
}

/// Work the layers above start when a GPU opens (`inventory::submit!`), so that
/// opening a GPU names none of them: the JIT's toolchain digests
/// (`crate::compile::libnvvm`). Each must return at once (start a thread, at most).
pub(crate) struct WhenAGpuOpens(pub(crate) fn(&CudaContext));

inventory::collect!(WhenAGpuOpens);

/// Work that runs while GPU `ordinal`'s context is created (tens to hundreds of ms),
/// on a thread that opening the GPU joins once the context exists, so that none of it
/// outlives `Device::new`: libnvvm's load and the kernels compiled meanwhile
/// (`crate::compile::warm_up`, whose module documentation says why a process must not
/// exit while it runs). Work that could go on longer than the context's creation
/// reads [`ContextCreated`] and stops starting more.
pub(crate) struct WhileAGpuOpens(
    pub(crate) fn(usize, ContextCreated) -> Option<std::thread::JoinHandle<()>>,
);

/// Whether the context that [`WhileAGpuOpens`] work runs beside exists yet.
#[derive(Clone, Default)]
pub(crate) struct ContextCreated(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl ContextCreated {
    pub(crate) fn get(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }

    fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }

    /// One that says the context exists (for tests of the work that reads it).
    #[cfg(test)]
    pub(crate) fn already() -> ContextCreated {
        let created = ContextCreated::default();
        created.set();
        created
    }
}

inventory::collect!(WhileAGpuOpens);

/// Work that runs on the thread opening GPU `ordinal` while its context is created on
/// another (which opening the GPU joins right after): work that warms something *for
/// this thread*, the one that usually launches first (the driver's JIT:
/// `crate::compile::jit_warm_up`). `None`: nothing to do (the context is then created
/// on the opening thread, as without any).
pub(crate) struct OnTheOpeningThread(pub(crate) fn(usize) -> Option<OpeningThreadWork>);

/// What an [`OnTheOpeningThread`] hook gives to run.
pub(crate) type OpeningThreadWork = Box<dyn FnOnce()>;

inventory::collect!(OnTheOpeningThread);

/// GPUs opened so far, by ordinal: each is opened once per process.
static DEVICES: Mutex<Vec<Device>> = Mutex::new(Vec::new());

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
    if load_driver_library() {
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

/// Loads libcuda and keeps it loaded (cudarc's own load then finds it). Probing with a
/// load that is closed again (`sys::is_culib_present`) unloads the driver, and
/// cuda-gdb, which prepares its CUDA debugging when libcuda first loads, then never
/// sees the second copy's module loads: breakpoints in kernels stay pending (checked
/// on the H200 with a driver-API program: `bench/results/*-cuda-gdb-driver-probe.txt`).
fn load_driver_library() -> bool {
    cudarc::get_lib_name_candidates("cuda")
        .into_iter()
        .filter_map(|name| std::ffi::CString::new(name).ok())
        .any(|name| {
            // SAFETY: dlopen of a library name; the handle is deliberately never closed.
            let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
            !handle.is_null()
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

/// GPU `ordinal`'s device handle, before its context exists (the driver is initialised).
fn device_handle(ordinal: usize) -> Option<sys::CUdevice> {
    result::device::get(i32::try_from(ordinal).ok()?).ok()
}

/// GPU `ordinal`'s compute capability, read before its context exists (for work that
/// runs while it is created: `WhileAGpuOpens`, `OnTheOpeningThread`).
pub(crate) fn capability_before_context(ordinal: usize) -> Option<(u32, u32)> {
    let device = device_handle(ordinal)?;
    let attribute = |a| {
        // SAFETY: `device` came from cuDeviceGet.
        unsafe { result::device::get_attribute(device, a) }
            .ok()
            .and_then(|v| u32::try_from(v).ok())
    };
    Some((
        attribute(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attribute(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    ))
}

/// Whether GPU `ordinal`'s primary context is already active (retained by code outside
/// cudajit, or by an earlier open): its retain is then quick, with nothing to hide
/// behind; `true` when the driver cannot say.
pub(crate) fn primary_context_exists(ordinal: usize) -> bool {
    let Some(device) = device_handle(ordinal) else {
        return true;
    };
    let (mut flags, mut active) = (0u32, 0i32);
    // SAFETY: `device` came from cuDeviceGet; both outputs are valid for writes.
    let status = unsafe { sys::cuDevicePrimaryCtxGetState(device, &mut flags, &mut active) };
    status != sys::CUresult::CUDA_SUCCESS || active != 0
}

/// GPU `ordinal`'s primary context, retained on a thread of its own while `here` runs
/// on this one, and then bound to this thread; without work `here`, retained on this
/// thread (after the work, when no thread can be started). A panic on the retaining thread
/// (cudarc's loader missing a symbol) goes on on this one, where `guard_panics` turns
/// it into an error.
fn retain_context_beside(
    ordinal: usize,
    here: Vec<OpeningThreadWork>,
) -> std::result::Result<std::sync::Arc<CudaContext>, result::DriverError> {
    if here.is_empty() {
        return CudaContext::new(ordinal);
    }
    let retained = std::thread::scope(|scope| {
        let retaining = std::thread::Builder::new()
            .name("cudajit-open-gpu".into())
            .spawn_scoped(scope, move || CudaContext::new(ordinal));
        for work in here {
            work();
        }
        retaining.map(|thread| {
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    });
    match retained {
        Ok(ctx) => {
            let ctx = ctx?;
            ctx.bind_to_thread()?;
            Ok(ctx)
        }
        Err(_) => CudaContext::new(ordinal),
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
        let created = ContextCreated::default();
        let meanwhile: Vec<_> = inventory::iter::<WhileAGpuOpens>
            .into_iter()
            .filter_map(|work| (work.0)(ordinal, created.clone()))
            .collect();
        let here: Vec<_> = inventory::iter::<OnTheOpeningThread>
            .into_iter()
            .filter_map(|work| (work.0)(ordinal))
            .collect();
        let ctx = retain_context_beside(ordinal, here).call("cuDevicePrimaryCtxRetain");
        created.set();
        for thread in meanwhile {
            // A panic on that thread only loses the warm-up.
            let _ = thread.join();
        }
        let ctx = ctx?;
        // A launch, and so usually a first compile, follows: what it will need (the
        // cache key's digests of the compiler's files) is prepared meanwhile.
        for work in inventory::iter::<WhenAGpuOpens> {
            (work.0)(&ctx);
        }
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
                spare_events: Default::default(),
            }),
        ))
    })
}
