//! Scalar values and operators with Rust's release semantics: wrapping integer
//! arithmetic, shift amounts masked to the width, `/` and `%` panicking on a zero
//! divisor and on `MIN / -1`, float-to-int casts saturating (NaN to 0).
//!
//! A value is its bit pattern in the low bits of a `u64`, zero-extended (bool: 0 or
//! 1; floats: `to_bits`), the same encoding as [`super::Arg::Scalar`].

use crate::ir::{BinaryOp, Literal, ScalarType, UnaryOp};

/// Width and sign of integer values: the rules constants are evaluated with too.
pub use crate::proc::consteval::{int_value, truncate};

pub fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

pub fn f64_of(v: u64) -> f64 {
    f64::from_bits(v)
}

pub fn of_f32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

pub fn of_f64(x: f64) -> u64 {
    x.to_bits()
}

/// A half value (`f16`/`bf16` bits) as the `f32` holding it exactly.
pub fn half_to_f32(ty: ScalarType, v: u64) -> f32 {
    match ty {
        ScalarType::F16 => half::f16::from_bits(v as u16).to_f32(),
        // Exact (every e4m3 is an f32): the tensor cores' fp8 inputs.
        ScalarType::E4M3 => crate::e4m3::from_bits(v as u8).to_f32(),
        _ => half::bf16::from_bits(v as u16).to_f32(),
    }
}

/// `x` rounded once to nearest-even into the half type `ty`, as the GPU's `cvt.rn`
/// rounds (not the `half` crate's `from_f64`, which drops low bits first).
pub fn half_of_f64(ty: ScalarType, x: f64) -> u64 {
    use crate::device_api::half_rounding::{bf16_of_f64, f16_of_f64};
    u64::from(match ty {
        ScalarType::F16 => f16_of_f64(x).to_bits(),
        _ => bf16_of_f64(x).to_bits(),
    })
}

fn half_of_f32(ty: ScalarType, x: f32) -> u64 {
    u64::from(match ty {
        ScalarType::F16 => half::f16::from_f32(x).to_bits(),
        _ => half::bf16::from_f32(x).to_bits(),
    })
}

/// A literal of type `ty` in the value encoding.
pub fn literal(ty: ScalarType, lit: &Literal) -> u64 {
    match (lit, ty) {
        (Literal::Bool(b), _) => u64::from(*b),
        (Literal::Int(bits), t) if t.is_float() => cast(ScalarType::I64, t, *bits),
        (Literal::Int(bits), t) => truncate(t, *bits),
        (Literal::Float(f), ScalarType::F32) => of_f32(*f as f32),
        (Literal::Float(f), t) if t.is_half() => half_of_f64(t, *f),
        (Literal::Float(f), _) => of_f64(*f),
    }
}

/// `v as to` for a value of type `from`.
pub fn cast(from: ScalarType, to: ScalarType, v: u64) -> u64 {
    if from == to {
        return v;
    }
    if to.is_half() {
        // From a float: rounded once from its exact value. From an integer: through
        // `f64`, as the NVVM backend converts (exact up to 2^53).
        let x = match from {
            ScalarType::F32 => f64::from(f32_of(v)),
            ScalarType::F64 => f64_of(v),
            f if f.is_half() => f64::from(half_to_f32(f, v)),
            f => int_value(f, v) as f64,
        };
        return half_of_f64(to, x);
    }
    if from.is_float() {
        let f = match from {
            ScalarType::F32 => f64::from(f32_of(v)),
            f if f.is_half() => f64::from(half_to_f32(f, v)),
            _ => f64_of(v),
        };
        return match to {
            ScalarType::F16 | ScalarType::BF16 => half_of_f64(to, f),
            // Not a cast kernels can write (storage-only); the host's rounding.
            ScalarType::E4M3 => u64::from(crate::e4m3::from_f64(f).to_bits()),
            ScalarType::F32 => of_f32(f as f32),
            ScalarType::F64 => of_f64(f),
            ScalarType::I8 => f as i8 as u8 as u64,
            ScalarType::I16 => f as i16 as u16 as u64,
            ScalarType::I32 => f as i32 as u32 as u64,
            ScalarType::I64 | ScalarType::Isize => f as i64 as u64,
            ScalarType::U8 => u64::from(f as u8),
            ScalarType::U16 => u64::from(f as u16),
            ScalarType::U32 => u64::from(f as u32),
            ScalarType::U64 | ScalarType::Usize => f as u64,
            ScalarType::Bool => u64::from(f != 0.0),
        };
    }
    let i = int_value(from, v);
    match to {
        ScalarType::F32 => of_f32(i as f32),
        ScalarType::F64 => of_f64(i as f64),
        ScalarType::Bool => u64::from(i != 0),
        t => truncate(t, i as u64),
    }
}

