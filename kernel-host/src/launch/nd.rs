//! N-d array arguments: what a launch accepts for a kernel's `&Nd<T, D>` / `&mut Nd<T, D>`
//! parameter (`ndarray` arrays and views, [`DeviceNd`]s), and [`DeviceNd`] itself.
//!
//! The ABI (the frontend's `front::nd` lowers the parameter to it): the slice of the
//! span of memory the array covers (a pointer and a length, as any slice), then the
//! offset of element `(0, ..)` in that span (`usize`), the `D` lengths (`usize`) and
//! the `D` strides in elements (`isize`, any sign: a transposed or reversed view keeps
//! its own). The generated launcher passes them as `2 + 2 * D` consecutive arguments.
//!
//! A host view is passed without gathering it into a contiguous array: its span goes to
//! the device as it lies in memory. Where the span holds elements that are not the
//! view's (a stepped or sliced view), the launch copies the span into a staging buffer
//! with the view's elements only, and a `&mut` view gets back only its own elements, so
//! a launch never reads or writes memory the view does not borrow.

use ndarray::{ArrayBase, Data, DataMut, Dim, Dimension, Ix2, Ix3, IxDyn};

use crate::error::{Error, Result};
use crate::launch::args::KernelArg;
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceElem;
use crate::memory::staged::{for_each_offset, Staged};

/// The lowest element offset an array of `shape` and `strides` reaches (from element
/// `(0, ..)`, so at most 0) and the number of elements from there to its highest.
fn span(shape: &[usize], strides: &[isize]) -> (isize, usize) {
    if shape.contains(&0) {
        return (0, 0);
    }
    let (mut low, mut high) = (0isize, 0isize);
    for (&n, &s) in shape.iter().zip(strides) {
        let reach = (n as isize - 1) * s;
        if reach < 0 {
            low += reach;
        } else {
            high += reach;
        }
    }
    (low, (high - low) as usize + 1)
}

/// An N-d argument split into the parameters of the ABI (see the module docs). The
/// generated launcher passes its fields in order.
pub struct NdParts<'a, const D: usize> {
    pub data: KernelArg<'a>,
    pub origin: usize,
    pub shape: [usize; D],
    pub strides: [isize; D],
}

/// A value accepted for a `&Nd<T, D>` kernel parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `&Nd<{T}, {D}>` kernel parameter",
    label = "expected an `ndarray` array or view of `{T}` with {D} axes, or a `&DeviceNd<{T}, {D}>`",
    note = "pass `&array`, `array.view()`, `array.t()`, `array.slice(s![..])` (copied to the GPU for the launch) or a `&DeviceNd` (already on the GPU)"
)]
pub trait NdArg<'a, T: DeviceElem, const D: usize> {
    fn into_nd_parts(self) -> NdParts<'a, D>;
}

/// A value accepted for a `&mut Nd<T, D>` kernel parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `&mut Nd<{T}, {D}>` kernel parameter",
    label = "expected a mutable `ndarray` array or view of `{T}` with {D} axes, or a `&mut DeviceNd<{T}, {D}>`",
    note = "pass `&mut array`, `array.view_mut()`, `array.slice_mut(s![..])` (copied to the GPU and back after the kernel) or a `&mut DeviceNd`"
)]
pub trait NdArgMut<'a, T: DeviceElem, const D: usize> {
    fn into_nd_parts(self) -> NdParts<'a, D>;
}

/// The parts of a host view at `ptr` (element `(0, ..)`) with `shape` and `strides`,
/// readable for `'a`.
///
/// # Safety
/// Every element the view indexes is a live, initialised `T` for `'a`.
unsafe fn host_parts<'a, T: DeviceElem, const D: usize>(
    ptr: *const T,
    shape: [usize; D],
    strides: [isize; D],
) -> NdParts<'a, D> {
    let (low, len) = span(&shape, &strides);
    let elements: usize = shape.iter().product();
    let data = if len == elements {
        // Gapless (contiguous in any axis order, transposed, reversed): the span is
        // the view's elements exactly, passed as they lie.
        // SAFETY: the span from `ptr + low` holds exactly the view's elements.
        let span = unsafe { std::slice::from_raw_parts(ptr.offset(low), len) };
        KernelArg::host(span)
    } else {
        // SAFETY: the caller's guarantee.
        let bytes = unsafe { gather(ptr, &shape, &strides, low, len) };
        KernelArg::host_owned::<T>(bytes, len)
    };
    NdParts {
        data,
        origin: (-low) as usize,
        shape,
        strides,
    }
}

