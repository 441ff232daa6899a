//! Run-time checks whose outcome and panic text the IR fixes, so that every backend
//! (the NVVM writer, the CPU simulator) panics in the same cases with the same words.
//!
//! A message names its operands as `{0}` and `{1}` (unsigned 64-bit values), which the
//! host substitutes from the panic record. The evaluators here are the reference: a
//! backend may compute the same decision differently (branches in NVVM IR) but must
//! agree with them; the tests hold them to std's own panics.

/// `s[i]` with `i >= s.len()`: `{0}` is the index, `{1}` the length (std's text).
pub const INDEX_MESSAGE: &str = "index out of bounds: the len is {1} but the index is {0}";
/// `a / 0` on integers.
pub const DIVIDE_BY_ZERO_MESSAGE: &str = "attempt to divide by zero";
/// `a % 0` on integers.
pub const REMAINDER_BY_ZERO_MESSAGE: &str =
    "attempt to calculate the remainder with a divisor of zero";
/// `MIN / -1` on signed integers.
pub const DIVIDE_OVERFLOW_MESSAGE: &str = "attempt to divide with overflow";
/// `MIN % -1` on signed integers.
pub const REMAINDER_OVERFLOW_MESSAGE: &str = "attempt to calculate the remainder with overflow";

/// The two panics of an integer `/` (`is_divide`) or `%`: (divisor zero, `MIN / -1`).
pub fn division_messages(is_divide: bool) -> (&'static str, &'static str) {
    if is_divide {
        (DIVIDE_BY_ZERO_MESSAGE, DIVIDE_OVERFLOW_MESSAGE)
    } else {
        (REMAINDER_BY_ZERO_MESSAGE, REMAINDER_OVERFLOW_MESSAGE)
    }
}

/// The index check: `Err` with std's panic where `index >= len`.
pub fn index(index: u64, len: u64) -> Result<u64, CheckFailure> {
    if index < len {
        Ok(index)
    } else {
        Err(CheckFailure {
            message: INDEX_MESSAGE,
            operands: (index, len),
        })
    }
}

/// `&s[start..]` with `start > s.len()`.
pub const RANGE_START_MESSAGE: &str = "range start index {0} out of range for slice of length {1}";
/// `&s[..end]` with `end > s.len()` (and `..=end` with `end >= s.len()`).
pub const RANGE_END_MESSAGE: &str = "range end index {0} out of range for slice of length {1}";
/// `&s[start..end]` with `start > end`.
pub const RANGE_ORDER_MESSAGE: &str = "slice index starts at {0} but ends at {1}";
/// `s.split_at(mid)` / `s.split_at_mut(mid)` with `mid > s.len()` (std's assertion text).
pub const SPLIT_AT_MESSAGE: &str = "mid > len";
/// `smem.take::<T>(n)` past the launch's dynamic shared memory: `{0}` is the byte offset
/// the carved slice would end at, `{1}` the launch's `shared_bytes`.
pub const DYNAMIC_SHARED_MESSAGE: &str = "dynamic shared memory exhausted: `take` needs {0} bytes but the launch has {1} bytes (the `shared_bytes` of `launch!(k[grid, block, stream, shared_bytes](..))`)";

/// `a[(i, j)]` of an N-d array with an index past its axis's length, one message per
/// axis (`{0}` the index, `{1}` the axis's length); the host's `Nd` panics with the
/// same words.
pub const ND_AXIS_MESSAGES: [&str; 3] = [
    "index out of bounds: axis 0 has length {1} but the index is {0}",
    "index out of bounds: axis 1 has length {1} but the index is {0}",
    "index out of bounds: axis 2 has length {1} but the index is {0}",
];

/// The N-d per-axis check: `Err` with the axis's message where `index >= len`.
pub fn nd_axis(axis: u8, index: u64, len: u64) -> Result<u64, CheckFailure> {
    if index < len {
        Ok(index)
    } else {
        Err(CheckFailure {
            message: ND_AXIS_MESSAGES[usize::from(axis).min(2)],
            operands: (index, len),
        })
    }
}

