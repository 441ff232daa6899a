//! The CUDA driver's state for one GPU: its primary context, its health, its pool of
//! panic records and its stream-ordered memory pool (how it answers the executor
//! trait is in `crate::executor`; how a GPU is opened, `open_gpu`'s).

use std::sync::{Arc, Mutex};

use cudarc::driver::{result, sys, CudaContext};

use crate::error::{DriverResultExt, Result};
use crate::executor::health::Health;
use crate::executor::panic::{ModuleTable, RecordPool};

/// A GPU's driver state.
pub(crate) struct CudaDevice {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) ordinal: usize,
    /// Every module loaded into this context that can report a device-side panic, by
    /// the tag its panics carry.
    pub(crate) modules: ModuleTable,
    /// Panic records of launches with host slices (one per launch in flight).
    pub(crate) records: RecordPool,
    /// Whether the context works (see `crate::executor::health`).
    pub(crate) health: Arc<Health>,
    /// The stream-ordered pool device arrays are allocated from (see `crate::memory::allocation`).
    pub(crate) pool: PoolState,
    /// Events for one stream's wait on another's queue, reused (see [`SpareEvents`]).
    pub(crate) spare_events: SpareEvents,
}

/// Events that made one stream wait for another's queue, kept for the next such
/// wait: an array used on another stream than its last use (every launch of the
/// bench's alternating row) records one event and waits for it, and creating and
/// destroying it each time cost two driver calls more. Reuse is what the driver
/// documents: once `cuStreamWaitEvent` returned, the event may be recorded again
/// without effect on the wait already queued. A reset frees the context's events:
/// those of an older generation are forgotten, never used or destroyed.
#[derive(Default)]
pub(crate) struct SpareEvents {
    /// `(generation, events)` of the context they were made in.
    free: Mutex<(u64, Vec<sys::CUevent>)>,
}

// SAFETY: event handles are context-wide driver objects, usable from any thread whose
// current context is theirs (every user binds it first); each is used by one waiter
// at a time (popped under the lock).
unsafe impl Send for SpareEvents {}
unsafe impl Sync for SpareEvents {}

/// Spare events kept per device; more are destroyed after use.
const SPARE_EVENTS: usize = 16;

impl SpareEvents {
    /// Makes `waiter` wait for the work queued on `before` so far (nothing when they
    /// are the same stream). The context of `generation` is current and guarded.
    pub(crate) fn order_after(
        &self,
        generation: u64,
        waiter: sys::CUstream,
        before: sys::CUstream,
    ) -> Result<()> {
        if waiter == before {
            return Ok(());
        }
        let spare = {
            let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
            if free.0 != generation {
                // Made before a reset, which destroyed them.
                free.1.clear();
                free.0 = generation;
            }
            free.1.pop()
        };
        let event = match spare {
            Some(event) => event,
            None => result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
                .call("cuEventCreate")?,
        };
        // SAFETY: both streams are live (held by the caller) and belong to the current
        // context, as does the event (made in this generation, owned by this call).
        let ordered = unsafe { result::event::record(event, before) }
            .call("cuEventRecord")
            .and_then(|()| {
                unsafe {
                    result::stream::wait_event(
                        waiter,
                        event,
                        sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                    )
                }
                .call("cuStreamWaitEvent")
            });
        let kept = ordered.is_ok() && {
            let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
            let keep = free.0 == generation && free.1.len() < SPARE_EVENTS;
            if keep {
                free.1.push(event);
            }
            keep
        };
        if !kept {
            // SAFETY: made in this generation, owned by this call, destroyed once; a
            // wait already queued on it keeps its meaning.
            let _ = unsafe { result::event::destroy(event) };
        }
        ordered
    }
}

/// The device's memory pool, configured once per context generation (see
/// `crate::memory::pool`).
#[derive(Default)]
pub(crate) struct PoolState {
    /// `(generation, pool)`; `None` until first used.
    pub(crate) pool: Mutex<Option<(u64, sys::CUmemoryPool)>>,
}

// SAFETY: a pool handle is a device-wide driver object, usable from any thread.
unsafe impl Send for PoolState {}
unsafe impl Sync for PoolState {}
