//! Kernel arguments: which Rust values may be passed for which kernel parameter (checked
//! by rustc at the call site through [`SliceArg`]/[`SliceArgMut`]), and the type-erased
//! [`KernelArg`] the generated launcher hands to the runtime. The parameter ABI is the
//! one the NVVM backend emits: a slice is a device pointer (`u64`) then a length in
//! elements (`i64`); a scalar is passed by value, `bool` as one byte, `usize`/`isize`
//! as 64 bits. An N-d array (`&Nd<T, D>` / `&mut Nd<T, D>`, D = 2 or 3) is `2 + 2 * D`
//! arguments: the slice of the span of memory it covers, the offset of element
//! `(0, ..)` in that span (`usize`), its `D` lengths (`usize`) and its `D` strides in
//! elements (`isize`), in that order (`nd`; the frontend's `front::nd` lowers the
//! parameter to exactly these).

use std::sync::Arc;

use kernel_device::back::sim::Buffer;
use kernel_device::ir::{ScalarType, Type};
use kernel_device::source::DeviceCopy;

use crate::device::DeviceId;
use crate::error::{Error, Result};
use crate::memory::allocation::Allocation;
use crate::memory::array::{DeviceArray, LaunchFacts};
use crate::memory::elem::{DeviceElem, DeviceScalar, KernelValue};
use crate::memory::staged::{HostBytesMut, Staged};

/// A value accepted for a `&[T]` kernel parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `&[{T}]` kernel parameter",
    label = "expected `&[{T}]`, `&Vec<{T}>` or `&DeviceArray<{T}>`",
    note = "pass a host slice (`&v`: copied to the GPU for the launch) or a `&DeviceArray<{T}>` (already on the GPU, no copy)"
)]
pub trait SliceArg<'a, T> {
    fn into_kernel_arg(self) -> KernelArg<'a>;
}

/// A value accepted for a `&mut [T]` kernel parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `&mut [{T}]` kernel parameter",
    label = "expected `&mut [{T}]`, `&mut Vec<{T}>` or `&mut DeviceArray<{T}>`",
    note = "pass `&mut v` (copied to the GPU and back after the kernel) or a `&mut DeviceArray<{T}>` (stays on the GPU)"
)]
pub trait SliceArgMut<'a, T> {
    fn into_kernel_arg(self) -> KernelArg<'a>;
}

/// What a `&[T]` parameter of a `#[kernel]` accepts at `launch!`: a host slice, `&Vec<T>`,
/// `&[T; N]`, a `&DeviceArray<T>` or a view of one. The one bound the generated launcher
/// puts on such a parameter, so that a wrong argument is one error in these words (the
/// conversions themselves are [`SliceArg`]'s, which rustc does not show: see
/// `do_not_recommend` below). It has no bound on `T`: a kernel whose element type is not
/// a device type is reported once, by `DeviceCopy`, at the kernel's signature.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `&[{T}]` kernel parameter",
    label = "expected `&[{T}]`, `&Vec<{T}>` or `&DeviceArray<{T}>`",
    note = "pass a host slice (`&v`: copied to the GPU for the launch) or a `&DeviceArray<{T}>` (already on the GPU, no copy)"
)]
pub trait KernelSlice<'a, T> {
    #[doc(hidden)]
    fn into_kernel_arg(self) -> KernelArg<'a>;
}

/// What a `&mut [T]` parameter of a `#[kernel]` accepts at `launch!`: `&mut v` of a host
/// slice, `Vec<T>` or array, a `&mut DeviceArray<T>` or a mutable view of one. See
/// [`KernelSlice`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `&mut [{T}]` kernel parameter",
    label = "expected `&mut [{T}]`, `&mut Vec<{T}>` or `&mut DeviceArray<{T}>`",
    note = "pass `&mut v` (copied to the GPU and back after the kernel) or a `&mut DeviceArray<{T}>` (stays on the GPU)"
)]
pub trait KernelSliceMut<'a, T> {
    #[doc(hidden)]
    fn into_kernel_arg(self) -> KernelArg<'a>;
}

#[diagnostic::do_not_recommend]
impl<'a, T: DeviceElem, A: SliceArg<'a, T>> KernelSlice<'a, T> for A {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        SliceArg::into_kernel_arg(self)
    }
}

#[diagnostic::do_not_recommend]
impl<'a, T: DeviceElem, A: SliceArgMut<'a, T>> KernelSliceMut<'a, T> for A {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        SliceArgMut::into_kernel_arg(self)
    }
}

