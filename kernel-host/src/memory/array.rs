//! `DeviceArray<T>`: a buffer in device memory that kernels take without copying. On a
//! GPU it is a driver allocation; on the simulator a simulator `Buffer` that launches
//! share by reference count.
//!
//! Which of the two the memory is, and the driver calls, are `crate::memory::backing`'s.
//!
//! On a GPU, copies run on the legacy NULL stream with the synchronous driver calls,
//! after the array's uses on other streams (`crate::memory::allocation`): a copy to the
//! host therefore waits for every kernel queued before it that uses the array (on the
//! default stream or any other), and then reports a
//! device-side panic of a launch on the default stream, like Numba's `copy_to_host`
//! (a launch on another stream reports to that stream's synchronisation). On the simulator kernels have
//! finished when their launch returns; a copy to the host reports the fault of an
//! earlier launch on device arrays the same way.

use std::marker::PhantomData;
use std::sync::Arc;

use kernel_device::back::sim::Buffer;

use crate::device::{Device, DeviceId};
use crate::error::{Error, Result};
use crate::memory::allocation::Allocation;
use crate::memory::backing::Memory;
use crate::memory::elem::{DeviceElem, DeviceScalar};

/// What a launch's argument reads of a [`DeviceArray`] (`DeviceArray::launch_facts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LaunchFacts {
    pub(crate) ptr: u64,
    pub(crate) id: DeviceId,
}

/// `len` elements of `T` in device memory, freed on drop.
pub struct DeviceArray<T: DeviceElem> {
    memory: Memory,
    len: usize,
    /// What a launch reads of the array for its argument, fixed when the array is made:
    /// its device address and the device (and generation) its memory belongs to. Kept
    /// here, beside the array's length, so that building a launch's argument reads the
    /// array alone and not its memory's shared state, a line the driver's previous
    /// launch evicted (issue 27).
    launch_facts: LaunchFacts,
    device: Device,
    /// The device's context generation at allocation (see `crate::executor::health`): after a
    /// reset the memory is gone and the array is refused.
    generation: u64,
    _elem: PhantomData<T>,
}

impl<T: DeviceElem> std::fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceArray<{}>[{}] on {}",
            T::device_type(),
            self.len,
            self.device.id()
        )
    }
}

