//! The SIMT intrinsics (barriers, fences, atomics, warp operations): typed by their
//! rows in `proc::intrinsics`, misuse rejected at the offending argument with a hint.

use super::tests::lower_kernel;
use super::*;
use crate::ir::{AtomicOp, ExprKind, Intrinsic, MemoryScope, ScalarType, Type};

fn check(text: &str) -> Vec<Diagnostic> {
    let item: syn::ItemFn = syn::parse_str(text).expect("test source parses");
    check_item(&item, SourceKind::Kernel)
}

/// Exactly one diagnostic, containing `message`, with a hint, starting at `needle`.
#[track_caller]
fn rejects(text: &str, needle: &str, message: &str) {
    let d = check(text);
    assert_eq!(
        d.len(),
        1,
        "{text}: {:#?}",
        d.iter().map(|d| d.text()).collect::<Vec<_>>()
    );
    assert!(d[0].message.contains(message), "{:?}", d[0].message);
    assert!(d[0].hint.is_some(), "no hint: {:?}", d[0].message);
    let offset = text.find(needle).expect("needle in text");
    assert_eq!(
        d[0].span.start().column,
        offset,
        "span of {:?}",
        d[0].message
    );
}

#[track_caller]
fn accepts(text: &str) {
    let d = check(text);
    assert!(
        d.is_empty(),
        "{:#?}",
        d.iter().map(|d| d.text()).collect::<Vec<_>>()
    );
}

/// The type of the first intrinsic `which` in `f`.
fn intrinsic_ty(f: &ir::Function, which: Intrinsic) -> Type {
    f.exprs
        .iter()
        .find(|(_, e)| matches!(&e.kind, ExprKind::Intrinsic { intrinsic, .. } if *intrinsic == which))
        .map(|(_, e)| e.ty.clone())
        .unwrap_or_else(|| panic!("no {which:?}"))
}

#[test]
fn barriers_and_fences_are_typed_by_the_table() {
    let f = lower_kernel(
        "fn k(out: &mut [u32]) { let n = sync_threads_count(out[0] > 1); let a = sync_threads_and(true); let o = sync_threads_or(a); sync_warp(0xffffffff); threadfence(); threadfence_block(); threadfence_system(); out[0] = n + o as u32; }",
    );
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::SyncThreadsCount),
        Type::Scalar(ScalarType::U32)
    );
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::SyncThreadsOr),
        Type::Scalar(ScalarType::Bool)
    );
    assert_eq!(intrinsic_ty(&f, Intrinsic::SyncWarp), Type::Unit);
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::Fence(MemoryScope::System)),
        Type::Unit
    );
}

#[test]
fn an_atomic_takes_its_type_from_the_slice() {
    let f = lower_kernel("fn k(h: &mut [u64], x: &mut [f32]) { let old = atomic_add(h, 3, 1); atomic_max_block(x, 0, 2.0); h[1] = old; }");
    let add = Intrinsic::Atomic {
        op: AtomicOp::Add,
        scope: MemoryScope::Device,
    };
    assert_eq!(intrinsic_ty(&f, add), Type::Scalar(ScalarType::U64));
    // The literal `1` became a u64 too.
    let (_, lit) = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Literal(ir::Literal::Int(1))))
        .unwrap();
    assert_eq!(lit.ty, Type::Scalar(ScalarType::U64));
    let max = Intrinsic::Atomic {
        op: AtomicOp::Max,
        scope: MemoryScope::Block,
    };
    assert_eq!(intrinsic_ty(&f, max), Type::Scalar(ScalarType::F32));
}

#[test]
fn atomics_accept_every_documented_type() {
    accepts("fn k(a: &mut [i32], b: &mut [u32], c: &mut [i64], d: &mut [u64], e: &mut [f32], f: &mut [f64]) { atomic_add(a, 0, 1); atomic_add(b, 0, 1); atomic_add(c, 0, 1); atomic_add(d, 0, 1); atomic_add(e, 0, 1.0); atomic_add(f, 0, 1.0); atomic_cas(d, 0, 1, 2); atomic_inc(b, 0, 9); atomic_min_system(f, 0, 0.5); }");
}

#[test]
fn an_atomic_on_a_type_the_hardware_lacks_is_rejected_at_the_slice() {
    rejects(
        "fn k(a: &mut [u8]) { atomic_add(a, 0, 1); }",
        "a, 0",
        "`atomic_add` is not available for `u8`",
    );
    rejects(
        "fn k(a: &mut [f32]) { atomic_and(a, 0, 1.0); }",
        "a, 0",
        "`atomic_and` is not available for `f32`",
    );
    rejects(
        "fn k(a: &mut [i32]) { atomic_inc(a, 0, 1); }",
        "a, 0",
        "`atomic_inc` is not available for `i32`",
    );
}

#[test]
fn an_atomic_needs_a_mutable_slice_and_a_usize_index() {
    rejects(
        "fn k(a: &[u32]) { atomic_add(a, 0, 1); }",
        "a, 0",
        "needs a `&mut [u32]`, found `&[u32]`",
    );
    rejects(
        "fn k(a: u32) { atomic_add(a, 0, 1); }",
        "a, 0",
        "needs a mutable slice",
    );
    let d = check("fn k(a: &mut [u32], i: u32) { atomic_add(a, i, 1); }");
    assert_eq!(d.len(), 1);
    assert!(
        d[0].message.contains("expected `usize`, found `u32`"),
        "{}",
        d[0].message
    );
    let d = check("fn k(a: &mut [u32]) { atomic_add(a, 0, 1.5); }");
    assert_eq!(
        d.len(),
        1,
        "{:?}",
        d.iter().map(|d| d.text()).collect::<Vec<_>>()
    );
}

