//! Issue 7: the frontend computes what rustc computes. Float literals are rounded
//! once, directly to their type; `to_degrees`/`to_radians` use std's factors; literals
//! mixed with device calls infer from the callee's signature, also at macro time.

use super::tests::source;
use super::*;
use crate::ir::{ExprKind, Literal};

/// The values of every float literal in `name`'s function after lowering `sources`.
fn float_literals(sources: &[&'static FnSource], name: &str) -> Vec<f64> {
    let m = lower_sources(sources).unwrap_or_else(|e| panic!("{e:#?}"));
    let f = &m.functions[m.function_by_name(name).expect("function")];
    f.exprs
        .iter()
        .filter_map(|(_, e)| match e.kind {
            ExprKind::Literal(Literal::Float(v)) => Some(v),
            _ => None,
        })
        .collect()
}

fn literals_of(text: &str) -> Vec<f64> {
    float_literals(&[source(text, SourceKind::Device, 1)], "f")
}

#[test]
fn f32_literal_is_rounded_once_like_rustc() {
    // Parsing to f64 first gives 0x3DCCCCCC after the second rounding; rustc: 0x3DCCCCCD.
    let v = literals_of("fn f() -> f32 { 0.09999999776482582092285156250001f32 }");
    assert_eq!(v.len(), 1);
    assert_eq!((v[0] as f32).to_bits(), 0x3DCC_CCCD);
    assert_eq!(v[0], 0.09999999776482582092285156250001f32 as f64);
    // The same digits unsuffixed, typed f32 by inference, and negated.
    let v = literals_of("fn f() -> f32 { let x: f32 = -0.09999999776482582092285156250001; x }");
    assert_eq!((v[0] as f32).to_bits(), 0xBDCC_CCCD);
    // As f64 the literal keeps its own (f64) rounding.
    let v = literals_of("fn f() -> f64 { 0.09999999776482582092285156250001 }");
    assert_eq!(v[0], 0.09999999776482582092285156250001f64);
}

#[test]
fn float_literal_spellings_parse_as_rustc() {
    let v = literals_of(
        "fn f() -> f32 { 1e3f32 + 1_000.5 + 1f32 + 2.5E-3 + 0.0 - 0.0f32 + 3.4028235e38 + 1.17549435e-38 }",
    );
    let expected = [
        1e3f32,
        1_000.5f32,
        1f32,
        2.5E-3f32,
        0.0f32,
        0.0f32,
        3.4028235e38f32,
        1.17549435e-38f32,
    ];
    let bits: Vec<u32> = v.iter().map(|x| (*x as f32).to_bits()).collect();
    let want: Vec<u32> = expected.iter().map(|x| x.to_bits()).collect();
    assert_eq!(bits, want);
    // A folded `-` keeps its sign through the re-rounding (`-0.0` included).
    let v = literals_of("fn f() -> f32 { -0.0 }");
    assert_eq!((v[0] as f32).to_bits(), (-0.0f32).to_bits());
}

#[test]
fn degree_factors_are_std_bit_for_bit() {
    // std's f32::to_degrees multiplies by this literal, not by `180.0f32 / PI`.
    let v = literals_of("fn f(x: f32) -> f32 { x.to_degrees() }");
    assert_eq!(
        (v[0] as f32).to_bits(),
        57.2957795130823208767981548141051703_f32.to_bits()
    );
    assert_ne!(
        (v[0] as f32).to_bits(),
        (180.0f32 / std::f32::consts::PI).to_bits()
    );
    for (text, factor) in [
        (
            "fn f(x: f32) -> f32 { x.to_radians() }",
            1.0f32.to_radians() as f64,
        ),
        (
            "fn f(x: f64) -> f64 { x.to_degrees() }",
            1.0f64.to_degrees(),
        ),
        (
            "fn f(x: f64) -> f64 { x.to_radians() }",
            1.0f64.to_radians(),
        ),
    ] {
        assert_eq!(literals_of(text), [factor], "{text}");
    }
    // And the resulting products are std's on awkward inputs.
    for x in [1.0f32, 3.0, 1e-3, 123456.79, f32::MAX / 60.0] {
        assert_eq!(x * (1.0f32.to_degrees()), x.to_degrees());
        assert_eq!(x * (1.0f32.to_radians()), x.to_radians());
    }
}

#[test]
fn float_consts_are_std_bit_for_bit() {
    let v = literals_of("fn f() -> f32 { std::f32::consts::PI + f32::consts::FRAC_1_SQRT_2 + f32::EPSILON + std::f32::consts::LN_10 }");
    let bits: Vec<u32> = v.iter().map(|x| (*x as f32).to_bits()).collect();
    use std::f32::consts as c;
    let want = [c::PI, c::FRAC_1_SQRT_2, f32::EPSILON, c::LN_10].map(f32::to_bits);
    assert_eq!(bits, want);
}

#[test]
fn unsuffixed_literal_takes_u64_parameter_type() {
    let k = source(
        "fn k(out: &mut [u64]) { out[0] = g(5_000_000_000); }",
        SourceKind::Kernel,
        1,
    );
    let d = source("fn g(v: u64) -> u64 { v + 1 }", SourceKind::Device, 1);
    lower_sources(&[k, d]).unwrap_or_else(|e| panic!("{e:#?}"));
    // At macro time the signature of `g` is unknown: no `i32` range error either.
    let item: syn::ItemFn = syn::parse_str(k.text).unwrap();
    let d = check_item(&item, SourceKind::Kernel);
    assert!(
        d.is_empty(),
        "{:?}",
        d.iter().map(|d| d.text()).collect::<Vec<_>>()
    );
}

#[test]
fn method_on_call_plus_literal_infers_from_the_callee() {
    let text = "fn k(a: u8, out: &mut [u8]) { out[0] = (g(a) + 1).min(3); }";
    let k = source(text, SourceKind::Kernel, 1);
    let d = source("fn g(v: u8) -> u8 { v / 2 }", SourceKind::Device, 1);
    let m = lower_sources(&[k, d]).unwrap_or_else(|e| panic!("{e:#?}"));
    let kf = &m.functions[m.function_by_name("k").unwrap()];
    assert!(kf.exprs.iter().any(|(_, e)| matches!(
        (&e.kind, &e.ty),
        (
            ExprKind::Literal(Literal::Int(3)),
            crate::ir::Type::Scalar(crate::ir::ScalarType::U8)
        )
    )));
    let item: syn::ItemFn = syn::parse_str(text).unwrap();
    let d = check_item(&item, SourceKind::Kernel);
    assert!(
        d.is_empty(),
        "{:?}",
        d.iter().map(|d| d.text()).collect::<Vec<_>>()
    );
    // Without a call, an unsuffixed receiver is still ambiguous, as in rustc.
    let item: syn::ItemFn = syn::parse_str("fn k() { let y = (2 + 1).min(3); }").unwrap();
    let d = check_item(&item, SourceKind::Kernel);
    assert_eq!(d.len(), 1);
    assert!(
        d[0].message.contains("ambiguous numeric type"),
        "{}",
        d[0].message
    );
}
