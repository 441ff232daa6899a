//! `MathFn` with std's semantics. f32 functions are computed as Rust's f32 methods,
//! so results can differ from the GPU's libdevice by libdevice's documented ulp bounds
//! (the fast `__nv_fast_*` forms by more); integer and exact float operations (`abs`,
//! `min`, `floor`, `mul_add`, bit operations, ...) agree bit for bit.

use super::scalar::{f32_of, f64_of, int_value, of_f32, of_f64, truncate};
use crate::ir::checks::{
    self, CheckFailure, CLAMP_F32_MESSAGE, CLAMP_F64_MESSAGE, CLAMP_SIGNED_MESSAGE,
    CLAMP_UNSIGNED_MESSAGE,
};
use crate::ir::{MathFn, ScalarType};

macro_rules! float_fn {
    ($t:ty, $f:expr, $x:expr, $y:expr, $z:expr) => {{
        let (x, y, z): ($t, $t, $t) = ($x, $y, $z);
        match $f {
            MathFn::Sqrt => x.sqrt(),
            MathFn::Rsqrt => 1.0 / x.sqrt(),
            MathFn::Cbrt => x.cbrt(),
            MathFn::Sin | MathFn::FastSin => x.sin(),
            MathFn::Cos | MathFn::FastCos => x.cos(),
            MathFn::Tan => x.tan(),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            MathFn::Atan => x.atan(),
            MathFn::Atan2 => x.atan2(y),
            MathFn::Sinh => x.sinh(),
            MathFn::Cosh => x.cosh(),
            MathFn::Tanh => x.tanh(),
            MathFn::Exp | MathFn::FastExp => x.exp(),
            MathFn::Exp2 => x.exp2(),
            MathFn::ExpM1 => x.exp_m1(),
            MathFn::Ln | MathFn::FastLog => x.ln(),
            MathFn::Log2 => x.log2(),
            MathFn::Log10 => x.log10(),
            MathFn::Ln1p => x.ln_1p(),
            MathFn::Powf | MathFn::FastPowf => x.powf(y),
            MathFn::Hypot => x.hypot(y),
            MathFn::Floor => x.floor(),
            MathFn::Ceil => x.ceil(),
            MathFn::Round => x.round(),
            MathFn::Trunc => x.trunc(),
            MathFn::Abs => x.abs(),
            MathFn::Min => x.min(y),
            MathFn::Max => x.max(y),
            MathFn::MulAdd => x.mul_add(y, z),
            MathFn::Copysign => x.copysign(y),
            MathFn::Signum => x.signum(),
            MathFn::Fract => x - x.trunc(),
            MathFn::FastDiv => x / y,
            MathFn::Clamp => {
                if x < y {
                    y
                } else if x > z {
                    z
                } else {
                    x
                }
            }
            _ => <$t>::NAN,
        }
    }};
}

