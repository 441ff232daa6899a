//! What a kernel's slice parameter accepts: host slices, `Vec`s and arrays (copied for
//! the launch), device arrays and their views (passed without a copy), each as the
//! [`KernelArg`] the launch marshals.

use crate::launch::args::{KernelArg, SliceArg, SliceArgMut};
use crate::memory::array::DeviceArray;
use crate::memory::elem::{DeviceElem, DeviceScalar};
use crate::memory::view::{DeviceView, DeviceViewMut};

// The conversions the launcher's `impl SliceArg<'a, T>` parameters accept.

impl<'a, T: DeviceElem> SliceArg<'a, T> for &'a [T] {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host(self)
    }
}
impl<'a, T: DeviceElem> SliceArg<'a, T> for &'a Vec<T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host(self.as_slice())
    }
}
impl<'a, T: DeviceElem, const N: usize> SliceArg<'a, T> for &'a [T; N] {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host(self.as_slice())
    }
}
impl<'a, T: DeviceElem> SliceArg<'a, T> for &'a mut [T] {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host(self)
    }
}
impl<'a, T: DeviceElem> SliceArg<'a, T> for &'a mut Vec<T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host(self.as_slice())
    }
}
impl<'a, T: DeviceElem, const N: usize> SliceArg<'a, T> for &'a mut [T; N] {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host(self.as_slice())
    }
}
impl<'a, T: DeviceElem> SliceArg<'a, T> for &'a DeviceArray<T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device(self, false)
    }
}
impl<'a, T: DeviceElem> SliceArg<'a, T> for &'a mut DeviceArray<T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device(self, false)
    }
}

impl<'a, T: DeviceElem> SliceArgMut<'a, T> for &'a mut [T] {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host_mut(self)
    }
}
impl<'a, T: DeviceElem> SliceArgMut<'a, T> for &'a mut Vec<T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host_mut(self.as_mut_slice())
    }
}
impl<'a, T: DeviceElem, const N: usize> SliceArgMut<'a, T> for &'a mut [T; N] {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::host_mut(self.as_mut_slice())
    }
}
impl<'a, T: DeviceElem> SliceArgMut<'a, T> for &'a mut DeviceArray<T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device(self, true)
    }
}

// Views of a device array: its range, without a copy.

impl<'a, T: DeviceScalar> SliceArg<'a, T> for &'a DeviceView<'_, T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device_range(self.array, self.start, self.len, false)
    }
}
impl<'a, T: DeviceScalar> SliceArg<'a, T> for DeviceView<'a, T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device_range(self.array, self.start, self.len, false)
    }
}
impl<'a, T: DeviceScalar> SliceArg<'a, T> for &'a DeviceViewMut<'_, T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device_range(self.array, self.start, self.len, false)
    }
}
impl<'a, T: DeviceScalar> SliceArgMut<'a, T> for &'a mut DeviceViewMut<'_, T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device_range(self.array, self.start, self.len, true)
    }
}
impl<'a, T: DeviceScalar> SliceArgMut<'a, T> for DeviceViewMut<'a, T> {
    fn into_kernel_arg(self) -> KernelArg<'a> {
        KernelArg::device_range(self.array, self.start, self.len, true)
    }
}
