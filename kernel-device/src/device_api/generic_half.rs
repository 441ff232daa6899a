//! `Num` and `Float` for the `half` crate's `f16` and `bf16`, computed as a kernel
//! computes them: the operators are the `half` crate's (each result of `+ - * / %`
//! rounded to half once, which is what the GPU's half instructions give), every math
//! method goes through `f32` and rounds its result once (`front::half` lowers them so;
//! `bf16`'s `mul_add` is rounded once from the exact value, as `fma.rn.bf16` does),
//! and the `f64` and integer conversions round once from the exact value, as the device
//! converts (`half_rounding`; not `half`'s `from_f64`).

use super::generic::{sealed, Float, Num};

macro_rules! half_impl {
    ($t:ty, $of_f64:path) => {
        impl sealed::Sealed for $t {}
        impl Num for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            fn zero() -> Self {
                <$t>::ZERO
            }
            fn one() -> Self {
                <$t>::ONE
            }
            fn from_f32(x: f32) -> Self {
                <$t>::from_f32(x)
            }
            fn from_f64(x: f64) -> Self {
                $of_f64(x)
            }
            fn from_i32(x: i32) -> Self {
                $of_f64(x as f64)
            }
            fn from_u32(x: u32) -> Self {
                $of_f64(x as f64)
            }
            fn from_i64(x: i64) -> Self {
                $of_f64(x as f64)
            }
            fn from_u64(x: u64) -> Self {
                $of_f64(x as f64)
            }
            fn from_usize(x: usize) -> Self {
                $of_f64(x as f64)
            }
        }
        impl Float for $t {
            const EPSILON: Self = <$t>::EPSILON;
            const INFINITY: Self = <$t>::INFINITY;
            const NEG_INFINITY: Self = <$t>::NEG_INFINITY;
            const NAN: Self = <$t>::NAN;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
            const PI: Self = <$t>::PI;
            const TAU: Self = <$t>::from_f64_const(std::f64::consts::TAU);
            const E: Self = <$t>::E;
            const SQRT_2: Self = <$t>::SQRT_2;
            const FRAC_1_SQRT_2: Self = <$t>::FRAC_1_SQRT_2;
            const LN_2: Self = <$t>::LN_2;
            const LN_10: Self = <$t>::LN_10;
            half_impl!(@unary $t: sqrt cbrt sin cos tan asin acos atan sinh cosh tanh exp
                exp2 exp_m1 ln log2 log10 ln_1p floor ceil round trunc fract abs signum);
            half_impl!(@binary $t: atan2 powf hypot copysign min max);
            fn clamp(self, min: Self, max: Self) -> Self {
                <$t>::from_f32(self.to_f32().clamp(min.to_f32(), max.to_f32()))
            }
            fn powi(self, n: i32) -> Self {
                <$t>::from_f32(self.to_f32().powi(n))
            }
            fn mul_add(self, a: Self, b: Self) -> Self {
                half_mul_add(self, a, b)
            }
            fn recip(self) -> Self {
                <$t>::ONE / self
            }
            // The kernel multiplies by std's f64 factor rounded to half, as it does for
            // f64 (`front::calls`, `Method::Scale`).
            fn to_degrees(self) -> Self {
                self * <$t>::from_f64(1.0f64.to_degrees())
            }
            fn to_radians(self) -> Self {
                self * <$t>::from_f64(1.0f64.to_radians())
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
        }
    };
    (@unary $t:ty: $($name:ident)*) => {
        $(fn $name(self) -> Self { <$t>::from_f32(f32::$name(self.to_f32())) })*
    };
    (@binary $t:ty: $($name:ident)*) => {
        $(fn $name(self, other: Self) -> Self {
            <$t>::from_f32(f32::$name(self.to_f32(), other.to_f32()))
        })*
    };
}

/// `mul_add` as the kernel computes it: `f16` through `f32::mul_add` (rounded to
/// `f32`, then to `f16`), `bf16` rounded once, as sm_80's `fma.rn.bf16` does
/// (`bf16_fma`).
trait HalfMulAdd: Sized {
    fn mul_add_as_kernel(self, a: Self, b: Self) -> Self;
}

impl HalfMulAdd for half::f16 {
    fn mul_add_as_kernel(self, a: Self, b: Self) -> Self {
        half::f16::from_f32(self.to_f32().mul_add(a.to_f32(), b.to_f32()))
    }
}

impl HalfMulAdd for half::bf16 {
    fn mul_add_as_kernel(self, a: Self, b: Self) -> Self {
        super::bf16_fma::mul_add(self, a, b)
    }
}

fn half_mul_add<H: HalfMulAdd>(x: H, a: H, b: H) -> H {
    x.mul_add_as_kernel(a, b)
}

half_impl!(half::f16, super::half_rounding::f16_of_f64);
half_impl!(half::bf16, super::half_rounding::bf16_of_f64);

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    fn axpy<T: Num>(a: T, x: T, y: T) -> T {
        a * x + y
    }

    #[test]
    fn half_types_compute_through_f32_rounding_each_result() {
        let (a, x, y) = (
            f16::from_f32(1.5),
            f16::from_f32(2.25),
            f16::from_f32(0.125),
        );
        assert_eq!(axpy(a, x, y), f16::from_f32(3.5));
        assert_eq!(bf16::from_i32(3), bf16::from_f32(3.0));
        assert_eq!(Float::sqrt(f16::from_f32(4.0)), f16::from_f32(2.0));
        assert_eq!(<f16 as Float>::TAU, f16::from_f64(std::f64::consts::TAU));
    }
}