impl<T: DeviceElem> DeviceArray<T> {
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
        // No reset between the allocation and its first write.
        let _guard = device.bind()?;
        let array = Self::alloc(device, data.len())?;
        array.memory.initialise(data)?;
        Ok(array)
    }

    /// A zero-initialised array of `len` elements on `device`.
    pub fn zeros_on(device: &Device, len: usize) -> Result<Self> {
        if !T::ZERO_IS_VALID {
            return Err(Error::NoZeroValue {
                type_name: std::any::type_name::<T>(),
            });
        }
        // No reset between the allocation and its first write.
        let _guard = device.bind()?;
        let array = Self::alloc(device, len)?;
        array.memory.zero(array.bytes())?;
        Ok(array)
    }

    /// An array of `len` elements on `device` whose contents are left as the
    /// allocator gave them, for a kernel that writes every element before the array is
    /// handed out (the high-level scans): no memset. On the simulator it is zeroed.
    pub(crate) fn unfilled_on(device: &Device, len: usize) -> Result<Self> {
        Self::alloc(device, len)
    }

    fn alloc(device: &Device, len: usize) -> Result<Self> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::Driver {
                call: "cuMemAlloc",
                message: format!(
                    "{len} elements of {} overflow the address space",
                    T::device_type()
                ),
            })?;
        // Held until the array records the generation its memory belongs to.
        let _guard = device.bind()?;
        let memory = Memory::alloc(device, bytes)?;
        Ok(Self::new(device, memory, len))
    }

    /// An array over `memory` (interop: memory another owner frees).
    pub(crate) fn from_allocation(device: &Device, memory: Arc<Allocation>, len: usize) -> Self {
        Self::new(device, Memory::Cuda(memory), len)
    }

    /// The array of `len` elements in `memory` on `device`.
    fn new(device: &Device, memory: Memory, len: usize) -> Self {
        let mut array = DeviceArray {
            launch_facts: LaunchFacts {
                ptr: memory.device_ptr(),
                id: device.id(),
            },
            memory,
            len,
            generation: device.generation(),
            device: device.clone(),
            _elem: PhantomData,
        };
        // The GPU memory's own device where there is some, else the array's.
        array.launch_facts.id = array
            .allocation()
            .map_or_else(|| array.device_id(), |m| m.device_id());
        array
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
        self.launch_facts.ptr
    }

    /// The device address and the device (and context generation) a launch's argument
    /// names: [`device_ptr`](Self::device_ptr), and the memory's device where it has
    /// GPU memory, else [`device_id`](Self::device_id); read from the array itself.
    #[inline(always)]
    pub(crate) fn launch_facts(&self) -> LaunchFacts {
        self.launch_facts
    }

    /// The device (and context generation) the array's memory belongs to.
    pub(crate) fn device_id(&self) -> DeviceId {
        match self.device.id() {
            DeviceId::Cuda(ordinal, _) => DeviceId::Cuda(ordinal, self.generation),
            sim => sim,
        }
    }

    /// `Err` when the device's context is lost or was reset after the allocation.
    pub(crate) fn ensure_current(&self) -> Result<()> {
        if self.sim_buffer().is_some() {
            return Ok(());
        }
        self.device.ensure_alive()?;
        if self.generation != self.device.generation() {
            return Err(Error::StaleAfterReset {
                what: "this device array",
                ordinal: self.device.ordinal(),
            });
        }
        Ok(())
    }

    /// The GPU memory (`None` on the simulator).
    pub(crate) fn allocation(&self) -> Option<&Arc<Allocation>> {
        self.memory.allocation()
    }

    /// The simulator buffer holding the elements (`None` on a GPU).
    pub(crate) fn sim_buffer(&self) -> Option<&Arc<Buffer>> {
        self.memory.sim_buffer()
    }

    fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// Copies the array to a new `Vec`, after all previously queued work; then reports
    /// any device-side panic. A host allocation that fails is an `Err`, not an abort.
    pub fn to_host(&self) -> Result<Vec<T>> {
        let _context = self.device().bind()?;
        self.ensure_current()?;
        let mut out = host_vec::<T>("to_host", self.len)?;
        if self.len > 0 {
            self.memory.read_all(&self.device, &mut out, self.len)?;
        }
        self.device.check_default_stream()?;
        Ok(out)
    }

    /// Copies the array into `dst`, which must have the same length.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        self.check_len("copy_to_host", dst.len())?;
        let _context = self.device().bind()?;
        self.ensure_current()?;
        if self.len > 0 {
            self.read_into(dst)?;
        }
        self.device.check_default_stream()
    }

    /// Copies all elements into `dst` (of length `len`).
    fn read_into(&self, dst: &mut [T]) -> Result<()> {
        self.memory.read(&self.device, 0, dst)
    }

    /// Overwrites the array with `src`, which must have the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.check_len("copy_from_host", src.len())?;
        let _context = self.device().bind()?;
        self.ensure_current()?;
        self.memory.write(&self.device, 0, src)
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

impl<T: DeviceScalar> DeviceArray<T> {
    /// Elements `start..start + len` (in range: the caller checked) in a new `Vec`.
    pub(crate) fn range_to_host(&self, start: usize, len: usize) -> Result<Vec<T>> {
        let mut out = host_vec::<T>("to_host", len)?;
        // SAFETY: zero bytes are a valid value of every `DeviceScalar`; `range_into`
        // then overwrites every element.
        unsafe {
            std::ptr::write_bytes(out.as_mut_ptr(), 0, len);
            out.set_len(len);
        }
        self.range_into(start, &mut out)?;
        Ok(out)
    }

