//! DLPack interoperability without copies, through the `dlpark` crate (re-exported as
//! `kernel_host::dlpark`): a DLPack tensor in CUDA memory (from PyTorch, CuPy, JAX, or
//! any Rust producer) used as a [`DeviceArray`], and a `DeviceArray` handed out as a
//! DLPack tensor.
//!
//! **Import** ([`DeviceArray::from_dlpack`]) checks, before touching the memory, that
//! the tensor is on the CUDA device of the stream it is used on, that its element type
//! is the array's, that its elements are one contiguous row-major run (a `DeviceArray`
//! is one), that the data (pointer plus `byte_offset`) is aligned for the element, that
//! it is writable (not `READ_ONLY`), and, asking the driver, that the bytes lie inside
//! one allocation of that device. The array owns the tensor: when the array drops,
//! the stream is made to wait for the uses made through cudajit, then the tensor's
//! deleter runs, once.
//!
//! **Export** ([`DeviceArray::into_dlpack`]) consumes the array: the tensor's deleter
//! drops it, so the memory lives exactly as long as the consumer keeps the tensor (it
//! is then freed stream-ordered on the consumer's stream, after the consumer's work).
//! The consumer's stream is first made to wait for cudajit's uses, as DLPack's
//! `__dlpack__(stream=...)` asks of a producer.
//!
//! On the CPU simulator both are `Err`: its memory has no device address.

use std::any::TypeId;

use cudarc::driver::sys;
use dlpark::ffi::{DLDataType, DLDevice, DLDeviceType};
use dlpark::metadata::Dynamic;
use dlpark::{DlpackFlags, Managed, ManagedTensorBase, TensorRef};

use crate::device::stream::Stream;
use crate::error::{DriverResultExt, Error, Result};
use crate::memory::allocation::Allocation;
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceElem;

/// A DLPack tensor in the current (versioned) ABI, as [`DeviceArray::into_dlpack`]
/// makes and [`DeviceArray::from_dlpack`] takes (which also takes the legacy ABI).
pub type DlpackTensor = dlpark::versioned::Dlpack;

/// The DLPack element type of `T`, or `None` for element types DLPack has no code for
/// (`#[derive(DeviceCopy)]` structs and enums). `isize`/`usize` are 64-bit on every
/// target cudajit supports.
pub(crate) fn dlpack_dtype<T: 'static>() -> Option<DLDataType> {
    let id = TypeId::of::<T>();
    let table: [(TypeId, DLDataType); 17] = [
        (TypeId::of::<bool>(), DLDataType::BOOL),
        (TypeId::of::<i8>(), DLDataType::I8),
        (TypeId::of::<i16>(), DLDataType::I16),
        (TypeId::of::<i32>(), DLDataType::I32),
        (TypeId::of::<i64>(), DLDataType::I64),
        (TypeId::of::<isize>(), DLDataType::I64),
        (TypeId::of::<u8>(), DLDataType::U8),
        (TypeId::of::<u16>(), DLDataType::U16),
        (TypeId::of::<u32>(), DLDataType::U32),
        (TypeId::of::<u64>(), DLDataType::U64),
        (TypeId::of::<usize>(), DLDataType::U64),
        (TypeId::of::<half::f16>(), DLDataType::F16),
        (TypeId::of::<half::bf16>(), DLDataType::BF16),
        (TypeId::of::<f32>(), DLDataType::F32),
        (TypeId::of::<f64>(), DLDataType::F64),
        (TypeId::of::<num_complex::Complex<f32>>(), DLDataType::C64),
        (TypeId::of::<num_complex::Complex<f64>>(), DLDataType::C128),
    ];
    table
        .iter()
        .find(|(t, _)| *t == id)
        .map(|&(_, dtype)| dtype)
}

/// A DLPack element type in words, e.g. `float32`, `int64x4` (4 lanes).
fn dtype_name(dtype: DLDataType) -> String {
    let code = match dtype.code.0 {
        0 => "int",
        1 => "uint",
        2 => "float",
        4 => "bfloat",
        5 => "complex",
        6 => "bool",
        _ => return format!("DLPack type code {} of {} bits", dtype.code.0, dtype.bits),
    };
    let lanes = if dtype.lanes == 1 {
        String::new()
    } else {
        format!("x{}", dtype.lanes)
    };
    if dtype.code.0 == 6 {
        return format!("bool{lanes}");
    }
    format!("{code}{}{lanes}", dtype.bits)
}

