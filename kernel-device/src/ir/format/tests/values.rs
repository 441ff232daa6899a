//! Every scalar type, `Complex`, structs and arrays: rustc's `format!` of each value
//! with each spec of a table against the buffer round trip.

use half::{bf16, f16};
use num_complex::Complex;

use super::*;

const RANDOM_VALUES: usize = 1000;

fn check_integer<T>(v: T)
where
    T: ToValue
        + Copy
        + std::fmt::Display
        + std::fmt::Debug
        + std::fmt::LowerHex
        + std::fmt::UpperHex
        + std::fmt::Octal
        + std::fmt::Binary
        + std::fmt::LowerExp
        + std::fmt::UpperExp,
{
    check_each!(v;
        "{}", "{:?}", "{:1}", "{:5}", "{:<5}", "{:^5}", "{:>5}", "{:*^9}", "{:é>7}", "{:+}",
        "{:-}", "{:+05}", "{:05}", "{:0}", "{:<010}", "{:^+08}", "{:0<8}", "{:.3}",
        "{:10.3}", "{:40}", "{:x}", "{:X}", "{:#x}", "{:#X}", "{:o}", "{:#o}", "{:b}",
        "{:#b}", "{:#010x}", "{:#010b}", "{:+#012x}", "{:>+#20b}", "{:#<12x}", "{:^+#14o}",
        "{:_>+8}", "{:x?}", "{:X?}", "{:#x?}", "{:#X?}", "{:05x?}", "{:#06X?}", "{:#?}",
        "{:+?}", "{:e}", "{:E}", "{:.0e}", "{:.3e}", "{:+.2E}", "{:12.3e}", "{:012e}",
        "{:<+15.1e}", "{:#e}", "{:.25e}",
    );
}

fn check_float<T>(v: T)
where
    T: ToValue
        + Copy
        + std::fmt::Display
        + std::fmt::Debug
        + std::fmt::LowerExp
        + std::fmt::UpperExp,
{
    check_each!(v;
        "{}", "{:?}", "{:e}", "{:E}", "{:.0}", "{:.1}", "{:.3}", "{:.17}", "{:.30}", "{:+}",
        "{:+.2}", "{:10}", "{:<10}", "{:^10}", "{:>10}", "{:010}", "{:+010.3}", "{:-^15.4}",
        "{:#}", "{:#?}", "{:.3?}", "{:12?}", "{:012?}", "{:+?}", "{:.0e}", "{:.2e}",
        "{:+.4E}", "{:015.3e}", "{:x?}", "{:#X?}", "{:*>+20.5e}", "{:<+012.1}", "{:.50e}",
        "{:ß^30}", "{:#07x?}", "{:#012X?}", "{:0}", "{:1.1}",
    );
}

fn check_half<T>(v: T)
where
    T: ToValue
        + Copy
        + std::fmt::Display
        + std::fmt::Debug
        + std::fmt::LowerExp
        + std::fmt::UpperExp
        + std::fmt::LowerHex
        + std::fmt::UpperHex
        + std::fmt::Octal
        + std::fmt::Binary,
{
    check_each!(v;
        "{}", "{:?}", "{:.3}", "{:+010.2}", "{:^12?}", "{:+?}", "{:#?}", "{:.1?}", "{:>9}",
        "{:e}", "{:E}", "{:>12e}", "{:+.2e}", "{:x}", "{:#X}", "{:o}", "{:010b}", "{:#x?}",
        "{:#09x?}",
    );
}

fn integer_values<T: Copy>(
    rng: &mut fastrand::Rng,
    edges: &[T],
    random: impl Fn(&mut fastrand::Rng) -> T,
    small: impl Fn(&mut fastrand::Rng) -> T,
) -> Vec<T> {
    let mut values = edges.to_vec();
    for i in 0..RANDOM_VALUES {
        values.push(if i % 2 == 0 { random(rng) } else { small(rng) });
    }
    values
}

macro_rules! integer_test {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            let mut rng = seeded_rng(stringify!($name));
            let edges = [
                <$t>::MIN,
                <$t>::MAX,
                0 as $t,
                1 as $t,
                <$t>::MIN / 2,
                <$t>::MAX / 3,
            ];
            let values = integer_values(
                &mut rng,
                &edges,
                |r| r.u64(..) as $t,
                |r| r.i64(-1000..1000) as $t,
            );
            for v in values {
                check_integer(v);
            }
        }
    };
}

integer_test!(i8_matches_rust, i8);
integer_test!(i16_matches_rust, i16);
integer_test!(i32_matches_rust, i32);
integer_test!(i64_matches_rust, i64);
integer_test!(isize_matches_rust, isize);
integer_test!(u8_matches_rust, u8);
integer_test!(u16_matches_rust, u16);
integer_test!(u32_matches_rust, u32);
integer_test!(u64_matches_rust, u64);
integer_test!(usize_matches_rust, usize);

/// Raw bit patterns (NaN payloads, subnormals, infinities all appear), short decimals
/// and small integers, around the edge values.
macro_rules! float_test {
    ($name:ident, $t:ty, $bits:ty) => {
        #[test]
        fn $name() {
            let mut rng = seeded_rng(stringify!($name));
            let mut values = vec![
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.1,
                0.3,
                1e-7,
                1e16,
                1e21,
                123456789.0,
                <$t>::MIN,
                <$t>::MAX,
                <$t>::MIN_POSITIVE,
                -<$t>::MIN_POSITIVE,
                <$t>::EPSILON,
                <$t>::from_bits(1),
                -<$t>::from_bits(1),
                <$t>::MIN_POSITIVE / 2.0,
                <$t>::NAN,
                -<$t>::NAN,
                <$t>::INFINITY,
                <$t>::NEG_INFINITY,
            ];
            for i in 0..RANDOM_VALUES {
                values.push(match i % 3 {
                    0 => <$t>::from_bits(rng.u64(..) as $bits),
                    1 => rng.i32(-100_000..100_000) as $t / 10f64.powi(rng.i32(0..8)) as $t,
                    _ => rng.i32(-50..50) as $t,
                });
            }
            for v in values {
                check_float(v);
            }
        }
    };
}

