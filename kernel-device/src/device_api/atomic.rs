//! Stand-ins for the atomics, with their exact results for one thread at a time: each
//! reads `a[i]` (panicking as indexing does when `i` is out of bounds), writes the
//! combination and returns the old value. The `_block` and `_system` variants differ
//! on the device only in which threads the step is indivisible for.

/// Element types of `atomic_add/sub/min/max/exch` (i32 u32 i64 u64 f32 f64): the
/// table's `proc::intrinsics::ATOMIC_NUMBERS`, which a test there holds equal.
pub trait AtomicNumber: Copy + PartialEq {
    #[doc(hidden)]
    fn wrapping_add_(self, v: Self) -> Self;
    #[doc(hidden)]
    fn wrapping_sub_(self, v: Self) -> Self;
    #[doc(hidden)]
    fn min_(self, v: Self) -> Self;
    #[doc(hidden)]
    fn max_(self, v: Self) -> Self;
}

/// Element types of `atomic_and/or/xor/cas` (i32 u32 i64 u64): the table's
/// `ATOMIC_INTEGERS`.
pub trait AtomicInteger:
    AtomicNumber
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
{
}

macro_rules! atomic_integer {
    ($($t:ty)*) => {$(
        impl AtomicNumber for $t {
            fn wrapping_add_(self, v: Self) -> Self { self.wrapping_add(v) }
            fn wrapping_sub_(self, v: Self) -> Self { self.wrapping_sub(v) }
            fn min_(self, v: Self) -> Self { Ord::min(self, v) }
            fn max_(self, v: Self) -> Self { Ord::max(self, v) }
        }
        impl AtomicInteger for $t {}
    )*};
}
atomic_integer!(i32 u32 i64 u64);

macro_rules! atomic_float {
    ($($t:ty)*) => {$(
        impl AtomicNumber for $t {
            fn wrapping_add_(self, v: Self) -> Self { self + v }
            fn wrapping_sub_(self, v: Self) -> Self { self - v }
            fn min_(self, v: Self) -> Self { <$t>::min(self, v) }
            fn max_(self, v: Self) -> Self { <$t>::max(self, v) }
        }
    )*};
}
atomic_float!(f32 f64);

fn update<T: Copy>(a: &mut [T], i: usize, f: impl FnOnce(T) -> T) -> T {
    let old = a[i];
    a[i] = f(old);
    old
}

