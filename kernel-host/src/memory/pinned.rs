//! Pinned (page-locked) host buffers and asynchronous copies between them and device
//! arrays (CuPy's `cupyx.empty_pinned`, Numba's `cuda.pinned_array` with
//! `copy_to_device(stream=...)`).
//!
//! An asynchronous copy returns a [`CopyGuard`] that holds the borrows of both sides
//! until the copy has completed (`guard.wait()`, or dropping it, waits). Safe code
//! cannot reach memory a copy still uses even if the guard is leaked: the buffer
//! remembers its last copy's event and every host access, and its drop, wait for it
//! first; the device side is ordered like any use of the array (`crate::memory::allocation`).
//!
//! On the simulator a pinned buffer is ordinary host memory and a copy completes
//! before it returns.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex};

use cudarc::driver::{result, sys};

use crate::device::stream::Stream;
use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceElem;

/// `len` elements of `T` in page-locked host memory (zero-initialised), the source or
/// destination of asynchronous copies.
pub struct PinnedBuffer<T: DeviceElem> {
    ptr: *mut T,
    len: usize,
    device: Device,
    generation: u64,
    /// `Some` on a GPU: the memory is from `cuMemHostAlloc`; `None`: a leaked `Vec`
    /// (the simulator), given back on drop.
    pinned: bool,
    /// The completion of the last asynchronous copy that uses the buffer.
    pending: Mutex<Option<Arc<CopyEvent>>>,
}

// SAFETY: plain host memory of `Send`/`Sync` scalars; the pending copy is behind a lock.
unsafe impl<T: DeviceElem + Send> Send for PinnedBuffer<T> {}
unsafe impl<T: DeviceElem + Sync> Sync for PinnedBuffer<T> {}

/// An event recorded after a copy.
struct CopyEvent {
    raw: sys::CUevent,
    device: Device,
    generation: u64,
}

// SAFETY: an event handle is usable from any thread with the context current.
unsafe impl Send for CopyEvent {}
unsafe impl Sync for CopyEvent {}

impl CopyEvent {
    fn record(stream: &Stream) -> Result<Arc<CopyEvent>> {
        let device = stream.device();
        let raw = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .call("cuEventCreate")?;
        let event = Arc::new(CopyEvent {
            raw,
            device: device.clone(),
            generation: device.generation(),
        });
        // SAFETY: live event and stream of the current context.
        unsafe { result::event::record(raw, stream.cu_stream()) }.call("cuEventRecord")?;
        Ok(event)
    }

    fn wait(&self) -> Result<()> {
        if self.generation != self.device.generation() || self.device.is_lost() {
            // The reset or the sticky error ended every copy of the context.
            return Ok(());
        }
        let _guard = self.device.bind()?;
        // SAFETY: a live event.
        self.device
            .watch(unsafe { result::event::synchronize(self.raw) }.call("cuEventSynchronize"))
    }
}