/// The message of a failed division check.
pub type Panic = &'static str;

const E4M3_HAS_NO_OPERATORS: Panic = "`e4m3` has no operators: kernels only copy it";
pub const DIVIDE_BY_ZERO: Panic = crate::ir::checks::DIVIDE_BY_ZERO_MESSAGE;
pub const REMAINDER_BY_ZERO: Panic = crate::ir::checks::REMAINDER_BY_ZERO_MESSAGE;
pub const DIVIDE_OVERFLOW: Panic = crate::ir::checks::DIVIDE_OVERFLOW_MESSAGE;
pub const REMAINDER_OVERFLOW: Panic = crate::ir::checks::REMAINDER_OVERFLOW_MESSAGE;

macro_rules! int_binary {
    ($t:ty, $op:expr, $a:expr, $b:expr) => {{
        let (x, y) = ($a as $t, $b as $t);
        let r: $t = match $op {
            BinaryOp::Add => x.wrapping_add(y),
            BinaryOp::Sub => x.wrapping_sub(y),
            BinaryOp::Mul => x.wrapping_mul(y),
            BinaryOp::Div => match x.checked_div(y) {
                Some(q) => q,
                None if y == 0 => return Err(DIVIDE_BY_ZERO),
                None => return Err(DIVIDE_OVERFLOW),
            },
            BinaryOp::Rem => match x.checked_rem(y) {
                Some(q) => q,
                None if y == 0 => return Err(REMAINDER_BY_ZERO),
                None => return Err(REMAINDER_OVERFLOW),
            },
            BinaryOp::BitAnd => x & y,
            BinaryOp::BitOr => x | y,
            BinaryOp::BitXor => x ^ y,
            BinaryOp::Shl => x.wrapping_shl($b as u32),
            BinaryOp::Shr => x.wrapping_shr($b as u32),
            BinaryOp::Eq => return Ok(u64::from(x == y)),
            BinaryOp::Ne => return Ok(u64::from(x != y)),
            BinaryOp::Lt => return Ok(u64::from(x < y)),
            BinaryOp::Le => return Ok(u64::from(x <= y)),
            BinaryOp::Gt => return Ok(u64::from(x > y)),
            BinaryOp::Ge => return Ok(u64::from(x >= y)),
        };
        r
    }};
}

macro_rules! float_binary {
    ($t:ty, $op:expr, $x:expr, $y:expr) => {{
        let (x, y): ($t, $t) = ($x, $y);
        match $op {
            BinaryOp::Add => Ok(x + y),
            BinaryOp::Sub => Ok(x - y),
            BinaryOp::Mul => Ok(x * y),
            BinaryOp::Div => Ok(x / y),
            BinaryOp::Rem => Ok(x % y),
            BinaryOp::Eq => Err(x == y),
            BinaryOp::Ne => Err(x != y),
            BinaryOp::Lt => Err(x < y),
            BinaryOp::Le => Err(x <= y),
            BinaryOp::Gt => Err(x > y),
            BinaryOp::Ge => Err(x >= y),
            // Bitwise operators and shifts do not type-check on floats.
            _ => Ok(<$t>::NAN),
        }
    }};
}