/// Defines `name`, `name_block` and `name_system` with one body.
macro_rules! scoped {
    ($(#[$doc:meta])* fn $name:ident, $block:ident, $system:ident
        <T: $bound:ident>($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        $(#[$doc])*
        /// Device scope.
        pub fn $name<T: $bound>($($arg: $ty),*) -> $ret $body
        $(#[$doc])*
        /// Block scope.
        pub fn $block<T: $bound>($($arg: $ty),*) -> $ret $body
        $(#[$doc])*
        /// System scope.
        pub fn $system<T: $bound>($($arg: $ty),*) -> $ret $body
    };
}

scoped! {
    /// `a[i] += v` (wrapping for integers), returning the old value.
    fn atomic_add, atomic_add_block, atomic_add_system<T: AtomicNumber>(a: &mut [T], i: usize, v: T) -> T {
        update(a, i, |old| old.wrapping_add_(v))
    }
}
scoped! {
    /// `a[i] -= v` (wrapping for integers), returning the old value.
    fn atomic_sub, atomic_sub_block, atomic_sub_system<T: AtomicNumber>(a: &mut [T], i: usize, v: T) -> T {
        update(a, i, |old| old.wrapping_sub_(v))
    }
}
scoped! {
    /// `a[i] = a[i].min(v)` (std's `min`: NaN-ignoring for floats), returning the old value.
    fn atomic_min, atomic_min_block, atomic_min_system<T: AtomicNumber>(a: &mut [T], i: usize, v: T) -> T {
        update(a, i, |old| old.min_(v))
    }
}
scoped! {
    /// `a[i] = a[i].max(v)` (std's `max`: NaN-ignoring for floats), returning the old value.
    fn atomic_max, atomic_max_block, atomic_max_system<T: AtomicNumber>(a: &mut [T], i: usize, v: T) -> T {
        update(a, i, |old| old.max_(v))
    }
}
scoped! {
    /// `a[i] = v`, returning the old value.
    fn atomic_exch, atomic_exch_block, atomic_exch_system<T: AtomicNumber>(a: &mut [T], i: usize, v: T) -> T {
        update(a, i, |_| v)
    }
}
scoped! {
    /// `a[i] &= v`, returning the old value.
    fn atomic_and, atomic_and_block, atomic_and_system<T: AtomicInteger>(a: &mut [T], i: usize, v: T) -> T {
        update(a, i, |old| old & v)
    }
}
scoped! {
    /// `a[i] |= v`, returning the old value.
    fn atomic_or, atomic_or_block, atomic_or_system<T: AtomicInteger>(a: &mut [T], i: usize, v: T) -> T {
        update(a, i, |old| old | v)
    }
}
scoped! {
    /// `a[i] ^= v`, returning the old value.
    fn atomic_xor, atomic_xor_block, atomic_xor_system<T: AtomicInteger>(a: &mut [T], i: usize, v: T) -> T {
        update(a, i, |old| old ^ v)
    }
}
scoped! {
    /// `if a[i] == expected { a[i] = new }`, returning the old value (CUDA's `atomicCAS`).
    fn atomic_cas, atomic_cas_block, atomic_cas_system<T: AtomicInteger>(a: &mut [T], i: usize, expected: T, new: T) -> T {
        update(a, i, |old| if old == expected { new } else { old })
    }
}

/// The element type of `atomic_inc` / `atomic_dec`: u32 (CUDA's) and u64 (Numba's),
/// the table's `ATOMIC_WRAPPING`.
pub trait AtomicWrapping: Copy {
    #[doc(hidden)]
    fn inc_(self, limit: Self) -> Self;
    #[doc(hidden)]
    fn dec_(self, limit: Self) -> Self;
}

macro_rules! atomic_wrapping {
    ($($t:ty),*) => {$(
        impl AtomicWrapping for $t {
            fn inc_(self, limit: $t) -> $t {
                if self >= limit {
                    0
                } else {
                    self + 1
                }
            }
            fn dec_(self, limit: $t) -> $t {
                if self == 0 || self > limit {
                    limit
                } else {
                    self - 1
                }
            }
        }
    )*};
}
atomic_wrapping!(u32, u64);

scoped! {
    /// CUDA's `atomicInc`: `a[i] = if a[i] >= limit { 0 } else { a[i] + 1 }`, returning
    /// the old value.
    fn atomic_inc, atomic_inc_block, atomic_inc_system<T: AtomicWrapping>(a: &mut [T], i: usize, limit: T) -> T {
        update(a, i, |old| old.inc_(limit))
    }
}
scoped! {
    /// CUDA's `atomicDec`: `a[i] = if a[i] == 0 || a[i] > limit { limit } else { a[i] - 1 }`,
    /// returning the old value.
    fn atomic_dec, atomic_dec_block, atomic_dec_system<T: AtomicWrapping>(a: &mut [T], i: usize, limit: T) -> T {
        update(a, i, |old| old.dec_(limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomics_return_the_old_value_and_write_the_combination() {
        let mut a = [5u32, 7, 0];
        assert_eq!(atomic_add(&mut a, 0, u32::MAX), 5);
        assert_eq!(a[0], 4);
        assert_eq!(atomic_sub_block(&mut a, 1, 8), 7);
        assert_eq!(a[1], u32::MAX);
        assert_eq!(atomic_inc(&mut a, 2, 1), 0);
        assert_eq!(atomic_inc(&mut a, 2, 1), 1);
        assert_eq!(a[2], 0);
        assert_eq!(atomic_dec_system(&mut a, 2, 9), 0);
        assert_eq!(a[2], 9);
        assert_eq!(atomic_cas(&mut a, 2, 9, 3), 9);
        assert_eq!(atomic_cas(&mut a, 2, 9, 4), 3);
        assert_eq!(a[2], 3);
        let mut f = [1.0f32, f32::NAN];
        assert_eq!(atomic_max(&mut f, 0, 2.5), 1.0);
        assert!(atomic_min(&mut f, 1, -1.0).is_nan());
        assert_eq!(f, [2.5, -1.0]);
        let mut b = [0b1100i64];
        assert_eq!(atomic_xor(&mut b, 0, 0b1010), 0b1100);
        assert_eq!(b[0], 0b0110);
    }

    #[test]
    #[should_panic(expected = "index out of bounds: the len is 1 but the index is 1")]
    fn atomics_check_the_index() {
        atomic_exch(&mut [0u64], 1, 1);
    }
}
