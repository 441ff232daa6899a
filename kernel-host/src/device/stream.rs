//! Streams (ordered queues of GPU work) and events (points in a stream, used to time
//! kernels: `Event::record(&s)`, launch, `Event::record(&s)`, `start.elapsed_ms(&end)`).
//!
//! Streams made here are *non-blocking* streams (`CU_STREAM_NON_BLOCKING`): no implicit
//! order with the legacy NULL stream, which would cost the driver work at every launch
//! (issue 27). Device arrays order their own uses across any streams instead, the NULL
//! stream's copies and launches included (`crate::memory::allocation`): a copy to the
//! host after a launch on any stream waits for the launch's event, so
//! `array.to_host()` sees the kernel's writes, as with `cudaStreamCreate` in the CUDA
//! runtime. A stream is kept alive (`StreamRef`) while an array remembers it as the
//! stream of its last use. Work that no array orders (raw pointers handed to other
//! libraries) is ordered by the caller: synchronise the stream first.
//!
//! On the simulator a launch runs to completion before it returns, so a stream only
//! names its device, synchronising reports a deferred fault, and an event records the
//! host clock when it is recorded (after the launches before it completed).

use std::any::Any;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudarc::driver::result;
use cudarc::driver::sys;

use crate::backend::Backend;
use crate::device::marks::PendingReads;
use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};
use crate::executor::panic::StreamFaults;

/// A queue of GPU work on one device.
pub struct Stream {
    /// The driver stream, shared with the device arrays that remember it as the stream
    /// of their last use (`None`: the legacy NULL stream; a simulated stream has a
    /// handle with a NULL driver stream, which holds what a graph capture records).
    handle: StreamRef,
    device: Device,
    /// Where this stream's asynchronous launches report device-side panics; `None`
    /// for the default stream, whose launches report into their thread's record (see
    /// `crate::executor::panic`).
    faults: Option<Arc<StreamFaults>>,
    /// The device's context generation when the stream was made (see `crate::executor::health`).
    generation: u64,
}

/// A stream as device arrays remember it (see `crate::memory::allocation`): `None` is the legacy
/// NULL stream. Holding one keeps the driver stream alive, so its handle cannot be
/// reused for another stream while an array still refers to it.
pub(crate) type StreamRef = Option<Arc<StreamHandle>>;

/// A driver stream and who destroys it. `repr(C)`: what every launch reads (the
/// handle, the capture flag, whether reads are pending) comes first, in one cache line.
#[repr(C)]
pub(crate) struct StreamHandle {
    pub(crate) raw: sys::CUstream,
    /// The graph being captured on this stream (see `crate::launch::graph`); checked with one
    /// relaxed load per launch.
    pub(crate) capturing: std::sync::atomic::AtomicBool,
    /// Arrays this stream's latest launches read that wait for an event after the
    /// read (see `crate::device::marks`).
    pub(crate) pending_reads: PendingReads,
    device: Device,
    generation: u64,
    owner: StreamOwner,
    /// What the capture has seen: a `crate::launch::graph::CaptureLog`, boxed as `Any`
    /// because the launches it records name streams (touched only while capturing).
    pub(crate) capture: Mutex<Option<Box<dyn Any>>>,
}

pub(crate) enum StreamOwner {
    /// Made by `Stream::create`, destroyed when the last reference goes.
    Ours,
    /// A cudarc stream (kept alive by the reference).
    Cudarc(#[allow(dead_code)] Arc<cudarc::driver::CudaStream>),
    /// A handle another library owns and promised to keep alive.
    Foreign,
}

// SAFETY: a CUstream handle may be used from any thread once its context is current,
// which every user ensures through `Device::bind`.
unsafe impl Send for StreamHandle {}
unsafe impl Sync for StreamHandle {}

impl StreamHandle {
    pub(crate) fn new(raw: sys::CUstream, device: &Device, owner: StreamOwner) -> Arc<Self> {
        Arc::new(StreamHandle {
            raw,
            generation: device.generation(),
            device: device.clone(),
            owner,
            capturing: std::sync::atomic::AtomicBool::new(false),
            capture: Mutex::new(None),
            pending_reads: Default::default(),
        })
    }
}

impl Drop for StreamHandle {
    fn drop(&mut self) {
        // A reset destroyed the streams made before it (or will: the guard is refused
        // while one waits).
        if !matches!(self.owner, StreamOwner::Ours) {
            return;
        }
        if let Some(_guard) = self.device.bind_if_current(self.generation) {
            // Queued work still completes; the driver frees the stream afterwards.
            // SAFETY: created by `Stream::create` and destroyed only here, once no
            // stream or array refers to it.
            let _ = unsafe { result::stream::destroy(self.raw) };
        }
    }
}

/// The raw handle of a remembered stream (NULL for the legacy stream).
pub(crate) fn raw_of(stream: &StreamRef) -> sys::CUstream {
    stream.as_ref().map_or(std::ptr::null_mut(), |h| h.raw)
}

// SAFETY: a CUstream handle may be used from any thread once its context is current,
// which every method ensures through `Device::bind`.
unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("device", &self.device.id())
            .field("raw", &self.cu_stream())
            .finish()
    }
}

