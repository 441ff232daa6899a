//! What an array's memory is on each backend: a driver allocation or a simulator
//! buffer. Every distinction between the two for arrays is made here, so `DeviceArray`
//! (in `crate::memory::array`) only states what an operation does and in which order.
//!
//! On a GPU, copies run on the legacy NULL stream with the synchronous driver calls,
//! ordered after the array's uses on other streams (`use_on_null_stream`); sticky
//! driver errors pass through `Device::watch`. On the simulator a buffer is plain
//! bytes that launches share by reference count.

use std::sync::Arc;

use cudarc::driver::{result, sys};
use kernel_device::back::sim::Buffer;

use crate::device::Device;
use crate::error::{DriverResultExt, Result};
use crate::memory::allocation::Allocation;
use crate::memory::elem::DeviceElem;

/// Where an array's elements are.
pub(crate) enum Memory {
    /// A GPU allocation (shared with graphs that captured a launch on it; see
    /// `crate::memory::allocation` for how its uses are ordered and how it is freed).
    Cuda(Arc<Allocation>),
    Sim(Arc<Buffer>),
}

impl Memory {
    /// `bytes` of fresh memory on `device` (whose context is bound and guarded): from
    /// the GPU's pool, or a simulator buffer (which starts zeroed).
    pub(crate) fn alloc(device: &Device, bytes: usize) -> Result<Memory> {
        match device.executor().cuda() {
            Some(_) => {
                device.ensure_alive()?;
                Ok(Memory::Cuda(device.watch(Allocation::new(device, bytes))?))
            }
            None => Ok(Memory::Sim(Arc::new(Buffer::new(bytes)))),
        }
    }

    /// The first write into fresh memory (no earlier use to order after).
    pub(crate) fn initialise<T: DeviceElem>(&self, data: &[T]) -> Result<()> {
        match self {
            Memory::Cuda(memory) if !data.is_empty() => {
                // SAFETY: the allocation holds exactly `size_of_val(data)` bytes; the
                // copy is on the NULL stream, after the allocation.
                unsafe { result::memcpy_htod_sync(memory.ptr, data) }.call("cuMemcpyHtoD")?;
            }
            Memory::Sim(buffer) => buffer.write(0, as_bytes(data)),
            Memory::Cuda(_) => {}
        }
        Ok(())
    }

    /// Zeroes fresh memory of `bytes` bytes (a simulator buffer starts zeroed).
    pub(crate) fn zero(&self, bytes: usize) -> Result<()> {
        if let Memory::Cuda(memory) = self {
            let ptr = memory.ptr;
            if bytes > 0 {
                // SAFETY: sets exactly the allocation; all-zero bytes are a valid value
                // of every DeviceElem (0, 0.0, false, structs of them). Ordered on the NULL stream
                // before any later kernel.
                unsafe { sys::cuMemsetD8_v2(ptr, 0, bytes) }
                    .result()
                    .call("cuMemsetD8")?;
            }
        }
        Ok(())
    }

    /// The raw device address (0 on the simulator, whose memory has no device address).
    pub(crate) fn device_ptr(&self) -> u64 {
        match self {
            Memory::Cuda(memory) => memory.ptr,
            Memory::Sim(_) => 0,
        }
    }

    /// The GPU memory (`None` on the simulator).
    pub(crate) fn allocation(&self) -> Option<&Arc<Allocation>> {
        match self {
            Memory::Cuda(memory) => Some(memory),
            Memory::Sim(_) => None,
        }
    }

    /// The simulator buffer (`None` on a GPU).
    pub(crate) fn sim_buffer(&self) -> Option<&Arc<Buffer>> {
        match self {
            Memory::Sim(buffer) => Some(buffer),
            Memory::Cuda(_) => None,
        }
    }

    /// Orders a copy on the NULL stream (where copies run) after uses of the memory on
    /// other streams; the context must be current.
    fn use_on_null_stream(&self, device: &Device, write: bool) -> Result<()> {
        match self {
            Memory::Cuda(memory) => device.watch(memory.use_on(&None, write)),
            Memory::Sim(_) => Ok(()),
        }
    }