#[test]
fn wrong_argument_counts_name_the_signature() {
    rejects(
        "fn k(a: &mut [u32]) { atomic_cas(a, 0, 1); }",
        "(a, 0, 1)",
        "`atomic_cas` takes 4 arguments but 3 arguments were supplied",
    );
    rejects(
        "fn k() { sync_threads_count(); }",
        "();",
        "`sync_threads_count` takes 1 argument but 0 arguments were supplied",
    );
    rejects(
        "fn k() { threadfence(1); }",
        "1)",
        "`threadfence` takes no arguments",
    );
}

#[test]
fn warp_operations_are_typed_by_the_table() {
    let f = lower_kernel(
        "fn k(a: &mut [f64], k: &[u64]) { let s = shfl_down_sync(0xffffffff, a[0], 1); let b = ballot_sync(0xffffffff, s > 0.0); let (m, same) = match_all_sync(0xffffffff, k[0]); a[1] = warp_reduce_max(s) + (b + m + lane_id()) as f64 + same as u32 as f64; }",
    );
    use crate::ir::{ShuffleMode, VoteMode};
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::Shuffle(ShuffleMode::Down)),
        Type::Scalar(ScalarType::F64)
    );
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::Vote(VoteMode::Ballot)),
        Type::Scalar(ScalarType::U32)
    );
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::MatchAll),
        Type::Tuple(vec![
            Type::Scalar(ScalarType::U32),
            Type::Scalar(ScalarType::Bool)
        ])
    );
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::LaneId),
        Type::Scalar(ScalarType::U32)
    );
}

#[test]
fn a_shuffle_of_an_unsupported_type_is_rejected_at_the_value() {
    rejects(
        "fn k(f: &[bool]) { let x = shfl_sync(0xffffffff, f[0], 0); }",
        "f[0], 0",
        "`shfl_sync` is not available for `bool`",
    );
    rejects(
        "fn k(f: &[u8]) { let x = shfl_xor_sync(0xffffffff, f[0], 1); }",
        "f[0], 1",
        "`shfl_xor_sync` is not available for `u8`",
    );
    rejects(
        "fn k(f: &[i16]) { let x = warp_reduce_sum(f[0]); }",
        "f[0])",
        "`warp_reduce_sum` is not available for `i16`",
    );
    // Literals default to i32, which shuffles.
    accepts("fn k(o: &mut [i32]) { o[0] = shfl_sync(0xffffffff, 7, 0); }");
}

#[test]
fn a_vote_takes_a_bool_predicate() {
    let d = check("fn k(a: &[u32]) { let x = all_sync(0xffffffff, a[0]); }");
    assert_eq!(d.len(), 1);
    assert!(
        d[0].message.contains("expected `bool`, found `u32`"),
        "{}",
        d[0].message
    );
}

#[test]
fn numeric_methods_have_std_result_types() {
    let f = lower_kernel(
        "fn k(a: &mut [u64], x: &mut [f32], b: &mut [u32]) { let n = a[0].count_ones(); let z = a[0].leading_zeros() + a[0].trailing_zeros(); a[1] = a[0].rotate_left(n + z).pow(3).saturating_add(1).clamp(1, 9); b[0] = x[0].to_bits(); x[1] = f32::from_bits(b[0]) + rsqrt(x[0]) + fast_sin(x[0]); let q = x[0].is_nan() || x[0].is_finite(); a[2] = mul_hi(a[0], a[1]) + q as u64; }",
    );
    use crate::ir::MathFn;
    let u32_ty = Type::Scalar(ScalarType::U32);
    assert_eq!(intrinsic_ty(&f, Intrinsic::Math(MathFn::CountOnes)), u32_ty);
    assert_eq!(intrinsic_ty(&f, Intrinsic::Math(MathFn::ToBits)), u32_ty);
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::Math(MathFn::FromBits)),
        Type::Scalar(ScalarType::F32)
    );
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::Math(MathFn::IsNan)),
        Type::Scalar(ScalarType::Bool)
    );
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::Math(MathFn::Pow)),
        Type::Scalar(ScalarType::U64)
    );
    assert_eq!(
        intrinsic_ty(&f, Intrinsic::Math(MathFn::MulHi)),
        Type::Scalar(ScalarType::U64)
    );
}

#[test]
fn numeric_misuse_is_rejected_with_a_hint() {
    rejects(
        "fn k(x: &mut [f32]) { x[0] = fast_sin(1.0f64) as f32; }",
        "1.0f64",
        "`fast_sin` is not available for `f64`",
    );
    rejects(
        "fn k(x: &mut [u32]) { x[0] = x[1].from_bits(); }",
        "from_bits",
        "`from_bits` is an associated function",
    );
    rejects(
        "fn k(x: &mut [u8]) { x[0] = mul_hi(x[0], x[1]); }",
        "x[0], x[1]",
        "`mul_hi` is not available for `u8`",
    );
    let d = check("fn k(x: &mut [f32], b: &[u64]) { x[0] = f32::from_bits(b[0]); }");
    assert_eq!(d.len(), 1);
    assert!(
        d[0].message.contains("expected `u32`, found `u64`"),
        "{}",
        d[0].message
    );
    let d = check("fn k(x: &mut [i32]) { x[0] = x[0].rotate_left(x[1]); }");
    assert_eq!(d.len(), 1);
    assert!(
        d[0].message.contains("expected `u32`, found `i32`"),
        "{}",
        d[0].message
    );
}
