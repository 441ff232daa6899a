//! The numeric traits a generic kernel's type parameters are bounded by:
//! `fn axpy<T: Float>(a: T, x: &[T], y: &mut [T])`. Each trait's items are exactly
//! what a kernel may do with a value of type `T` (rustc checks generic bodies against
//! them in the twin; cudajit compiles each instantiation with the concrete type, see
//! `front::generics`):
//!
//! - [`Num`] (every integer and float type): arithmetic and compound assignment,
//!   comparison, `T::zero()`, `T::one()`, `T::from_f64(x)` and the other `from_*`
//!   conversions (Rust's `as`: saturating from floats), `T::MIN`, `T::MAX`;
//! - [`Float`] (`f32`, `f64`): negation, the float math methods (`sqrt`, `exp`, `ln`,
//!   `mul_add`, `min`, `max`, ...), `rsqrt(x)` and the float constants
//!   (`T::EPSILON`, `T::PI`, ...);
//! - [`Int`] (the integer types): `Ord` (`min`, `max`, `clamp`), bit operations,
//!   shifts by `u32` and the integer methods (`count_ones`, `wrapping_add`, ...).
//!
//! The traits are sealed: a new member (f16, bf16) is added here, beside the
//! scalar's support in the compiler.

use super::math::Rsqrt;
use std::ops::{
    Add, AddAssign, BitAnd, BitOr, BitXor, Div, DivAssign, Mul, MulAssign, Neg, Not, Rem,
    RemAssign, Shl, Shr, Sub, SubAssign,
};

pub(super) mod sealed {
    pub trait Sealed {}
}

/// Every scalar a kernel computes with: integers and floats (`f16` and `bf16` too).
pub trait Num:
    sealed::Sealed
    + super::SharedScalar
    + Copy
    + Send
    + Sync
    + 'static
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + RemAssign
{
    const MIN: Self;
    const MAX: Self;
    /// `0` of this type.
    fn zero() -> Self;
    /// `1` of this type.
    fn one() -> Self;
    /// `x as Self`.
    fn from_f32(x: f32) -> Self;
    /// `x as Self` (`T::from_f64(0.5)` is how a generic body writes a constant).
    fn from_f64(x: f64) -> Self;
    /// `x as Self`.
    fn from_i32(x: i32) -> Self;
    /// `x as Self`.
    fn from_u32(x: u32) -> Self;
    /// `x as Self`.
    fn from_i64(x: i64) -> Self;
    /// `x as Self`.
    fn from_u64(x: u64) -> Self;
    /// `x as Self`.
    fn from_usize(x: usize) -> Self;
}

