//! The CUDA driver's state for one GPU: its primary context, its health, its pool of
//! panic records and its stream-ordered memory pool (how it answers the executor
//! trait is in `crate::executor`; how a GPU is opened, `open_gpu`'s).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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

/// Events that make one stream wait for another's queue. An array used on another
/// stream than its last use (every launch of the bench's alternating row) records an
/// event on the earlier stream and makes the later one wait for it.
///
/// **One event per earlier stream**, kept for the context's lifetime and recorded only
/// on that stream, found without a lock: two threads ordering after the same stream at
/// once may record it one after the other before either waits, and a wait then covers
/// the later record, which is the same stream's queue at a later point: never less
/// than that thread's own record covered. Reuse is what the driver documents: once
/// `cuStreamWaitEvent` returned, the event may be recorded again without effect on the
/// wait already queued. The table holds [`STREAM_EVENTS`] streams (a stream handle
/// reused by a new stream keeps the event: it is still recorded on one stream only);
/// waits for further streams take an event from a pool under a lock, as before the
/// table (issue 27: the pool's two locks were most of the ordering's own cost).
/// A reset frees the context's events: those of an older generation are forgotten,
/// never used or destroyed.
#[derive(Default)]
pub(crate) struct SpareEvents {
    /// The context generation the table's events were made in.
    generation: AtomicU64,
    /// `(stream tag, event)`: the stream's handle + 1 (0: a free place), and its event
    /// (0 while being made, or when making it failed: then the pool serves).
    streams: [(AtomicUsize, AtomicUsize); STREAM_EVENTS],
    /// Held while the table is emptied for a new generation.
    renewing: Mutex<()>,
    /// `(generation, events)` of the context they were made in.
    free: Mutex<(u64, Vec<sys::CUevent>)>,
}

// SAFETY: event handles are context-wide driver objects, usable from any thread whose
// current context is theirs (every user binds it first); a pooled event is used by one
// waiter at a time (popped under the lock), a table's only on its stream (see above).
unsafe impl Send for SpareEvents {}
unsafe impl Sync for SpareEvents {}

/// Spare events kept per device; more are destroyed after use.
const SPARE_EVENTS: usize = 16;
/// Earlier streams that keep an event of their own.
const STREAM_EVENTS: usize = 8;

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
        if let Some(event) = self.stream_event(generation, before) {
            // Made in this generation, recorded only on `before`.
            return record_and_wait(event, before, waiter);
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
        // Owned by this call: no other record comes between.
        let ordered = record_and_wait(event, before, waiter);
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

    /// The event of `before` in the table (made on its first use), or `None` when the
    /// table is full or making it failed.
    #[inline]
    fn stream_event(&self, generation: u64, before: sys::CUstream) -> Option<sys::CUevent> {
        if self.generation.load(Ordering::Acquire) != generation {
            self.renew(generation);
        }
        let tag = (before as usize).wrapping_add(1);
        for (stream, event) in &self.streams {
            let mut held = stream.load(Ordering::Acquire);
            if held == 0 {
                held = match stream.compare_exchange(0, tag, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => return self.make_event(event),
                    Err(now) => now,
                };
            }
            if held == tag {
                let event = event.load(Ordering::Acquire);
                return (event != 0).then_some(event as sys::CUevent);
            }
        }
        None
    }

    /// Makes the event of the place just taken.
    #[cold]
    fn make_event(&self, place: &AtomicUsize) -> Option<sys::CUevent> {
        let made = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).ok()?;
        place.store(made as usize, Ordering::Release);
        Some(made)
    }

    /// Empties the table for a new context generation (the reset destroyed its events).
    /// No operation of the new generation used the table before: each checks the
    /// generation first, and a reset never runs during one (`crate::executor::health`).
    #[cold]
    fn renew(&self, generation: u64) {
        let _renewing = self.renewing.lock().unwrap_or_else(|p| p.into_inner());
        if self.generation.load(Ordering::Acquire) != generation {
            for (stream, event) in &self.streams {
                stream.store(0, Ordering::Relaxed);
                event.store(0, Ordering::Relaxed);
            }
            self.generation.store(generation, Ordering::Release);
        }
    }
}

/// Records `event` on `before` and makes `waiter` wait for it.
fn record_and_wait(
    event: sys::CUevent,
    before: sys::CUstream,
    waiter: sys::CUstream,
) -> Result<()> {
    // SAFETY: (the callers') both streams are live and belong to the current context,
    // as does the event.
    unsafe { result::event::record(event, before) }
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
        })
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
