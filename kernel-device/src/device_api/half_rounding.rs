//! Wide values rounded once to `bf16`/`f16`, to nearest-even, as the GPU's `cvt.rn`
//! rounds them. The `half` crate's own `from_f64` drops the low 32 bits of the mantissa
//! before it rounds (and its `f16` path goes through `f32` rounded to nearest first), so
//! a value just above a half tie — an `f32` widened to `f64` is one — lands on the
//! even neighbour instead of rounding up. Here the value is first rounded to `f32`
//! towards odd (24 bits: at least two more than either half type keeps, in every binade
//! the half types reach), and a value rounded to odd with two extra bits rounds to
//! nearest-even exactly as the unrounded value does; `half`'s `from_f32` sees every bit.

use half::{bf16, f16};

/// `x` rounded once to the nearest `bf16`, ties to even (NaN stays NaN).
pub fn bf16_of_f64(x: f64) -> bf16 {
    bf16::from_f32(f32_rounded_to_odd(x))
}

/// `x` rounded once to the nearest `f16`, ties to even (NaN stays NaN).
pub fn f16_of_f64(x: f64) -> f16 {
    f16::from_f32(f32_rounded_to_odd(x))
}

/// `x` rounded to `f32` towards odd: if inexact and even, one step towards `x`. Beyond
/// `f32::MAX` that is `f32::MAX` (odd), which both half types round to infinity.
pub(crate) fn f32_rounded_to_odd(x: f64) -> f32 {
    let r = x as f32;
    let back = f64::from(r);
    if x.is_nan() || back == x || r.to_bits() & 1 == 1 {
        return r;
    }
    step_towards(r.to_bits(), r, back < x, f32::from_bits)
}

/// The float one step from `v` (bits `bits`) up or down in value.
pub(crate) fn step_towards<B, F>(bits: B, v: F, up: bool, of: fn(B) -> F) -> F
where
    B: std::ops::Add<Output = B> + std::ops::Sub<Output = B> + From<u8>,
    F: PartialOrd + Default,
{
    // Bits grow with the magnitude (either sign): up in value is up in bits for a
    // positive number. A zero steps away from zero (to the smallest subnormal of its
    // sign, which is the exact value's sign).
    let zero = F::default();
    let away_from_zero = v == zero || up == (v > zero);
    if away_from_zero {
        of(bits + B::from(1))
    } else {
        of(bits - B::from(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest-even `bf16` of `x` by exhaustive search of the two neighbours of
    /// `x`'s truncation: an independent reference (exact in `f64`).
    fn nearest_even_bf16(x: f64) -> bf16 {
        let truncated = bf16::from_bits((((x as f32).to_bits()) >> 16) as u16);
        let bits = truncated.to_bits();
        let candidates = [bits.checked_sub(1), Some(bits), bits.checked_add(1)];
        let mut best = truncated;
        for c in candidates.into_iter().flatten().map(bf16::from_bits) {
            if !c.is_finite() {
                continue;
            }
            let (dc, db) = ((c.to_f64() - x).abs(), (best.to_f64() - x).abs());
            if dc < db || (dc == db && c.to_bits() & 1 == 0) {
                best = c;
            }
        }
        best
    }

    #[test]
    fn an_f32_just_above_a_bf16_tie_rounds_up_where_the_half_crate_rounds_to_even() {
        // 2.4765625 is the tie between bf16 2.46875 (even) and 2.484375; the next f32
        // above it is nearer 2.484375. A wgmma accumulator held exactly this value
        // (issue 24's attention-chain seed 5450186400198384815).
        let above_tie = f32::from_bits(2.4765625f32.to_bits() + 1);
        let x = f64::from(above_tie);
        assert_eq!(bf16_of_f64(x), bf16::from_f32(2.484375));
        assert_eq!(bf16_of_f64(x), bf16::from_f32(above_tie));
        assert_eq!(
            bf16::from_f64(x),
            bf16::from_f32(2.46875),
            "half's from_f64 truncates"
        );
        // The tie itself goes to even.
        assert_eq!(bf16_of_f64(2.4765625), bf16::from_f32(2.46875));
    }

    #[test]
    fn every_f32_neighbourhood_of_bf16_ties_rounds_to_nearest_even() {
        let mut checked = 0;
        for hi in (0u32..0x7f7f).step_by(37) {
            let tie = f32::from_bits((hi << 16) | 0x8000);
            for delta in [-3i64, -1, 0, 1, 2, 7] {
                let bits = (i64::from(tie.to_bits()) + delta) as u32;
                let x = f64::from(f32::from_bits(bits));
                for wide in [x, x + x * 2f64.powi(-40), x - x * 2f64.powi(-40)] {
                    assert_eq!(bf16_of_f64(wide), nearest_even_bf16(wide), "{wide:e}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000);
    }

    #[test]
    fn f16_rounds_once_from_f64() {
        // 1 + 2^-11 is the tie between f16 1 and 1 + 2^-10; a hair above it rounds up,
        // though rounding to f32 first lands on the tie and then on the even 1.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f16_of_f64(x), f16::from_f64(1.0 + 2f64.powi(-10)));
        assert_eq!(f16_of_f64(1.0 + 2f64.powi(-11)), f16::ONE);
        assert!(f16_of_f64(f64::NAN).is_nan() && bf16_of_f64(f64::NAN).is_nan());
        assert_eq!(bf16_of_f64(1e300), bf16::INFINITY);
        assert_eq!(f16_of_f64(-1e10), f16::NEG_INFINITY);
    }
}
