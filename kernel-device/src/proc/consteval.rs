//! Integer values of a scalar type, in one place: wrapping a bit pattern to a type's
//! width and reading it back as a number. The simulator's scalar evaluation
//! (`back::sim::scalar`), the front end's constant evaluation (`front::consts`: array
//! lengths, item initialisers) and the IR's `Literal::Int` form all go through these,
//! so a constant and the same value computed at run time agree bit for bit.

use crate::ir::ScalarType;

/// The low `ty.bits()` bits of `v`, zero-extended (the simulator's value encoding).
#[inline]
pub fn truncate(ty: ScalarType, v: u64) -> u64 {
    match ty.bits() {
        64 => v,
        b => v & ((1u64 << b) - 1),
    }
}

/// The value of `v`, a bit pattern of type `ty` in the low bits, as a number: signed
/// types sign-extend from their width; unsigned ones are taken as they are (`v`
/// already truncated, as every simulator value is).
#[inline]
pub fn int_value(ty: ScalarType, v: u64) -> i128 {
    match ty {
        ScalarType::I8 => i128::from(v as i8),
        ScalarType::I16 => i128::from(v as i16),
        ScalarType::I32 => i128::from(v as i32),
        ScalarType::I64 | ScalarType::Isize => i128::from(v as i64),
        _ => i128::from(v),
    }
}

/// `v` wrapped to the integer type `ty` in `Literal::Int`'s form: the low bits,
/// sign-extended to 64 for a signed type, zero-extended for an unsigned one.
pub fn wrap_literal(ty: ScalarType, v: u64) -> u64 {
    if ty.is_signed_integer() {
        int_value(ty, v) as u64
    } else {
        truncate(ty, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType as S;

    #[test]
    fn wrapping_agrees_with_rust_s_casts() {
        let samples = [
            0u64,
            1,
            0x7f,
            0x80,
            0xff,
            0x1234_5678_9abc_def0,
            u64::MAX,
            1 << 63,
        ];
        for v in samples {
            assert_eq!(wrap_literal(S::I8, v), v as i8 as i64 as u64);
            assert_eq!(wrap_literal(S::U8, v), u64::from(v as u8));
            assert_eq!(wrap_literal(S::I16, v), v as i16 as i64 as u64);
            assert_eq!(wrap_literal(S::U16, v), u64::from(v as u16));
            assert_eq!(wrap_literal(S::I32, v), v as i32 as i64 as u64);
            assert_eq!(wrap_literal(S::U32, v), u64::from(v as u32));
            assert_eq!(wrap_literal(S::I64, v), v);
            assert_eq!(wrap_literal(S::Usize, v), v);
            assert_eq!(truncate(S::I32, v), u64::from(v as u32));
            assert_eq!(int_value(S::I16, truncate(S::I16, v)), i128::from(v as i16));
            assert_eq!(int_value(S::U32, truncate(S::U32, v)), i128::from(v as u32));
            assert_eq!(truncate(S::Bool, v), v & 1);
        }
    }
}