impl Drop for CopyEvent {
    fn drop(&mut self) {
        if let Some(_guard) = self.device.bind_if_current(self.generation) {
            // SAFETY: made in `record`, destroyed once.
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}

impl<T: DeviceElem> PinnedBuffer<T> {
    /// `len` zeroed elements of page-locked memory for copies with `device`.
    pub fn zeros_on(device: &Device, len: usize) -> Result<Self> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(Error::HostOutOfMemory {
                operation: "PinnedBuffer",
                bytes: usize::MAX,
            })?;
        let page_locked = if bytes == 0 {
            None
        } else {
            device.ensure_alive()?;
            let _guard = device.bind()?;
            device.executor().alloc_page_locked(bytes)?
        };
        let (ptr, pinned) = if let Some(ptr) = page_locked {
            let ptr = ptr as *mut T;
            // SAFETY: `bytes` writable bytes; zero is valid for every `DeviceElem`.
            unsafe { std::ptr::write_bytes(ptr, 0, len) };
            (ptr, true)
        } else {
            // The simulator (or nothing to allocate): ordinary host memory.
            let mut v: Vec<T> = Vec::new();
            v.try_reserve_exact(len)
                .map_err(|_| Error::HostOutOfMemory {
                    operation: "PinnedBuffer",
                    bytes,
                })?;
            // SAFETY: all-zero bytes are a valid value of every `DeviceElem`.
            unsafe {
                std::ptr::write_bytes(v.as_mut_ptr(), 0, len);
                v.set_len(len);
            }
            let mut v = std::mem::ManuallyDrop::new(v.into_boxed_slice());
            (v.as_mut_ptr(), false)
        };
        Ok(PinnedBuffer {
            ptr,
            len,
            generation: device.generation(),
            device: device.clone(),
            pinned,
            pending: Mutex::new(None),
        })
    }

    /// A page-locked copy of `data`.
    pub fn from_slice_on(device: &Device, data: &[T]) -> Result<Self> {
        let mut buffer = Self::zeros_on(device, data.len())?;
        buffer.copy_from_slice(data);
        Ok(buffer)
    }

    /// Waits for the last asynchronous copy that used the buffer.
    pub fn wait(&self) -> Result<()> {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        match pending {
            Some(event) => event.wait(),
            None => Ok(()),
        }
    }

    fn remember(&self, event: &Arc<CopyEvent>) {
        *self.pending.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(event));
    }
}

impl<T: DeviceElem> Deref for PinnedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // A copy still writing the buffer (its guard leaked) finishes first; a failed
        // wait means the context is gone, and its copies with it.
        let _ = self.wait();
        // SAFETY: `len` initialised elements, no copy in flight.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: DeviceElem> DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        let _ = self.wait();
        // SAFETY: as in `deref`, and uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T: DeviceElem> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PinnedBuffer<{}>[{}]", T::device_type(), self.len)
    }
}

impl<T: DeviceElem> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        let _ = self.wait();
        if self.pinned {
            if let Some(_guard) = self.device.bind_if_current(self.generation) {
                // SAFETY: from `cuMemHostAlloc`, no copy in flight, freed once.
                let _ = unsafe { result::free_host(self.ptr as *mut std::ffi::c_void) };
            }
        } else {
            // SAFETY: the boxed slice leaked in `zeros_on`, rebuilt once.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len)) });
        }
    }
}

/// An asynchronous copy in flight: holds both sides borrowed until it has completed.
/// `wait()` reports a failure; dropping it waits too (and ignores one).
#[must_use = "the copy is complete only once the guard is waited for or dropped"]
pub struct CopyGuard<'a> {
    event: Option<Arc<CopyEvent>>,
    _borrows: std::marker::PhantomData<&'a mut ()>,
}

impl CopyGuard<'_> {
    /// Waits for the copy to complete.
    pub fn wait(mut self) -> Result<()> {
        match self.event.take() {
            Some(event) => event.wait(),
            None => Ok(()),
        }
    }
}

impl Drop for CopyGuard<'_> {
    fn drop(&mut self) {
        if let Some(event) = self.event.take() {
            let _ = event.wait();
        }
    }
}

