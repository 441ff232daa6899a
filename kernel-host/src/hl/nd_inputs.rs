//! N-d arrays as inputs of the whole-array operations: a [`DeviceNd`] is read in place
//! (its elements are row-major), an `ndarray` array or view of any layout is copied to
//! the device in logical (row-major) order for the call. Elementwise maps and
//! `#[vectorize]` then see flat inputs of equal shape and give row-major results;
//! reductions and scans see the elements in row-major order.

use ndarray::{ArrayBase, Data, Dimension};

use super::{Input, Staged};
use crate::device::Device;
use crate::error::Result;
use crate::launch::nd::DeviceNd;
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

impl<T: DeviceScalar, const D: usize> Input<T> for DeviceNd<T, D> {
    fn len(&self) -> usize {
        self.array().len()
    }
    fn stage(&self, _device: &Device) -> Result<Staged<'_, T>> {
        Ok(Staged::Borrowed(self.array()))
    }
    fn home(&self) -> Option<&Device> {
        Some(self.array().device())
    }
    fn nd_shape(&self) -> Option<Vec<usize>> {
        Some(self.shape().to_vec())
    }
}

impl<T: DeviceScalar, S: Data<Elem = T>, D: Dimension> Input<T> for ArrayBase<S, D> {
    fn len(&self) -> usize {
        ArrayBase::len(self)
    }
    fn stage(&self, device: &Device) -> Result<Staged<'_, T>> {
        let elements = crate::launch::nd::row_major(self);
        Ok(Staged::Owned(DeviceArray::from_slice_on(
            device, &elements,
        )?))
    }
    fn home(&self) -> Option<&Device> {
        None
    }
    fn nd_shape(&self) -> Option<Vec<usize>> {
        Some(self.shape().to_vec())
    }
}
