//! The `Device` side of a GPU context's health (see `crate::executor::health`, which owns
//! the state and the reset protocol): binding the context with its guard, the
//! fast-path liveness check every entry point asks, marking the context lost after a
//! sticky error, and the reset itself.

use cudarc::driver::sys;

use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};
use crate::executor::health::{ContextGuard, Health};

impl Device {
    #[inline]
    fn health(&self) -> Option<&Health> {
        self.launch_health()
    }

    /// Makes this GPU's context current on the calling thread and keeps a reset from
    /// running until the guard drops (see the module documentation); nothing on the
    /// simulator. Take it before checking an object's generation. What the executor's
    /// `bind` does, from the device's own copies of the health and context handle.
    #[inline]
    pub(crate) fn bind(&self) -> Result<ContextGuard<'_>> {
        match self.launch_context() {
            Some((health, ctx)) => {
                let guard = health.enter();
                crate::executor::make_current_raw(ctx)?;
                Ok(guard)
            }
            None => self.executor().bind(),
        }
    }

    /// For destructors of GPU objects made in context `generation`: the context bound
    /// and guarded if the object is still live in it, `None` if a reset frees (or
    /// freed) it or the context is lost (or this is the simulator).
    pub(crate) fn bind_if_current(&self, generation: u64) -> Option<ContextGuard<'_>> {
        self.executor().bind_if_current(generation)
    }

    /// The context generation objects of this device are made in (0 on the simulator).
    pub(crate) fn generation(&self) -> u64 {
        self.health().map_or(0, Health::generation)
    }

    /// `Err(ContextLost)` once the context is lost: every entry point asks first.
    #[inline]
    pub(crate) fn ensure_alive(&self) -> Result<()> {
        match self.health() {
            Some(health) if health.is_lost() => Err(health
                .cause()
                .unwrap_or_else(|| self.lost_error("the context was lost".into()))),
            _ => Ok(()),
        }
    }

    /// Whether an object made in context `generation` may be used now: the context is
    /// not lost and was not reset since (always on the simulator). One call through
    /// the executor and two loads from one cache line: the launch path's check.
    #[inline]
    pub(crate) fn is_usable_in(&self, generation: u64) -> bool {
        match self.health() {
            Some(health) => !health.is_lost() & (health.generation() == generation),
            None => true,
        }
    }

    /// Whether a sticky error has made the context unusable (until [`Device::reset`]).
    pub fn is_lost(&self) -> bool {
        self.health().is_some_and(Health::is_lost)
    }

    /// Remembers the kernel named `name` (a loaded kernel's own name, which lives as
    /// long as the process) as the most recently launched one.
    #[inline]
    pub(crate) fn note_launch(&self, name: &'static String) {
        if let Some(health) = self.health() {
            health.note_launch(name);
        }
    }

    /// Passes `result` through, except that a sticky driver error marks the context
    /// lost and becomes `Err(ContextLost)`.
    pub(crate) fn watch<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Err(error) => Err(match error.sticky_cause() {
                Some(cause) => self.mark_lost(cause.to_string()),
                None => error,
            }),
            ok => ok,
        }
    }

    #[cold]
    fn mark_lost(&self, cause: String) -> Error {
        let Some(health) = self.health() else {
            return Error::Driver {
                call: "cuCtxSynchronize",
                message: cause,
            };
        };
        // The first error found stays the one reported.
        health.mark_lost(|| self.lost_error(cause))
    }

    /// What `reset` says after a sticky error: the `ContextLost`'s kernel and cause.
    #[cold]
    fn restart_error(&self) -> Error {
        match self.ensure_alive() {
            Err(Error::ContextLost {
                ordinal,
                kernel,
                cause,
            }) => Error::RestartRequired {
                ordinal,
                kernel,
                cause,
            },
            _ => Error::RestartRequired {
                ordinal: self.ordinal(),
                kernel: "(none)".into(),
                cause: "the context was lost".into(),
            },
        }
    }

    fn lost_error(&self, cause: String) -> Error {
        let kernel = self
            .health()
            .map_or_else(|| "(none)".to_string(), Health::last_kernel);
        Error::ContextLost {
            ordinal: self.ordinal(),
            kernel,
            cause,
        }
    }

    /// Resets the GPU's context: frees every device array, stream, event and loaded
    /// kernel of this device in this process, then makes the device usable again.
    /// Objects made before the reset are refused afterwards
    /// ([`Error::StaleAfterReset`]); kernels are loaded again at their next launch. It
    /// is safe while other threads use the device: it waits for their operations in
    /// flight (a launch with host slices, a synchronisation, a copy) to finish, and
    /// theirs started meanwhile wait for it. `Err` on the simulator, which has no
    /// context to lose.
    ///
    /// After a sticky error ([`Error::ContextLost`]: an illegal address, a hardware
    /// exception) it is `Err(`[`Error::RestartRequired`]`)` and the device stays lost:
    /// the CUDA driver refuses the process every new context on the device (measured
    /// on driver 580; see `crate::executor::health`). Restart the process, e.g. run work that
    /// may fault in a child process; the GPU itself works for a new process.
    pub fn reset(&self) -> Result<()> {
        let cuda = self.cuda("reset")?;
        if cuda.health.held_by_this_thread() {
            return Err(Error::Driver {
                call: "cuDevicePrimaryCtxReset",
                message: "`Device::reset` was called while this thread uses the device".into(),
            });
        }
        // Waits for every operation in flight in other threads; those that start
        // meanwhile wait for the reset and then refuse objects made before it.
        let _exclusive = cuda.health.exclusive();
        if cuda.health.is_lost() {
            return Err(self.restart_error());
        }
        let ctx = &cuda.ctx;
        // SAFETY: resets the primary context of this device, which cudarc retains.
        unsafe { sys::cuDevicePrimaryCtxReset_v2(ctx.cu_device()) }
            .result()
            .call("cuDevicePrimaryCtxReset")?;
        // The reset destroys the context: its handle answers CONTEXT_IS_DESTROYED until
        // the primary context is retained again, which (measured on the H100, driver
        // 580) brings it back under the same handle. That retain stands in for the one
        // cudarc took and releases when its context drops.
        let mut retained: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: `retained` is a valid out-pointer; the device ordinal is cudarc's.
        unsafe { sys::cuDevicePrimaryCtxRetain(&mut retained, ctx.cu_device()) }
            .result()
            .call("cuDevicePrimaryCtxRetain")?;
        if retained != ctx.cu_ctx() {
            return Err(Error::Driver {
                call: "cuDevicePrimaryCtxRetain",
                message: "the device's primary context came back under a new handle after the \
                          reset; restart the process to use this GPU again"
                    .to_string(),
            });
        }
        let health = &cuda.health;
        health.next_generation();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // The reset freed every panic record: the pool's are forgotten, the streams'
        // replaced (a stream made before the reset is refused by launches anyway).
        cuda.records.forget_all();
        for faults in self.all_faults() {
            faults.renew(ctx, &cuda.health)?;
        }
        health.recovered();
        Ok(())
    }
}
