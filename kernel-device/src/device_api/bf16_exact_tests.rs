//! The `bf16` operations the simulator and the `f32` route compute, against an exact
//! reference written here with integers (no float rounding at all): the `half` crate's
//! `+ - *` (each through `f32`, one rounding to `bf16`) and `bf16_fma::mul_add` must
//! give the correctly rounded (nearest-even) result of the exact value for every
//! operand that is not NaN, which is what sm_80/sm_90's `add.rn.bf16`, `sub.rn.bf16`,
//! `mul.rn.bf16` and `fma.rn.bf16` compute. So the NVVM writer may use those
//! instructions where the target has them and keep the `f32` route elsewhere: the
//! bits agree (a NaN result is a NaN either way; its payload is unspecified in Rust).

use crate::device_api::bf16_fma;
use half::bf16;

/// An exact value `(-1)^negative * magnitude * 2^exponent`.
#[derive(Clone, Copy, Debug)]
struct Exact {
    negative: bool,
    magnitude: u128,
    exponent: i32,
}

/// A finite `bf16` exactly: subnormals have exponent -133, normals an 8-bit mantissa.
fn exact(x: bf16) -> Exact {
    let bits = x.to_bits();
    let (field, fraction) = (i32::from((bits >> 7) & 0xFF), u128::from(bits & 0x7F));
    let (magnitude, exponent) = if field == 0 {
        (fraction, -133)
    } else {
        (fraction | 0x80, field - 134)
    };
    Exact {
        negative: bits & 0x8000 != 0,
        magnitude,
        exponent,
    }
}

fn product(a: Exact, b: Exact) -> Exact {
    Exact {
        negative: a.negative != b.negative,
        magnitude: a.magnitude * b.magnitude,
        exponent: a.exponent + b.exponent,
    }
}

/// `a + b` exactly, except that a term more than 80 binary places below the other's
/// lowest bit is replaced by a single bit 80 places below (same sign): it is then
/// far below any rounding position of the sum, so only its sign and being non-zero
/// matter. `both_negative_zero`: the IEEE sign of an exact zero sum.
fn sum(a: Exact, b: Exact) -> Exact {
    if a.magnitude == 0 && b.magnitude == 0 {
        return Exact {
            negative: a.negative && b.negative,
            ..a
        };
    }
    if a.magnitude == 0 {
        return b;
    }
    if b.magnitude == 0 {
        return a;
    }
    let (hi, mut lo) = if a.exponent >= b.exponent {
        (a, b)
    } else {
        (b, a)
    };
    if hi.exponent - lo.exponent > 80 {
        lo = Exact {
            magnitude: 1,
            exponent: hi.exponent - 80,
            ..lo
        };
    }
    let shifted = hi.magnitude << (hi.exponent - lo.exponent);
    let signed = |negative: bool, m: u128| if negative { -(m as i128) } else { m as i128 };
    let total = signed(hi.negative, shifted) + signed(lo.negative, lo.magnitude);
    Exact {
        // An exact zero from opposite signs is +0 in round-to-nearest.
        negative: total < 0,
        magnitude: total.unsigned_abs(),
        exponent: lo.exponent,
    }
}

/// The exact value rounded to nearest-even `bf16` (overflow to infinity).
fn round(x: Exact) -> bf16 {
    let sign = if x.negative { 0x8000u16 } else { 0 };
    if x.magnitude == 0 {
        return bf16::from_bits(sign);
    }
    let length = 128 - x.magnitude.leading_zeros() as i32;
    let leading = length - 1 + x.exponent;
    // The place of the last kept bit: 8 significant bits, but never below 2^-133.
    let quantum = (leading - 7).max(-133);
    let shift = quantum - x.exponent;
    let mut kept = if shift <= 0 {
        x.magnitude << -shift
    } else if shift > 120 {
        // Far below half the smallest subnormal (magnitudes here stay below 2^100).
        0
    } else {
        let kept = x.magnitude >> shift;
        let rest = x.magnitude & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rest > half || (rest == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    let mut quantum = quantum;
    if kept == 0x100 {
        kept = 0x80;
        quantum += 1;
    }
    // Subnormals (quantum -133, kept < 128) and normals share one encoding:
    // field = quantum + 134 for kept in [128, 256).
    let bits = if kept < 0x80 {
        kept as u16
    } else if quantum + 134 >= 0xFF {
        0x7F80
    } else {
        (((quantum + 134) as u16) << 7) | (kept as u16 & 0x7F)
    };
    bf16::from_bits(sign | bits)
}

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Any bit pattern, or (half the time) a value whose exponent lies within 12 of
    /// `near`'s, so that sums cancel and land on ties.
    fn operand(&mut self, near: bf16) -> bf16 {
        let r = self.next();
        if r & 1 == 0 {
            return bf16::from_bits((r >> 8) as u16);
        }
        let field = i32::from((near.to_bits() >> 7) & 0xFF) + ((r >> 8) % 25) as i32 - 12;
        let field = field.clamp(0, 0xFE) as u16;
        let sign = ((r >> 16) as u16) & 0x8000;
        bf16::from_bits(sign | field << 7 | ((r >> 32) as u16 & 0x7F))
    }
}

fn same(got: bf16, want: bf16) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

fn fresh_seed() -> u64 {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);
    println!("seed {seed:#x}");
    seed
}