/// A DLPack device type in words.
fn device_name(device: DLDevice) -> String {
    let name = match device.device_type {
        DLDeviceType::CPU => "the CPU",
        DLDeviceType::CUDAHOST => "CUDA pinned host memory",
        DLDeviceType::CUDAMANAGED => "CUDA managed memory",
        DLDeviceType::ROCM => "a ROCm GPU",
        DLDeviceType::METAL => "a Metal GPU",
        DLDeviceType::VULKAN => "a Vulkan device",
        DLDeviceType::ONEAPI => "a oneAPI device",
        DLDeviceType::OPENCL => "an OpenCL device",
        DLDeviceType::CUDA => return format!("CUDA device {}", device.device_id),
        other => return format!("DLPack device type {}", other.0),
    };
    name.to_string()
}

/// Where an imported tensor's elements are: the address of the first one and how many.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    pub(crate) address: u64,
    pub(crate) len: usize,
}

/// Checks that `tensor` can be viewed as a `DeviceArray<T>` of CUDA device `ordinal`
/// (everything but the driver's view of the pointer), or says what is wrong.
pub(crate) fn check_tensor<T: 'static>(
    tensor: &TensorRef<'_>,
    flags: DlpackFlags,
    ordinal: usize,
) -> std::result::Result<Placement, String> {
    let device = tensor.device();
    if device.device_type != DLDeviceType::CUDA {
        return Err(format!(
            "the tensor is in {}, not on a CUDA GPU (DLPack device type CUDA)",
            device_name(device)
        ));
    }
    if usize::try_from(device.device_id).ok() != Some(ordinal) {
        return Err(format!(
            "the tensor is on CUDA device {} but the stream is on CUDA device {ordinal}",
            device.device_id
        ));
    }
    let Some(expected) = dlpack_dtype::<T>() else {
        return Err(format!(
            "DLPack has no element type for `{}` (only bool, integers, f16, bf16, f32, f64 \
             and complex numbers)",
            std::any::type_name::<T>()
        ));
    };
    let dtype = tensor.dtype();
    if !dtype.matches(expected) {
        return Err(format!(
            "the tensor's elements are {} but the array's are {} (`{}`)",
            dtype_name(dtype),
            dtype_name(expected),
            std::any::type_name::<T>()
        ));
    }
    let shape = tensor.shape();
    if let Some(strides) = tensor.strides() {
        if !is_row_major(shape, strides) {
            return Err(format!(
                "the tensor's strides {strides:?} (in elements) for shape {shape:?} are not \
                 one contiguous row-major run, which a DeviceArray is; make it contiguous \
                 first (e.g. `.contiguous()` in PyTorch, `cupy.ascontiguousarray`)"
            ));
        }
    }
    if flags.contains(DlpackFlags::READ_ONLY) {
        return Err("the tensor is marked read-only, and kernels may write a DeviceArray".into());
    }
    let len = tensor.num_elements();
    let address = (tensor.data_ptr() as u64)
        .checked_add(tensor.byte_offset())
        .ok_or_else(|| "the tensor's data pointer plus byte_offset overflows".to_string())?;
    let align = std::mem::align_of::<T>() as u64;
    if len > 0 && address % align != 0 {
        return Err(format!(
            "the tensor's first element (data pointer {:#x} + byte_offset {}) is not aligned \
             to {align} bytes as `{}` needs",
            tensor.data_ptr() as u64,
            tensor.byte_offset(),
            std::any::type_name::<T>()
        ));
    }
    Ok(Placement { address, len })
}

/// Whether `strides` (in elements) lay `shape` out as one contiguous row-major run.
/// Axes of extent 1 may have any stride (no step is taken along them), and an empty
/// tensor has no elements to misplace.
fn is_row_major(shape: &[i64], strides: &[i64]) -> bool {
    if shape.len() != strides.len() {
        return false;
    }
    if shape.contains(&0) {
        return true;
    }
    let mut expected: i64 = 1;
    for (&extent, &stride) in shape.iter().zip(strides).rev() {
        if extent != 1 && stride != expected {
            return false;
        }
        expected = match expected.checked_mul(extent) {
            Some(next) => next,
            None => return false,
        };
    }
    true
}