/// A kernel's by-value argument of a concrete type, as the generated launcher passes it:
/// `ByValue(p).kernel_arg()` is [`KernelArg::by_value`] when the type is `DeviceCopy`,
/// and otherwise resolves (by autoref) to [`ByValueFallback`], which is never run: the
/// kernel's signature already reports the type, once. Only for types without generic
/// arguments, where method resolution is exact.
#[doc(hidden)]
pub struct ByValue<T>(pub T);

#[doc(hidden)]
pub trait ByValueArg<'a> {
    fn kernel_arg(self) -> KernelArg<'a>;
}

impl<'a, T: DeviceCopy> ByValueArg<'a> for ByValue<T> {
    fn kernel_arg(self) -> KernelArg<'a> {
        KernelArg::by_value(self.0)
    }
}

#[doc(hidden)]
pub trait ByValueFallback<'a> {
    fn kernel_arg(self) -> KernelArg<'a>;
}

impl<'a, T> ByValueFallback<'a> for &ByValue<T> {
    fn kernel_arg(self) -> KernelArg<'a> {
        unreachable!(
            "cudajit: a kernel with a by-value parameter that is not `DeviceCopy` does not compile"
        )
    }
}

/// Writes the staged `&mut` N-d views of `args` back into the caller's arrays: after
/// the device's copy back, whatever the kernel's outcome (as `&mut` slices come back).
pub(crate) fn write_back_staged(args: &[KernelArg<'_>]) {
    for arg in args {
        if let ArgKind::HostMut {
            bytes: HostBytesMut::Staged(staged),
            ..
        } = &arg.kind
        {
            staged.write_back();
        }
    }
}

/// One argument of a launch, type-erased. Built by the generated launcher.
pub struct KernelArg<'a> {
    pub(crate) kind: ArgKind<'a>,
    /// The bytes `cuLaunchKernel` reads for this argument: a scalar's value (in the low
    /// bytes, little-endian, so its address is the value's address) or a slice's device
    /// pointer; filled in by the launch for host slices.
    pub(crate) value: u64,
    /// A slice's length in elements (the second parameter of the pair).
    pub(crate) len: i64,
}

pub(crate) enum ArgKind<'a> {
    Scalar(ScalarType),
    /// A struct by value: `cuLaunchKernel` reads its bytes (one parameter slot).
    Value {
        ty: Type,
        bytes: Vec<u8>,
    },
    /// A host slice copied to a temporary device buffer for the launch (owned where
    /// an N-d view's elements were gathered into the span they cover: `nd`).
    Host {
        elem: Type,
        bytes: std::borrow::Cow<'a, [u8]>,
    },
    /// A host slice copied to the device and back after the kernel.
    HostMut {
        elem: Type,
        bytes: HostBytesMut<'a>,
    },
    /// A device array: its pointer (on a GPU) or its buffer (on the simulator) is
    /// passed, nothing is copied.
    Device {
        elem: Type,
        device: DeviceId,
        mutable: bool,
        sim_buffer: Option<&'a Arc<Buffer>>,
        /// Where the elements start in the simulator buffer, in bytes (a view's start;
        /// on a GPU the offset is in the pointer).
        sim_offset: usize,
        /// The GPU memory, whose uses on different streams the launch orders (`None`
        /// on the simulator).
        allocation: Option<&'a Arc<Allocation>>,
    },
    // Hopper: TMA
    /// A tensor map (`super::tensor_map`): its bytes, then its tile word in `len`.
    TensorMap(super::tensor_map::TensorMapArg<'a>),
}

impl<'a> KernelArg<'a> {
    /// A scalar passed by value.
    pub fn scalar<T: DeviceScalar>(v: T) -> Self {
        let mut value = 0u64;
        // SAFETY: every DeviceScalar is at most 8 bytes of plain data; copying its bytes
        // into the low end of a u64 keeps the value at the u64's address (little-endian
        // hosts: x86-64 and aarch64, the platforms CUDA supports).
        unsafe {
            std::ptr::copy_nonoverlapping(
                &v as *const T as *const u8,
                &mut value as *mut u64 as *mut u8,
                std::mem::size_of::<T>().min(8),
            );
        }
        KernelArg {
            kind: ArgKind::Scalar(T::SCALAR),
            value,
            len: 0,
        }
    }

