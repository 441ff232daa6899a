//! `Nd<T, D>`: the type of a kernel's 2-D and 3-D array parameters (`a: &Nd<f32, 2>`,
//! `b: &mut Nd<f32, 3>`). In kernels the frontend lowers it (`front::nd`); on the host
//! it is a real strided array, so the rustc-checked twin of a kernel compiles and runs
//! with the same per-axis checks and panic words as the device.
//!
//! Kernels take it from `ndarray` arrays and views (transposed, sliced, stepped,
//! reversed) and from `DeviceNd`s at launch; building one on the host is only needed
//! to call a twin.

use crate::ir::checks::{substitute, ND_AXIS_MESSAGES};

/// A `D`-dimensional strided array of `T` (`D` is 2 or 3 in kernels): element
/// `(i, j)` is `data[origin + i * strides[0] + j * strides[1]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Nd<T, const D: usize> {
    data: Vec<T>,
    origin: usize,
    shape: [usize; D],
    strides: [isize; D],
}

impl<T, const D: usize> Nd<T, D> {
    /// A row-major (C order) array of `shape` over `data`; `None` if the lengths differ.
    pub fn from_shape_vec(shape: [usize; D], data: Vec<T>) -> Option<Self> {
        if shape.iter().product::<usize>() != data.len() {
            return None;
        }
        let mut strides = [0isize; D];
        let mut step = 1isize;
        for axis in (0..D).rev() {
            strides[axis] = step;
            step *= shape[axis].max(1) as isize;
        }
        Some(Nd {
            data,
            origin: 0,
            shape,
            strides,
        })
    }

    /// An array over `data` with element `(0, ..)` at `origin` and the given strides (in
    /// elements, signed); `None` if some element would fall outside `data`.
    pub fn from_parts(
        data: Vec<T>,
        origin: usize,
        shape: [usize; D],
        strides: [isize; D],
    ) -> Option<Self> {
        if shape.contains(&0) {
            return Some(Nd {
                data,
                origin,
                shape,
                strides,
            });
        }
        let (mut low, mut high) = (origin as i128, origin as i128);
        for (&n, &s) in shape.iter().zip(&strides) {
            let reach = (n as i128 - 1) * s as i128;
            if reach < 0 {
                low += reach;
            } else {
                high += reach;
            }
        }
        (low >= 0 && high < data.len() as i128).then_some(Nd {
            data,
            origin,
            shape,
            strides,
        })
    }

    /// The length of each axis.
    pub fn shape(&self) -> [usize; D] {
        self.shape
    }

    /// The offset of `index` in `data`, after the per-axis checks kernels make.
    fn offset(&self, index: [usize; D]) -> usize {
        let mut offset = self.origin as isize;
        for (axis, ((&i, &n), &s)) in index.iter().zip(&self.shape).zip(&self.strides).enumerate() {
            if i >= n {
                panic!(
                    "{}",
                    substitute(ND_AXIS_MESSAGES[axis.min(2)], i as u64, n as u64)
                );
            }
            offset += i as isize * s;
        }
        offset as usize
    }
}

impl<T> std::ops::Index<(usize, usize)> for Nd<T, 2> {
    type Output = T;
    fn index(&self, (i, j): (usize, usize)) -> &T {
        &self.data[self.offset([i, j])]
    }
}

impl<T> std::ops::IndexMut<(usize, usize)> for Nd<T, 2> {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut T {
        let at = self.offset([i, j]);
        &mut self.data[at]
    }
}

impl<T> std::ops::Index<(usize, usize, usize)> for Nd<T, 3> {
    type Output = T;
    fn index(&self, (i, j, k): (usize, usize, usize)) -> &T {
        &self.data[self.offset([i, j, k])]
    }
}

impl<T> std::ops::IndexMut<(usize, usize, usize)> for Nd<T, 3> {
    fn index_mut(&mut self, (i, j, k): (usize, usize, usize)) -> &mut T {
        let at = self.offset([i, j, k]);
        &mut self.data[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_nd_indexes_through_strides_and_panics_per_axis() {
        // The transpose of a 2x3 row-major array: shape (3, 2), strides (1, 3).
        let t = Nd::from_parts((0..6).collect::<Vec<i32>>(), 0, [3, 2], [1, 3]).unwrap();
        assert_eq!(t[(2, 1)], 5);
        assert_eq!(t[(1, 0)], 1);
        // Reversed rows: origin at the last row, stride -3.
        let r = Nd::from_parts((0..6).collect::<Vec<i32>>(), 3, [2, 3], [-3, 1]).unwrap();
        assert_eq!(r[(0, 2)], 5);
        assert!(Nd::from_parts(vec![0; 6], 0, [2, 3], [-3, 1]).is_none());
        let message = std::panic::catch_unwind(|| t[(1, 2)])
            .unwrap_err()
            .downcast::<String>()
            .unwrap();
        assert_eq!(
            *message,
            "index out of bounds: axis 1 has length 2 but the index is 2"
        );
        let mut c = Nd::from_shape_vec([2, 2, 2], vec![0u8; 8]).unwrap();
        c[(1, 0, 1)] = 7;
        assert_eq!(c.shape(), [2, 2, 2]);
        assert_eq!(c.data[5], 7);
    }
}
