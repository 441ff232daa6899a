//! `e4m3`: the OCP FP8 E4M3 format (OCP 8-bit Floating Point Specification, 2023), the
//! storage type of Hopper's fp8 tensor-core inputs (`wgmma_m64nNk32_f32_e4m3`). One
//! sign bit, four exponent bits (bias 7), three mantissa bits; no infinities, and
//! `S.1111.111` is NaN, so the largest finite value is `S.1111.110` = ±448. Exponent
//! 0 holds the subnormals `m · 2^-9`.
//!
//! Kernels only copy it (`ScalarType::E4M3` is storage-only); the host converts:
//! `from_f32` rounds to nearest, ties to even, and saturates to ±448 (PTX's
//! `cvt.rn.satfinite.e4m3x2.f32`, NaN to NaN), `to_f32` is exact.

use std::fmt;

/// An OCP FP8 E4M3 number (its bits). Equality is bitwise.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct e4m3(u8);

/// The smallest normal exponent (`2^-6`); below it the quantum stays `2^-9`.
const MIN_NORMAL_EXP: i32 = -6;
const MANTISSA_BITS: i32 = 3;
const BIAS: i32 = 7;
const MAX_FINITE: f64 = 448.0;

impl e4m3 {
    /// The canonical NaN (`0.1111.111`).
    pub const NAN: e4m3 = e4m3(0x7F);
    /// 448, the largest finite value.
    pub const MAX: e4m3 = e4m3(0x7E);
    pub const ZERO: e4m3 = e4m3(0);

    pub const fn from_bits(bits: u8) -> e4m3 {
        e4m3(bits)
    }

    pub const fn to_bits(self) -> u8 {
        self.0
    }

    /// The byte in memory (what copies move).
    pub const fn to_le_bytes(self) -> [u8; 1] {
        [self.0]
    }

    pub const fn from_le_bytes(bytes: [u8; 1]) -> e4m3 {
        e4m3(bytes[0])
    }

    pub const fn is_nan(self) -> bool {
        self.0 & 0x7F == 0x7F
    }

    /// The exact value (every e4m3 is an f32).
    pub fn to_f32(self) -> f32 {
        self.to_f64() as f32
    }

    /// The exact value.
    pub fn to_f64(self) -> f64 {
        if self.is_nan() {
            return f64::NAN;
        }
        let sign = if self.0 & 0x80 != 0 { -1.0 } else { 1.0 };
        let exponent = i32::from((self.0 >> 3) & 0xF);
        let mantissa = f64::from(self.0 & 0x7);
        let magnitude = if exponent == 0 {
            mantissa * pow2(MIN_NORMAL_EXP - MANTISSA_BITS)
        } else {
            (1.0 + mantissa / 8.0) * pow2(exponent - BIAS)
        };
        sign * magnitude
    }

    /// `x` rounded to nearest, ties to even, magnitudes above 448 (infinities too)
    /// saturated to ±448, NaN to NaN.
    pub fn from_f32(x: f32) -> e4m3 {
        e4m3::from_f64(f64::from(x))
    }

    /// As [`e4m3::from_f32`], rounding `x` once.
    pub fn from_f64(x: f64) -> e4m3 {
        if x.is_nan() {
            return e4m3::NAN;
        }
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        let magnitude = x.abs();
        if magnitude >= MAX_FINITE {
            return e4m3(sign | e4m3::MAX.0);
        }
        // The spacing of e4m3 values around `magnitude`: 2^(E - 3) in binade 2^E,
        // 2^-9 for the subnormals. Dividing by a power of two is exact, so the one
        // rounding is `round_ties_even`'s.
        let quantum = pow2(binade(magnitude).max(MIN_NORMAL_EXP) - MANTISSA_BITS);
        let rounded = (magnitude / quantum).round_ties_even() * quantum;
        if rounded > MAX_FINITE {
            return e4m3(sign | e4m3::MAX.0);
        }
        e4m3(sign | encode_exact(rounded))
    }
}

/// `2^e` for the small exponents here.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// `floor(log2(x))` of a positive finite f64 (its unbiased exponent; subnormal f64s
/// are far below e4m3's range and land in its smallest binade anyway).
fn binade(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7FF) as i32 - 1023
}

/// The bits (sign clear) of a non-negative value e4m3 represents exactly.
fn encode_exact(v: f64) -> u8 {
    if v == 0.0 {
        return 0;
    }
    let e = binade(v);
    if e < MIN_NORMAL_EXP {
        return (v / pow2(MIN_NORMAL_EXP - MANTISSA_BITS)) as u8;
    }
    let mantissa = (v / pow2(e) - 1.0) * 8.0;
    (((e + BIAS) as u8) << 3) | mantissa as u8
}

impl From<e4m3> for f32 {
    fn from(x: e4m3) -> f32 {
        x.to_f32()
    }
}

impl fmt::Debug for e4m3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e4m3({:#04x} = {})", self.0, self.to_f64())
    }
}

impl fmt::Display for e4m3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_f64(), f)
    }
}

#[cfg(test)]
#[path = "fp8_tests.rs"]
mod tests;