/// The view's elements copied, each to its place in a buffer of the `len` elements of
/// its span starting at offset `low` (the gaps left zero): what a view with gaps passes.
///
/// # Safety
/// Every element the view at `ptr` with `shape` and `strides` indexes is a live,
/// initialised `T`; `(low, len)` is its [`span`].
unsafe fn gather<T>(
    ptr: *const T,
    shape: &[usize],
    strides: &[isize],
    low: isize,
    len: usize,
) -> Vec<u8> {
    let size = std::mem::size_of::<T>();
    let mut bytes = vec![0u8; len * size];
    for_each_offset(shape, strides, |offset| {
        let at = (offset - low) as usize * size;
        // SAFETY: `ptr + offset` is one of the view's elements; `at` is inside the
        // span's `len` elements.
        unsafe {
            std::ptr::copy_nonoverlapping(
                ptr.offset(offset).cast::<u8>(),
                bytes.as_mut_ptr().add(at),
                size,
            )
        }
    });
    bytes
}

/// As [`host_parts`], for a `&mut` parameter.
///
/// # Safety
/// Every element the view indexes is a live, initialised `T` the caller may write for
/// `'a`, and no two indices reach the same element.
unsafe fn host_parts_mut<'a, T: DeviceElem, const D: usize>(
    ptr: *mut T,
    shape: [usize; D],
    strides: [isize; D],
) -> NdParts<'a, D> {
    let (low, len) = span(&shape, &strides);
    let elements: usize = shape.iter().product();
    let size = std::mem::size_of::<T>();
    let data = if len == elements {
        // SAFETY: as in `host_parts`; the view borrows its elements mutably for `'a`.
        let span = unsafe { std::slice::from_raw_parts_mut(ptr.offset(low), len) };
        KernelArg::host_mut(span)
    } else {
        // SAFETY: the caller's guarantee.
        let bytes = unsafe { gather(ptr, &shape, &strides, low, len) };
        let staged = Staged {
            bytes,
            origin_ptr: ptr.cast::<u8>(),
            origin: (-low) as usize,
            elem_size: size,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            _borrow: std::marker::PhantomData,
        };
        KernelArg::host_staged::<T>(staged, len)
    };
    NdParts {
        data,
        origin: (-low) as usize,
        shape,
        strides,
    }
}

fn strides_of<const D: usize>(strides: &[isize]) -> [isize; D] {
    std::array::from_fn(|axis| strides[axis])
}

macro_rules! ndarray_args {
    ($($d:literal => $ix:ty),*) => {$(
        impl<'a, T: DeviceElem, S: Data<Elem = T>> NdArg<'a, T, $d> for &'a ArrayBase<S, $ix> {
            fn into_nd_parts(self) -> NdParts<'a, $d> {
                let shape: [usize; $d] = self.dim().into();
                // SAFETY: the array's elements are live for `'a` (it is borrowed).
                unsafe { host_parts(self.as_ptr(), shape, strides_of(self.strides())) }
            }
        }
        impl<'a, T: DeviceElem, S: Data<Elem = T>> NdArg<'a, T, $d> for &'a mut ArrayBase<S, $ix> {
            fn into_nd_parts(self) -> NdParts<'a, $d> {
                NdArg::<T, $d>::into_nd_parts(&*self)
            }
        }
        impl<'a, T: DeviceElem> NdArg<'a, T, $d> for ndarray::ArrayView<'a, T, $ix> {
            fn into_nd_parts(self) -> NdParts<'a, $d> {
                let shape: [usize; $d] = self.dim().into();
                // SAFETY: a view's elements are live for `'a`.
                unsafe { host_parts(self.as_ptr(), shape, strides_of(self.strides())) }
            }
        }
        impl<'a, T: DeviceElem, S: DataMut<Elem = T>> NdArgMut<'a, T, $d> for &'a mut ArrayBase<S, $ix> {
            fn into_nd_parts(self) -> NdParts<'a, $d> {
                let shape: [usize; $d] = self.dim().into();
                let strides = strides_of(self.strides());
                // SAFETY: borrowed mutably for `'a`; a mutable ndarray array never
                // has two indices on one element.
                unsafe { host_parts_mut(self.as_mut_ptr(), shape, strides) }
            }
        }
        impl<'a, T: DeviceElem> NdArgMut<'a, T, $d> for ndarray::ArrayViewMut<'a, T, $ix> {
            fn into_nd_parts(mut self) -> NdParts<'a, $d> {
                let shape: [usize; $d] = self.dim().into();
                let strides = strides_of(self.strides());
                // SAFETY: as above, for the view's lifetime `'a`.
                unsafe { host_parts_mut(self.as_mut_ptr(), shape, strides) }
            }
        }
        impl<'a, T: DeviceElem> NdArg<'a, T, $d> for &'a DeviceNd<T, $d> {
            fn into_nd_parts(self) -> NdParts<'a, $d> {
                self.parts(false)
            }
        }
        impl<'a, T: DeviceElem> NdArg<'a, T, $d> for &'a mut DeviceNd<T, $d> {
            fn into_nd_parts(self) -> NdParts<'a, $d> {
                self.parts(false)
            }
        }
        impl<'a, T: DeviceElem> NdArgMut<'a, T, $d> for &'a mut DeviceNd<T, $d> {
            fn into_nd_parts(self) -> NdParts<'a, $d> {
                self.parts(true)
            }
        }
    )*};
}
ndarray_args!(2 => Ix2, 3 => Ix3);

