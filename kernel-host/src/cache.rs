//! The in-memory kernel cache: one [`KernelCache`] static per kernel (emitted by the
//! `#[kernel]` macro) holding the loaded function per device.
//!
//! The hot path (every launch after the first, on the default device) is one atomic
//! load of a `OnceLock`: no hashing, no lock, no allocation. Other devices go through
//! a short mutex-protected list; compiling happens under a per-kernel lock so that
//! threads racing on a first launch compile once.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use cudarc::driver::{result, sys};
use kernel_device::ir::Type;
use kernel_device::source::FnSource;

use crate::device::Device;
use crate::error::{DriverResultExt, Result};
use crate::panic::PanicRecord;
use crate::sim::SimKernel;

/// Per-kernel cache of loaded modules. Built only by generated code, as a `static`.
pub struct KernelCache {
    /// The kernel on the process's default device: the launch fast path.
    default: OnceLock<LoadedKernel>,
    /// The kernel on other devices, by ordinal. Entries are leaked on purpose: they
    /// live as long as the static that owns them.
    others: Mutex<Vec<(usize, &'static LoadedKernel)>>,
    /// Held while compiling, so a kernel is compiled once per device.
    compiling: Mutex<()>,
    /// The kernel's IR for the simulator (the same on every simulated device).
    sim: OnceLock<SimKernel>,
}

impl KernelCache {
    #[allow(clippy::new_without_default)] // only ever a `static`
    pub const fn new() -> Self {
        KernelCache {
            default: OnceLock::new(),
            others: Mutex::new(Vec::new()),
            compiling: Mutex::new(()),
            sim: OnceLock::new(),
        }
    }

    /// The kernel lowered for the simulator, lowering it on first use (a failure is
    /// not remembered: it is returned again by the next launch).
    pub(crate) fn get_sim(&'static self, source: &'static FnSource) -> Result<&'static SimKernel> {
        if let Some(kernel) = self.sim.get() {
            return Ok(kernel);
        }
        let _compiling = self.compiling.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(kernel) = self.sim.get() {
            return Ok(kernel);
        }
        let kernel = SimKernel::lower(source)?;
        Ok(self.sim.get_or_init(|| kernel))
    }

    /// The kernel loaded on `device`, compiling and loading it on first use.
    pub(crate) fn get(
        &'static self,
        source: &'static FnSource,
        device: &Device,
    ) -> Result<&'static LoadedKernel> {
        let is_default = device.is_default();
        if is_default {
            if let Some(kernel) = self.default.get() {
                return Ok(kernel);
            }
        } else if let Some(kernel) = self.find_other(device.ordinal()) {
            return Ok(kernel);
        }
        self.load_slow(source, device, is_default)
    }

    fn find_other(&self, ordinal: usize) -> Option<&'static LoadedKernel> {
        let others = self.others.lock().unwrap_or_else(|p| p.into_inner());
        others.iter().find(|(o, _)| *o == ordinal).map(|(_, k)| *k)
    }

    #[cold]
    fn load_slow(
        &'static self,
        source: &'static FnSource,
        device: &Device,
        is_default: bool,
    ) -> Result<&'static LoadedKernel> {
        let _compiling = self.compiling.lock().unwrap_or_else(|p| p.into_inner());
        // Another thread may have finished while we waited.
        if is_default {
            if let Some(kernel) = self.default.get() {
                return Ok(kernel);
            }
        } else if let Some(kernel) = self.find_other(device.ordinal()) {
            return Ok(kernel);
        }
        let kernel = crate::jit::load(source, device)?;
        if is_default {
            // Cannot be set already: we hold `compiling` and checked above.
            Ok(self.default.get_or_init(|| kernel))
        } else {
            let kernel: &'static LoadedKernel = Box::leak(Box::new(kernel));
            let mut others = self.others.lock().unwrap_or_else(|p| p.into_inner());
            others.push((device.ordinal(), kernel));
            Ok(kernel)
        }
    }
}

/// A kernel loaded into one device's context.
pub(crate) struct LoadedKernel {
    pub(crate) function: sys::CUfunction,
    pub(crate) name: String,
    /// The kernel's parameters as the compiler typed them, for argument checks.
    pub(crate) params: Vec<Type>,
    /// The kernel calls `grid_sync()`: launch it with `cuLaunchCooperativeKernel`.
    pub(crate) cooperative: bool,
    pub(crate) occupancy: crate::cooperative::OccupancyCache,
    /// Dynamic shared memory the function has been allowed so far beyond the default
    /// 48 KiB (0: never raised).
    shared_opt_in: AtomicU32,
    /// Static shared memory of the function (its shared arrays), in bytes.
    pub(crate) static_shared: u32,
    module: Module,
    /// The module's panic record (None for PTX without a panic slot).
    pub(crate) panic: Option<std::sync::Arc<PanicRecord>>,
}

// SAFETY: a CUfunction handle may be launched from any thread with its context current.
unsafe impl Send for LoadedKernel {}
unsafe impl Sync for LoadedKernel {}

impl LoadedKernel {
    pub(crate) fn new(
        module: Module,
        name: String,
        params: Vec<Type>,
        cooperative: bool,
        panic: Option<std::sync::Arc<PanicRecord>>,
    ) -> Result<Self> {
        let c_name = std::ffi::CString::new(name.as_str()).map_err(|_| crate::Error::Compile {
            kernel: name.clone(),
            message: "kernel name contains a NUL byte".into(),
        })?;
        module.device.bind()?;
        // SAFETY: the module is loaded in the current context.
        let function = unsafe { result::module::get_function(module.raw, c_name) }
            .call("cuModuleGetFunction")?;
        // SAFETY: the function was just loaded in the current context.
        let static_shared = unsafe {
            result::function::get_function_attribute(
                function,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            )
        }
        .call("cuFuncGetAttribute")?;
        Ok(LoadedKernel {
            function,
            name,
            params,
            cooperative,
            occupancy: Default::default(),
            shared_opt_in: AtomicU32::new(0),
            static_shared: u32::try_from(static_shared).unwrap_or(0),
            module,
            panic,
        })
    }

    /// Raises `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to at least `bytes`
    /// (once per new maximum; the atomic keeps repeated launches free of driver calls).
    pub(crate) fn allow_shared(&self, bytes: u32) -> Result<()> {
        if self.shared_opt_in.load(Ordering::Relaxed) >= bytes {
            return Ok(());
        }
        // SAFETY: live function of the current context.
        unsafe {
            result::function::set_function_attribute(
                self.function,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .call("cuFuncSetAttribute")?;
        self.shared_opt_in.fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }

    #[allow(dead_code)] // for diagnostics and future per-device checks
    pub(crate) fn device(&self) -> &Device {
        &self.module.device
    }
}

/// A loaded `CUmodule`, unloaded on drop.
pub(crate) struct Module {
    pub(crate) raw: sys::CUmodule,
    pub(crate) device: Device,
}

impl Drop for Module {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: loaded by `jit::load_module`, unloaded only here.
            let _ = unsafe { result::module::unload(self.raw) };
        }
    }
}
