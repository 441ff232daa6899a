//! `DeviceArray<T>`: a buffer in device memory that kernels take without copying. On a
//! GPU it is a driver allocation; on the simulator a simulator `Buffer` that launches
//! share by reference count.
//!
//! On a GPU, copies run on the legacy NULL stream with the synchronous driver calls: a
//! copy to the host therefore waits for every kernel queued before it (on the default
//! stream and on the blocking streams `Device::new_stream` makes), and then reports any
//! device-side panic, like Numba's `copy_to_host`. On the simulator kernels have
//! finished when their launch returns; a copy to the host reports the fault of an
//! earlier launch on device arrays the same way.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{result, sys};
use kernel_device::back::sim::Buffer;

use crate::args::DeviceScalar;
use crate::device::{Device, DeviceKind};
use crate::error::{DriverResultExt, Error, Result};

/// `len` elements of `T` in device memory, freed on drop.
pub struct DeviceArray<T: DeviceScalar> {
    memory: Memory,
    len: usize,
    device: Device,
    _elem: PhantomData<T>,
}

/// Where the elements are.
enum Memory {
    /// A GPU allocation; 0 for an empty array (the driver refuses zero-byte ones).
    Cuda(sys::CUdeviceptr),
    Sim(Arc<Buffer>),
}

impl<T: DeviceScalar> std::fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceArray<{}>[{}] on {}",
            T::SCALAR,
            self.len,
            self.device.id()
        )
    }
}

impl<T: DeviceScalar> DeviceArray<T> {
    /// Copies `data` to a new array on the default device.
    pub fn from_slice(data: &[T]) -> Result<Self> {
        Self::from_slice_on(Device::default_ref()?, data)
    }

    /// Same as [`DeviceArray::from_slice`] (Numba's `cuda.to_device`).
    pub fn to_device(data: &[T]) -> Result<Self> {
        Self::from_slice(data)
    }

    /// A zero-initialised array of `len` elements on the default device.
    pub fn zeros(len: usize) -> Result<Self> {
        Self::zeros_on(Device::default_ref()?, len)
    }

    /// Copies `data` to a new array on `device`.
    pub fn from_slice_on(device: &Device, data: &[T]) -> Result<Self> {
        let array = Self::alloc(device, data.len())?;
        match &array.memory {
            Memory::Cuda(ptr) if !data.is_empty() => {
                // SAFETY: `ptr` holds exactly `size_of_val(data)` bytes.
                unsafe { result::memcpy_htod_sync(*ptr, data) }.call("cuMemcpyHtoD")?;
            }
            Memory::Sim(buffer) => buffer.write(0, as_bytes(data)),
            Memory::Cuda(_) => {}
        }
        Ok(array)
    }

    /// A zero-initialised array of `len` elements on `device`.
    pub fn zeros_on(device: &Device, len: usize) -> Result<Self> {
        let array = Self::alloc(device, len)?;
        if let Memory::Cuda(ptr) = array.memory {
            if len > 0 {
                // SAFETY: sets exactly the allocation; all-zero bytes are a valid value
                // of every DeviceScalar (0, 0.0, false). Ordered on the NULL stream
                // before any later kernel.
                unsafe { sys::cuMemsetD8_v2(ptr, 0, array.bytes()) }
                    .result()
                    .call("cuMemsetD8")?;
            }
        }
        // A simulator buffer starts zeroed.
        Ok(array)
    }

