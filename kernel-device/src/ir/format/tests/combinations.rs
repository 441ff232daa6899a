//! Every combination of the flags that decide padding — alignment (with and without a
//! fill), `+`, `#`, `0`, and precision — for each trait a type has, at width 9: the
//! cross product is built by a macro into `concat!`ed literals, so the reference is
//! still rustc's `format!` of the same spec.

use half::f16;
use num_complex::Complex;

use super::*;

/// Expands to one `check!` per element of the cross product of the lists.
macro_rules! combinations {
    ($v:expr; traits $traits:tt) => {
        combinations!(@align $v; ["", "<", "^", ">", "*^"]; $traits)
    };
    (@align $v:expr; [$($align:literal),*]; $traits:tt) => {
        $(combinations!(@sign $v; $align; ["", "+"]; $traits);)*
    };
    (@sign $v:expr; $align:literal; [$($sign:literal),*]; $traits:tt) => {
        $(combinations!(@alt $v; $align, $sign; ["", "#"]; $traits);)*
    };
    (@alt $v:expr; $align:literal, $sign:literal; [$($alt:literal),*]; $traits:tt) => {
        $(combinations!(@zero $v; $align, $sign, $alt; ["", "0"]; $traits);)*
    };
    (@zero $v:expr; $align:literal, $sign:literal, $alt:literal; [$($zero:literal),*]; $traits:tt) => {
        $(combinations!(@count $v; $align, $sign, $alt, $zero; ["9", "9.2"]; $traits);)*
    };
    (@count $v:expr; $a:literal, $s:literal, $h:literal, $z:literal; [$($c:literal),*]; $traits:tt) => {
        $(combinations!(@trait $v; $a, $s, $h, $z, $c; $traits);)*
    };
    (@trait $v:expr; $a:literal, $s:literal, $h:literal, $z:literal, $c:literal; [$($t:literal),*]) => {{
        $({
            let expected = format!(concat!("{:", $a, $s, $h, $z, $c, $t, "}"), $v);
            let spec = concat!("{:", $a, $s, $h, $z, $c, $t, "}");
            let got = through_buffer(spec, &[ToValue::to_value(&$v)]);
            assert_eq!(got, expected, "format {:?} of {:?}", spec, $v);
        })*
    }};
}

#[test]
fn integers_in_every_flag_combination() {
    let mut rng = seeded_rng("integers_in_every_flag_combination");
    // Padding does not depend on the integer's width (the tables in `values` cover
    // each type), so one type keeps the expansion, and the build, small.
    let mut values = vec![i64::MIN, i64::MAX, 0, -1, 1, 255];
    for _ in 0..30 {
        values.push(rng.i64(-100_000..100_000));
    }
    for v in values {
        combinations!(v; traits ["", "?", "x?", "X?", "x", "X", "o", "b", "e", "E"]);
    }
}

#[test]
fn floats_in_every_flag_combination() {
    let mut rng = seeded_rng("floats_in_every_flag_combination");
    let mut values = vec![
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        1e-310,
        0.1,
    ];
    for _ in 0..20 {
        values.push(rng.i32(-100_000..100_000) as f64 / 1000.0);
    }
    for v in values {
        combinations!(v; traits ["", "?", "x?", "e", "E"]);
        let half = f16::from_f64(v);
        combinations!(half; traits ["", "?", "X?", "e", "x", "b"]);
    }
}

#[test]
fn bools_and_complex_in_every_flag_combination() {
    for v in [true, false] {
        combinations!(v; traits ["", "?", "x?"]);
    }
    for (re, im) in [
        (1.5, -0.0),
        (-0.0, 2.0),
        (f64::NAN, -1e-9),
        (-3.25, f64::INFINITY),
    ] {
        let v = Complex::new(re, im);
        combinations!(v; traits ["", "?", "e", "E"]);
    }
}
