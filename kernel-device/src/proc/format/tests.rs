//! The format pipeline against rustc's own `format!`: every `check!` formats the same
//! values with the same literal spec both ways — rustc's `format!`, and parse → record
//! in a buffer → decode → render — and asserts byte equality. Random values come from
//! a seeded `fastrand` (the seed is printed; `CUDAJIT_FMT_SEED=n` replays it).

use std::sync::Arc;

use half::{bf16, f16};
use num_complex::Complex;

use super::parse::{Align, Count, FormatErrorKind, FormatSpec, FormatTrait, Piece};
use super::record::{
    append_record, decode, reset_buffer, RecordOrigin, ScalarValue, BUFFER_HEADER_BYTES,
};
use super::*;
use crate::ir::layout::{complex_def, StructDef, StructField};
use crate::ir::ScalarType;

/// A host value as the record holds it.
trait ToValue {
    fn ty() -> Type
    where
        Self: Sized;
    fn to_value(&self) -> Value;
}

macro_rules! scalar_to_value {
    ($($t:ty => $variant:ident as $held:ty),* $(,)?) => {$(
        impl ToValue for $t {
            fn ty() -> Type {
                Type::Scalar(ScalarType::$variant)
            }
            fn to_value(&self) -> Value {
                Value::Scalar(ScalarValue::$variant(*self as $held))
            }
        }
    )*};
}

scalar_to_value!(
    bool => Bool as bool, i8 => I8 as i8, i16 => I16 as i16, i32 => I32 as i32,
    i64 => I64 as i64, isize => Isize as i64, u8 => U8 as u8, u16 => U16 as u16,
    u32 => U32 as u32, u64 => U64 as u64, usize => Usize as u64, f32 => F32 as f32,
    f64 => F64 as f64,
);

impl ToValue for f16 {
    fn ty() -> Type {
        Type::Scalar(ScalarType::F16)
    }
    fn to_value(&self) -> Value {
        Value::Scalar(ScalarValue::F16(*self))
    }
}

impl ToValue for bf16 {
    fn ty() -> Type {
        Type::Scalar(ScalarType::BF16)
    }
    fn to_value(&self) -> Value {
        Value::Scalar(ScalarValue::BF16(*self))
    }
}

impl<T: ToValue> ToValue for Complex<T> {
    fn ty() -> Type {
        Type::Struct(Arc::new(complex_def(T::ty().scalar().unwrap())))
    }
    fn to_value(&self) -> Value {
        let Type::Struct(def) = Self::ty() else {
            unreachable!()
        };
        Value::Struct {
            def,
            fields: vec![self.re.to_value(), self.im.to_value()],
        }
    }
}

impl<T: ToValue, const N: usize> ToValue for [T; N] {
    fn ty() -> Type {
        Type::array(T::ty(), N as u64)
    }
    fn to_value(&self) -> Value {
        Value::Array {
            elem: T::ty(),
            items: self.iter().map(ToValue::to_value).collect(),
        }
    }
}

/// A `#[derive(DeviceCopy, Debug)]` struct as a kernel would have it.
macro_rules! test_struct {
    ($name:ident { $($field:ident: $t:ty),* $(,)? }) => {
        #[derive(Clone, Copy, Debug)]
        #[allow(dead_code)]
        struct $name { $($field: $t),* }
        impl ToValue for $name {
            fn ty() -> Type {
                Type::Struct(Arc::new(StructDef {
                    name: stringify!($name).to_string(),
                    fields: vec![$(StructField {
                        name: stringify!($field).to_string(),
                        ty: <$t>::ty(),
                    }),*],
                }))
            }
            fn to_value(&self) -> Value {
                let Type::Struct(def) = Self::ty() else { unreachable!() };
                Value::Struct { def, fields: vec![$(self.$field.to_value()),*] }
            }
        }
    };
}

test_struct!(Point { x: f32, y: f32 });
test_struct!(Mixed { flag: bool, n: i64, bytes: [u8; 3], at: Point, z: Complex<f64> });

