//! Validator rules for sub-slices, `split_at` and dynamic shared memory, each fired on
//! IR broken by hand.

use super::*;
use crate::front::{lower_sources, tests::source};
use crate::ir::{ExprKind, Handle, Module, ScalarType};
use crate::source::SourceKind;

fn kernel(text: &str) -> Module {
    lower_sources(&[source(text, SourceKind::Kernel, 1)]).expect("front accepts")
}

fn errors(m: &Module) -> Vec<ValidationError> {
    validate(m).err().unwrap_or_default()
}

fn function(m: &mut Module) -> &mut ir::Function {
    &mut m.functions[Handle::new(0)]
}

fn handles_where(f: &ir::Function, pick: impl Fn(&ExprKind) -> bool) -> Vec<Handle<ir::Expr>> {
    f.exprs
        .iter()
        .filter(|(_, e)| pick(&e.kind))
        .map(|(h, _)| h)
        .collect()
}

#[test]
fn frontend_views_validate() {
    let m = kernel(
        "fn k(a: &[f32], m: &mut [u32], i: usize) {
            let s = &a[i..=i + 1];
            let (lo, hi) = m.split_at_mut(i);
            let t = &mut hi[..1];
            t[0] = lo.len() as u32;
            let v: &[u32] = &mut m[1..];
            let mut smem = dynamic_shared();
            let w = smem.take::<u64>(i);
            w[0] = s.len() as u64 + v.len() as u64;
        }",
    );
    assert_eq!(errors(&m), vec![]);
}

#[test]
fn mutable_view_of_an_immutable_slice_is_invalid() {
    let mut m = kernel("fn k(a: &[f32]) { let s = &a[1..]; }");
    let f = function(&mut m);
    for h in handles_where(f, |k| matches!(k, ExprKind::SubSlice { .. })) {
        f.exprs[h].ty = Type::Slice {
            elem: ScalarType::F32,
            mutable: true,
        };
    }
    let errs = errors(&m);
    assert!(
        errs.iter().any(
            |e| matches!(e, ValidationError::Index { detail, .. } if detail.contains("sub-slice"))
        ),
        "{errs:?}"
    );
}

#[test]
fn split_at_must_give_two_views() {
    let mut m = kernel("fn k(a: &[i32]) { let p = a.split_at(2); }");
    let f = function(&mut m);
    for h in handles_where(f, |k| matches!(k, ExprKind::SplitAt { .. })) {
        f.exprs[h].ty = Type::Tuple(vec![Type::Scalar(ScalarType::I32); 2]);
    }
    let errs = errors(&m);
    assert!(
        errs.iter().any(
            |e| matches!(e, ValidationError::Index { detail, .. } if detail.contains("split_at"))
        ),
        "{errs:?}"
    );
}

#[test]
fn take_needs_a_mutable_cursor() {
    let mut m = kernel("fn k() { let mut smem = dynamic_shared(); let a = smem.take::<f32>(4); }");
    let f = function(&mut m);
    let cursors: Vec<_> = f
        .locals
        .iter()
        .filter(|(_, l)| l.name == "smem")
        .map(|(h, _)| h)
        .collect();
    for h in cursors {
        f.locals[h].mutable = false;
    }
    let errs = errors(&m);
    assert!(
        errs.iter()
            .any(|e| matches!(e, ValidationError::DynamicShared { .. })),
        "{errs:?}"
    );
}
