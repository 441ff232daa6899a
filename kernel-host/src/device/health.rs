//! A GPU context that a kernel broke, and its recovery.
//!
//! After a sticky error (an illegal address under `boundscheck = false`, a hardware
//! exception) the driver refuses every call on the context. The first call that meets
//! it returns [`Error::ContextLost`], naming the kernel most recently launched on the
//! context (the driver does not say which kernel faulted); from then on every launch,
//! synchronisation, copy and allocation on the device fails fast with the same error,
//! without calling the driver.
//!
//! **No recovery in the same process.** Measured on the H100 (driver 580) after a real
//! illegal address: resetting the primary context and retaining it again (with the
//! context current or not, with cudarc's retain released or not, twice), or creating a
//! fresh non-primary context, with or without a reset, all answer
//! `CUDA_ERROR_ILLEGAL_ADDRESS`: the driver poisons the process, not just the context.
//! So [`Device::reset`] on a lost device returns [`Error::RestartRequired`] without
//! calling the driver, and the device stays lost; the process must be restarted (a new
//! process uses the GPU normally: `tests/gpu_stress.rs` faults in a child process).
//!
//! Without a sticky error [`Device::reset`] resets the (primary) context: all its
//! device arrays, streams, events and loaded kernels are gone, the device works again,
//! and what was made before the reset is refused ([`Error::StaleAfterReset`]) rather
//! than used: every such object remembers the context's *generation* it was made in.
//!
//! **Reset against other threads.** Every operation that calls the driver on the
//! context, or reads memory the context owns (a panic record), holds a
//! [`ContextGuard`] from its start (its generation checks included) to its end: a
//! shared lock, taken once per thread (nested operations in one thread do not take it
//! again). [`Device::reset`] takes the lock exclusively, so it waits for the operations
//! in flight in other threads and operations started meanwhile wait for it; they then
//! see the new generation and refuse objects made before the reset. Destructors never
//! wait: while a reset is waiting or running they leave the resource to the reset,
//! which frees everything of the old context. Without this, a reset freed the panic
//! records and memory that other threads were reading (a SIGSEGV on the H200).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Mutex, RwLock, RwLockReadGuard};

use cudarc::driver::sys;

use crate::compile::cache::LoadedKernel;
use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};

/// Whether a GPU's context works, and what broke it.
#[derive(Default)]
pub(crate) struct Health {
    /// Incremented by every reset.
    generation: AtomicU64,
    /// Set once a sticky error was seen (the fast-path check).
    lost: AtomicBool,
    /// The error every call returns while `lost`.
    cause: Mutex<Option<Error>>,
    /// The kernel most recently launched on the context (loaded kernels are never
    /// freed, so the pointer stays valid).
    last_kernel: AtomicPtr<LoadedKernel>,
    /// Shared by the operations in flight, exclusive for a reset (see the module
    /// documentation).
    users: RwLock<()>,
}

thread_local! {
    /// The `Health`s (by address) whose shared lock this thread holds: a nested
    /// operation does not take it again (with a reset waiting, a second shared
    /// acquisition would wait for the reset, which waits for the first).
    static HELD: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Proof that no reset runs until it is dropped (see the module documentation); empty
/// on the simulator and for an operation nested in one that holds it.
#[must_use = "the guard protects the context only while it lives"]
pub(crate) struct ContextGuard<'a> {
    held: Option<(RwLockReadGuard<'a, ()>, usize)>,
}

impl ContextGuard<'_> {
    /// A guard that guards nothing (the simulator).
    pub(crate) fn none() -> ContextGuard<'static> {
        ContextGuard { held: None }
    }
}

impl Drop for ContextGuard<'_> {
    fn drop(&mut self) {
        if let Some((_, key)) = &self.held {
            HELD.with(|held| {
                let mut held = held.borrow_mut();
                if let Some(i) = held.iter().rposition(|k| k == key) {
                    held.swap_remove(i);
                }
            });
        }
    }
}

impl Health {
    fn key(&self) -> usize {
        self as *const Health as usize
    }

    fn held_here(&self) -> bool {
        let key = self.key();
        HELD.with(|held| held.borrow().contains(&key))
    }

    fn hold<'a>(&'a self, lock: RwLockReadGuard<'a, ()>) -> ContextGuard<'a> {
        let key = self.key();
        HELD.with(|held| held.borrow_mut().push(key));
        ContextGuard {
            held: Some((lock, key)),
        }
    }

    /// Waits for a running reset, then keeps others from starting until the guard drops.
    pub(crate) fn enter(&self) -> ContextGuard<'_> {
        if self.held_here() {
            return ContextGuard { held: None };
        }
        self.hold(self.users.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// For destructors: a guard if no reset is waiting or running and the context is
    /// still the one of `generation` (and not lost); `None` means the reset frees (or
    /// freed) the resource.
    pub(crate) fn enter_if_current(&self, generation: u64) -> Option<ContextGuard<'_>> {
        let guard = if self.held_here() {
            ContextGuard { held: None }
        } else {
            match self.users.try_read() {
                Ok(lock) => self.hold(lock),
                Err(std::sync::TryLockError::Poisoned(p)) => self.hold(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => return None,
            }
        };
        let current = self.generation.load(Ordering::Acquire) == generation
            && !self.lost.load(Ordering::Acquire);
        current.then_some(guard)
    }

    /// The context generation (see the module documentation).
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }
}

impl Device {
    fn health(&self) -> Option<&Health> {
        self.cuda("health").ok().map(|cuda| &*cuda.health)
    }