    /// A `#[derive(DeviceCopy)]` value a kernel takes by value, as the generated
    /// launcher passes it: bounded by `DeviceCopy` alone, the bound the kernel's signature
    /// already carries, so a type without the derive is one error, not two. Arrays never
    /// come here (the macro rejects them by value) and the derive rejects padding.
    pub fn by_value<T: DeviceCopy>(v: T) -> Self {
        const { assert!(T::PADDING == 0, "a kernel value cannot have padding bytes") };
        Self::value_bytes(v)
    }

    /// A `#[derive(DeviceCopy)]` enum (its repr integer) or struct (its bytes) by value.
    pub fn value<T: KernelValue>(v: T) -> Self {
        Self::value_bytes(v)
    }

    /// `v`'s bytes: `T` is a `DeviceCopy` type without padding.
    fn value_bytes<T: DeviceCopy>(v: T) -> Self {
        let ty = T::device_type();
        let Type::Scalar(scalar) = ty else {
            // SAFETY: KernelValue: every byte of `v` is initialised plain data.
            let bytes = unsafe {
                std::slice::from_raw_parts(&v as *const T as *const u8, std::mem::size_of::<T>())
            }
            .to_vec();
            return KernelArg {
                kind: ArgKind::Value { ty, bytes },
                value: 0,
                len: 0,
            };
        };
        let mut value = 0u64;
        // SAFETY: `T` is the bytes of `scalar` (KernelValue), at most 8 bytes; copied
        // into the low end of a u64 as `scalar` does.
        unsafe {
            std::ptr::copy_nonoverlapping(
                &v as *const T as *const u8,
                &mut value as *mut u64 as *mut u8,
                std::mem::size_of::<T>().min(8),
            );
        }
        KernelArg {
            kind: ArgKind::Scalar(scalar),
            value,
            len: 0,
        }
    }

    pub(crate) fn host<T: DeviceElem>(data: &'a [T]) -> Self {
        // SAFETY: a slice of plain scalars viewed as its bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data))
        };
        KernelArg {
            kind: ArgKind::Host {
                elem: T::device_type(),
                bytes: std::borrow::Cow::Borrowed(bytes),
            },
            value: 0,
            len: data.len() as i64,
        }
    }

    /// `len` elements of `T` whose bytes the argument owns (`bytes.len()` is `len`
    /// elements' size).
    pub(crate) fn host_owned<T: DeviceElem>(bytes: Vec<u8>, len: usize) -> Self {
        KernelArg {
            kind: ArgKind::Host {
                elem: T::device_type(),
                bytes: std::borrow::Cow::Owned(bytes),
            },
            value: 0,
            len: len as i64,
        }
    }

    /// As `host_mut` for bytes staged in `staged`, whose drop writes them back.
    pub(crate) fn host_staged<T: DeviceElem>(staged: Staged<'a>, len: usize) -> Self {
        KernelArg {
            kind: ArgKind::HostMut {
                elem: T::device_type(),
                bytes: HostBytesMut::Staged(Box::new(staged)),
            },
            value: 0,
            len: len as i64,
        }
    }

    pub(crate) fn host_mut<T: DeviceElem>(data: &'a mut [T]) -> Self {
        let len = data.len() as i64;
        // SAFETY: as in `host`; the device writes back values of `T` produced by the
        // kernel (bools as 0/1 bytes, as the backend stores them).
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                data.as_mut_ptr() as *mut u8,
                std::mem::size_of_val(data),
            )
        };
        KernelArg {
            kind: ArgKind::HostMut {
                elem: T::device_type(),
                bytes: HostBytesMut::Borrowed(bytes),
            },
            value: 0,
            len,
        }
    }

    #[inline(always)]
    pub(crate) fn device<T: DeviceElem>(array: &'a DeviceArray<T>, mutable: bool) -> Self {
        Self::device_range(array, 0, array.len(), mutable)
    }

    /// Elements `start..start + len` of `array` (in range: a view checked them).
    #[inline(always)]
    pub(crate) fn device_range<T: DeviceElem>(
        array: &'a DeviceArray<T>,
        start: usize,
        len: usize,
        mutable: bool,
    ) -> Self {
        let offset = start * std::mem::size_of::<T>();
        // Read from the array itself, not its memory's shared state (`LaunchFacts`).
        let LaunchFacts { ptr, id } = array.launch_facts();
        let allocation = array.allocation();
        KernelArg {
            kind: ArgKind::Device {
                elem: T::device_type(),
                device: id,
                mutable,
                sim_buffer: array.sim_buffer(),
                sim_offset: offset,
                allocation,
            },
            // An empty array has no allocation: its pointer stays 0.
            value: if ptr == 0 { 0 } else { ptr + offset as u64 },
            len: len as i64,
        }
    }

    /// Whether the argument holds nothing to free: a scalar, or a device array (or
    /// view) of scalars, what the launch memo stands for.
    pub(crate) fn owns_nothing(&self) -> bool {
        matches!(
            self.kind,
            ArgKind::Scalar(_)
                | ArgKind::Device {
                    elem: Type::Scalar(_),
                    ..
                }
        )
    }

    /// How the argument reads in an error message.
    fn describe(&self) -> String {
        match &self.kind {
            ArgKind::Scalar(s) => format!("a `{s}`"),
            ArgKind::Value { ty, .. } => format!("a `{ty}`"),
            ArgKind::Host { elem, .. } => format!("a host `&[{elem}]`"),
            ArgKind::HostMut { elem, .. } => format!("a host `&mut [{elem}]`"),
            ArgKind::Device { elem, mutable, .. } => {
                format!(
                    "a `&{}DeviceArray<{elem}>`",
                    if *mutable { "mut " } else { "" }
                )
            }
            // Hopper: TMA
            ArgKind::TensorMap(map) => map.describe(),
        }
    }

    /// Whether the argument can stand for a parameter of type `param`.
    fn fits(&self, param: &Type) -> bool {
        match (&self.kind, param) {
            (ArgKind::Scalar(s), Type::Scalar(p)) => s == p,
            (ArgKind::Value { ty, .. }, param) => ty == param,
            (ArgKind::Host { elem, .. }, param) => slice_of(param, elem) == Some(false),
            (ArgKind::HostMut { elem, .. }, param) => slice_of(param, elem).is_some(),
            (
                ArgKind::Device {
                    elem, mutable: m, ..
                },
                param,
            ) => slice_of(param, elem).is_some_and(|mutable| *m || !mutable),
            // Hopper: TMA
            (ArgKind::TensorMap(map), param) => map.ty == *param,
            _ => false,
        }
    }
}

