//! Panic and assertion texts against std's own: each macro is run on the host under
//! `catch_unwind`, and its payload is the reference for the rendered program.

use std::panic::{catch_unwind, UnwindSafe};

use super::super::panic::{
    assert_compare_message, assert_message, panic_message, AssertOp, PanicMacro,
};
use super::*;

/// The message std panicked with.
fn panic_text(f: impl FnOnce() + UnwindSafe) -> String {
    let payload = catch_unwind(f).expect_err("the closure panics");
    if let Some(text) = payload.downcast_ref::<String>() {
        return text.clone();
    }
    payload
        .downcast_ref::<&str>()
        .expect("a text payload")
        .to_string()
}

fn message(string: &str, positional: usize) -> Option<FormatProgram> {
    let explicit = ExplicitArguments {
        positional,
        named: vec![],
    };
    Some(parse(string, &explicit).unwrap())
}

#[test]
#[allow(clippy::eq_op)]
fn assertion_texts_match_std() {
    let mut rng = seeded_rng("assertion_texts_match_std");
    for _ in 0..50 {
        let (a, b) = (rng.i32(-5..5), rng.i32(5..9));
        let p = Point {
            x: rng.f32(),
            y: -0.0,
        };
        let expected = panic_text(move || assert_eq!(a, b));
        let program = assert_compare_message(AssertOp::Eq, None);
        assert_eq!(
            render(&program, &[a.to_value(), b.to_value()]).unwrap(),
            expected
        );

        let expected = panic_text(move || assert_ne!(p.x, p.x, "at {} of {:>5}", a, b));
        let program = assert_compare_message(AssertOp::Ne, message("at {} of {:>5}", 2));
        let values = [a.to_value(), b.to_value(), p.x.to_value(), p.x.to_value()];
        assert_eq!(render(&program, &values).unwrap(), expected);

        let points = [p, p];
        let other = Point {
            x: p.x + 1.0,
            y: 1e-7,
        };
        let expected = panic_text(move || assert_eq!(points, [p, other], "{:#?}", other));
        let program = assert_compare_message(AssertOp::Eq, message("{:#?}", 1));
        let values = [other.to_value(), points.to_value(), [p, other].to_value()];
        assert_eq!(render(&program, &values).unwrap(), expected);
    }
    let three = std::hint::black_box(3);
    let expected = panic_text(move || assert!(1 + 1 == three));
    assert_eq!(
        render(&assert_message("1 + 1 == three"), &[]).unwrap(),
        expected
    );
}

#[test]
fn panic_macro_texts_match_std() {
    let x = 2.5f64;
    let cases: [(PanicMacro, Option<FormatProgram>, String); 8] = [
        (PanicMacro::Panic, None, panic_text(|| panic!())),
        (
            PanicMacro::Panic,
            message("bad {:?}", 1),
            panic_text(move || panic!("bad {:?}", x)),
        ),
        (PanicMacro::Unreachable, None, panic_text(|| unreachable!())),
        (
            PanicMacro::Unreachable,
            message("{:e}", 1),
            panic_text(move || unreachable!("{:e}", x)),
        ),
        (PanicMacro::Todo, None, panic_text(|| todo!())),
        (
            PanicMacro::Todo,
            message("x={}", 1),
            panic_text(move || todo!("x={}", x)),
        ),
        (
            PanicMacro::Unimplemented,
            None,
            panic_text(|| unimplemented!()),
        ),
        (
            PanicMacro::Unimplemented,
            message("{:+.1}", 1),
            panic_text(move || unimplemented!("{:+.1}", x)),
        ),
    ];
    for (which, message, expected) in cases {
        let values = if message.is_some() {
            vec![x.to_value()]
        } else {
            vec![]
        };
        let program = panic_message(which, message);
        assert_eq!(render(&program, &values).unwrap(), expected, "{which:?}");
    }
}