#[test]
fn the_rounding_reference_is_exact_on_known_values() {
    let v = |x: f32| bf16::from_f32(x);
    assert_eq!(round(sum(exact(v(1.0)), exact(v(2.0)))), v(3.0));
    // 1 + 2^-8 is a tie: to even (1.0); 1 + 3 * 2^-8 is a tie: to even (1 + 2^-6).
    let tie = sum(exact(v(1.0)), exact(bf16::from_f64(2f64.powi(-8))));
    assert_eq!(round(tie), v(1.0));
    let tie = sum(exact(v(1.0)), exact(bf16::from_f64(3.0 * 2f64.powi(-8))));
    assert_eq!(round(tie), bf16::from_f64(1.0 + 2f64.powi(-6)));
    // The smallest subnormal squared underflows to zero; MAX * 2 overflows.
    let tiny = bf16::from_bits(1);
    assert_eq!(round(product(exact(tiny), exact(tiny))).to_bits(), 0);
    assert_eq!(
        round(product(exact(bf16::MAX), exact(v(2.0)))),
        bf16::INFINITY
    );
    assert_eq!(
        round(product(exact(v(-0.5)), exact(tiny))).to_bits(),
        0x8000
    );
}

/// `+ - *` through `f32` (the `half` crate, the simulator, the NVVM writer before
/// sm_90) and `mul_add` rounded once (`bf16_fma`) against the exact reference, on
/// 1,000,000 fresh operand sets of every class (subnormals, infinities, NaNs, ties).
#[test]
fn bf16_f32_route_and_mul_add_are_correctly_rounded() {
    let mut rng = SplitMix(fresh_seed());
    let mut twice_differs = 0;
    for _ in 0..1_000_000 {
        let a = rng.operand(bf16::ONE);
        let b = rng.operand(a);
        let c = rng.operand(bf16::from_f32(a.to_f32() * b.to_f32()));
        let finite = [a, b, c].iter().all(|x| x.is_finite());
        if !finite {
            // Infinities and NaNs: no rounding; the f32 route is IEEE arithmetic.
            let want = bf16::from_f64(a.to_f64().mul_add(b.to_f64(), c.to_f64()));
            assert!(same(bf16_fma::mul_add(a, b, c), want), "{a} * {b} + {c}");
            continue;
        }
        let (ea, eb, ec) = (exact(a), exact(b), exact(c));
        let neg_b = Exact {
            negative: !eb.negative,
            ..eb
        };
        assert!(same(a + b, round(sum(ea, eb))), "{a:?} + {b:?}");
        assert!(same(a - b, round(sum(ea, neg_b))), "{a:?} - {b:?}");
        assert!(same(a * b, round(product(ea, eb))), "{a:?} * {b:?}");
        let want = round(sum(product(ea, eb), ec));
        let got = bf16_fma::mul_add(a, b, c);
        assert!(
            same(got, want),
            "{a:?}.mul_add({b:?}, {c:?}) = {got:?}, want {want:?}"
        );
        let twice = bf16::from_f32(a.to_f32().mul_add(b.to_f32(), c.to_f32()));
        twice_differs += usize::from(!same(twice, want));
    }
    println!("f32::mul_add then bf16 differs from one rounding {twice_differs} times");
    // The operands reach the cases where rounding twice is wrong.
    assert!(twice_differs > 0);
}

/// `+ - *` through `f32` for every `bf16` `a` (all 65,536 bit patterns) against 48
/// fresh `b` each: every exponent, subnormal and special value on the left.
#[test]
fn bf16_f32_route_is_correctly_rounded_for_every_left_operand() {
    let mut rng = SplitMix(fresh_seed());
    for bits in 0..=u16::MAX {
        let a = bf16::from_bits(bits);
        for _ in 0..48 {
            let b = rng.operand(a);
            if !(a.is_finite() && b.is_finite()) {
                let want = bf16::from_f64(a.to_f64() + b.to_f64());
                assert!(same(a + b, want), "{a:?} + {b:?}");
                continue;
            }
            let (ea, eb) = (exact(a), exact(b));
            let neg_b = Exact {
                negative: !eb.negative,
                ..eb
            };
            assert!(same(a + b, round(sum(ea, eb))), "{a:?} + {b:?}");
            assert!(same(a - b, round(sum(ea, neg_b))), "{a:?} - {b:?}");
            assert!(same(a * b, round(product(ea, eb))), "{a:?} * {b:?}");
        }
    }
}