    /// Makes this GPU's context current on the calling thread and keeps a reset from
    /// running until the guard drops (see the module documentation); nothing on the
    /// simulator. Take it before checking an object's generation.
    pub(crate) fn bind(&self) -> Result<ContextGuard<'_>> {
        match self.cuda("bind") {
            Ok(cuda) => {
                let guard = cuda.health.enter();
                cuda.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
                Ok(guard)
            }
            Err(_) => Ok(ContextGuard::none()),
        }
    }

    /// For destructors of GPU objects made in context `generation`: the context bound
    /// and guarded if the object is still live in it, `None` if a reset frees (or
    /// freed) it or the context is lost (or this is the simulator).
    pub(crate) fn bind_if_current(&self, generation: u64) -> Option<ContextGuard<'_>> {
        let cuda = self.cuda("bind").ok()?;
        let guard = cuda.health.enter_if_current(generation)?;
        cuda.ctx.bind_to_thread().ok()?;
        Some(guard)
    }

    /// The context generation objects of this device are made in (0 on the simulator).
    pub(crate) fn generation(&self) -> u64 {
        self.health()
            .map_or(0, |h| h.generation.load(Ordering::Acquire))
    }

    /// `Err(ContextLost)` once the context is lost: every entry point asks first.
    #[inline]
    pub(crate) fn ensure_alive(&self) -> Result<()> {
        match self.health() {
            Some(health) if health.lost.load(Ordering::Acquire) => Err(health
                .cause
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
                .unwrap_or_else(|| self.lost_error("the context was lost".into()))),
            _ => Ok(()),
        }
    }

    /// Whether a sticky error has made the context unusable (until [`Device::reset`]).
    pub fn is_lost(&self) -> bool {
        self.health()
            .is_some_and(|h| h.lost.load(Ordering::Acquire))
    }

    /// Remembers `kernel` as the most recently launched one.
    #[inline]
    pub(crate) fn note_launch(&self, kernel: &'static LoadedKernel) {
        if let Some(health) = self.health() {
            health.last_kernel.store(
                kernel as *const LoadedKernel as *mut LoadedKernel,
                Ordering::Relaxed,
            );
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
        let mut kept = health.cause.lock().unwrap_or_else(|p| p.into_inner());
        // The first error found stays the one reported.
        let error = kept.get_or_insert_with(|| self.lost_error(cause)).clone();
        health.lost.store(true, Ordering::Release);
        error
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
        let last = self.health().map_or(std::ptr::null_mut(), |h| {
            h.last_kernel.load(Ordering::Relaxed)
        });
        // SAFETY: loaded kernels are never freed (see `Health::last_kernel`).
        let kernel =
            unsafe { last.as_ref() }.map_or_else(|| "(none)".to_string(), |k| k.name.clone());
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
    /// on driver 580; see `crate::device::health`). Restart the process, e.g. run work that
    /// may fault in a child process; the GPU itself works for a new process.
    pub fn reset(&self) -> Result<()> {
        let cuda = self.cuda("reset")?;
        if cuda.health.held_here() {
            return Err(Error::Driver {
                call: "cuDevicePrimaryCtxReset",
                message: "`Device::reset` was called while this thread uses the device".into(),
            });
        }
        // Waits for every operation in flight in other threads; those that start
        // meanwhile wait for the reset and then refuse objects made before it.
        let _exclusive = cuda.health.users.write().unwrap_or_else(|p| p.into_inner());
        if cuda.health.lost.load(Ordering::Acquire) {
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
        health.generation.fetch_add(1, Ordering::AcqRel);
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // The reset freed every panic record: the pool's are forgotten, the streams'
        // replaced (a stream made before the reset is refused by launches anyway).
        cuda.records.forget_all();
        for faults in self.all_faults() {
            faults.renew(ctx, &cuda.health)?;
        }
        *health.cause.lock().unwrap_or_else(|p| p.into_inner()) = None;
        health
            .last_kernel
            .store(std::ptr::null_mut(), Ordering::Relaxed);
        health.lost.store(false, Ordering::Release);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    /// The reset lock's protocol without a GPU: a reset waits for an operation in
    /// flight; that operation's nested operations do not wait for the reset (no
    /// deadlock); a destructor elsewhere does not wait either, and leaves its resource
    /// to the reset; after the reset, objects of the old generation are not current.
    #[test]
    fn reset_waits_for_operations_and_nested_ones_do_not_deadlock() {
        let health = Arc::new(Health::default());
        let outer = health.enter();
        let resetter = {
            let health = health.clone();
            std::thread::spawn(move || {
                let _exclusive = health.users.write().unwrap();
                health.generation.fetch_add(1, Ordering::AcqRel);
            })
        };
        // Let the reset start waiting.
        while !matches!(
            health.users.try_read(),
            Err(std::sync::TryLockError::WouldBlock)
        ) {
            std::thread::sleep(Duration::from_millis(1));
        }
        {
            // Nested in this thread's operation: neither waits for the reset.
            let _nested = health.enter();
            assert!(health.enter_if_current(0).is_some());
        }
        // Another thread's destructor does not wait: the reset frees the resource.
        let elsewhere = {
            let health = health.clone();
            std::thread::spawn(move || health.enter_if_current(0).is_some())
        };
        assert!(!elsewhere.join().unwrap());
        assert_eq!(health.generation(), 0, "the reset ran during an operation");
        drop(outer);
        resetter.join().unwrap();
        assert_eq!(health.generation(), 1);
        // Objects of generation 0 are stale now; those of 1 are current.
        assert!(health.enter_if_current(0).is_none());
        assert!(health.enter_if_current(1).is_some());
    }
}
