//! Interoperability without copies: device memory another library owns used as a
//! [`DeviceArray`] for a while ([`BorrowedArray`]: over a cudarc `CudaSlice` or over a
//! raw device pointer with a length and a lifetime), a `DeviceArray` handed to cudarc
//! as a `CudaSlice` ([`CudarcSlice`]), and launches on a stream another library created
//! ([`Stream::from_cudarc`], [`Stream::from_raw`]).
//!
//! Uses are ordered both ways as between cudajit's own streams (`crate::memory::allocation`): the
//! first use through cudajit waits for the owner's stream, and when the borrow ends the
//! owner's stream waits for the uses made through cudajit.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaViewMut, DevicePtrMut, DeviceRepr, SyncOnDrop};

use crate::device::stream::{Stream, StreamHandle, StreamOwner};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::launch::args::{KernelArg, SliceArg, SliceArgMut};
use crate::memory::allocation::Allocation;
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceElem;

/// A [`DeviceArray`] over memory that another owner frees, usable for `'a`. Reads go
/// through `Deref` (`to_host`, `view`, passing `&borrowed` to a launch); a kernel
/// writes it through `&mut borrowed`. (There is deliberately no `DerefMut`: a
/// `&mut DeviceArray` could be swapped out of the borrow and outlive the memory.)
pub struct BorrowedArray<'a, T: DeviceElem> {
    /// Dropped first: orders the owner's stream after cudajit's uses.
    array: DeviceArray<T>,
    /// cudarc's record of this use (its write event), made once the owner's stream
    /// waits for cudajit's uses.
    _cudarc: Option<SyncOnDrop<'a>>,
    _owner: PhantomData<&'a mut [T]>,
}

impl<T: DeviceElem> Deref for BorrowedArray<'_, T> {
    type Target = DeviceArray<T>;
    fn deref(&self) -> &DeviceArray<T> {
        &self.array
    }
}

impl<T: DeviceElem> std::fmt::Debug for BorrowedArray<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "borrowed {:?}", self.array)
    }
}

impl<T: DeviceElem> BorrowedArray<'_, T> {
    /// Overwrites the elements with `src` (same length).
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.array.copy_from_host(src)
    }
}

impl<'a, 'b, T: DeviceElem> SliceArg<'a, T> for &'a BorrowedArray<'b, T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device(&self.array, false)
    }
}
impl<'a, 'b, T: DeviceElem> SliceArgMut<'a, T> for &'a mut BorrowedArray<'b, T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device(&self.array, true)
    }
}

/// The GPU device whose primary context `stream` belongs to, or `Err`.
fn device_of(stream: &Arc<CudaStream>) -> Result<Device> {
    let device = Device::new(stream.context().ordinal())?;
    let same = device
        .cuda_context()
        .is_some_and(|ctx| ctx.cu_ctx() == stream.context().cu_ctx());
    if !same {
        return Err(Error::Refused {
            operation: "interop with cudarc",
            detail: format!(
                "the cudarc stream belongs to a context other than the primary context of \
                 CUDA device {} that cudajit uses",
                device.ordinal()
            ),
        });
    }
    Ok(device)
}

