//! `DeviceArray<T>`: a buffer in GPU memory that kernels take without copying.
//!
//! Copies run on the legacy NULL stream with the synchronous driver calls: a copy to
//! the host therefore waits for every kernel queued before it (on the default stream
//! and on the blocking streams `Device::new_stream` makes), and then reports any
//! device-side panic, like Numba's `copy_to_host`.

use std::marker::PhantomData;

use cudarc::driver::{result, sys};

use crate::args::DeviceScalar;
use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};

/// `len` elements of `T` in device memory, freed on drop.
pub struct DeviceArray<T: DeviceScalar> {
    /// 0 for an empty array (the driver refuses zero-byte allocations).
    ptr: sys::CUdeviceptr,
    len: usize,
    device: Device,
    _elem: PhantomData<T>,
}

impl<T: DeviceScalar> std::fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceArray<{}>[{}] on device {}",
            T::SCALAR,
            self.len,
            self.device.ordinal()
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
        if !data.is_empty() {
            // SAFETY: `ptr` holds exactly `size_of_val(data)` bytes.
            unsafe { result::memcpy_htod_sync(array.ptr, data) }.call("cuMemcpyHtoD")?;
        }
        Ok(array)
    }

    /// A zero-initialised array of `len` elements on `device`.
    pub fn zeros_on(device: &Device, len: usize) -> Result<Self> {
        let array = Self::alloc(device, len)?;
        if len > 0 {
            // SAFETY: sets exactly the allocation; all-zero bytes are a valid value of
            // every DeviceScalar (0, 0.0, false). Ordered on the NULL stream before any
            // later kernel.
            unsafe { sys::cuMemsetD8_v2(array.ptr, 0, array.bytes()) }
                .result()
                .call("cuMemsetD8")?;
        }
        Ok(array)
    }

    fn alloc(device: &Device, len: usize) -> Result<Self> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::Driver {
                call: "cuMemAlloc",
                message: format!("{len} elements of {} overflow the address space", T::SCALAR),
            })?;
        device.bind()?;
        let ptr = if bytes == 0 {
            0
        } else {
            // SAFETY: plain allocation; the contents are set by the caller before use.
            unsafe { result::malloc_sync(bytes) }.call("cuMemAlloc")?
        };
        Ok(DeviceArray {
            ptr,
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

    /// The raw device address (0 when empty), for interop with other CUDA code.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// Copies the array to a new `Vec`, after all previously queued work; then reports
    /// any device-side panic.
    pub fn to_host(&self) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.len);
        if self.len > 0 {
            self.device.bind()?;
            // SAFETY: copies `len` elements into the spare capacity, then sets the
            // length; the device bytes are values of `T` (written by `T`-typed copies or
            // kernels).
            unsafe {
                let spare = std::slice::from_raw_parts_mut(out.as_mut_ptr(), self.len);
                result::memcpy_dtoh_sync(spare, self.ptr).call("cuMemcpyDtoH")?;
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
            self.device.bind()?;
            // SAFETY: same length, checked above.
            unsafe { result::memcpy_dtoh_sync(dst, self.ptr) }.call("cuMemcpyDtoH")?;
        }
        self.device.check_panics()
    }

    /// Overwrites the array with `src`, which must have the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.check_len("copy_from_host", src.len())?;
        if self.len > 0 {
            self.device.bind()?;
            // SAFETY: same length, checked above.
            unsafe { result::memcpy_htod_sync(self.ptr, src) }.call("cuMemcpyHtoD")?;
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

impl<T: DeviceScalar> Drop for DeviceArray<T> {
    fn drop(&mut self) {
        if self.ptr != 0 && self.device.bind().is_ok() {
            // cuMemFree waits for kernels still using the buffer. Errors cannot be
            // reported from drop; a failing free means the context is already broken.
            // SAFETY: allocated in `alloc`, freed only here.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}
