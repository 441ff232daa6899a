//! Stand-ins for the GPU-only math functions. On the device the `fast_*` functions are
//! libdevice's approximate `__nv_fast_*f` (a few ulps, flushing denormals); here they
//! are std's exact functions, which the device results approximate.

/// `rsqrt(x)`: `1 / sqrt(x)` (f32, f64).
pub trait Rsqrt: Copy {
    #[doc(hidden)]
    fn rsqrt_(self) -> Self;
}
impl Rsqrt for f32 {
    fn rsqrt_(self) -> f32 {
        1.0 / self.sqrt()
    }
}
impl Rsqrt for f64 {
    fn rsqrt_(self) -> f64 {
        1.0 / self.sqrt()
    }
}
// The half types compute it in f32, rounded once, as every half math function.
impl Rsqrt for half::f16 {
    fn rsqrt_(self) -> half::f16 {
        half::f16::from_f32(self.to_f32().rsqrt_())
    }
}
impl Rsqrt for half::bf16 {
    fn rsqrt_(self) -> half::bf16 {
        half::bf16::from_f32(self.to_f32().rsqrt_())
    }
}

/// `1 / x.sqrt()`, as CUDA's `rsqrt` (libdevice's correctly rounded `__nv_rsqrt[f]`).
pub fn rsqrt<T: Rsqrt>(x: T) -> T {
    x.rsqrt_()
}

/// Approximate `x.sin()` (CUDA's `__sinf`).
pub fn fast_sin(x: f32) -> f32 {
    x.sin()
}

/// Approximate `x.cos()` (CUDA's `__cosf`).
pub fn fast_cos(x: f32) -> f32 {
    x.cos()
}

/// Approximate `x.exp()` (CUDA's `__expf`).
pub fn fast_exp(x: f32) -> f32 {
    x.exp()
}

/// Approximate `x.ln()` (CUDA's `__logf`).
pub fn fast_log(x: f32) -> f32 {
    x.ln()
}

/// Approximate `x.powf(y)` (CUDA's `__powf`).
pub fn fast_powf(x: f32, y: f32) -> f32 {
    x.powf(y)
}

/// Approximate `x / y` (CUDA's `__fdividef`).
pub fn fast_div(x: f32, y: f32) -> f32 {
    x / y
}

/// Integers with a `mul_hi` (i32 u32 i64 u64).
pub trait MulHi: Copy {
    #[doc(hidden)]
    fn mul_hi_(self, b: Self) -> Self;
}

macro_rules! mul_hi {
    ($($t:ty => $wide:ty),*) => {$(
        impl MulHi for $t {
            fn mul_hi_(self, b: Self) -> Self {
                ((self as $wide * b as $wide) >> <$t>::BITS) as $t
            }
        }
    )*};
}
mul_hi!(i32 => i64, u32 => u64, i64 => i128, u64 => u128);

/// The high half of the full product `a * b` (CUDA's `__mulhi`, `__umulhi`,
/// `__mul64hi`, `__umul64hi`).
pub fn mul_hi<T: MulHi>(a: T, b: T) -> T {
    a.mul_hi_(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_hi_is_the_high_half() {
        assert_eq!(mul_hi(-1i32, -1), 0);
        assert_eq!(mul_hi(-2i32, 3), -1);
        assert_eq!(mul_hi(u32::MAX, u32::MAX), u32::MAX - 1);
        assert_eq!(mul_hi(u64::MAX, 2), 1);
        assert_eq!(mul_hi(i64::MIN, 2), -1);
        assert_eq!(rsqrt(4.0f64), 0.5);
    }
}