/// `x.clamp(min, max)` on unsigned integers with `min > max` (std's `Ord::clamp`).
pub const CLAMP_UNSIGNED_MESSAGE: &str = "min > max. min = {0}, max = {1}";
/// As [`CLAMP_UNSIGNED_MESSAGE`] for signed integers: `{0:i64}` prints the operand
/// (sign-extended to 64 bits) as signed.
pub const CLAMP_SIGNED_MESSAGE: &str = "min > max. min = {0:i64}, max = {1:i64}";
/// `x.clamp(min, max)` on f32 with `min > max` or either NaN; `{0:f32}` / `{1:f32}` are
/// the operands' bits printed as std's `{:?}` prints an f32.
pub const CLAMP_F32_MESSAGE: &str = "min > max, or either was NaN. min = {0:f32}, max = {1:f32}";
/// As [`CLAMP_F32_MESSAGE`], for f64.
pub const CLAMP_F64_MESSAGE: &str = "min > max, or either was NaN. min = {0:f64}, max = {1:f64}";

/// The clamp check: `Err` with std's panic where `min <= max` fails (floats: also NaN).
pub fn clamp_bounds<T: PartialOrd + Copy>(
    min: T,
    max: T,
    message: &'static str,
    bits: fn(T) -> u64,
) -> Result<(), CheckFailure> {
    if min <= max {
        Ok(())
    } else {
        Err(CheckFailure {
            message,
            operands: (bits(min), bits(max)),
        })
    }
}

/// A message with its operands substituted: `{0}` / `{1}` as unsigned integers,
/// `{0:i64}` as signed ones, `{0:f32}` / `{0:f64}` (and `{1:..}`) as the float with
/// those bits, printed as std's `{:?}` prints it. The host prints device panics with
/// this.
pub fn substitute(message: &str, op0: u64, op1: u64) -> String {
    let mut text = message.to_string();
    for (k, op) in [(0, op0), (1, op1)] {
        text = text
            .replace(
                &format!("{{{k}:f32}}"),
                &format!("{:?}", f32::from_bits(op as u32)),
            )
            .replace(
                &format!("{{{k}:f64}}"),
                &format!("{:?}", f64::from_bits(op)),
            )
            .replace(&format!("{{{k}:i64}}"), &(op as i64).to_string())
            .replace(&format!("{{{k}}}"), &op.to_string());
    }
    text
}

/// A failed check: the message and its two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckFailure {
    pub message: &'static str,
    pub operands: (u64, u64),
}

impl CheckFailure {
    /// The message with its operands substituted, as the host prints it.
    pub fn text(&self) -> String {
        substitute(self.message, self.operands.0, self.operands.1)
    }
}

/// The bounds a sub-slice expression gives: `start` (0 when absent) and the end as
/// written (`None` for `s[a..]`), `inclusive` for `..=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeBounds {
    pub start: u64,
    pub end: Option<u64>,
    pub inclusive: bool,
}

/// The range a sub-slice takes as `(start, exclusive end)`, or std's panic.
///
/// std decides in two steps (`core::slice::index`): the range form picks the
/// `(start, end)` pair it reports — for `a..=b` with `b < len` that is `(a, b + 1)`,
/// otherwise `(a, b)`; for `a..` it is `(a, len)` — and `slice_index_fail` picks the
/// message from that pair in a fixed order.
pub fn sub_slice_range(bounds: RangeBounds, len: u64) -> Result<(u64, u64), CheckFailure> {
    let start = bounds.start;
    let (end, ok) = match (bounds.end, bounds.inclusive) {
        (None, _) => (len, start <= len),
        (Some(end), false) => (end, start <= end && end <= len),
        (Some(end), true) if end < len => (end + 1, start <= end + 1),
        (Some(end), true) => (end, false),
    };
    if ok {
        Ok((start, end))
    } else {
        Err(slice_index_failure(start, end, len))
    }
}

/// std's `slice_index_fail(start, end, len)`: which message a failed range reports.
/// (`start <= end <= len` only happens for an inclusive range ending at `len`, which
/// std reports as an end out of range.)
pub fn slice_index_failure(start: u64, end: u64, len: u64) -> CheckFailure {
    let (message, operands) = if start > len {
        (RANGE_START_MESSAGE, (start, len))
    } else if end > len {
        (RANGE_END_MESSAGE, (end, len))
    } else if start > end {
        (RANGE_ORDER_MESSAGE, (start, end))
    } else {
        (RANGE_END_MESSAGE, (end, len))
    };
    CheckFailure { message, operands }
}

/// `s.split_at(mid)`: the two lengths, or std's assertion.
pub fn split_at(mid: u64, len: u64) -> Result<(u64, u64), CheckFailure> {
    if mid <= len {
        Ok((mid, len - mid))
    } else {
        Err(CheckFailure {
            message: SPLIT_AT_MESSAGE,
            operands: (0, 0),
        })
    }
}

