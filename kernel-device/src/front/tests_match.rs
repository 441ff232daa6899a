//! `match`, `if let`, `while let` and `matches!`: the if chains they become (scrutinee
//! evaluated once, the last arm untested), the types of their bindings, and each misuse
//! rejected at its token with a hint.

use super::tests::{lower_kernel, source};
use super::*;
use crate::ir::{ExprKind, Function, ScalarType, Type};

fn local(f: &Function, name: &str) -> Type {
    f.locals
        .iter()
        .filter(|(_, l)| l.name == name)
        .last()
        .map(|(_, l)| l.ty.clone())
        .unwrap_or_else(|| panic!("no local `{name}`"))
}

fn count(f: &Function, what: impl Fn(&ExprKind) -> bool) -> usize {
    f.exprs.iter().filter(|(_, e)| what(&e.kind)).count()
}

/// The diagnostics of `check_item` on a kernel: (text with its hint, 1-based line,
/// 1-based column).
fn errors(text: &str) -> Vec<(String, usize, usize)> {
    let item: syn::ItemFn = syn::parse_str(text).expect("test source parses");
    check_item(&item, SourceKind::Kernel)
        .iter()
        .map(|d| {
            let start = d.span.start();
            (d.text(), start.line, start.column + 1)
        })
        .collect()
}

fn one_error(text: &str) -> (String, usize, usize) {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{text}: {e:#?}");
    e[0].clone()
}

#[test]
fn every_pattern_form_lowers_with_rustc_s_binding_types() {
    let f = lower_kernel(
        "fn k(o: &mut [i64], x: i32, y: u8, b: bool) {
            let a = match x {
                i32::MIN..=-1000 => 1,
                0 | 1 => 2,
                n @ 4..=9 => n as i64,
                10..100 => 3,
                m if m % 2 == 0 => 4,
                _ => 5,
            };
            let t = match (x, b, y) {
                (0, true, _) => 1i64,
                (p, _, q @ 200..) if p < 0 => q as i64,
                (.., 255) => 2,
                (1 | 2, ..) => 3,
                _ => 4,
            };
            let d = if let r @ (0..=9 | 20) = y { r } else { 0 };
            let mut w = 0i64;
            while let 0..=9 = w { w += 1; }
            let e = matches!(x, -5..=5) && matches!((y, b), (0, true) if x > 0);
            o[0] = a + t + d as i64 + w + e as i64;
        }",
    );
    assert_eq!(local(&f, "a"), Type::Scalar(ScalarType::I64));
    assert_eq!(local(&f, "n"), Type::Scalar(ScalarType::I32));
    assert_eq!(local(&f, "q"), Type::Scalar(ScalarType::U8));
    assert_eq!(local(&f, "r"), Type::Scalar(ScalarType::U8));
    assert_eq!(local(&f, "e"), Type::Scalar(ScalarType::Bool));
}

#[test]
fn the_scrutinee_is_evaluated_once_and_the_last_arm_is_not_tested() {
    let sources = [
        source(
            "fn k(o: &mut [i32], x: i32) {
                o[0] = match next(x) {
                    0 => 10,
                    1 | 2 => 20,
                    n => n,
                };
            }",
            SourceKind::Kernel,
            1,
        ),
        source("fn next(x: i32) -> i32 { x + 1 }", SourceKind::Device, 10),
    ];
    let m = lower_sources(&sources).unwrap_or_else(|e| panic!("{e:#?}"));
    let f = &m.functions[m.function_by_name("k").unwrap()];
    assert_eq!(count(f, |k| matches!(k, ExprKind::Call { .. })), 1);
    // Two tests for three arms: `0`, then `1 | 2`; `n` takes the rest untested.
    assert_eq!(count(f, |k| matches!(k, ExprKind::If { .. })), 2);
}

