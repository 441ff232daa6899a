//! Per-reader events (see `crate::memory::allocation`): which arrays a stream read in its latest
//! launches, so that the first later launch on the stream that does not read them
//! records one event before itself and hands it to them. A writer on another stream
//! then waits for that event: for the stream's work up to the read, not for the work
//! queued there since.
//!
//! Launches that read no array written on another stream leave nothing pending and
//! pay one relaxed atomic load; a launch that reads the same arrays as the one before
//! pays an uncontended lock and a comparison per pending array, no driver call.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{DriverResultExt, Result};

/// At most this many arrays wait on one stream for their event; further ones are
/// waited for as the stream's queue (never less than needed).
const MAX_PENDING: usize = 64;

/// An event recorded on a stream after some arrays' last read there, shared by them.
pub(crate) struct RecordedEvent {
    pub(crate) raw: sys::CUevent,
    device: Device,
    generation: u64,
}

// SAFETY: an event handle may be used from any thread whose current context is the
// device's (every user binds it first).
unsafe impl Send for RecordedEvent {}
unsafe impl Sync for RecordedEvent {}

impl RecordedEvent {
    /// A new event recorded on `stream` now (the device's context is current).
    fn record_on(device: &Device, stream: sys::CUstream) -> Result<Arc<RecordedEvent>> {
        let raw = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .call("cuEventCreate")?;
        let event = Arc::new(RecordedEvent {
            raw,
            device: device.clone(),
            generation: device.generation(),
        });
        // SAFETY: a live event and stream of the current context.
        unsafe { result::event::record(raw, stream) }.call("cuEventRecord")?;
        Ok(event)
    }

    /// An event that is never passed to the driver (tests of the pure decisions).
    #[cfg(test)]
    pub(crate) fn fake(device: &Device, raw: usize) -> Arc<RecordedEvent> {
        Arc::new(RecordedEvent {
            raw: raw as sys::CUevent,
            device: device.clone(),
            generation: device.generation(),
        })
    }
}

impl Drop for RecordedEvent {
    fn drop(&mut self) {
        // A reset destroyed the events made before it; a simulator has none.
        if let Some(_guard) = self.device.bind_if_current(self.generation) {
            // SAFETY: made in `record_on`, destroyed once; a wait already queued on
            // it keeps its meaning.
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}

/// Memory whose readers take the event recorded after their read: a device
/// allocation (`crate::memory::allocation`), named through this trait so that the
/// streams holding pending reads sit below the allocations that remember streams.
pub(crate) trait ReadTracked: Send + Sync {
    /// Gives the reader on `stream` (if it still reads the memory and has no event
    /// yet) `event`, recorded there after its last read.
    fn note_read_event(&self, stream: sys::CUstream, event: &Arc<RecordedEvent>);
}

/// The arrays a stream read in its latest launches whose reads have no event yet.
#[derive(Default)]
#[repr(C)]
pub(crate) struct PendingReads {
    /// Whether `arrays` is non-empty (the launch fast path checks only this).
    any: AtomicBool,
    arrays: Mutex<Vec<Weak<dyn ReadTracked>>>,
}

/// The address of an array, as `uses` compares it.
fn address<T: ?Sized>(array: *const T) -> *const () {
    array as *const ()
}

impl PendingReads {
    /// Whether reads are pending on the stream ([`before_launch`](Self::before_launch)
    /// may then call the driver).
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.any.load(Ordering::Relaxed)
    }

    /// Before a launch on `stream` that uses `used` (by the address of each array's
    /// memory): the pending arrays it does not use get one event recorded now, after
    /// their last read. The device's context is current.
    #[inline]
    pub(crate) fn before_launch(
        &self,
        device: &Device,
        stream: sys::CUstream,
        uses: impl Fn(*const ()) -> bool,
    ) -> Result<()> {
        if !self.any.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.settle(device, stream, &uses)
    }

    #[cold]
    fn settle(
        &self,
        device: &Device,
        stream: sys::CUstream,
        uses: &dyn Fn(*const ()) -> bool,
    ) -> Result<()> {
        let mut arrays = self.arrays.lock().unwrap_or_else(|p| p.into_inner());
        let is_used = |a: &Weak<dyn ReadTracked>| uses(address(Weak::as_ptr(a)));
        if arrays.iter().all(is_used) {
            return Ok(());
        }
        let settled: Vec<Arc<dyn ReadTracked>> = arrays
            .iter()
            .filter(|a| !is_used(a))
            .filter_map(Weak::upgrade)
            .collect();
        arrays.retain(is_used);
        self.any.store(!arrays.is_empty(), Ordering::Relaxed);
        drop(arrays);
        if settled.is_empty() {
            return Ok(());
        }
        let event = device.watch(RecordedEvent::record_on(device, stream))?;
        for array in &settled {
            array.note_read_event(stream, &event);
        }
        Ok(())
    }

    /// After a launch: `read` are the arrays it read as a tracked reader.
    pub(crate) fn after_launch<'a, A: ReadTracked + 'static>(
        &self,
        read: impl Iterator<Item = &'a Arc<A>>,
    ) {
        let mut arrays = self.arrays.lock().unwrap_or_else(|p| p.into_inner());
        for array in read {
            let known = arrays
                .iter()
                .any(|a| address(Weak::as_ptr(a)) == address(Arc::as_ptr(array)));
            if !known && arrays.len() < MAX_PENDING {
                let pending: Weak<A> = Arc::downgrade(array);
                arrays.push(pending);
            }
        }
        self.any.store(!arrays.is_empty(), Ordering::Relaxed);
    }
}
