//! The in-memory kernel cache: one [`KernelCache`] static per kernel (emitted by the
//! `#[kernel]` macro) holding the loaded function per device.
//!
//! The hot path (every launch after the first, on the default device) is one atomic
//! load of a `OnceLock`: no hashing, no lock, no allocation. Other devices go through
//! a short mutex-protected list; compiling happens under a per-kernel lock so that
//! threads racing on a first launch compile once.

use std::sync::{Mutex, OnceLock};

use kernel_device::source::FnSource;

use crate::compile::loaded::{FirstLaunch, LoadedKernel};
use crate::compile::sim_kernel::SimKernel;
use crate::device::Device;
use crate::error::Result;

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
        self.get_for_launch(source, device, None)
    }

    /// [`get`](Self::get) for a launch: a first use that `first_launch` says its
    /// kernel's launch proof covers compiles only the copy that launch runs
    /// (`crate::compile::jit::load`).
    #[inline]
    pub(crate) fn get_for_launch(
        &'static self,
        source: &'static FnSource,
        device: &Device,
        first_launch: FirstLaunch<'_>,
    ) -> Result<&'static LoadedKernel> {
        let is_default = device.is_default();
        let generation = device.generation();
        if let Some(kernel) = self.loaded(device, is_default, generation) {
            return Ok(kernel);
        }
        self.load_slow(source, device, is_default, first_launch)
    }

    /// The kernel already loaded on `device` in context generation `generation`: the
    /// default slot's (one atomic load) when `device` is the default device, else (or
    /// when that one is stale) one of the others.
    #[inline]
    fn loaded(
        &'static self,
        device: &Device,
        is_default: bool,
        generation: u64,
    ) -> Option<&'static LoadedKernel> {
        if is_default {
            if let Some(kernel) = self.default.get() {
                if kernel.generation == generation {
                    return Some(kernel);
                }
            }
        }
        self.find_other(device.ordinal(), generation)
    }

    /// The kernel loaded on GPU `ordinal` in context generation `generation`, other
    /// than the default slot's.
    fn find_other(&self, ordinal: usize, generation: u64) -> Option<&'static LoadedKernel> {
        let others = self.others.lock().unwrap_or_else(|p| p.into_inner());
        others
            .iter()
            .find(|(o, k)| *o == ordinal && k.generation == generation)
            .map(|(_, k)| *k)
    }

    #[cold]
    fn load_slow(
        &'static self,
        source: &'static FnSource,
        device: &Device,
        is_default: bool,
        first_launch: FirstLaunch<'_>,
    ) -> Result<&'static LoadedKernel> {
        let _compiling = self.compiling.lock().unwrap_or_else(|p| p.into_inner());
        // Another thread may have finished while we waited.
        let generation = device.generation();
        if let Some(kernel) = self.loaded(device, is_default, generation) {
            return Ok(kernel);
        }
        let kernel = crate::compile::jit::load(source, device, first_launch)?;
        if is_default && self.default.get().is_none() {
            // Cannot be set meanwhile: we hold `compiling`.
            Ok(self.default.get_or_init(|| kernel))
        } else {
            // Another device, or the default device after a reset (the default slot
            // keeps the stale kernel, which is never launched again).
            let kernel: &'static LoadedKernel = Box::leak(Box::new(kernel));
            let mut others = self.others.lock().unwrap_or_else(|p| p.into_inner());
            others.push((device.ordinal(), kernel));
            Ok(kernel)
        }
    }
}