/// Parse, write one record into a buffer, read it back and render it.
fn through_buffer(string: &str, values: &[Value]) -> String {
    let explicit = ExplicitArguments {
        positional: values.len(),
        named: vec![],
    };
    let program = parse(string, &explicit).unwrap_or_else(|e| panic!("{string:?}: {e:?}"));
    assert_eq!(program.arguments.len(), values.len(), "{string:?} captures");
    let types: Vec<Type> = values.iter().map(Value::ty).collect();
    let layout = RecordLayout::new(&types).expect("printable");
    let mut table = FormatTable::default();
    let id = table.push(PrintFormat {
        program,
        argument_types: types,
        destination: Destination::Stdout,
    });
    let mut buffer = vec![0xA5u8; BUFFER_HEADER_BYTES + layout.record_bytes() as usize];
    reset_buffer(&mut buffer).unwrap();
    let origin = RecordOrigin {
        block: 3,
        thread: 7,
    };
    assert!(append_record(&mut buffer, id, origin, &layout, values));
    let decoded = decode(&buffer, |id| table.argument_types(id)).unwrap();
    assert_eq!(decoded.records.len(), 1);
    render_output(&table, decoded, PrintOrder::Arrival)
        .unwrap()
        .stdout
}

macro_rules! check {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{
        let expected = format!($fmt $(, $arg)*);
        let values: Vec<Value> = vec![$(ToValue::to_value(&$arg)),*];
        let got = through_buffer($fmt, &values);
        assert_eq!(got, expected, "format {:?} of {:?}", $fmt, values);
    }};
}

macro_rules! check_each {
    ($v:expr; $($fmt:literal),* $(,)?) => {{ $(check!($fmt, $v);)* }};
}

fn seeded_rng(test: &str) -> fastrand::Rng {
    let seed = std::env::var("CUDAJIT_FMT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("{test}: seed {seed} (replay with CUDAJIT_FMT_SEED={seed})");
    fastrand::Rng::with_seed(seed)
}

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
        "{:ß^30}", "{:0}", "{:1.1}",
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
            "{:#?}", "{:x?}", "{:>8.3}", "{:é^9.1?}",
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
                "{:+.3E}", "{:020}", "{:8?}", "{:.1?}", "{:x?}",
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
            "{:?}", "{:#?}", "{:8?}", "{:.2?}", "{:x?}", "{:#x?}", "{:+08.1?}", "{:*^7?}",
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

#[test]
fn named_and_captured_arguments_resolve() {
    let (x, width) = (3.25f32, 9usize);
    let explicit = ExplicitArguments {
        positional: 1,
        named: vec!["y".into()],
    };
    let program = parse("{x} {y:>width$} {0} {y:.prec$?}", &explicit).unwrap();
    assert_eq!(
        program.arguments,
        vec![
            ArgumentSource::Positional(0),
            ArgumentSource::Named("y".into()),
            ArgumentSource::Captured("x".into()),
            ArgumentSource::Captured("width".into()),
            ArgumentSource::Captured("prec".into()),
        ]
    );
    assert_eq!(program.count_arguments(), vec![3, 4]);
    let values = [
        (-4i16).to_value(),
        1.0f64.to_value(),
        x.to_value(),
        width.to_value(),
        2usize.to_value(),
    ];
    let expected = format!(
        "{x} {y:>width$} {0} {y:.prec$?}",
        -4i16,
        y = 1.0f64,
        prec = 2usize
    );
    assert_eq!(render(&program, &values).unwrap(), expected);
    // `{}` after a named argument takes the next positional index, as in rustc.
    let program = parse(
        "{a}{}",
        &ExplicitArguments {
            positional: 1,
            named: vec![],
        },
    )
    .unwrap();
    let Piece::Placeholder(second) = &program.pieces[1] else {
        panic!()
    };
    assert_eq!(second.argument, 0);
}

#[test]
fn spec_fields_parse_as_rustc_reads_them() {
    let none = ExplicitArguments {
        positional: 2,
        named: vec![],
    };
    let spec = |s: &str| -> FormatSpec {
        let program = parse(s, &none).unwrap();
        let spec = program.placeholders().next().unwrap().spec.clone();
        spec
    };
    let s = spec("{1:é^+#012.3e}{0}");
    assert_eq!(
        (s.fill, s.align, s.sign_plus, s.alternate, s.zero_pad),
        ('é', Some(Align::Center), true, true, true)
    );
    assert_eq!(
        (s.width, s.precision, s.format_trait),
        (
            Some(Count::Literal(12)),
            Some(Count::Literal(3)),
            FormatTrait::LowerExp
        )
    );
    // `0$` is argument 0 as the width, not the `0` flag.
    let s = spec("{1:0$}");
    assert_eq!((s.zero_pad, s.width), (false, Some(Count::Argument(0))));
    let s = spec("{1:00$}");
    assert_eq!((s.zero_pad, s.width), (true, Some(Count::Argument(0))));
    let s = spec("{:-x?}{}");
    assert_eq!(
        (s.sign_minus, s.format_trait),
        (true, FormatTrait::DebugLowerHex)
    );
    // A `}` can be the fill when an alignment follows it.
    let s = spec("{:}>4}{}");
    assert_eq!((s.fill, s.align), ('}', Some(Align::Right)));
    // Whitespace may follow the argument and the spec.
    let s = spec("{0 :x }{1}");
    assert_eq!(s.format_trait, FormatTrait::LowerHex);
    let program = parse("{ }{ }", &none).unwrap();
    assert_eq!(program.placeholders().count(), 2);
}

struct ErrorCase {
    string: &'static str,
    positional: usize,
    named: &'static [&'static str],
    kind: FormatErrorKind,
    range: Option<std::ops::Range<usize>>,
    message: &'static str,
}

