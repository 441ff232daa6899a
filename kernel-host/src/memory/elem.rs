//! The element types device memory and kernels exchange as raw bytes: scalars
//! ([`DeviceScalar`]), array and slice elements ([`DeviceElem`]) and by-value
//! arguments ([`KernelValue`]). They sit under `memory`, below the arrays that hold
//! them and the launch that passes them.

use kernel_device::ir::ScalarType;
use kernel_device::source::DeviceCopy;

/// A scalar type kernels compute with.
///
/// # Safety
/// `SCALAR` must describe `Self` exactly (size and representation): the runtime copies
/// values and buffers of `Self` to and from the device as raw bytes of that type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a scalar type a cudajit kernel can use",
    label = "not a kernel scalar",
    note = "kernels take bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, f16, bf16 and slices of them"
)]
pub unsafe trait DeviceScalar: DeviceElem {
    const SCALAR: ScalarType;
}

/// A type a `DeviceArray` can hold and a kernel's slice can have as elements: the
/// scalars and `#[derive(DeviceCopy)]` structs.
///
/// # Safety
/// Every byte of a `Self` is initialised plain data (no padding, no pointers), laid
/// out as `DeviceCopy::device_type` says: arrays of `Self` cross to the device as raw
/// bytes. `#[derive(DeviceCopy)]` implements it after checking exactly that.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of a device array or a kernel slice",
    label = "not a kernel scalar or a `#[derive(DeviceCopy)]` struct or enum",
    note = "device arrays and kernel slices hold bool, integers, f32, f64, f16, bf16, `Complex<f32>`, `Complex<f64>`, `#[derive(Clone, Copy, DeviceCopy)] #[repr(C)]` structs and `#[derive(Clone, Copy, DeviceCopy)] #[repr(u8)]` fieldless enums"
)]
pub unsafe trait DeviceElem: DeviceCopy {}

macro_rules! device_scalar {
    ($($t:ty => $s:ident),* $(,)?) => {$(
        // SAFETY: the ScalarType names this exact primitive.
        unsafe impl DeviceScalar for $t { const SCALAR: ScalarType = ScalarType::$s; }
        // SAFETY: a primitive scalar is plain initialised data.
        unsafe impl DeviceElem for $t {}
    )*};
}
device_scalar!(
    bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, isize => Isize,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, usize => Usize, f32 => F32, f64 => F64,
    half::f16 => F16, half::bf16 => BF16, kernel_device::e4m3 => E4M3,
);

// SAFETY: `Complex<f32>`/`Complex<f64>` are two scalars of one type, `#[repr(C)]`.
unsafe impl DeviceElem for num_complex::Complex<f32> {}
// SAFETY: as above.
unsafe impl DeviceElem for num_complex::Complex<f64> {}
/// A `#[derive(DeviceCopy)]` type a kernel takes by value: fieldless enums (`op: Op`,
/// passed as their repr integer) and structs (`params: SimParams`, passed as their
/// bytes).
///
/// # Safety
/// Every byte of `Self` is initialised and laid out as `DeviceCopy::device_type` says
/// (a scalar's bytes, or a struct's `ir::layout` without padding).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a kernel by value",
    label = "not a kernel scalar or a `#[derive(DeviceCopy)]` struct or enum",
    note = "kernels take scalars, `Complex<f32>`, `Complex<f64>`, `#[derive(Clone, Copy, DeviceCopy)] #[repr(C)]` structs and `#[derive(Clone, Copy, DeviceCopy)] #[repr(u8)]` fieldless enums by value"
)]
pub unsafe trait KernelValue: DeviceElem {}

// SAFETY: `Complex<f32>`/`Complex<f64>` are two scalars of one type, `#[repr(C)]`, no
// padding: passed as their bytes like a struct.
unsafe impl KernelValue for num_complex::Complex<f32> {}
// SAFETY: as above.
unsafe impl KernelValue for num_complex::Complex<f64> {}
