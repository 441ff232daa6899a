//! The parser's reading of specs and arguments, its errors, and the trait checks.

use num_complex::Complex;

use super::super::parse::{Align, Count, FormatErrorKind, FormatSpec, FormatTrait, Piece};
use super::*;
use crate::ir::ScalarType;

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
        ErrorCase { string: "{} {}", positional: 1, named: &[], kind: K::TooFewArguments { references: 2, count: 1 }, range: Some(3..5), message: "2 positional arguments in format string, but there is 1 argument" },
        ErrorCase { string: "{:.*}", positional: 0, named: &[], kind: K::TooFewArguments { references: 2, count: 0 }, range: Some(0..5), message: "2 positional arguments in format string, but no arguments were given" },
        ErrorCase { string: "{5} {} {}", positional: 1, named: &[], kind: K::InvalidPositional { index: 5, count: 1 }, range: Some(0..3), message: "invalid reference to positional argument 5 (there is 1 argument)" },
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