#[test]
fn every_parse_error_says_what_rustc_says() {
    use FormatErrorKind as K;
    let cases = [
        ErrorCase { string: "a } b", positional: 0, named: &[], kind: K::UnmatchedClose, range: Some(2..3), message: "invalid format string: unmatched `}` found" },
        ErrorCase { string: "{0", positional: 1, named: &[], kind: K::Unterminated, range: Some(2..2), message: "invalid format string: expected `}` but string was terminated" },
        ErrorCase { string: "{:5 x}", positional: 1, named: &[], kind: K::ExpectedClose('x'), range: Some(4..4), message: "invalid format string: expected `}`, found `x`" },
        ErrorCase { string: "{:d}", positional: 1, named: &[], kind: K::UnknownTrait("d".into()), range: Some(2..3), message: "unknown format trait `d`" },
        ErrorCase { string: "{:p}", positional: 1, named: &[], kind: K::PointerUnsupported, range: Some(2..3), message: "`{:p}` (Pointer) is not supported in kernels: a device address means nothing where the host prints it" },
        ErrorCase { string: "{:?x}", positional: 1, named: &[], kind: K::ReorderedDebug('x'), range: Some(3..4), message: "invalid format string: expected `}`, found `x`" },
        ErrorCase { string: "{:?#}", positional: 1, named: &[], kind: K::ReorderedDebug('#'), range: Some(3..4), message: "invalid format string: expected `}`, found `#`" },
        ErrorCase { string: "{:70000}", positional: 1, named: &[], kind: K::IntegerTooLarge("70000".into()), range: Some(2..7), message: "invalid format string: integer `70000` does not fit into the type `u16` whose range is `0..=65535`" },
        ErrorCase { string: "{_}", positional: 0, named: &[], kind: K::UnderscoreName, range: Some(1..2), message: "invalid format string: invalid argument name `_`" },
        ErrorCase { string: "{r#type}", positional: 0, named: &[], kind: K::RawIdentifier, range: Some(1..7), message: "invalid format string: raw identifiers are not supported" },
        ErrorCase { string: "{p.x}", positional: 0, named: &[], kind: K::FieldAccess, range: Some(2..3), message: "invalid format string: field access isn't supported" },
        ErrorCase { string: "{} {}", positional: 1, named: &[], kind: K::InvalidPositional { index: 1, count: 1 }, range: Some(3..5), message: "invalid reference to positional argument 1 (there is 1 argument)" },
        ErrorCase { string: "{:.*}", positional: 0, named: &[], kind: K::InvalidPositional { index: 0, count: 0 }, range: Some(0..5), message: "invalid reference to positional argument 0 (no arguments were given)" },
        ErrorCase { string: "{:1$}", positional: 1, named: &[], kind: K::InvalidPositional { index: 1, count: 1 }, range: Some(0..5), message: "invalid reference to positional argument 1 (there is 1 argument)" },
        ErrorCase { string: "{}", positional: 2, named: &[], kind: K::UnusedArgument, range: None, message: "argument never used" },
        ErrorCase { string: "{}", positional: 1, named: &["n"], kind: K::UnusedNamedArgument, range: None, message: "named argument never used" },
    ];
    for case in cases {
        let explicit = ExplicitArguments {
            positional: case.positional,
            named: case.named.iter().map(|s| s.to_string()).collect(),
        };
        let errors = parse(case.string, &explicit).expect_err(case.string);
        let first = &errors[0];
        assert_eq!(first.kind, case.kind, "{:?}", case.string);
        assert_eq!(first.range, case.range, "{:?}", case.string);
        assert_eq!(first.to_string(), case.message, "{:?}", case.string);
    }
    // Every unused argument is reported, each with its index.
    let explicit = ExplicitArguments {
        positional: 3,
        named: vec!["n".into()],
    };
    let errors = parse("{1}", &explicit).unwrap_err();
    let unused: Vec<_> = errors.iter().map(|e| e.argument).collect();
    assert_eq!(unused, vec![Some(0), Some(2), Some(3)]);
    assert!(errors[0].note().is_none());
    let open = parse("{", &ExplicitArguments::default()).unwrap_err();
    assert_eq!(
        open[0].note().unwrap(),
        "if you intended to print `{`, you can escape it using `{{`"
    );
}