/// `Some(mutable)` when `param` is a slice (`&[T]`, or `&mut [T]` with `mutable`) of
/// `elem`: compared in place, since this runs for every argument of every launch
/// (`Type::slice_elem` would build a `Type` to compare and drop).
#[inline]
fn slice_of(param: &Type, elem: &Type) -> Option<bool> {
    match (param, elem) {
        (Type::Slice { elem: p, mutable }, Type::Scalar(e)) if p == e => Some(*mutable),
        (Type::StructSlice { elem: p, mutable }, Type::Struct(e)) if p == e => Some(*mutable),
        _ => None,
    }
}

/// What the launch needs to know of its arguments after [`check_args`], gathered in
/// its one pass over them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArgSummary {
    /// `cuLaunchKernel` parameter slots the arguments occupy (`proc::abi`: a slice
    /// takes two), the hidden panic-record slot not counted.
    pub(crate) slots: usize,
    /// Whether a host slice is among them (copied in, and back for `&mut`, around a
    /// synchronised launch).
    pub(crate) host_slices: bool,
}

/// Checks count and types of `args` against the kernel's parameters, and that device
/// arrays live on the launch's device. Runs before any driver call of the launch: one
/// pass that only compares, one branch on its outcome; an argument that does not fit
/// goes to [`check_args_slow`], which says which and why.
#[inline]
pub(crate) fn check_args(
    kernel: &str,
    params: &[Type],
    args: &[KernelArg<'_>],
    launch_device: DeviceId,
) -> Result<ArgSummary> {
    let mut summary = ArgSummary {
        slots: 0,
        host_slices: false,
    };
    let mut fit = params.len() == args.len();
    for (param, arg) in params.iter().zip(args) {
        summary.slots += arg.slot_count();
        summary.host_slices |= matches!(arg.kind, ArgKind::Host { .. } | ArgKind::HostMut { .. });
        let on_device = match &arg.kind {
            ArgKind::Device { device, .. } => *device == launch_device,
            ArgKind::TensorMap(map) => *map.device == launch_device,
            _ => true,
        };
        fit &= arg.fits(param) & on_device;
    }
    if fit {
        return Ok(summary);
    }
    check_args_slow(kernel, params, args, launch_device)
}

/// [`check_args`] with the first misfit named (the same summary when none is).
#[cold]
#[inline(never)]
fn check_args_slow(
    kernel: &str,
    params: &[Type],
    args: &[KernelArg<'_>],
    launch_device: DeviceId,
) -> Result<ArgSummary> {
    let mismatch = |detail: String| Error::ArgumentMismatch {
        kernel: kernel.to_string(),
        detail,
    };
    if params.len() != args.len() {
        return Err(mismatch(format!(
            "the kernel takes {} argument(s) but {} were given",
            params.len(),
            args.len()
        )));
    }
    let mut summary = ArgSummary {
        slots: 0,
        host_slices: false,
    };
    for (i, (param, arg)) in params.iter().zip(args).enumerate() {
        summary.slots += arg.slot_count();
        summary.host_slices |= matches!(arg.kind, ArgKind::Host { .. } | ArgKind::HostMut { .. });
        if !arg.fits(param) {
            return Err(mismatch(format!(
                "argument {} is {} but the kernel parameter is `{param}`",
                i + 1,
                arg.describe()
            )));
        }
        // A device array, or the array a tensor map's descriptor addresses.
        let (on, what, stale) = match &arg.kind {
            ArgKind::Device { device, .. } => (
                *device,
                "a device array",
                "a device array passed to this launch",
            ),
            ArgKind::TensorMap(map) => (
                *map.device,
                "a tensor map of an array",
                "a tensor map passed to this launch",
            ),
            _ => continue,
        };
        if let (DeviceId::Cuda(a, made), DeviceId::Cuda(b, now)) = (on, launch_device) {
            if a == b && made != now {
                return Err(Error::StaleAfterReset {
                    what: stale,
                    ordinal: a,
                });
            }
        }
        if on != launch_device {
            return Err(mismatch(format!(
                "argument {} is {what} on {on} but the launch is on {launch_device}",
                i + 1
            )));
        }
    }
    Ok(summary)
}

impl<'a> ArgKind<'a> {
    /// The GPU memory a launch orders for this argument across streams, and whether the
    /// kernel may write it: a device array's, or the array under a tensor map (written
    /// through a `TensorMapMut`, read through a `TensorMap`). `crate::launch::ordering`
    /// and graph capture ask this, so that a map joins them as its array would.
    #[inline]
    pub(crate) fn ordered_memory(&self) -> Option<(&'a Arc<Allocation>, bool)> {
        match self {
            ArgKind::Device {
                allocation: Some(memory),
                mutable,
                ..
            } => Some((*memory, *mutable)),
            ArgKind::TensorMap(map) => map.allocation.map(|memory| (memory, map.writable)),
            _ => None,
        }
    }
}

impl KernelArg<'_> {
    /// `cuLaunchKernel` parameter slots the argument occupies (`proc::abi`: a slice
    /// takes two).
    #[inline]
    fn slot_count(&self) -> usize {
        if matches!(self.kind, ArgKind::Scalar(_) | ArgKind::Value { .. }) {
            1
        } else {
            kernel_device::proc::abi::SLICE_SLOTS.len()
        }
    }
}

/// Number of `cuLaunchKernel` parameter slots the arguments occupy.
#[cfg(test)]
pub(crate) fn slot_count(args: &[KernelArg<'_>]) -> usize {
    args.iter().map(KernelArg::slot_count).sum()
}

/// Fills `slots` with the addresses `cuLaunchKernel` reads the arguments from.
/// The addresses point into `args`, which must stay in place until the launch call.
pub(crate) fn fill_slots(args: &mut [KernelArg<'_>], slots: &mut [*mut std::ffi::c_void]) {
    let mut i = 0;
    for arg in args.iter_mut() {
        slots[i] = match &mut arg.kind {
            // The struct's bytes: the Vec's heap buffer stays put while `args` does.
            ArgKind::Value { bytes, .. } => bytes.as_mut_ptr() as *mut std::ffi::c_void,
            // Hopper: TMA
            ArgKind::TensorMap(map) => map.slot(),
            _ => &mut arg.value as *mut u64 as *mut std::ffi::c_void,
        };
        i += 1;
        if !matches!(arg.kind, ArgKind::Scalar(_) | ArgKind::Value { .. }) {
            slots[i] = &mut arg.len as *mut i64 as *mut std::ffi::c_void;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests;