/// Asks the driver whether `bytes` from `address` lie inside one allocation of CUDA
/// device `ordinal` (the tensor's descriptor could claim anything).
fn check_memory(address: u64, bytes: u64, ordinal: usize) -> std::result::Result<(), String> {
    let attribute = |attribute: sys::CUpointer_attribute| -> Result<u64> {
        let mut value = 0u64;
        // SAFETY: every attribute asked for is at most 8 bytes, written into `value`;
        // the driver only inspects the address, it does not dereference it.
        unsafe {
            sys::cuPointerGetAttribute(
                &mut value as *mut u64 as *mut std::ffi::c_void,
                attribute,
                address,
            )
        }
        .result()
        .call("cuPointerGetAttribute")?;
        Ok(value)
    };
    let unknown = |e: Error| {
        format!(
            "the driver does not know the tensor's data address {address:#x} as CUDA memory \
             ({e})"
        )
    };
    // The memory type and ordinal are 4-byte values, read from the low bytes.
    let memory_type = attribute(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
        .map_err(unknown)? as u32;
    if memory_type != sys::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32 {
        return Err(format!(
            "the tensor's data address {address:#x} is not device memory (driver memory \
             type {memory_type})"
        ));
    }
    let owner = attribute(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
        .map_err(unknown)? as u32;
    if owner as usize != ordinal {
        return Err(format!(
            "the tensor's memory belongs to CUDA device {owner}, not {ordinal} as its \
             descriptor says"
        ));
    }
    let range = match (
        attribute(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR),
        attribute(sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE),
    ) {
        (Ok(start), Ok(size)) => Some((start, size)),
        _ => {
            let (mut start, mut size) = (0u64, 0usize);
            // SAFETY: valid out-pointers; the driver only looks the address up.
            unsafe { sys::cuMemGetAddressRange_v2(&mut start, &mut size, address) }
                .result()
                .ok()
                .map(|()| (start, size as u64))
        }
    };
    // A driver that cannot say the range leaves the bounds to the producer's word, as
    // DLPack itself does.
    let Some((start, size)) = range else {
        return Ok(());
    };
    let end = address.checked_add(bytes);
    if end.is_none_or(|end| end > start.saturating_add(size)) {
        return Err(format!(
            "the tensor's {bytes} bytes from {address:#x} run past the end of its allocation \
             ({size} bytes from {start:#x})"
        ));
    }
    Ok(())
}

impl<T: DeviceElem + 'static> DeviceArray<T> {
    /// A DLPack tensor in CUDA memory (from PyTorch's `to_dlpack`, CuPy, JAX, or a Rust
    /// producer through `dlpark`) as a device array over the same memory, without a
    /// copy. `stream` is the stream the tensor's data is ready on (the one passed to
    /// the producer's `__dlpack__(stream=...)`): cudajit's first use waits for it, and
    /// when the array drops it is made to wait for cudajit's uses before the tensor's
    /// deleter runs (once).
    ///
    /// `Err` (naming what is wrong, the tensor dropped) when the tensor is not on
    /// `stream`'s CUDA device, its element type is not `T`, its strides are not one
    /// contiguous row-major run, its data is misaligned, it is read-only, or the driver
    /// does not know its bytes as one allocation of that device; and on the simulator.
    pub fn from_dlpack<M: ManagedTensorBase + 'static>(
        tensor: Managed<M>,
        stream: &Stream,
    ) -> Result<DeviceArray<T>> {
        let refused = |detail: String| Error::Refused {
            operation: "DeviceArray::from_dlpack",
            detail,
        };
        let device = stream.device().clone();
        if device.is_simulator() {
            return Err(refused(
                "the CPU simulator's memory has no device address a DLPack tensor could \
                 describe; import on a GPU"
                    .into(),
            ));
        }
        let _context = stream.device().bind()?;
        stream.ensure_current()?;
        let flags = tensor.flags();
        let view = tensor
            .validate()
            .map_err(|e| refused(format!("the tensor's descriptor is invalid: {e}")))?;
        let placement = check_tensor::<T>(&view, flags, device.ordinal()).map_err(refused)?;
        let bytes = placement.len as u64 * std::mem::size_of::<T>() as u64;
        let _guard = device.bind()?;
        if placement.len > 0 {
            check_memory(placement.address, bytes, device.ordinal()).map_err(refused)?;
        }
        let address = if placement.len > 0 {
            placement.address
        } else {
            0
        };
        let memory = Allocation::borrowed_keeping(
            &device,
            address,
            stream.handle().clone(),
            stream.handle().clone(),
            Some(Box::new(tensor)),
        );
        Ok(DeviceArray::from_allocation(&device, memory, placement.len))
    }

    /// The array as a one-dimensional DLPack tensor (current ABI, explicit strides)
    /// over the same memory, without a copy, for a consumer that uses it on `consumer`
    /// (made to wait for cudajit's uses first). The tensor owns the array: its deleter
    /// drops it, and the memory is then freed stream-ordered after the work queued on
    /// `consumer`. `Err` on the simulator and for element types DLPack has no code for.
    pub fn into_dlpack(self, consumer: &Stream) -> Result<DlpackTensor>
    where
        DeviceArray<T>: Send,
    {
        let refused = |detail: String| Error::Refused {
            operation: "DeviceArray::into_dlpack",
            detail,
        };
        let Some(memory) = self.allocation() else {
            return Err(refused(
                "the CPU simulator's memory has no device address a DLPack tensor could \
                 describe; export from a GPU"
                    .into(),
            ));
        };
        let Some(dtype) = dlpack_dtype::<T>() else {
            return Err(refused(format!(
                "DLPack has no element type for `{}`",
                std::any::type_name::<T>()
            )));
        };
        let owner = self.device().clone();
        let _context = owner.bind()?;
        self.ensure_current()?;
        let _consumer_context = consumer.device().bind()?;
        consumer.ensure_current()?;
        if consumer.device() != self.device() {
            return Err(refused(format!(
                "the array is on {} but the consumer's stream on {}",
                self.device(),
                consumer.device()
            )));
        }
        let len = i64::try_from(self.len())
            .map_err(|_| refused(format!("{} elements overflow DLPack's i64", self.len())))?;
        let device = self.device().clone();
        let _guard = device.bind()?;
        // The consumer may write: its stream waits for every use so far, and becomes
        // the stream the memory is freed on.
        device.watch(memory.use_on(consumer.handle(), true))?;
        let data = memory.ptr as *mut std::ffi::c_void;
        let ordinal = device.ordinal() as i32;
        let mut initialized = Dynamic::compact([len])
            .initialize(Box::new(self))
            .map_err(|e| refused(format!("building the DLPack descriptor failed: {e}")))?;
        initialized
            .set_data(data)
            .set_device(DLDevice::cuda(ordinal))
            .set_dtype(dtype)
            .set_byte_offset(0);
        // SAFETY: `data` is the array's allocation of `len` elements of `dtype` on CUDA
        // device `ordinal`, kept alive by the array the tensor owns until its deleter
        // runs; shape and strides are the compact ones `Dynamic::compact` stored; the
        // flags (none) say it is writable and not a copy, which it is.
        Ok(unsafe { initialized.finish() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Device;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A descriptor over a made-up address (never dereferenced: only checked).
    fn tensor(
        address: u64,
        device: DLDevice,
        dtype: DLDataType,
        shape: &[i64],
        strides: &[i64],
        byte_offset: u64,
    ) -> DlpackTensor {
        let mut initialized = Dynamic::new(shape.to_vec(), strides.to_vec())
            .initialize(Box::new(()))
            .unwrap();
        initialized
            .set_data(address as *mut std::ffi::c_void)
            .set_device(device)
            .set_dtype(dtype)
            .set_byte_offset(byte_offset);
        // SAFETY: the data pointer is only compared, never read.
        unsafe { initialized.finish() }
    }

    fn check<T: 'static>(
        t: &DlpackTensor,
        ordinal: usize,
    ) -> std::result::Result<Placement, String> {
        check_tensor::<T>(&t.validate().unwrap(), t.flags(), ordinal)
    }

    #[test]
    fn a_contiguous_cuda_tensor_of_the_right_type_is_accepted() {
        let cuda0 = DLDevice::cuda(0);
        let t = tensor(0x1000, cuda0, DLDataType::F32, &[4, 8], &[8, 1], 16);
        assert_eq!(
            check::<f32>(&t, 0),
            Ok(Placement {
                address: 0x1010,
                len: 32
            })
        );
        // Axes of extent 1 may have any stride; empty tensors have no layout to check.
        let t = tensor(0x2000, cuda0, DLDataType::I64, &[3, 1, 5], &[5, 77, 1], 0);
        assert_eq!(check::<i64>(&t, 0).unwrap().len, 15);
        let t = tensor(0x2000, cuda0, DLDataType::U8, &[0, 5], &[9, 3], 0);
        assert_eq!(check::<u8>(&t, 0).unwrap().len, 0);
        let t = tensor(0x3000, DLDevice::cuda(2), DLDataType::C128, &[6], &[1], 0);
        assert_eq!(check::<num_complex::Complex<f64>>(&t, 2).unwrap().len, 6);
        let t = tensor(0x3000, cuda0, DLDataType::U64, &[6], &[1], 0);
        assert!(check::<usize>(&t, 0).is_ok());
    }

    #[test]
    fn a_mismatched_tensor_is_refused_naming_what_is_wrong() {
        let cuda0 = DLDevice::cuda(0);
        let cases: Vec<(DlpackTensor, &str)> = vec![
            (
                tensor(0x1000, DLDevice::CPU, DLDataType::F32, &[4], &[1], 0),
                "the tensor is in the CPU, not on a CUDA GPU",
            ),
            (
                tensor(0x1000, DLDevice::cuda(1), DLDataType::F32, &[4], &[1], 0),
                "the tensor is on CUDA device 1 but the stream is on CUDA device 0",
            ),
            (
                tensor(0x1000, cuda0, DLDataType::F64, &[4], &[1], 0),
                "the tensor's elements are float64 but the array's are float32 (`f32`)",
            ),
            (
                tensor(0x1000, cuda0, DLDataType::I32, &[4], &[1], 0),
                "the tensor's elements are int32 but the array's are float32",
            ),
            (
                tensor(0x1000, cuda0, DLDataType::F32, &[4, 8], &[1, 4], 0),
                "the tensor's strides [1, 4] (in elements) for shape [4, 8] are not one \
                 contiguous row-major run",
            ),
            (
                tensor(0x1000, cuda0, DLDataType::F32, &[4], &[2], 0),
                "strides [2] (in elements) for shape [4]",
            ),
            (
                tensor(0x1000, cuda0, DLDataType::F32, &[4], &[1], 2),
                "(data pointer 0x1000 + byte_offset 2) is not aligned to 4 bytes",
            ),
        ];
        for (t, expected) in &cases {
            let got = check::<f32>(t, 0).unwrap_err();
            assert!(got.contains(expected), "expected {expected:?} in {got:?}");
        }
        let mut t = tensor(0x1000, cuda0, DLDataType::F32, &[4], &[1], 0);
        // SAFETY: only the flag is changed, to what the test checks.
        unsafe { *t.flags_mut() = DlpackFlags::READ_ONLY };
        assert!(check::<f32>(&t, 0).unwrap_err().contains("read-only"));
        #[allow(dead_code)] // only its type matters
        #[derive(Clone, Copy)]
        struct Pair(u32, u32);
        let t = tensor(0x1000, cuda0, DLDataType::U64, &[4], &[1], 0);
        assert!(check::<Pair>(&t, 0)
            .unwrap_err()
            .contains("DLPack has no element type for"));
    }

    /// On the simulator import and export are `Err` with the reason, and a refused
    /// tensor's deleter still runs, exactly once.
    #[test]
    fn the_simulator_refuses_dlpack_and_the_deleter_runs_once() {
        struct Counted(Arc<AtomicUsize>);
        impl Drop for Counted {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let device = Device::simulator().unwrap();
        let stream = device.new_stream().unwrap();
        let drops = Arc::new(AtomicUsize::new(0));
        let mut initialized = Dynamic::compact([4i64])
            .initialize(Box::new(Counted(Arc::clone(&drops))))
            .unwrap();
        initialized
            .set_data(0x1000 as *mut std::ffi::c_void)
            .set_device(DLDevice::cuda(0))
            .set_dtype(DLDataType::F32);
        // SAFETY: the data pointer is never dereferenced (the import is refused first).
        let t = unsafe { initialized.finish() };
        let err = DeviceArray::<f32>::from_dlpack(t, &stream).unwrap_err();
        assert!(
            err.to_string()
                .contains("DeviceArray::from_dlpack: the CPU simulator's memory"),
            "{err}"
        );
        assert_eq!(drops.load(Ordering::SeqCst), 1);

        let array = DeviceArray::<f32>::from_slice_on(&device, &[1.0, 2.0]).unwrap();
        let Err(err) = array.into_dlpack(&stream) else {
            panic!("a simulator array was exported as a DLPack tensor");
        };
        assert!(
            err.to_string()
                .contains("DeviceArray::into_dlpack: the CPU simulator's memory"),
            "{err}"
        );
    }
}
