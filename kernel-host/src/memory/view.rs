//! Sub-ranges of a [`DeviceArray`]: `a.view(r)` / `a.view_mut(r)` borrow elements
//! `r` of the array (CuPy's `a[i:j]`, Numba's `d_a[i:j]`), pass them to a kernel
//! without a copy, and copy them to and from the host or another array's range. The
//! borrow rules are the array's: many read-only views, or one mutable view.

use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

use crate::error::{Error, Result};
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

/// Elements `start..start + len` of a device array, read-only.
pub struct DeviceView<'a, T: DeviceScalar> {
    pub(crate) array: &'a DeviceArray<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

/// Elements `start..start + len` of a device array, writable.
pub struct DeviceViewMut<'a, T: DeviceScalar> {
    pub(crate) array: &'a DeviceArray<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
    /// Holds the array's unique borrow.
    _unique: PhantomData<&'a mut DeviceArray<T>>,
}

/// `range` of an array of `len` elements as `(start, count)`, or `Err` in the words of
/// Rust's slice indexing.
pub(crate) fn resolve(
    operation: &'static str,
    range: impl RangeBounds<usize>,
    len: usize,
) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    let bad = |detail: String| Error::OutOfRange { operation, detail };
    let (Some(start), Some(end)) = (start, end) else {
        return Err(bad("the range overflows usize".into()));
    };
    if start > end {
        return Err(bad(format!(
            "slice index starts at {start} but ends at {end}"
        )));
    }
    if end > len {
        return Err(bad(format!(
            "range end index {end} out of range for an array of length {len}"
        )));
    }
    Ok((start, end - start))
}

impl<T: DeviceScalar> DeviceArray<T> {
    /// A read-only view of elements `range` (`a.view(10..20)`, `a.view(..)`); `Err`
    /// when the range is not within the array.
    pub fn view(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'_, T>> {
        let (start, len) = resolve("view", range, self.len())?;
        Ok(DeviceView {
            array: self,
            start,
            len,
        })
    }

    /// A writable view of elements `range`; `Err` when the range is not within the
    /// array.
    pub fn view_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceViewMut<'_, T>> {
        let (start, len) = resolve("view_mut", range, self.len())?;
        Ok(DeviceViewMut {
            array: self,
            start,
            len,
            _unique: PhantomData,
        })
    }

    /// Copies `src` (a view of another array) into this array from element `at` on,
    /// on the device.
    pub fn copy_from_view(&mut self, at: usize, src: &DeviceView<'_, T>) -> Result<()> {
        let (start, len) = resolve("copy_from_view", at..at.saturating_add(src.len), self.len())?;
        self.copy_within_device(start, src.array, src.start, len)
    }
}

impl<'a, T: DeviceScalar> DeviceView<'a, T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The view's elements in a new `Vec` (after all previously queued work, as
    /// [`DeviceArray::to_host`]).
    pub fn to_host(&self) -> Result<Vec<T>> {
        self.array.range_to_host(self.start, self.len)
    }

    /// The view's elements into `dst`, which must have the same length.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        check_len("copy_to_host", self.len, dst.len())?;
        self.array.range_into(self.start, dst)
    }
}

impl<'a, T: DeviceScalar> DeviceViewMut<'a, T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Overwrites the view's elements with `src`, which must have the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        check_len("copy_from_host", self.len, src.len())?;
        self.array.range_from_host(self.start, src)
    }

    /// Overwrites the view's elements with those of `src` (of the same length), on the
    /// device.
    pub fn copy_from(&mut self, src: &DeviceView<'_, T>) -> Result<()> {
        check_len("copy_from", self.len, src.len)?;
        self.array
            .copy_within_device(self.start, src.array, src.start, self.len)
    }

    /// The view's elements in a new `Vec`.
    pub fn to_host(&self) -> Result<Vec<T>> {
        self.array.range_to_host(self.start, self.len)
    }
}

fn check_len(operation: &'static str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::SizeMismatch {
            operation,
            expected,
            found,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Device;

    #[test]
    fn ranges_resolve_like_slices() {
        assert_eq!(resolve("view", .., 10).unwrap(), (0, 10));
        assert_eq!(resolve("view", 2..5, 10).unwrap(), (2, 3));
        assert_eq!(resolve("view", 2..=5, 10).unwrap(), (2, 4));
        assert_eq!(resolve("view", 10.., 10).unwrap(), (10, 0));
        let e = resolve("view", 3..11, 10).unwrap_err().to_string();
        assert_eq!(
            e,
            "view: range end index 11 out of range for an array of length 10"
        );
        let (from, to) = (5, 3);
        let e = resolve("view", from..to, 10).unwrap_err().to_string();
        assert_eq!(e, "view: slice index starts at 5 but ends at 3");
        assert!(resolve("view", ..=usize::MAX, 10).is_err());
    }

    /// Views copy exactly their range, both ways and between arrays (on the
    /// simulator; the same code path computes the GPU's byte offsets).
    #[test]
    fn views_copy_their_range() {
        let device = Device::simulator_with(crate::SimOptions::default());
        let data: Vec<u32> = (0..100).map(|i| i * 7 + 1).collect();
        let mut a = device.to_device(&data).unwrap();
        assert_eq!(a.view(10..20).unwrap().to_host().unwrap(), &data[10..20]);
        let mut part = vec![0u32; 5];
        a.view(95..).unwrap().copy_to_host(&mut part).unwrap();
        assert_eq!(part, &data[95..]);
        a.view_mut(0..3)
            .unwrap()
            .copy_from_host(&[9, 8, 7])
            .unwrap();
        let mut b = device.zeros::<u32>(50).unwrap();
        b.copy_from_view(40, &a.view(0..10).unwrap()).unwrap();
        let got = b.to_host().unwrap();
        assert_eq!(&got[40..43], &[9, 8, 7]);
        assert_eq!(&got[43..50], &data[3..10]);
        assert!(got[..40].iter().all(|&v| v == 0));
        let e = b.copy_from_view(45, &a.view(0..10).unwrap()).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        let mut c = device.zeros::<u32>(10).unwrap();
        c.view_mut(2..4)
            .unwrap()
            .copy_from(&a.view(50..52).unwrap())
            .unwrap();
        assert_eq!(c.to_host().unwrap()[2..4], data[50..52]);
    }
}