    /// Copies all `len` elements into `out` (empty, with room for them) and sets its
    /// length, after all previously queued work.
    pub(crate) fn read_all<T: DeviceElem>(
        &self,
        device: &Device,
        out: &mut Vec<T>,
        len: usize,
    ) -> Result<()> {
        match self {
            Memory::Cuda(memory) => {
                let _guard = device.bind()?;
                self.use_on_null_stream(device, false)?;
                let ptr = &memory.ptr;
                // SAFETY: the driver writes `len` elements into the capacity reserved
                // by the caller through a raw pointer (no reference to uninitialised
                // memory is made); the length is set only after the copy succeeded,
                // so a failed copy exposes nothing.
                unsafe {
                    device.watch(
                        sys::cuMemcpyDtoH_v2(
                            out.as_mut_ptr() as *mut std::ffi::c_void,
                            *ptr,
                            len * std::mem::size_of::<T>(),
                        )
                        .result()
                        .call("cuMemcpyDtoH"),
                    )?;
                    out.set_len(len);
                }
            }
            Memory::Sim(_) => {
                // SAFETY: zero bytes are a valid value of every `DeviceElem`
                // (0, 0.0, false), so the elements are initialised before the
                // simulator's reader gets a slice of them.
                unsafe {
                    std::ptr::write_bytes(out.as_mut_ptr(), 0, len);
                    out.set_len(len);
                }
                self.read(device, 0, out)?;
            }
        }
        Ok(())
    }

    /// Copies elements from byte `offset` (in range: the caller checked) into `dst`,
    /// after all previously queued work.
    pub(crate) fn read<T: DeviceElem>(
        &self,
        device: &Device,
        offset: usize,
        dst: &mut [T],
    ) -> Result<()> {
        match self {
            Memory::Cuda(memory) => {
                let _guard = device.bind()?;
                self.use_on_null_stream(device, false)?;
                let src = memory.ptr + offset as u64;
                // SAFETY: `dst.len()` elements from `offset` are within the allocation.
                device.watch(unsafe { result::memcpy_dtoh_sync(dst, src) }.call("cuMemcpyDtoH"))
            }
            Memory::Sim(buffer) => {
                // SAFETY: plain scalars viewed as their bytes, all overwritten with
                // bytes of values of `T`.
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(
                        dst.as_mut_ptr() as *mut u8,
                        std::mem::size_of_val(dst),
                    )
                };
                buffer.read(offset, bytes);
                Ok(())
            }
        }
    }

    /// Overwrites elements from byte `offset` (in range: the caller checked) with
    /// `src`, after all previously queued work.
    pub(crate) fn write<T: DeviceElem>(
        &self,
        device: &Device,
        offset: usize,
        src: &[T],
    ) -> Result<()> {
        match self {
            Memory::Cuda(_) if src.is_empty() => Ok(()),
            Memory::Cuda(memory) => {
                let _guard = device.bind()?;
                self.use_on_null_stream(device, true)?;
                let dst = memory.ptr + offset as u64;
                // SAFETY: `src.len()` elements from `offset` are within the allocation.
                device.watch(unsafe { result::memcpy_htod_sync(dst, src) }.call("cuMemcpyHtoD"))
            }
            Memory::Sim(buffer) => {
                buffer.write(offset, as_bytes(src));
                Ok(())
            }
        }
    }

    /// Copies `bytes` bytes of `src` (on `src_device`) from byte `src_offset` to this
    /// memory (on `device`, the same one) from byte `offset` (both in range), ordered
    /// after the work queued before.
    pub(crate) fn copy_from(
        &self,
        device: &Device,
        offset: usize,
        (src_device, src): (&Device, &Memory),
        src_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        match (self, src) {
            (Memory::Cuda(dst), Memory::Cuda(from)) => {
                let _guard = device.bind()?;
                self.use_on_null_stream(device, true)?;
                src.use_on_null_stream(src_device, false)?;
                let dst = dst.ptr + offset as u64;
                let from = from.ptr + src_offset as u64;
                // SAFETY: both ranges are within their arrays, on the same device; on
                // the NULL stream, ordered with the kernels before and after.
                device.watch(
                    unsafe { sys::cuMemcpyDtoD_v2(dst, from, bytes) }
                        .result()
                        .call("cuMemcpyDtoD"),
                )
            }
            (Memory::Sim(dst), Memory::Sim(from)) => {
                let mut buffer = vec![0u8; bytes];
                from.read(src_offset, &mut buffer);
                dst.write(offset, &buffer);
                Ok(())
            }
            _ => unreachable!("same device, same backend"),
        }
    }
}

/// A slice of plain scalars viewed as its bytes.
fn as_bytes<T: DeviceElem>(data: &[T]) -> &[u8] {
    // SAFETY: DeviceElem types are plain initialised data without padding.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}