impl<T: DeviceElem> DeviceArray<T> {
    /// The elements of a cudarc `CudaSlice` as a device array, without a copy, for as
    /// long as the slice is borrowed. `stream` is the cudarc stream the slice is used
    /// on: cudajit's first use waits for it, and at the end of the borrow it waits for
    /// cudajit's uses (cudarc's own event tracking then sees a write on it).
    pub fn from_cudarc<'a>(
        slice: &'a mut CudaSlice<T>,
        stream: &'a Arc<CudaStream>,
    ) -> Result<BorrowedArray<'a, T>>
    where
        T: DeviceRepr,
    {
        let device = device_of(stream)?;
        device.ensure_alive()?;
        let len = slice.len();
        let (ptr, record) = slice.device_ptr_mut(stream);
        let owner = Some(StreamHandle::new(
            stream.cu_stream(),
            &device,
            StreamOwner::Cudarc(Arc::clone(stream)),
        ));
        let memory = Allocation::borrowed(&device, ptr, owner.clone(), owner);
        Ok(BorrowedArray {
            array: DeviceArray::from_allocation(&device, memory, len),
            _cudarc: Some(record),
            _owner: PhantomData,
        })
    }

    /// `len` elements at device address `ptr` as a device array, without a copy, for
    /// `'a`. `stream` is where the memory was last written: cudajit's first use waits
    /// for it, and at the end of the borrow it waits for cudajit's uses.
    ///
    /// # Safety
    /// For all of `'a`: `ptr` is an allocation of `stream`'s device (its primary
    /// context) holding at least `len` initialised values of `T` (`len * size_of::<T>()`
    /// bytes, aligned for `T`), nothing else frees it, and nothing else uses it except
    /// through work ordered after the borrow's end on `stream`.
    pub unsafe fn from_raw_parts<'a>(
        stream: &Stream,
        ptr: u64,
        len: usize,
    ) -> Result<BorrowedArray<'a, T>> {
        let device = stream.device().clone();
        device.cuda("DeviceArray::from_raw_parts")?;
        let _context = stream.device().bind()?;
        stream.ensure_current()?;
        let memory = Allocation::borrowed(
            &device,
            ptr,
            stream.handle().clone(),
            stream.handle().clone(),
        );
        Ok(BorrowedArray {
            array: DeviceArray::from_allocation(&device, memory, len),
            _cudarc: None,
            _owner: PhantomData,
        })
    }

    /// The array as a cudarc `CudaSlice` that cudarc code can read on `stream` (which
    /// first waits for cudajit's earlier writes), without a copy. While it lives the
    /// array is borrowed; cudajit's later writes wait for what cudarc queued on it.
    pub fn as_cudarc<'s>(&'s self, stream: &Arc<CudaStream>) -> Result<CudarcSlice<'s, T>>
    where
        T: DeviceRepr,
    {
        self.export(stream, false)
    }

    /// As [`DeviceArray::as_cudarc`], for cudarc code that writes the elements (through
    /// [`CudarcSlice::view_mut`]).
    pub fn as_cudarc_mut<'s>(&'s mut self, stream: &Arc<CudaStream>) -> Result<CudarcSlice<'s, T>>
    where
        T: DeviceRepr,
    {
        self.export(stream, true)
    }

    fn export<'s>(&'s self, stream: &Arc<CudaStream>, write: bool) -> Result<CudarcSlice<'s, T>>
    where
        T: DeviceRepr,
    {
        let _context = self.device().bind()?;
        self.ensure_current()?;
        let device = device_of(stream)?;
        let Some(memory) = self.allocation() else {
            return Err(Error::NotSupported {
                operation: "DeviceArray::as_cudarc",
                backend: crate::Backend::Simulator,
            });
        };
        if device != *self.device() {
            return Err(Error::Refused {
                operation: "DeviceArray::as_cudarc",
                detail: format!(
                    "the array is on {} but the cudarc stream on {}",
                    self.device(),
                    device
                ),
            });
        }
        let _guard = device.bind()?;
        let handle = Some(StreamHandle::new(
            stream.cu_stream(),
            &device,
            StreamOwner::Cudarc(Arc::clone(stream)),
        ));
        // cudarc's uses count as writes when it may write, else as reads.
        device.watch(memory.use_on(&handle, write))?;
        // SAFETY: the allocation holds `len` values of `T`; the slice never frees it
        // (`CudarcSlice` leaks it back on drop) and cannot outlive the borrow.
        let slice = unsafe { stream.upgrade_device_ptr::<T>(memory.ptr, self.len()) };
        Ok(CudarcSlice {
            slice: ManuallyDrop::new(slice),
            _array: PhantomData,
        })
    }
}

/// A device array lent to cudarc as a `CudaSlice` (read it through `Deref`, write it
/// through [`CudarcSlice::view_mut`] when made by `as_cudarc_mut`). The memory stays
/// the array's: dropping this never frees it.
pub struct CudarcSlice<'s, T> {
    slice: ManuallyDrop<CudaSlice<T>>,
    _array: PhantomData<&'s mut [T]>,
}

impl<T> Deref for CudarcSlice<'_, T> {
    type Target = CudaSlice<T>;
    fn deref(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

impl<'s, T: DeviceElem> CudarcSlice<'s, T> {
    /// A writable cudarc view of the elements (a view, unlike a `&mut CudaSlice`,
    /// cannot be swapped for a slice that owns other memory).
    pub fn view_mut(&mut self) -> CudaViewMut<'_, T> {
        self.slice.as_view_mut()
    }
}

impl<T> Drop for CudarcSlice<'_, T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; `leak` waits for cudarc's events on its stream and
        // gives the pointer back without freeing it.
        let slice = unsafe { ManuallyDrop::take(&mut self.slice) };
        let _ = slice.leak();
    }
}

impl Stream {
    /// A cudarc stream (of the primary context cudajit uses) as a cudajit stream:
    /// launches on it are queued on cudarc's stream, which stays alive while this
    /// `Stream` or an array that used it does.
    pub fn from_cudarc(stream: Arc<CudaStream>) -> Result<Stream> {
        let device = device_of(&stream)?;
        let raw = stream.cu_stream();
        Stream::wrap(device, raw, StreamOwner::Cudarc(stream))
    }

    /// A driver stream another library created, as a cudajit stream (not destroyed by
    /// cudajit).
    ///
    /// # Safety
    /// `raw` is a live stream of `device`'s primary context and stays alive while the
    /// returned `Stream`, or any device array used on it, lives.
    pub unsafe fn from_raw(device: &Device, raw: cudarc::driver::sys::CUstream) -> Result<Stream> {
        device.cuda("Stream::from_raw")?;
        Stream::wrap(device.clone(), raw, StreamOwner::Foreign)
    }

    fn wrap(
        device: Device,
        raw: cudarc::driver::sys::CUstream,
        owner: StreamOwner,
    ) -> Result<Stream> {
        let guarded = device.clone();
        let _guard = guarded.bind()?;
        device.ensure_alive()?;
        let faults = device.new_faults()?;
        device.register_stream(&faults);
        let handle = StreamHandle::new(raw, &device, owner);
        Ok(Stream::from_parts(Some(handle), device, faults))
    }
}
