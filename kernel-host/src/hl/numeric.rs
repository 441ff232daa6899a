//! The element types the built-in reductions (`sum`, `product`, `min`, `max`) work on,
//! with their identities and the built-in operators' device sources.

use kernel_device::source::FnSource;

use super::synth;
use crate::memory::elem::DeviceScalar;

/// A numeric scalar: every integer type and `f32`/`f64` (not `bool`).
pub trait Numeric: DeviceScalar + PartialOrd {
    /// The identity of `+`.
    const ZERO: Self;
    /// The identity of `*`.
    const ONE: Self;
    /// The identity of `max`: the smallest value (`-inf` for floats).
    const LOWEST: Self;
    /// The identity of `min`: the largest value (`+inf` for floats).
    const HIGHEST: Self;
    /// `a + b` as kernels compute it: wrapping for integers.
    fn device_add(a: Self, b: Self) -> Self;
    /// `a * b` as kernels compute it: wrapping for integers.
    fn device_mul(a: Self, b: Self) -> Self;
}

macro_rules! numeric_int {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
            fn device_add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            fn device_mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
        }
    )*};
}
numeric_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! numeric_float {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            fn device_add(a: Self, b: Self) -> Self { a + b }
            fn device_mul(a: Self, b: Self) -> Self { a * b }
        }
    )*};
}
numeric_float!(f32, f64);

/// The built-in binary operators.
#[derive(Clone, Copy)]
pub(crate) enum Builtin {
    Add,
    Mul,
    Min,
    Max,
}

impl Builtin {
    /// The operator as a device function on `T`. `min`/`max` keep the first operand on
    /// ties and skip a NaN second operand (`if b < a`), as the host reference does.
    pub fn source<T: Numeric>(self) -> &'static FnSource {
        let t = T::SCALAR.rust_name();
        let (word, body) = match self {
            Builtin::Add => ("add", "a + b"),
            Builtin::Mul => ("mul", "a * b"),
            Builtin::Min => ("min", "if b < a { b } else { a }"),
            Builtin::Max => ("max", "if b > a { b } else { a }"),
        };
        let name = format!("cj_builtin_{word}_{t}");
        synth::device_fn(
            &name,
            format!("fn {name}(a: {t}, b: {t}) -> {t} {{ {body} }}"),
        )
    }
}