impl Stream {
    pub(crate) fn null(device: Device) -> Stream {
        Stream {
            handle: None,
            faults: None,
            generation: device.generation(),
            device,
        }
    }

    pub(crate) fn create(device: Device) -> Result<Stream> {
        // No reset between the record, the stream and the generation they remember
        // (nothing to guard on the simulator).
        let _guard = device.bind()?;
        device.ensure_alive()?;
        let faults = device.new_faults()?;
        let raw = device.executor().create_stream()?;
        device.register_stream(&faults);
        // A simulated stream has no queue (no driver stream), but faults of its own, and
        // a handle that holds what a graph capture records.
        let (raw, owner) = raw.map_or((std::ptr::null_mut(), StreamOwner::Foreign), |raw| {
            (raw, StreamOwner::Ours)
        });
        Ok(Stream {
            handle: Some(StreamHandle::new(raw, &device, owner)),
            generation: device.generation(),
            faults: Some(faults),
            device: device.clone(),
        })
    }

    pub(crate) fn from_parts(
        handle: StreamRef,
        device: Device,
        faults: Arc<StreamFaults>,
    ) -> Stream {
        Stream {
            handle,
            generation: device.generation(),
            device,
            faults: Some(faults),
        }
    }

    /// The stream as device arrays remember it.
    pub(crate) fn handle(&self) -> &StreamRef {
        &self.handle
    }

    /// `Err` when the stream was made before a reset of its device (the reset
    /// destroyed it) or the device's context is lost.
    #[inline]
    pub(crate) fn ensure_current(&self) -> Result<()> {
        if self.device.is_usable_in(self.generation) {
            return Ok(());
        }
        self.stale_or_lost()
    }

    /// Why [`Stream::ensure_current`] refused the stream.
    #[cold]
    fn stale_or_lost(&self) -> Result<()> {
        self.device.ensure_alive()?;
        if self.generation != self.device.generation() {
            return Err(Error::StaleAfterReset {
                what: "this stream",
                ordinal: self.device.ordinal(),
            });
        }
        Ok(())
    }

    /// The faults of a created stream, borrowed (`None` for the default stream, whose
    /// faults are the calling thread's): the launch path reads them without the
    /// reference count's two atomic operations that [`Stream::faults`] costs.
    #[inline]
    pub(crate) fn own_faults(&self) -> Option<&StreamFaults> {
        self.faults.as_deref()
    }

    /// Where this stream's asynchronous launches (by the calling thread, for the
    /// default stream) report faults.
    #[inline]
    pub(crate) fn faults(&self) -> Result<Arc<StreamFaults>> {
        match &self.faults {
            Some(faults) => Ok(faults.clone()),
            None => self.device.thread_faults(),
        }
    }

    /// A new stream on the default device.
    pub fn new() -> Result<Stream> {
        Device::default_ref()?.new_stream()
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The raw driver handle (NULL for the default stream, and on the simulator), for
    /// interop.
    pub fn cu_stream(&self) -> sys::CUstream {
        raw_of(&self.handle)
    }

    /// Waits for the work queued so far, then reports the first device-side panic of a
    /// launch on this stream (and of no other stream's launch).
    pub fn synchronize(&self) -> Result<()> {
        let _guard = self.device.bind()?;
        self.ensure_current()?;
        self.device
            .watch(self.device.executor().synchronize_stream(self.cu_stream()))?;
        crate::device::run_at_synchronize(&self.device);
        self.faults()?.take(self.device.modules())
    }
}

/// A marker in a stream; the time between two completed events is measured by the GPU
/// (on the simulator: by the host clock).
pub struct Event {
    marker: Marker,
    device: Device,
    /// The device's context generation when the event was made (see `crate::executor::health`).
    generation: u64,
}

enum Marker {
    Cuda(sys::CUevent),
    /// When the event was last recorded (`None`: never).
    Sim(Mutex<Option<Instant>>),
}

// SAFETY: as for `Stream`.
unsafe impl Send for Event {}
unsafe impl Sync for Event {}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.marker {
            Marker::Cuda(raw) => f.debug_struct("Event").field("raw", raw).finish(),
            Marker::Sim(at) => f.debug_struct("Event").field("recorded", at).finish(),
        }
    }
}