/// The elements of an `ndarray` array or view in logical (row-major) order: borrowed
/// when it is already laid out so, else gathered into a new vector.
pub(crate) fn row_major<T: DeviceElem, S: Data<Elem = T>, D: Dimension>(
    host: &ArrayBase<S, D>,
) -> std::borrow::Cow<'_, [T]> {
    match host.as_slice() {
        Some(elements) => std::borrow::Cow::Borrowed(elements),
        None => std::borrow::Cow::Owned(host.iter().copied().collect()),
    }
}

/// A device array with a shape: `D` axes over row-major (C order) elements. Kernels
/// take it for `&Nd<T, D>` (`&mut Nd<T, D>` from `&mut`) without a copy.
pub struct DeviceNd<T: DeviceElem, const D: usize> {
    array: DeviceArray<T>,
    shape: [usize; D],
}

impl<T: DeviceElem, const D: usize> DeviceNd<T, D>
where
    Dim<[usize; D]>: Dimension,
{
    /// Copies an `ndarray` array or view (any layout: read in logical order) to the
    /// device, row-major.
    pub fn to_device<S: Data<Elem = T>>(host: &ArrayBase<S, Dim<[usize; D]>>) -> Result<Self> {
        let shape: [usize; D] = std::array::from_fn(|axis| host.shape()[axis]);
        Ok(DeviceNd {
            array: DeviceArray::from_slice(&row_major(host))?,
            shape,
        })
    }

    /// Copies the elements back into a new row-major `ndarray` array of this shape.
    pub fn to_host(&self) -> Result<ndarray::Array<T, Dim<[usize; D]>>> {
        let elements = self.array.to_host()?;
        Ok(ndarray::Array::from_shape_vec(IxDyn(&self.shape), elements)
            .and_then(|a| a.into_dimensionality::<Dim<[usize; D]>>())
            .expect("a DeviceNd holds exactly its shape's elements"))
    }
}

impl<T: DeviceElem, const D: usize> DeviceNd<T, D> {
    /// A device array as an N-d array of `shape` (row-major); `Err` unless its length
    /// is the product of the lengths.
    pub fn from_array(array: DeviceArray<T>, shape: [usize; D]) -> Result<Self> {
        let elements = shape.iter().try_fold(1usize, |a, &n| a.checked_mul(n));
        if elements != Some(array.len()) {
            return Err(Error::ShapeMismatch {
                detail: format!(
                    "a device array of {} elements cannot have the shape {shape:?}",
                    array.len()
                ),
            });
        }
        Ok(DeviceNd { array, shape })
    }

    /// The length of each axis.
    pub fn shape(&self) -> [usize; D] {
        self.shape
    }

    /// The elements, row-major.
    pub fn array(&self) -> &DeviceArray<T> {
        &self.array
    }

    /// The elements, row-major, to write in place (a `DeviceNd` as the output of
    /// `map_into` or a `#[vectorize]` function's `apply_into`); the shape stays.
    pub fn array_mut(&mut self) -> &mut DeviceArray<T> {
        &mut self.array
    }

    /// The elements, row-major, as a flat device array.
    pub fn into_array(self) -> DeviceArray<T> {
        self.array
    }

    fn parts(&self, mutable: bool) -> NdParts<'_, D> {
        let mut strides = [0isize; D];
        let mut step = 1isize;
        for axis in (0..D).rev() {
            strides[axis] = step;
            step *= self.shape[axis].max(1) as isize;
        }
        NdParts {
            data: KernelArg::device_range(&self.array, 0, self.array.len(), mutable),
            origin: 0,
            shape: self.shape,
            strides,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_offsets_follow_the_strides() {
        assert_eq!(span(&[3, 4], &[4, 1]), (0, 12));
        assert_eq!(span(&[3, 4], &[1, 3]), (0, 12));
        assert_eq!(span(&[3, 4], &[-4, 1]), (-8, 12));
        assert_eq!(span(&[2, 2], &[8, 2]), (0, 11));
        assert_eq!(span(&[0, 5], &[5, 1]), (0, 0));
        let mut seen = Vec::new();
        for_each_offset(&[2, 3], &[1, -2], |o| seen.push(o));
        assert_eq!(seen, [0, -2, -4, 1, -1, -3]);
    }
}
