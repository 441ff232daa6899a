//! `bf16` fused multiply-add rounded once, as sm_80's `fma.rn.bf16` computes it and
//! as Rust defines `mul_add` ("with only one rounding error"). Going through `f32`
//! (`f32::mul_add` then a rounding to `bf16`) rounds twice and can land on the other
//! side of a `bf16` tie: `3 * (1 + 2^-7) - 2^-30` is just below a tie of `bf16`, but
//! rounds to the tie in `f32`, which then rounds up to even.
//!
//! Here: the product is exact in `f64` (8 + 8 significant bits), the sum's rounding
//! error is recovered exactly (Knuth's two-sum), and the sum is rounded to odd (53 bits,
//! then 24): a value rounded to odd with at least two more bits than the target rounds
//! to nearest-even exactly as the unrounded value does (`half_rounding`).

use super::half_rounding::{f32_rounded_to_odd, step_towards};
use half::bf16;

/// `a * b + c` rounded once to `bf16` (NaN results are a NaN; their payload is not
/// specified, as in Rust).
pub fn mul_add(a: bf16, b: bf16, c: bf16) -> bf16 {
    let (a, b, c) = (a.to_f64(), b.to_f64(), c.to_f64());
    let product = a * b;
    let sum = product + c;
    if !sum.is_finite() {
        // An infinite or NaN operand, or infinities that cancel: no rounding happened.
        return bf16::from_f64(sum);
    }
    // Two-sum: `sum + error` is exactly `product + c`.
    let product_part = sum - c;
    let c_part = sum - product_part;
    let error = (product - product_part) + (c - c_part);
    bf16::from_f32(f32_rounded_to_odd(f64_rounded_to_odd(sum, error)))
}

/// `sum`, the nearest `f64` to `sum + error`, rounded to odd instead: if inexact and
/// even, one step towards the exact value.
fn f64_rounded_to_odd(sum: f64, error: f64) -> f64 {
    if error == 0.0 || sum.to_bits() & 1 == 1 {
        return sum;
    }
    step_towards(sum.to_bits(), sum, error > 0.0, f64::from_bits)
}

#[cfg(test)]
#[path = "bf16_exact_tests.rs"]
mod exact_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_product_just_below_a_tie_rounds_down_where_f32_rounds_twice() {
        let (a, b) = (bf16::from_f32(3.0), bf16::from_f32(1.0 + 2f32.powi(-7)));
        let c = bf16::from_f64(-(2f64.powi(-30)));
        // The exact value 3.0234375 - 2^-30 lies just below the tie 3.0234375.
        assert_eq!(mul_add(a, b, c), bf16::from_f32(3.015625));
        let twice = bf16::from_f32(a.to_f32().mul_add(b.to_f32(), c.to_f32()));
        assert_eq!(twice, bf16::from_f32(3.03125));
    }
}