/// `f` applied to `ops` (operand types: `s`, except `powi`'s i32 exponent and the u32
/// shift/exponent operands); the result has type `ret`.
pub fn eval(f: MathFn, s: ScalarType, ret: ScalarType, ops: [u64; 3]) -> Result<u64, CheckFailure> {
    let [a, b, c] = ops;
    if f == MathFn::Clamp {
        clamp_check(s, b, c)?;
    }
    if let MathFn::NdAxis(axis) = f {
        return checks::nd_axis(axis, a, b);
    }
    if s == ScalarType::BF16 {
        // The frontend leaves only these and `to_bits` on `bf16`
        // (`front::half::bf16_native`).
        let h = |v: u64| half::bf16::from_bits(v as u16);
        let through_f32 = |r: f32| u64::from(half::bf16::from_f32(r).to_bits());
        return Ok(match f {
            MathFn::MulAdd => {
                u64::from(crate::device_api::bf16_fma::mul_add(h(a), h(b), h(c)).to_bits())
            }
            MathFn::Min => through_f32(h(a).to_f32().min(h(b).to_f32())),
            MathFn::Max => through_f32(h(a).to_f32().max(h(b).to_f32())),
            MathFn::Abs => through_f32(h(a).to_f32().abs()),
            MathFn::ToBits => a,
            _ => u64::from(half::bf16::NAN.to_bits()),
        });
    }
    if s.is_float() {
        return Ok(match f {
            MathFn::IsNan => u64::from(if s == ScalarType::F32 {
                f32_of(a).is_nan()
            } else {
                f64_of(a).is_nan()
            }),
            MathFn::IsFinite => u64::from(if s == ScalarType::F32 {
                f32_of(a).is_finite()
            } else {
                f64_of(a).is_finite()
            }),
            MathFn::ToBits => a,
            MathFn::Powi if s == ScalarType::F32 => of_f32(f32_of(a).powi(b as u32 as i32)),
            MathFn::Powi => of_f64(f64_of(a).powi(b as u32 as i32)),
            _ if s == ScalarType::F32 => of_f32(float_fn!(f32, f, f32_of(a), f32_of(b), f32_of(c))),
            _ => of_f64(float_fn!(f64, f, f64_of(a), f64_of(b), f64_of(c))),
        });
    }
    let bits = s.bits();
    let signed = s.is_signed_integer();
    let (x, y) = (int_value(s, a), int_value(s, b));
    let wrap = |v: i128| truncate(s, v as u64);
    let sat = |v: i128| {
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        truncate(s, v.clamp(lo, hi) as u64)
    };
    Ok(match f {
        MathFn::FromBits => a,
        MathFn::Abs => wrap(x.abs()),
        MathFn::Min => wrap(x.min(y)),
        MathFn::Max => wrap(x.max(y)),
        MathFn::Clamp => wrap(x.max(y).min(int_value(s, c))),
        MathFn::CountOnes => u64::from(a.count_ones()),
        MathFn::LeadingZeros => u64::from(a.leading_zeros() - (64 - bits)),
        MathFn::TrailingZeros => u64::from(a.trailing_zeros().min(bits)),
        MathFn::RotateLeft | MathFn::RotateRight => {
            let n = (b as u32) % bits;
            let n = if f == MathFn::RotateLeft {
                n
            } else {
                (bits - n) % bits
            };
            if n == 0 {
                a
            } else {
                truncate(s, (a << n) | (a >> (bits - n)))
            }
        }
        MathFn::SwapBytes => truncate(s, a.swap_bytes() >> (64 - bits)),
        MathFn::ReverseBits => truncate(s, a.reverse_bits() >> (64 - bits)),
        MathFn::Pow => {
            let (mut acc, mut base, mut e) = (1u64, a, b as u32);
            while e != 0 {
                if e & 1 != 0 {
                    acc = acc.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                e >>= 1;
            }
            truncate(s, acc)
        }
        MathFn::SaturatingAdd => sat(x + y),
        MathFn::SaturatingSub => sat(x - y),
        MathFn::MulHi if signed => wrap((x * y) >> bits),
        MathFn::MulHi => truncate(s, ((u128::from(a) * u128::from(b)) >> bits) as u64),
        MathFn::Signum => wrap(x.signum()),
        _ => {
            let _ = ret;
            0
        }
    })
}

fn clamp_check(s: ScalarType, min: u64, max: u64) -> Result<(), CheckFailure> {
    match s {
        ScalarType::F32 => checks::clamp_bounds(f32_of(min), f32_of(max), CLAMP_F32_MESSAGE, |v| {
            u64::from(v.to_bits())
        }),
        ScalarType::F64 => {
            checks::clamp_bounds(f64_of(min), f64_of(max), CLAMP_F64_MESSAGE, f64::to_bits)
        }
        t if t.is_signed_integer() => checks::clamp_bounds(
            int_value(t, min),
            int_value(t, max),
            CLAMP_SIGNED_MESSAGE,
            |v| v as i64 as u64,
        ),
        _ => checks::clamp_bounds(min, max, CLAMP_UNSIGNED_MESSAGE, |v| v),
    }
}