/// `cursor.take::<T>(count)` on a dynamic shared memory cursor at byte `offset`, for a
/// launch with `available` bytes: the slice's byte offset (rounded up to `align`, a
/// power of two) and the cursor's next offset, or the panic. A count of 2^32 or more
/// never fits (shared memory is far smaller) and is reported as `u64::MAX` bytes, so
/// nothing overflows.
pub fn dynamic_shared_take(
    offset: u64,
    align: u64,
    elem_size: u64,
    count: u64,
    available: u64,
) -> Result<(u64, u64), CheckFailure> {
    let aligned = offset.div_ceil(align).saturating_mul(align);
    let end = if count > u64::from(u32::MAX) {
        u64::MAX
    } else {
        aligned.saturating_add(count * elem_size)
    };
    if end <= available {
        Ok((aligned, end))
    } else {
        Err(CheckFailure {
            message: DYNAMIC_SHARED_MESSAGE,
            operands: (end, available),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    /// std's own panic text for `f`, or `None` if it did not panic.
    fn std_panic(f: impl FnOnce()) -> Option<String> {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let result = catch_unwind(AssertUnwindSafe(f));
        std::panic::set_hook(previous);
        result.err().map(|e| {
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
    }

    #[test]
    fn clamp_checks_match_std() {
        let int =
            |min: i32, max: i32| clamp_bounds(min, max, CLAMP_SIGNED_MESSAGE, |v| v as i64 as u64);
        assert_eq!(int(1, 1), Ok(()));
        for (min, max) in [(5, 1), (-1, -9), (i32::MAX, i32::MIN)] {
            assert_eq!(
                int(min, max).err().map(|f| f.text()),
                std_panic(|| {
                    std::hint::black_box(std::hint::black_box(3i32).clamp(min, max));
                })
            );
        }
        let ours = clamp_bounds(u64::MAX, 1u64, CLAMP_UNSIGNED_MESSAGE, |v| v)
            .err()
            .map(|f| f.text());
        let std = std_panic(|| {
            std::hint::black_box(std::hint::black_box(3u64).clamp(u64::MAX, 1));
        });
        assert_eq!(ours, std);
        let f32_bits = |v: f32| v.to_bits() as u64;
        for (min, max) in [
            (2.0f32, 1.0),
            (f32::NAN, 1.0),
            (-0.5, f32::NAN),
            (1.0, f32::NEG_INFINITY),
        ] {
            let ours = clamp_bounds(min, max, CLAMP_F32_MESSAGE, f32_bits)
                .err()
                .map(|f| f.text());
            let std = std_panic(|| {
                std::hint::black_box(std::hint::black_box(1.5f32).clamp(min, max));
            });
            assert_eq!(ours, std, "f32 clamp({min}, {max})");
        }
        let ours = clamp_bounds(3.0f64, -1e300, CLAMP_F64_MESSAGE, f64::to_bits)
            .err()
            .map(|f| f.text());
        let std = std_panic(|| {
            std::hint::black_box(std::hint::black_box(0.0f64).clamp(3.0, -1e300));
        });
        assert_eq!(ours, std);
    }

    fn ours(bounds: RangeBounds, len: u64) -> Option<String> {
        sub_slice_range(bounds, len).err().map(|f| f.text())
    }

    #[test]
    fn sub_slice_checks_match_std_for_every_range_form() {
        let data = [0u8; 8];
        let s: &[u8] = std::hint::black_box(&data);
        let len = s.len();
        let b = |start, end, inclusive| RangeBounds {
            start,
            end,
            inclusive,
        };
        for i in 0..12usize {
            for j in 0..12usize {
                let (iu, ju) = (i as u64, j as u64);
                assert_eq!(
                    ours(b(iu, Some(ju), false), len as u64),
                    std_panic(|| {
                        std::hint::black_box(&s[i..j]);
                    }),
                    "{i}..{j}"
                );
                assert_eq!(
                    ours(b(iu, Some(ju), true), len as u64),
                    std_panic(|| {
                        std::hint::black_box(&s[i..=j]);
                    }),
                    "{i}..={j}"
                );
            }
            assert_eq!(
                ours(b(i as u64, None, false), len as u64),
                std_panic(|| {
                    std::hint::black_box(&s[i..]);
                }),
                "{i}.."
            );
            assert_eq!(
                ours(b(0, Some(i as u64), false), len as u64),
                std_panic(|| {
                    std::hint::black_box(&s[..i]);
                }),
                "..{i}"
            );
            assert_eq!(
                ours(b(0, Some(i as u64), true), len as u64),
                std_panic(|| {
                    std::hint::black_box(&s[..=i]);
                }),
                "..={i}"
            );
        }
        let max = usize::MAX;
        assert_eq!(
            ours(b(2, Some(u64::MAX), true), 8),
            std_panic(|| {
                std::hint::black_box(&s[2..=max]);
            })
        );
        assert_eq!(
            ours(b(u64::MAX, Some(u64::MAX), true), 8),
            std_panic(|| {
                std::hint::black_box(&s[max..=max]);
            })
        );
    }

    #[test]
    fn in_range_sub_slices_give_std_bounds() {
        let b = |start, end, inclusive| RangeBounds {
            start,
            end,
            inclusive,
        };
        assert_eq!(sub_slice_range(b(2, Some(5), false), 8), Ok((2, 5)));
        assert_eq!(sub_slice_range(b(2, Some(5), true), 8), Ok((2, 6)));
        assert_eq!(sub_slice_range(b(8, None, false), 8), Ok((8, 8)));
        assert_eq!(sub_slice_range(b(5, Some(4), true), 8), Ok((5, 5)));
        assert_eq!(sub_slice_range(b(0, Some(7), true), 8), Ok((0, 8)));
    }

    #[test]
    fn index_and_division_checks_match_std() {
        let data = [0u8; 4];
        let s: &[u8] = std::hint::black_box(&data);
        for i in 0..6usize {
            let theirs = std_panic(|| {
                std::hint::black_box(s[i]);
            });
            assert_eq!(index(i as u64, 4).err().map(|f| f.text()), theirs, "s[{i}]");
        }
        let zero = std::hint::black_box(0i32);
        let minus_one = std::hint::black_box(-1i32);
        let min = std::hint::black_box(i32::MIN);
        let (div_zero, div_overflow) = division_messages(true);
        let (rem_zero, rem_overflow) = division_messages(false);
        for (ours, theirs) in [
            (
                div_zero,
                std_panic(|| {
                    std::hint::black_box(1i32 / zero);
                }),
            ),
            (
                rem_zero,
                std_panic(|| {
                    std::hint::black_box(1i32 % zero);
                }),
            ),
            (
                div_overflow,
                std_panic(|| {
                    std::hint::black_box(min / minus_one);
                }),
            ),
            (
                rem_overflow,
                std_panic(|| {
                    std::hint::black_box(min % minus_one);
                }),
            ),
        ] {
            assert_eq!(Some(ours.to_string()), theirs);
        }
    }

    #[test]
    fn split_at_matches_std() {
        let data = [0u8; 8];
        let s: &[u8] = std::hint::black_box(&data);
        for mid in 0..11usize {
            let theirs = std_panic(|| {
                std::hint::black_box(s.split_at(mid));
            });
            assert_eq!(split_at(mid as u64, 8).err().map(|f| f.text()), theirs);
            let mut m = data;
            let theirs_mut = std_panic(|| {
                std::hint::black_box(m.split_at_mut(mid));
            });
            assert_eq!(split_at(mid as u64, 8).err().map(|f| f.text()), theirs_mut);
        }
        assert_eq!(split_at(3, 8), Ok((3, 5)));
    }

    #[test]
    fn dynamic_shared_take_aligns_and_reports_bytes() {
        // 3 f32 (12 bytes) then a u64 aligned to 8: starts at 16.
        assert_eq!(dynamic_shared_take(0, 4, 4, 3, 64), Ok((0, 12)));
        assert_eq!(dynamic_shared_take(12, 8, 8, 2, 64), Ok((16, 32)));
        assert_eq!(dynamic_shared_take(32, 8, 8, 4, 64), Ok((32, 64)));
        let f = dynamic_shared_take(12, 8, 8, 7, 64).unwrap_err();
        assert_eq!(f.operands, (72, 64));
        assert!(f.text().starts_with(
            "dynamic shared memory exhausted: `take` needs 72 bytes but the launch has 64 bytes"
        ));
        let huge = dynamic_shared_take(4, 8, 8, u64::MAX, 64).unwrap_err();
        assert_eq!(huge.operands, (u64::MAX, 64));
    }
}