/// [`binary`] for the lanes of `mask` of a warp: `out[l] = a[l] op b[l]`, except for
/// lanes whose operation panics, which `failed(lane, message)` gets instead. The
/// commonest operations run as one loop over the lanes (no dispatch per lane); the
/// others lane by lane through [`binary`], whose results they match bit for bit.
pub fn binary_lanes(
    op: BinaryOp,
    ty: ScalarType,
    a: &[u64; 32],
    b: &[u64; 32],
    out: &mut [u64; 32],
    mask: u32,
    mut failed: impl FnMut(usize, Panic),
) {
    use BinaryOp::{Add, BitAnd, Eq, Ge, Gt, Le, Lt, Mul, Ne, Sub};
    use ScalarType::{Usize, F32, F64, I32, U32, U64};
    macro_rules! each {
        (|$x:ident, $y:ident| $e:expr) => {{
            for lane in super::lanes::lanes(mask) {
                let ($x, $y) = (a[lane], b[lane]);
                out[lane] = $e;
            }
        }};
    }
    match (ty, op) {
        (F32, Add) => each!(|x, y| of_f32(f32_of(x) + f32_of(y))),
        (F32, Sub) => each!(|x, y| of_f32(f32_of(x) - f32_of(y))),
        (F32, Mul) => each!(|x, y| of_f32(f32_of(x) * f32_of(y))),
        (F32, Lt) => each!(|x, y| u64::from(f32_of(x) < f32_of(y))),
        (F32, Gt) => each!(|x, y| u64::from(f32_of(x) > f32_of(y))),
        (F64, Add) => each!(|x, y| of_f64(f64_of(x) + f64_of(y))),
        (F64, Sub) => each!(|x, y| of_f64(f64_of(x) - f64_of(y))),
        (F64, Mul) => each!(|x, y| of_f64(f64_of(x) * f64_of(y))),
        (U64 | Usize, Add) => each!(|x, y| x.wrapping_add(y)),
        (U64 | Usize, Sub) => each!(|x, y| x.wrapping_sub(y)),
        (U64 | Usize, Mul) => each!(|x, y| x.wrapping_mul(y)),
        (U64 | Usize, BitAnd) => each!(|x, y| x & y),
        (U64 | Usize, Lt) => each!(|x, y| u64::from(x < y)),
        (U64 | Usize, Le) => each!(|x, y| u64::from(x <= y)),
        (U64 | Usize, Gt) => each!(|x, y| u64::from(x > y)),
        (U64 | Usize, Ge) => each!(|x, y| u64::from(x >= y)),
        (U64 | Usize, Eq) => each!(|x, y| u64::from(x == y)),
        (U64 | Usize, Ne) => each!(|x, y| u64::from(x != y)),
        (U32, Add) => each!(|x, y| u64::from((x as u32).wrapping_add(y as u32))),
        (U32, Sub) => each!(|x, y| u64::from((x as u32).wrapping_sub(y as u32))),
        (U32, Mul) => each!(|x, y| u64::from((x as u32).wrapping_mul(y as u32))),
        (U32, Lt) => each!(|x, y| u64::from((x as u32) < (y as u32))),
        (I32, Add) => each!(|x, y| u64::from((x as i32).wrapping_add(y as i32) as u32)),
        (I32, Sub) => each!(|x, y| u64::from((x as i32).wrapping_sub(y as i32) as u32)),
        (I32, Mul) => each!(|x, y| u64::from((x as i32).wrapping_mul(y as i32) as u32)),
        (I32, Lt) => each!(|x, y| u64::from((x as i32) < (y as i32))),
        _ => {
            for lane in super::lanes::lanes(mask) {
                match binary(op, ty, a[lane], b[lane]) {
                    Ok(v) => out[lane] = v,
                    Err(message) => failed(lane, message),
                }
            }
        }
    }
}