#[test]
fn an_arm_that_always_matches_ends_the_chain() {
    let f = lower_kernel(
        "fn k(o: &mut [i32], x: i32) {
            let y = match x { 0 => 1, _ => 2 };
            o[0] = y;
        }",
    );
    assert_eq!(count(&f, |k| matches!(k, ExprKind::If { .. })), 1);
}

#[test]
fn a_negative_pattern_on_an_unsigned_scrutinee_is_rejected() {
    let (m, line, _) = one_error(
        "fn k(o: &mut [u32], x: u32) {
            o[0] = match x { -1 => 0, _ => 1 };
        }",
    );
    assert!(m.contains("`-`") && m.contains("u32"), "{m}");
    assert_eq!(line, 2);
}

#[test]
fn arms_of_different_types_are_rejected_at_the_second() {
    let (m, line, col) = one_error(
        "fn k(o: &mut [u32], x: u32) {
            o[0] = match x { 0 => 1u32, _ => true };
        }",
    );
    assert!(m.contains("`match` arms have incompatible types"), "{m}");
    assert!(m.contains("as"), "no hint: {m}");
    assert_eq!((line, col), (2, 46));
}

#[test]
fn a_tuple_pattern_on_a_scalar_is_rejected() {
    let (m, _, _) = one_error(
        "fn k(o: &mut [u32], x: u32) {
            o[0] = match x { (0, 1) => 0, _ => 1 };
        }",
    );
    assert!(m.contains("found a tuple pattern with 2 elements"), "{m}");
    assert!(m.contains("match (a, b)"), "no hint: {m}");
}

#[test]
fn each_pattern_outside_the_subset_is_named() {
    let cases = [
        ("[a, b]", "slice and array patterns"),
        ("P { x }", "struct patterns"),
        ("Some(v)", "`Option` patterns"),
        ("W(v)", "enum-variant patterns with fields"),
        ("&v", "reference patterns"),
        ("ref v", "`ref` bindings"),
        ("1.5", "float literal patterns"),
        ("\"a\"", "string literal patterns"),
    ];
    for (pat, what) in cases {
        let text = format!(
            "fn k(o: &mut [u32], x: u32) {{
                o[0] = match x {{ {pat} => 0, _ => 1 }};
            }}"
        );
        let e = errors(&text);
        assert!(
            e.iter()
                .any(|(m, line, _)| m.contains(what) && m.contains("help") && *line == 2),
            "{pat}: {e:#?}"
        );
    }
}

#[test]
fn or_alternatives_binding_different_parts_are_rejected() {
    let (m, _, col) = one_error(
        "fn k(o: &mut [u32]) {
            o[0] = match (o[1], o[2]) { (n, 0) | (0, n) => n, _ => 1 };
        }",
    );
    assert!(m.contains("alternatives of a `|` pattern"), "{m}");
    assert_eq!(col, 50);
    assert!(m.contains("n @ (1 | 2)"), "{m}");
}

#[test]
fn let_chains_are_rejected_with_the_nested_form() {
    let (m, ..) = one_error(
        "fn k(o: &mut [u32], x: u32) {
            if let 0 = x && x > 1 { o[0] = 1; }
        }",
    );
    assert!(m.contains("no `let` chains"), "{m}");
}

#[test]
fn constants_in_patterns_are_collected_for_the_twin_and_bindings_are_not() {
    let item: syn::ItemFn = syn::parse_str(
        "fn k(o: &mut [u32], x: u32) {
            let N = 3u32;
            o[0] = match x { LIMIT => 0, 0..=TOP => 1, n => n + N };
            o[1] = matches!(x, OTHER | 5) as u32;
            if let FLAG = x { o[2] = 1; }
        }",
    )
    .expect("test source parses");
    let mut names: Vec<String> = const_refs(&item).into_iter().map(|(k, _)| k).collect();
    names.sort();
    assert_eq!(names, ["FLAG", "LIMIT", "OTHER", "TOP"]);
}
