//! The elements of a `for` loop's range ([`super::Stmt::ForRange`]): std's sequence for
//! `start..end` / `start..=end`, then `.rev()`, then `.step_by(step)`. One definition
//! that the optimiser's analyses and the simulator compute with, and whose shape (first
//! element, last element of the range, count) the NVVM writer's loops emit.

/// A range's elements, as mathematical integers of the loop variable's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeElements {
    /// The first element yielded (meaningless when `count` is 0).
    pub first: i128,
    /// The signed distance from one element to the next (`-step` when reversed).
    pub stride: i128,
    /// How many elements, at most `u64::MAX` (`0..=u64::MAX` has one more).
    pub count: u64,
}

impl RangeElements {
    /// `start..end` (`..=` when `inclusive`), reversed when `reverse`, every `step`-th
    /// (`step` not 0: a zero step panics before the loop).
    pub fn new(start: i128, end: i128, inclusive: bool, step: u64, reverse: bool) -> Self {
        // The range's last element (below `start` when the range is empty).
        let hi = if inclusive { end } else { end - 1 };
        let step = i128::from(step.max(1));
        let count = if hi < start {
            0
        } else {
            ((hi - start) / step + 1).min(i128::from(u64::MAX)) as u64
        };
        let (first, stride) = if reverse { (hi, -step) } else { (start, step) };
        RangeElements {
            first,
            stride,
            count,
        }
    }

    /// The `k`-th element (from 0).
    pub fn nth(&self, k: u64) -> i128 {
        self.first + i128::from(k) * self.stride
    }

    /// The elements in order, as long as there are at most `limit` of them.
    pub fn list(&self, limit: u64) -> Option<Vec<i128>> {
        (self.count <= limit).then(|| (0..self.count).map(|k| self.nth(k)).collect())
    }
}
