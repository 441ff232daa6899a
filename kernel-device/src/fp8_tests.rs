//! `e4m3` against an independent reading of the OCP FP8 spec: each code decoded by
//! building the f32 bit pattern (exponent rebiased 7 → 127, mantissa shifted into
//! place) and `from_f32` against a brute-force search for the nearest finite code.

use super::e4m3;

/// The spec's value of a code, through f32 bits; `None` for NaN (`S.1111.111`).
fn reference_value(code: u8) -> Option<f32> {
    let (sign, exponent, mantissa) = (code >> 7, (code >> 3) & 0xF, code & 0x7);
    if exponent == 0xF && mantissa == 0x7 {
        return None;
    }
    let magnitude = if exponent == 0 {
        f32::from(mantissa) / 512.0
    } else {
        f32::from_bits((u32::from(exponent) + 127 - 7) << 23 | u32::from(mantissa) << 20)
    };
    Some(if sign == 1 { -magnitude } else { magnitude })
}

/// The finite code nearest to `x` (ties to the even mantissa), saturating past ±448.
fn reference_round(x: f32) -> u8 {
    if x.is_nan() {
        return 0x7F;
    }
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    let target = f64::from(x.abs());
    let mut best = 0u8;
    for code in 0..0x7Fu8 {
        let value = f64::from(reference_value(code).unwrap());
        let best_value = f64::from(reference_value(best).unwrap());
        let (d, best_d) = ((value - target).abs(), (best_value - target).abs());
        if d < best_d || (d == best_d && code % 2 == 0) {
            best = code;
        }
    }
    sign | best
}

#[test]
fn every_code_decodes_as_the_spec_says() {
    let mut nans = 0;
    for code in 0..=255u8 {
        let got = e4m3::from_bits(code).to_f32();
        match reference_value(code) {
            None => {
                assert!(got.is_nan(), "{code:#04x}");
                nans += 1;
            }
            Some(want) => assert_eq!(got.to_bits(), want.to_bits(), "{code:#04x}"),
        }
    }
    assert_eq!(nans, 2, "only S.1111.111 is NaN");
    // The spec's landmarks.
    assert_eq!(e4m3::from_bits(0x7E).to_f32(), 448.0);
    assert_eq!(e4m3::from_bits(0x38).to_f32(), 1.0);
    assert_eq!(e4m3::from_bits(0x08).to_f32(), 2f32.powi(-6));
    assert_eq!(e4m3::from_bits(0x01).to_f32(), 2f32.powi(-9));
    assert_eq!(e4m3::from_bits(0x07).to_f32(), 7.0 * 2f32.powi(-9));
}

#[test]
fn every_finite_code_round_trips() {
    for code in (0..=255u8).filter(|c| c & 0x7F != 0x7F) {
        let x = e4m3::from_bits(code);
        assert_eq!(e4m3::from_f32(x.to_f32()), x, "{code:#04x}");
    }
}

/// Every midpoint between adjacent codes (the ties) and the f32s either side of it,
/// then random f32s over the whole range, against the nearest-code search.
#[test]
fn from_f32_rounds_to_nearest_even_and_saturates() {
    let mut probes = Vec::new();
    for code in 0..0x7Eu8 {
        let (lo, hi) = (
            reference_value(code).unwrap(),
            reference_value(code + 1).unwrap(),
        );
        let mid = (lo + hi) / 2.0;
        probes.extend([
            mid,
            f32::from_bits(mid.to_bits() - 1),
            f32::from_bits(mid.to_bits() + 1),
        ]);
    }
    probes.extend([
        448.0,
        464.0,
        480.0,
        1e6,
        f32::MAX,
        f32::INFINITY,
        2f32.powi(-10),
        1e-30,
    ]);
    let mut rng = fastrand::Rng::with_seed(0xE4E3);
    probes.extend((0..20_000).map(|_| f32::from_bits(rng.u32(..))));
    probes.extend((0..20_000).map(|_| (rng.f32() * 2.0 - 1.0) * 2f32.powi(rng.i32(-12..10))));
    for x in probes.iter().flat_map(|&x| [x, -x]) {
        let got = e4m3::from_f32(x).to_bits();
        assert_eq!(got, reference_round(x), "{x:e} ({:#010x})", x.to_bits());
    }
    assert_eq!(e4m3::from_f32(f32::NEG_INFINITY).to_f32(), -448.0);
    assert!(e4m3::from_f32(f32::NAN).is_nan());
}