impl<T: DeviceElem> DeviceArray<T> {
    /// Queues a copy of `src` (same length) into the array on `stream`, after the
    /// array's earlier uses; returns at once. The guard keeps both borrowed until the
    /// copy completes.
    pub fn copy_from_pinned_async<'a>(
        &'a mut self,
        src: &'a PinnedBuffer<T>,
        stream: &Stream,
    ) -> Result<CopyGuard<'a>> {
        self.pinned_copy(src, stream, true)
    }

    /// Queues a copy of the array into `dst` (same length) on `stream`, after the
    /// array's earlier writes; returns at once. Read `dst` after the guard's `wait()`.
    pub fn copy_to_pinned_async<'a>(
        &'a self,
        dst: &'a mut PinnedBuffer<T>,
        stream: &Stream,
    ) -> Result<CopyGuard<'a>> {
        self.pinned_copy(dst, stream, false)
    }

    fn pinned_copy<'a>(
        &self,
        host: &PinnedBuffer<T>,
        stream: &Stream,
        to_device: bool,
    ) -> Result<CopyGuard<'a>> {
        let operation = if to_device {
            "copy_from_pinned_async"
        } else {
            "copy_to_pinned_async"
        };
        if host.len != self.len() {
            return Err(Error::SizeMismatch {
                operation,
                expected: self.len(),
                found: host.len,
            });
        }
        if stream.device() != self.device() || host.device != *self.device() {
            return Err(Error::Refused {
                operation,
                detail: format!(
                    "the array is on {}, the pinned buffer for {} and the stream on {}",
                    self.device(),
                    host.device,
                    stream.device()
                ),
            });
        }
        let capturing = stream
            .handle()
            .as_ref()
            .is_some_and(|h| h.capturing.load(std::sync::atomic::Ordering::Relaxed));
        if capturing {
            return Err(Error::Refused {
                operation,
                detail: "an asynchronous copy cannot be part of a graph capture; copy \
                         before or after it"
                    .into(),
            });
        }
        let _context = self.device().bind()?;
        self.ensure_current()?;
        let done = CopyGuard {
            event: None,
            _borrows: std::marker::PhantomData,
        };
        // An earlier copy into the host side must not race this one.
        host.wait()?;
        let Some(memory) = self.allocation() else {
            // The simulator: a synchronous copy through the ordinary paths.
            if to_device {
                // SAFETY: `len` initialised elements, no copy in flight.
                self.write_all(unsafe { std::slice::from_raw_parts(host.ptr, host.len) })?;
            } else {
                // SAFETY: as above; the caller holds the buffer's unique borrow.
                self.copy_to_host(unsafe { std::slice::from_raw_parts_mut(host.ptr, host.len) })?;
            }
            return Ok(done);
        };
        if self.is_empty() {
            return Ok(done);
        }
        let _context = stream.device().bind()?;
        stream.ensure_current()?;
        let device = self.device();
        let _guard = device.bind()?;
        device.watch(memory.use_on(stream.handle(), to_device))?;
        let bytes = self.len() * std::mem::size_of::<T>();
        // SAFETY: both sides hold `bytes` bytes; the host side is page-locked, so the
        // copy is truly asynchronous, and neither side is reachable until the event
        // recorded after it has completed (the guard's borrows, and the buffer's
        // pending event for a leaked guard).
        let queued = unsafe {
            if to_device {
                sys::cuMemcpyHtoDAsync_v2(
                    memory.ptr,
                    host.ptr as *const std::ffi::c_void,
                    bytes,
                    stream.cu_stream(),
                )
            } else {
                sys::cuMemcpyDtoHAsync_v2(
                    host.ptr as *mut std::ffi::c_void,
                    memory.ptr,
                    bytes,
                    stream.cu_stream(),
                )
            }
        }
        .result()
        .call(if to_device {
            "cuMemcpyHtoDAsync"
        } else {
            "cuMemcpyDtoHAsync"
        });
        device.watch(queued)?;
        let event = match CopyEvent::record(stream) {
            Ok(event) => event,
            Err(error) => {
                // Without an event, wait for the whole stream before giving the borrows back.
                // SAFETY: a live stream.
                let _ = unsafe { result::stream::synchronize(stream.cu_stream()) };
                return Err(device.watch(Err::<(), _>(error)).unwrap_err());
            }
        };
        host.remember(&event);
        Ok(CopyGuard {
            event: Some(event),
            _borrows: std::marker::PhantomData,
        })
    }

    /// Overwrites all elements from `src` (same length) through a shared borrow (the
    /// simulator's copy for `copy_from_pinned_async`, whose caller holds `&mut`).
    fn write_all(&self, src: &[T]) -> Result<()> {
        match self.sim_buffer() {
            Some(buffer) => {
                // SAFETY: plain data viewed as bytes.
                let bytes = unsafe {
                    std::slice::from_raw_parts(
                        src.as_ptr() as *const u8,
                        std::mem::size_of_val(src),
                    )
                };
                buffer.write(0, bytes);
                Ok(())
            }
            None => unreachable!("only the simulator copies synchronously here"),
        }
    }
}