#[test]
fn trait_checks_follow_rusts_impls() {
    let f32_ty = Type::Scalar(ScalarType::F32);
    assert!(check_trait(&f32_ty, FormatTrait::LowerExp).is_ok());
    assert_eq!(
        check_trait(&f32_ty, FormatTrait::LowerHex)
            .unwrap_err()
            .to_string(),
        "the trait `std::fmt::LowerHex` is not implemented for `f32`"
    );
    assert!(check_trait(&Type::Scalar(ScalarType::F16), FormatTrait::Binary).is_ok());
    assert!(check_trait(&Type::Scalar(ScalarType::U8), FormatTrait::UpperExp).is_ok());
    assert!(check_trait(&Type::Scalar(ScalarType::Bool), FormatTrait::LowerExp).is_err());
    let arr = <[f32; 3]>::ty();
    assert_eq!(
        check_trait(&arr, FormatTrait::Display)
            .unwrap_err()
            .to_string(),
        "`[f32; 3]` doesn't implement `std::fmt::Display`"
    );
    assert!(check_trait(&arr, FormatTrait::DebugLowerHex).is_ok());
    assert!(check_trait(&Point::ty(), FormatTrait::Display).is_err());
    assert!(check_trait(&Complex::<f32>::ty(), FormatTrait::UpperExp).is_ok());
    assert!(check_trait(&Complex::<f32>::ty(), FormatTrait::LowerHex).is_err());
    let slice = Type::Slice {
        elem: ScalarType::F32,
        mutable: false,
    };
    assert!(check_trait(&slice, FormatTrait::Debug).is_err());
}