impl Event {
    /// A new timing-capable event on `device`, not yet recorded.
    pub fn new(device: &Device) -> Result<Event> {
        let marker = {
            let _guard = device.bind()?;
            device.ensure_alive()?;
            match device.executor().create_event()? {
                Some(raw) => Marker::Cuda(raw),
                // The simulator times events with the host clock.
                None => Marker::Sim(Mutex::new(None)),
            }
        };
        Ok(Event {
            marker,
            generation: device.generation(),
            device: device.clone(),
        })
    }

    /// Creates an event and records it at the current end of `stream`.
    pub fn record(stream: &Stream) -> Result<Event> {
        let event = Event::new(stream.device())?;
        event.record_on(stream)?;
        Ok(event)
    }

    /// Re-records this event at the current end of `stream`.
    pub fn record_on(&self, stream: &Stream) -> Result<()> {
        match &self.marker {
            Marker::Cuda(raw) => {
                let _guard = self.device.bind()?;
                self.ensure_current()?;
                stream.ensure_current()?;
                // SAFETY: both handles are live and belong to the current context (a
                // stream of another backend is NULL: the default stream).
                unsafe { result::event::record(*raw, stream.cu_stream()) }.call("cuEventRecord")
            }
            Marker::Sim(at) => {
                *at.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
                Ok(())
            }
        }
    }

    /// Waits until the work before the event has completed (no panic check: this is a
    /// timing helper; synchronise a stream or the device to hear about panics).
    pub fn synchronize(&self) -> Result<()> {
        match &self.marker {
            Marker::Cuda(raw) => {
                let _guard = self.device.bind()?;
                self.ensure_current()?;
                // SAFETY: live event.
                unsafe { result::event::synchronize(*raw) }.call("cuEventSynchronize")
            }
            Marker::Sim(_) => Ok(()),
        }
    }

    /// Milliseconds between `self` (start) and `end`, waiting for `end` to complete.
    /// Resolution is about half a microsecond on a GPU.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        end.synchronize()?;
        match (&self.marker, &end.marker) {
            (Marker::Cuda(start), Marker::Cuda(stop)) => {
                let _guard = self.device.bind()?;
                self.ensure_current()?;
                end.ensure_current()?;
                // SAFETY: both live; `end` completed, `self` was recorded before it.
                unsafe { result::event::elapsed(*start, *stop) }.call("cuEventElapsedTime")
            }
            (Marker::Sim(start), Marker::Sim(stop)) => {
                let start = *start.lock().unwrap_or_else(|p| p.into_inner());
                let stop = *stop.lock().unwrap_or_else(|p| p.into_inner());
                match (start, stop) {
                    (Some(start), Some(stop)) => {
                        Ok(stop.saturating_duration_since(start).as_secs_f32() * 1e3)
                    }
                    _ => Err(Error::Driver {
                        call: "cuEventElapsedTime",
                        message: "CUDA_ERROR_INVALID_HANDLE: an event was never recorded".into(),
                    }),
                }
            }
            _ => Err(Error::NotSupported {
                operation: "timing between a GPU event and a simulator event",
                backend: Backend::Simulator,
            }),
        }
    }
}

impl Event {
    /// `Err` when the event was made before a reset of its device, or the context is
    /// lost. Call with the context guard held.
    fn ensure_current(&self) -> Result<()> {
        self.device.ensure_alive()?;
        if self.generation != self.device.generation() {
            return Err(Error::StaleAfterReset {
                what: "this event",
                ordinal: self.device.ordinal(),
            });
        }
        Ok(())
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if let Marker::Cuda(raw) = self.marker {
            // A reset destroyed (or will destroy) the events made before it.
            if let Some(_guard) = self.device.bind_if_current(self.generation) {
                // SAFETY: created in `Event::new`, destroyed only here.
                let _ = unsafe { result::event::destroy(raw) };
            }
        }
    }
}

/// Milliseconds between two recorded events: `elapsed_ms(&start, &end)`.
pub fn elapsed_ms(start: &Event, end: &Event) -> Result<f32> {
    start.elapsed_ms(end)
}

impl Device {
    /// The device's default stream: on a GPU the legacy NULL stream (device arrays
    /// order their uses between it and the streams of [`Device::new_stream`]).
    pub fn default_stream(&self) -> Stream {
        Stream::null(self.clone())
    }

    /// A new stream. On a GPU a non-blocking one: device arrays order their uses on
    /// it after their uses on the default stream and others (and the default stream's
    /// copies after its kernels); on the simulator every launch completes before it
    /// returns.
    pub fn new_stream(&self) -> Result<Stream> {
        Stream::create(self.clone())
    }
}