    fn alloc(device: &Device, len: usize) -> Result<Self> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::Driver {
                call: "cuMemAlloc",
                message: format!("{len} elements of {} overflow the address space", T::SCALAR),
            })?;
        let memory = match device.kind() {
            DeviceKind::Cuda(_) => {
                device.bind()?;
                Memory::Cuda(if bytes == 0 {
                    0
                } else {
                    // SAFETY: plain allocation; the contents are set by the caller.
                    unsafe { result::malloc_sync(bytes) }.call("cuMemAlloc")?
                })
            }
            DeviceKind::Sim(_) => Memory::Sim(Arc::new(Buffer::new(bytes))),
        };
        Ok(DeviceArray {
            memory,
            len,
            device: device.clone(),
            _elem: PhantomData,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The raw device address, for interop with other CUDA code (0 when empty, and on
    /// the simulator, whose memory has no device address).
    pub fn device_ptr(&self) -> u64 {
        match self.memory {
            Memory::Cuda(ptr) => ptr,
            Memory::Sim(_) => 0,
        }
    }

    /// The simulator buffer holding the elements (`None` on a GPU).
    pub(crate) fn sim_buffer(&self) -> Option<&Arc<Buffer>> {
        match &self.memory {
            Memory::Sim(buffer) => Some(buffer),
            Memory::Cuda(_) => None,
        }
    }

    fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// Copies the array to a new `Vec`, after all previously queued work; then reports
    /// any device-side panic.
    pub fn to_host(&self) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.len);
        if self.len > 0 {
            // SAFETY: fills the `len` elements of spare capacity, then sets the length;
            // the device bytes are values of `T` (written by `T`-typed copies or
            // kernels, bools as 0/1).
            unsafe {
                let spare = std::slice::from_raw_parts_mut(out.as_mut_ptr(), self.len);
                self.read_into(spare)?;
                out.set_len(self.len);
            }
        }
        self.device.check_panics()?;
        Ok(out)
    }

    /// Copies the array into `dst`, which must have the same length.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        self.check_len("copy_to_host", dst.len())?;
        if self.len > 0 {
            self.read_into(dst)?;
        }
        self.device.check_panics()
    }

    /// Copies all elements into `dst` (of length `len`, possibly uninitialised memory
    /// viewed as `T`: only written).
    fn read_into(&self, dst: &mut [T]) -> Result<()> {
        match &self.memory {
            Memory::Cuda(ptr) => {
                self.device.bind()?;
                // SAFETY: same length as the allocation.
                unsafe { result::memcpy_dtoh_sync(dst, *ptr) }.call("cuMemcpyDtoH")
            }
            Memory::Sim(buffer) => {
                // SAFETY: a slice of plain scalars viewed as its bytes; every byte is
                // overwritten with the bytes of values of `T`.
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(
                        dst.as_mut_ptr() as *mut u8,
                        std::mem::size_of_val(dst),
                    )
                };
                buffer.read(0, bytes);
                Ok(())
            }
        }
    }

    /// Overwrites the array with `src`, which must have the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.check_len("copy_from_host", src.len())?;
        match &self.memory {
            Memory::Cuda(ptr) if self.len > 0 => {
                self.device.bind()?;
                // SAFETY: same length, checked above.
                unsafe { result::memcpy_htod_sync(*ptr, src) }.call("cuMemcpyHtoD")?;
            }
            Memory::Sim(buffer) => buffer.write(0, as_bytes(src)),
            Memory::Cuda(_) => {}
        }
        Ok(())
    }

    fn check_len(&self, operation: &'static str, found: usize) -> Result<()> {
        if found == self.len {
            Ok(())
        } else {
            Err(Error::SizeMismatch {
                operation,
                expected: self.len,
                found,
            })
        }
    }
}

/// A slice of plain scalars viewed as its bytes.
fn as_bytes<T: DeviceScalar>(data: &[T]) -> &[u8] {
    // SAFETY: DeviceScalar types are plain data without padding.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}

impl<T: DeviceScalar> Drop for DeviceArray<T> {
    fn drop(&mut self) {
        if let Memory::Cuda(ptr) = self.memory {
            if ptr != 0 && self.device.bind().is_ok() {
                // cuMemFree waits for kernels still using the buffer. Errors cannot be
                // reported from drop; a failing free means the context is already
                // broken.
                // SAFETY: allocated in `alloc`, freed only here.
                let _ = unsafe { result::free_sync(ptr) };
            }
        }
    }
}