float_test!(f32_matches_rust, f32, u32);
float_test!(f64_matches_rust, f64, u64);

macro_rules! half_test {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            let mut rng = seeded_rng(stringify!($name));
            let mut values = vec![
                <$t>::ZERO,
                <$t>::NEG_ZERO,
                <$t>::ONE,
                <$t>::MIN,
                <$t>::MAX,
                <$t>::MIN_POSITIVE,
                <$t>::MIN_POSITIVE_SUBNORMAL,
                <$t>::EPSILON,
                <$t>::NAN,
                <$t>::INFINITY,
                <$t>::NEG_INFINITY,
                <$t>::from_f32(0.1),
            ];
            // Every bit pattern is few enough for the edge cases to be all of them.
            for _ in 0..RANDOM_VALUES {
                values.push(<$t>::from_bits(rng.u16(..)));
            }
            for v in values {
                check_half(v);
            }
        }
    };
}

half_test!(f16_matches_half_crate, f16);
half_test!(bf16_matches_half_crate, bf16);

#[test]
fn bool_matches_rust() {
    for v in [true, false] {
        check_each!(v;
            "{}", "{:?}", "{:6}", "{:>6}", "{:^7}", "{:*<8}", "{:.2}", "{:06}", "{:+}",
            "{:#?}", "{:x?}", "{:>8.3}", "{:#07x?}", "{:é^9.1?}",
        );
    }
}

#[test]
fn complex_matches_num_complex() {
    let mut rng = seeded_rng("complex_matches_num_complex");
    let mut parts = vec![
        0.0,
        -0.0,
        1.5,
        -2.25,
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        1e-300,
    ];
    for _ in 0..40 {
        parts.push(rng.i32(-10_000..10_000) as f64 / 100.0);
    }
    for &re in &parts {
        for &im in &parts[..12] {
            let c64 = Complex::new(re, im);
            let c32 = Complex::new(re as f32, im as f32);
            check_each!(c64;
                "{}", "{:?}", "{:#?}", "{:.2}", "{:+}", "{:20}", "{:<20}", "{:*^20.1}", "{:e}",
                "{:+.3E}", "{:020}", "{:8?}", "{:.1?}", "{:x?}", "{:#012x?}",
            );
            check_each!(c32; "{}", "{:?}", "{:+.1}", "{:>12e}", "{:#?}");
        }
    }
}

#[test]
fn structs_and_arrays_match_derive_debug() {
    let mut rng = seeded_rng("structs_and_arrays_match_derive_debug");
    for _ in 0..200 {
        let at = Point {
            x: rng.i32(-999..999) as f32 / 8.0,
            y: f32::from_bits(rng.u32(..)),
        };
        let mixed = Mixed {
            flag: rng.bool(),
            n: rng.i64(..),
            bytes: [rng.u8(..), rng.u8(..), rng.u8(..)],
            at,
            z: Complex::new(rng.f64(), -rng.f64()),
        };
        let ints = [rng.i32(..), rng.i32(-9..9), 0, -1];
        let grid = [[rng.u8(..), 1], [2, rng.u8(..)]];
        let points = [at, Point { x: -0.0, y: 1e-7 }];
        check_each!(mixed;
            "{:?}", "{:#?}", "{:8?}", "{:.2?}", "{:x?}", "{:#x?}", "{:+08.1?}",
            "{:#8?}", "{:#<+9.2?}", "{:#07X?}", "{:*^7?}",
        );
        check_each!(at; "{:?}", "{:#?}", "{:>10.3?}");
        check_each!(ints; "{:?}", "{:#?}", "{:5?}", "{:#X?}", "{:+04?}");
        check_each!(grid; "{:?}", "{:#?}", "{:02x?}");
        check_each!(points; "{:?}", "{:#?}");
    }
    let empty: [bool; 0] = [];
    check_each!(empty; "{:?}", "{:#?}", "{:5?}");
    // A fill of `\n` in pretty form: the indentation applies after it too, as in Rust.
    check!("{:\n^5?}", [Point { x: 1.0, y: 2.0 }]);
    check!("{:\n^#5?}", [Point { x: 1.0, y: 2.0 }]);
}

#[test]
fn several_arguments_counts_and_literals() {
    let (a, b, c) = (7i32, -2.5f64, 255u8);
    let (w, p) = (12usize, 3usize);
    check!("a={} b={:>3$.4$} {{c}}={:#x}!\n", a, b, c, w, p);
    check!("{0} {0:?} {1:+} {0:05}", b, a);
    check!("{:.*} then {}", p, b, a);
    check!("{2:.*}|{}", p, a, b);
    check!("{:0$}|{1:0$.0$}", w, b);
    check!("");
    check!("no placeholders {{}}, {{{{");
    check!("{:.3$} {:1$} {}", a, w, b, p);
    let text = "a-é-ß";
    assert_eq!(
        through_buffer("α{}β\t{:?}", &[a.to_value(), b.to_value()]),
        format!("α{}β\t{:?}", a, b)
    );
    assert_eq!(text.len(), 7, "the literal keeps non-ASCII text");
}
