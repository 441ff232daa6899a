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

    /// The last element, if there is one.
    pub fn last(&self) -> Option<i128> {
        self.count.checked_sub(1).map(|k| self.nth(k))
    }

    /// The elements in order, as long as there are at most `limit` of them.
    pub fn list(&self, limit: u64) -> Option<Vec<i128>> {
        (self.count <= limit).then(|| (0..self.count).map(|k| self.nth(k)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::RangeElements;

    /// std's elements of the range, as i128.
    fn std_elements(start: i8, end: i8, inclusive: bool, step: usize, reverse: bool) -> Vec<i128> {
        let widen = |v: i8| i128::from(v);
        match (inclusive, reverse) {
            (false, false) => (start..end).step_by(step).map(widen).collect(),
            (true, false) => (start..=end).step_by(step).map(widen).collect(),
            (false, true) => (start..end).rev().step_by(step).map(widen).collect(),
            (true, true) => (start..=end).rev().step_by(step).map(widen).collect(),
        }
    }

    #[test]
    fn the_elements_are_stds_for_every_small_range() {
        for start in -4i8..=4 {
            for end in -4i8..=4 {
                for step in 1usize..=3 {
                    for (inclusive, reverse) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let r = RangeElements::new(
                            start.into(),
                            end.into(),
                            inclusive,
                            step as u64,
                            reverse,
                        );
                        let expected = std_elements(start, end, inclusive, step, reverse);
                        assert_eq!(
                            r.list(64),
                            Some(expected.clone()),
                            "{start} {end} {step} {inclusive} {reverse}"
                        );
                        assert_eq!(r.last(), expected.last().copied());
                    }
                }
            }
        }
        // The widest range counts without overflow; a list too long is refused.
        let all = RangeElements::new(0, u64::MAX.into(), true, 1, false);
        assert_eq!(all.count, u64::MAX);
        assert_eq!(all.list(64), None);
    }
}