/// `f32`, `f64` and the `half` crate's `f16` and `bf16` (`generic_half`).
pub trait Float: Num + Neg<Output = Self> + Rsqrt {
    const EPSILON: Self;
    const INFINITY: Self;
    const NEG_INFINITY: Self;
    const NAN: Self;
    const MIN_POSITIVE: Self;
    const PI: Self;
    const TAU: Self;
    const E: Self;
    const SQRT_2: Self;
    const FRAC_1_SQRT_2: Self;
    const LN_2: Self;
    const LN_10: Self;
    // `min`, `max` and `clamp` are declared here and come from `Ord` for `Int`: one
    // declaration per type, or a call on a concrete integer would be ambiguous.
    fn min(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
    fn clamp(self, min: Self, max: Self) -> Self;
    fn sqrt(self) -> Self;
    fn cbrt(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn atan2(self, other: Self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn exp(self) -> Self;
    fn exp2(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn ln_1p(self) -> Self;
    fn powf(self, n: Self) -> Self;
    fn powi(self, n: i32) -> Self;
    fn hypot(self, other: Self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn trunc(self) -> Self;
    fn fract(self) -> Self;
    fn abs(self) -> Self;
    fn signum(self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
    fn recip(self) -> Self;
    fn to_degrees(self) -> Self;
    fn to_radians(self) -> Self;
    fn is_nan(self) -> bool;
    fn is_finite(self) -> bool;
}

/// The integer types.
pub trait Int:
    Num
    + Eq
    + Ord
    + Not<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    fn count_ones(self) -> u32;
    fn leading_zeros(self) -> u32;
    fn trailing_zeros(self) -> u32;
    fn rotate_left(self, n: u32) -> Self;
    fn rotate_right(self, n: u32) -> Self;
    fn swap_bytes(self) -> Self;
    fn reverse_bits(self) -> Self;
    fn pow(self, exp: u32) -> Self;
    fn wrapping_pow(self, exp: u32) -> Self;
    fn wrapping_add(self, other: Self) -> Self;
    fn wrapping_sub(self, other: Self) -> Self;
    fn wrapping_mul(self, other: Self) -> Self;
    fn saturating_add(self, other: Self) -> Self;
    fn saturating_sub(self, other: Self) -> Self;
}

macro_rules! num_impl {
    ($t:ty) => {
        impl sealed::Sealed for $t {}
        impl Num for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            fn zero() -> Self {
                0 as $t
            }
            fn one() -> Self {
                1 as $t
            }
            fn from_f32(x: f32) -> Self {
                x as $t
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn from_i32(x: i32) -> Self {
                x as $t
            }
            fn from_u32(x: u32) -> Self {
                x as $t
            }
            fn from_i64(x: i64) -> Self {
                x as $t
            }
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            fn from_usize(x: usize) -> Self {
                x as $t
            }
        }
    };
}

macro_rules! float_impl {
    ($t:ident) => {
        num_impl!($t);
        impl Float for $t {
            const EPSILON: Self = $t::EPSILON;
            const INFINITY: Self = $t::INFINITY;
            const NEG_INFINITY: Self = $t::NEG_INFINITY;
            const NAN: Self = $t::NAN;
            const MIN_POSITIVE: Self = $t::MIN_POSITIVE;
            const PI: Self = std::$t::consts::PI;
            const TAU: Self = std::$t::consts::TAU;
            const E: Self = std::$t::consts::E;
            const SQRT_2: Self = std::$t::consts::SQRT_2;
            const FRAC_1_SQRT_2: Self = std::$t::consts::FRAC_1_SQRT_2;
            const LN_2: Self = std::$t::consts::LN_2;
            const LN_10: Self = std::$t::consts::LN_10;
            float_impl!(@unary $t: sqrt cbrt sin cos tan asin acos atan sinh cosh tanh exp
                exp2 exp_m1 ln log2 log10 ln_1p floor ceil round trunc fract abs signum recip
                to_degrees to_radians);
            float_impl!(@binary $t: atan2 powf hypot copysign min max);
            fn clamp(self, min: Self, max: Self) -> Self {
                $t::clamp(self, min, max)
            }
            fn powi(self, n: i32) -> Self {
                $t::powi(self, n)
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                $t::mul_add(self, a, b)
            }
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
        }
    };
    (@unary $t:ident: $($name:ident)*) => {
        $(fn $name(self) -> Self { $t::$name(self) })*
    };
    (@binary $t:ident: $($name:ident)*) => {
        $(fn $name(self, other: Self) -> Self { $t::$name(self, other) })*
    };
}

macro_rules! int_impl {
    ($($t:ident)*) => {$(
        num_impl!($t);
        impl Int for $t {
            int_impl!(@to_u32 $t: count_ones leading_zeros trailing_zeros);
            int_impl!(@by_u32 $t: rotate_left rotate_right pow wrapping_pow);
            int_impl!(@binary $t: wrapping_add wrapping_sub wrapping_mul saturating_add
                saturating_sub);
            fn swap_bytes(self) -> Self {
                $t::swap_bytes(self)
            }
            fn reverse_bits(self) -> Self {
                $t::reverse_bits(self)
            }
        }
    )*};
    (@to_u32 $t:ident: $($name:ident)*) => {
        $(fn $name(self) -> u32 { $t::$name(self) })*
    };
    (@by_u32 $t:ident: $($name:ident)*) => {
        $(fn $name(self, n: u32) -> Self { $t::$name(self, n) })*
    };
    (@binary $t:ident: $($name:ident)*) => {
        $(fn $name(self, other: Self) -> Self { $t::$name(self, other) })*
    };
}

/// What the rustc-checked twin of a generic kernel sees for an array whose length is
/// an expression of a const parameter (`[[T; N + 1]; N]`), which stable Rust cannot
/// type in a generic function: indexable like the array it stands for. The twin is
/// only type-checked, never run; cudajit compiles the real array per instantiation.
#[doc(hidden)]
pub struct ConstLenArray<T>(std::marker::PhantomData<T>);

impl<T> Clone for ConstLenArray<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ConstLenArray<T> {}

impl<T> ConstLenArray<T> {
    /// `[value; N + 1]`.
    pub fn repeat(_value: T) -> Self {
        ConstLenArray(std::marker::PhantomData)
    }

    pub fn len(&self) -> usize {
        twin_only()
    }

    pub fn is_empty(&self) -> bool {
        twin_only()
    }
}

impl<T: 'static> super::SharedArray for ConstLenArray<T> {
    fn zeroed() -> Self {
        ConstLenArray(std::marker::PhantomData)
    }
}

impl<T> std::ops::Index<usize> for ConstLenArray<T> {
    type Output = T;
    fn index(&self, _: usize) -> &T {
        twin_only()
    }
}

impl<T> std::ops::IndexMut<usize> for ConstLenArray<T> {
    fn index_mut(&mut self, _: usize) -> &mut T {
        twin_only()
    }
}

fn twin_only() -> ! {
    panic!("a generic kernel's twin is type-checked by rustc, never run")
}

float_impl!(f32);
float_impl!(f64);
int_impl!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

#[cfg(test)]
mod tests {
    use super::*;

    fn axpy<T: Num>(a: T, x: T, y: T) -> T {
        a * x + y
    }

    fn scaled_sqrt<T: Float>(x: T) -> T {
        T::from_f64(0.5) * x.sqrt()
    }

    #[test]
    fn traits_compute_as_the_scalars_do() {
        assert_eq!(axpy(2i32, 3, 4), 10);
        assert_eq!(axpy(2.0f64, 3.0, 4.0), 10.0);
        assert_eq!(scaled_sqrt(16.0f32), 2.0);
        assert_eq!(i32::from_f64(1e10), i32::MAX);
        assert_eq!(<f32 as Float>::clamp(7.0, 1.0, 5.0), 5.0);
        assert_eq!(<f32 as Float>::PI, std::f32::consts::PI);
        assert_eq!(Int::rotate_left(0x8000_0001u32, 1), 3);
    }
}