/// `a op b` where `ty` is the left operand's type (the right one's too, except for
/// shifts, whose amount is masked to the width whatever its type).
#[inline]
pub fn binary(op: BinaryOp, ty: ScalarType, a: u64, b: u64) -> Result<u64, Panic> {
    Ok(match ty {
        ScalarType::I8 => int_binary!(i8, op, a, b) as u8 as u64,
        ScalarType::I16 => int_binary!(i16, op, a, b) as u16 as u64,
        ScalarType::I32 => int_binary!(i32, op, a, b) as u32 as u64,
        ScalarType::I64 | ScalarType::Isize => int_binary!(i64, op, a, b) as u64,
        ScalarType::U8 => u64::from(int_binary!(u8, op, a, b)),
        ScalarType::U16 => u64::from(int_binary!(u16, op, a, b)),
        ScalarType::U32 => u64::from(int_binary!(u32, op, a, b)),
        ScalarType::U64 | ScalarType::Usize => int_binary!(u64, op, a, b),
        ScalarType::Bool => {
            let (x, y) = (a != 0, b != 0);
            u64::from(match op {
                BinaryOp::BitAnd => x & y,
                BinaryOp::BitOr => x | y,
                BinaryOp::BitXor | BinaryOp::Ne => x ^ y,
                BinaryOp::Eq => x == y,
                BinaryOp::Lt => !x & y,
                BinaryOp::Le => x <= y,
                BinaryOp::Gt => x & !y,
                BinaryOp::Ge => x >= y,
                _ => false,
            })
        }
        ScalarType::F32 => match float_binary!(f32, op, f32_of(a), f32_of(b)) {
            Ok(r) => of_f32(r),
            Err(c) => u64::from(c),
        },
        ScalarType::F64 => match float_binary!(f64, op, f64_of(a), f64_of(b)) {
            Ok(r) => of_f64(r),
            Err(c) => u64::from(c),
        },
        // In f32, each result rounded back: what the GPU's half instructions and the
        // `half` crate's operators give.
        t @ (ScalarType::F16 | ScalarType::BF16) => {
            match float_binary!(f32, op, half_to_f32(t, a), half_to_f32(t, b)) {
                Ok(r) => half_of_f32(t, r),
                Err(c) => u64::from(c),
            }
        }
        // Storage-only: the frontend and validator reject its operators.
        ScalarType::E4M3 => return Err(E4M3_HAS_NO_OPERATORS),
    })
}

pub fn unary(op: UnaryOp, ty: ScalarType, v: u64) -> u64 {
    match (op, ty) {
        (UnaryOp::Not, ScalarType::Bool) => v ^ 1,
        (UnaryOp::Not, t) => truncate(t, !v),
        (UnaryOp::Neg, ScalarType::F32) => of_f32(-f32_of(v)),
        (UnaryOp::Neg, ScalarType::F64) => of_f64(-f64_of(v)),
        (UnaryOp::Neg, ScalarType::F16 | ScalarType::BF16) => v ^ 0x8000,
        (UnaryOp::Neg, t) => truncate(t, v.wrapping_neg()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_follow_rust_release_semantics() {
        let i8v = |x: i8| x as u8 as u64;
        assert_eq!(
            binary(BinaryOp::Add, ScalarType::I8, i8v(127), 1),
            Ok(i8v(-128))
        );
        assert_eq!(
            binary(BinaryOp::Div, ScalarType::I8, i8v(-128), i8v(-1)),
            Err(DIVIDE_OVERFLOW)
        );
        assert_eq!(
            binary(BinaryOp::Rem, ScalarType::U32, 7, 0),
            Err(REMAINDER_BY_ZERO)
        );
        assert_eq!(binary(BinaryOp::Shl, ScalarType::U32, 1, 33), Ok(2));
        assert_eq!(
            binary(BinaryOp::Shr, ScalarType::I16, i8v(-8) | 0xff00, 1),
            Ok(0xfffc)
        );
        assert_eq!(
            binary(BinaryOp::Lt, ScalarType::I32, (-1i32) as u32 as u64, 0),
            Ok(1)
        );
        assert_eq!(cast(ScalarType::F32, ScalarType::U8, of_f32(300.0)), 255);
        assert_eq!(cast(ScalarType::F64, ScalarType::I32, of_f64(f64::NAN)), 0);
        assert_eq!(cast(ScalarType::I8, ScalarType::U64, i8v(-1)), u64::MAX);
        assert_eq!(
            cast(ScalarType::U64, ScalarType::F32, u64::MAX),
            of_f32(u64::MAX as f32)
        );
        assert_eq!(
            unary(UnaryOp::Neg, ScalarType::I32, 0x8000_0000),
            0x8000_0000
        );
    }
}