    /// Elements `start..start + dst.len()` (in range) into `dst`, after the work queued
    /// before; then reports a panic of a launch on the default stream.
    pub(crate) fn range_into(&self, start: usize, dst: &mut [T]) -> Result<()> {
        let _context = self.device().bind()?;
        self.ensure_current()?;
        if !dst.is_empty() {
            self.memory.read(&self.device, Self::offset(start), dst)?;
        }
        self.device.check_default_stream()
    }

    /// Overwrites elements `start..start + src.len()` (in range) with `src`.
    pub(crate) fn range_from_host(&self, start: usize, src: &[T]) -> Result<()> {
        let _context = self.device().bind()?;
        self.ensure_current()?;
        if src.is_empty() {
            return Ok(());
        }
        self.memory.write(&self.device, Self::offset(start), src)
    }
}

impl<T: DeviceElem> DeviceArray<T> {
    /// Byte offset of element `index`.
    fn offset(index: usize) -> usize {
        index * std::mem::size_of::<T>()
    }

    /// Copies `len` elements of `src` from `src_start` to this array from `start` (both
    /// in range), on the device, ordered after the work queued before.
    pub(crate) fn copy_within_device(
        &self,
        start: usize,
        src: &DeviceArray<T>,
        src_start: usize,
        len: usize,
    ) -> Result<()> {
        let _context = self.device().bind()?;
        self.ensure_current()?;
        let _context = src.device().bind()?;
        src.ensure_current()?;
        if self.device_id() != src.device_id() {
            return Err(Error::ArgumentMismatch {
                kernel: "copy".into(),
                detail: format!(
                    "the source array is on {} but the destination is on {}",
                    src.device_id(),
                    self.device_id()
                ),
            });
        }
        if len == 0 {
            return Ok(());
        }
        self.memory.copy_from(
            &self.device,
            Self::offset(start),
            (&src.device, &src.memory),
            Self::offset(src_start),
            Self::offset(len),
        )
    }
}

/// An empty `Vec` with room for `len` elements, or `Err` when the host cannot
/// allocate it (`Vec::with_capacity` would abort the process).
fn host_vec<T>(operation: &'static str, len: usize) -> Result<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| Error::HostOutOfMemory {
            operation,
            bytes: len.saturating_mul(std::mem::size_of::<T>()),
        })?;
    Ok(out)
}

impl Device {
    /// Copies `data` into a new device array on this device.
    pub fn to_device<T: DeviceElem>(&self, data: &[T]) -> Result<DeviceArray<T>> {
        DeviceArray::from_slice_on(self, data)
    }

    /// A zero-initialised device array on this device.
    pub fn zeros<T: DeviceElem>(&self, len: usize) -> Result<DeviceArray<T>> {
        DeviceArray::zeros_on(self, len)
    }
}

/// Copies `data` to a new array on the default device.
pub fn to_device<T: DeviceElem>(data: &[T]) -> Result<DeviceArray<T>> {
    DeviceArray::from_slice(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_allocation_failure_is_an_error() {
        // Over the address space, and a size no machine has (2^56 bytes): both `Err`.
        for len in [usize::MAX / 2, 1usize << 53] {
            match host_vec::<f64>("to_host", len) {
                Err(Error::HostOutOfMemory { operation, bytes }) => {
                    assert_eq!(operation, "to_host");
                    assert_eq!(bytes, len.saturating_mul(8));
                }
                other => panic!("{len} elements: {:?}", other.map(|v| v.capacity())),
            }
        }
        let v = host_vec::<u32>("to_host", 1000).unwrap();
        assert!(v.capacity() >= 1000 && v.is_empty());
    }

    /// On the simulator, random contents come back exactly (the zero-fill before the
    /// read does not leak into the result).
    #[test]
    fn to_host_on_the_simulator_returns_the_contents() {
        let device = Device::simulator().unwrap();
        let mut seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let data: Vec<u64> = (0..1000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed | 1 // never zero, so a zero in the result is a bug
            })
            .collect();
        let mut array = DeviceArray::<u64>::zeros_on(&device, data.len()).unwrap();
        array.copy_from_host(&data).unwrap();
        assert_eq!(array.to_host().unwrap(), data);
    }
}
