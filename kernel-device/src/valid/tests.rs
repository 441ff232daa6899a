//! Validator tests: everything the frontend produces is valid; each rule fires on IR
//! broken by hand.

use super::*;
use crate::front::{lower_sources, tests::source};
use crate::ir::{Expr, ExprKind, Handle, Literal, Module, Place, ScalarType, Stmt};
use crate::source::SourceKind;

fn module(sources: &[(&str, SourceKind)]) -> Module {
    let srcs: Vec<_> = sources.iter().map(|(t, k)| source(t, *k, 1)).collect();
    lower_sources(&srcs).expect("front accepts")
}

fn kernel(text: &str) -> Module {
    module(&[(text, SourceKind::Kernel)])
}

fn errors(m: &Module) -> Vec<ValidationError> {
    validate(m).err().unwrap_or_default()
}

fn first_fn(m: &mut Module) -> &mut ir::Function {
    &mut m.functions[Handle::new(0)]
}

#[test]
fn frontend_output_validates() {
    for text in [
        "fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) { let i = grid(1); if i < c.len() { c[i] = a[i] + b[i]; } }",
        "fn matmul(a: &[f32], b: &[f32], c: &mut [f32], n: usize) { let (r, q) = grid(2); if r < n && q < n { let mut acc = 0.0; for k in 0..n { acc += a[r * n + k] * b[k * n + q]; } c[r * n + q] = acc; } }",
        "fn k(c: &mut [u32], n: u32) { let mut i = 0; let v = loop { i += 1; if i > n { break i * 2; } }; 'o: for j in 0..=3u32 { while i > 0 { i -= 1; if i == j { continue 'o; } if i > 100 { break 'o; } } } c[0] = v << 1u8; }",
        "fn k(c: &mut [f64]) { let t = thread_idx(); let x = (t.x as f64).sqrt().max(1.0).powi(2) + f64::consts::PI; let b = !(x > 2.0) || true; c[0] = if b { x } else { -x }; c[1] = (b as u8) as f64; }",
        "fn k(c: &mut [i32]) { let mut t = (1i32, 2); t.0 += 3; let (a, b) = t; c[0] = a.abs().min(b).wrapping_mul(-3); sync_threads(); return; }",
    ] {
        let m = kernel(text);
        assert_eq!(errors(&m), vec![], "{text}");
    }
}

#[test]
fn device_calls_validate_and_mutual_recursion_is_caught() {
    let m = module(&[
        (
            "fn k(c: &mut [f32]) { c[0] = sq(2.0) + fill(c); }",
            SourceKind::Kernel,
        ),
        (
            "fn sq(x: f32) -> f32 { if x < 0.0 { return 0.0; } x * x }",
            SourceKind::Device,
        ),
        ("fn fill(c: &[f32]) -> f32 { c[0] }", SourceKind::Device),
    ]);
    assert_eq!(errors(&m), vec![]);
    let m = module(&[
        ("fn k() { a(1); }", SourceKind::Kernel),
        ("fn a(x: u32) -> u32 { b(x) }", SourceKind::Device),
        (
            "fn b(x: u32) -> u32 { if x == 0 { 0 } else { a(x - 1) } }",
            SourceKind::Device,
        ),
    ]);
    let e = errors(&m);
    assert_eq!(e.len(), 1, "{e:?}");
    match &e[0] {
        ValidationError::Recursion { cycle, .. } => assert_eq!(cycle, &["a", "b", "a"]),
        other => panic!("{other:?}"),
    }
    assert!(e[0]
        .to_string()
        .contains("recursion is not supported on the GPU"));
}

#[test]
fn kernel_return_and_param_types() {
    let mut m = kernel("fn k(x: f32) {}");
    let f = first_fn(&mut m);
    f.ret = Type::Scalar(ScalarType::F32);
    f.params[0].ty = Type::Tuple(vec![]);
    f.locals[f.params[0].local].ty = Type::Tuple(vec![]);
    let e = errors(&m);
    assert!(
        e.iter()
            .any(|e| matches!(e, ValidationError::KernelReturnsValue { .. })),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|e| matches!(e, ValidationError::ParamType { .. })),
        "{e:?}"
    );
    assert!(e.iter().all(|e| e.function() == "k"));
}

#[test]
fn operand_types_must_agree() {
    let mut m = kernel("fn k(c: &mut [f32]) { c[0] = 1.0 + 2.0; }");
    let f = first_fn(&mut m);
    let lit = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Literal(_)))
        .map(|(h, _)| h)
        .unwrap();
    f.exprs[lit].ty = Type::Scalar(ScalarType::F64);
    let e = errors(&m);
    assert!(
        e.iter()
            .any(|e| matches!(e, ValidationError::Operator { .. })),
        "{e:?}"
    );
}

#[test]
fn index_must_be_usize_and_place_mutable() {
    let mut m = kernel("fn k(a: &[f32], c: &mut [f32]) { let i = grid(1); c[i] = a[i]; }");
    let f = first_fn(&mut m);
    let grid = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Intrinsic { .. }))
        .map(|(h, _)| h)
        .unwrap();
    let _ = grid;
    // Make `c` immutable: the assignment through it is now invalid.
    let c_local = f.params[1].local;
    f.params[1].ty = Type::Slice {
        elem: ScalarType::F32,
        mutable: false,
    };
    f.locals[c_local].ty = f.params[1].ty.clone();
    for i in 0..f.exprs.len() {
        let h = Handle::<Expr>::new(i);
        if matches!(f.exprs[h].kind, ExprKind::Local(l) if l == c_local) {
            f.exprs[h].ty = f.params[1].ty.clone();
        }
    }
    let e = errors(&m);
    assert!(
        e.iter()
            .any(|e| matches!(e, ValidationError::ImmutablePlace { .. })),
        "{e:?}"
    );

    let mut m = kernel("fn k(a: &[f32]) { let v = a[0]; }");
    let f = first_fn(&mut m);
    let idx = f.exprs.iter().find_map(|(_, e)| match &e.kind {
        ExprKind::Load(place) => match place.projections.as_slice() {
            [crate::ir::Projection::Index(index)] => Some(*index),
            _ => None,
        },
        _ => None,
    });
    f.exprs[idx.unwrap()].ty = Type::Scalar(ScalarType::I32);
    let e = errors(&m);
    assert!(
        e.iter().any(|e| matches!(e, ValidationError::Index { .. })),
        "{e:?}"
    );
}

#[test]
fn range_step_must_be_usize() {
    let text =
        "fn k(n: u8) { for i in (0..n).rev().step_by(2) { } for j in (0..=n).step_by(3) { } }";
    assert_eq!(errors(&kernel(text)), vec![]);
    let mut m = kernel(text);
    let f = first_fn(&mut m);
    let step = f.body.stmts.iter().find_map(|st| match st {
        Stmt::ForRange { step, .. } => *step,
        _ => None,
    });
    f.exprs[step.unwrap()].ty = Type::Scalar(ScalarType::U8);
    let e = errors(&m);
    assert!(
        e.iter().any(
            |e| matches!(e, ValidationError::TypeMismatch { detail, .. } if detail.contains("step"))
        ),
        "{e:?}"
    );
}

#[test]
fn break_targets_must_enclose() {
    let mut m = kernel("fn k() { loop { break; } }");
    let f = first_fn(&mut m);
    let brk = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Break { .. }))
        .map(|(h, _)| h)
        .unwrap();
    f.exprs[brk].kind = ExprKind::Break {
        target: ir::LoopId(99),
        value: None,
    };
    let e = errors(&m);
    assert!(
        e.iter()
            .any(|e| matches!(e, ValidationError::LoopTarget { .. })),
        "{e:?}"
    );
}

#[test]
fn casts_calls_and_intrinsics_are_checked() {
    let mut m = kernel("fn k() { let x = true as u8; }");
    let f = first_fn(&mut m);
    let cast = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Cast { .. }))
        .map(|(h, _)| h)
        .unwrap();
    if let ExprKind::Cast { operand, .. } = f.exprs[cast].kind {
        f.exprs[cast].kind = ExprKind::Cast {
            operand,
            to: ScalarType::F32,
        };
        f.exprs[cast].ty = Type::Scalar(ScalarType::F32);
    }
    let e = errors(&m);
    assert!(
        e.iter().any(|e| matches!(e, ValidationError::Cast { .. })),
        "{e:?}"
    );

    let mut m = module(&[
        ("fn k() { let y = f(1.0); }", SourceKind::Kernel),
        ("fn f(x: f32) -> f32 { x }", SourceKind::Device),
    ]);
    let f = first_fn(&mut m);
    let call = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Call { .. }))
        .map(|(h, _)| h)
        .unwrap();
    if let ExprKind::Call { function, .. } = f.exprs[call].kind {
        f.exprs[call].kind = ExprKind::Call {
            function,
            args: vec![],
        };
    }
    let e = errors(&m);
    assert!(
        e.iter().any(|e| matches!(e, ValidationError::Call { .. })),
        "{e:?}"
    );

    let mut m = kernel("fn k(c: &mut [f32]) { c[0] = c[1].sqrt(); }");
    let f = first_fn(&mut m);
    let math = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Intrinsic { .. }))
        .map(|(h, _)| h)
        .unwrap();
    f.exprs[math].ty = Type::Scalar(ScalarType::I32);
    let e = errors(&m);
    assert!(
        e.iter()
            .any(|e| matches!(e, ValidationError::Intrinsic { .. })),
        "{e:?}"
    );
}

#[test]
fn invalid_handles_do_not_panic() {
    let mut m = kernel("fn k(c: &mut [f32]) { c[0] = 1.0; }");
    let f = first_fn(&mut m);
    f.body.stmts.push(Stmt::Expr(Handle::new(999)));
    f.body.stmts.push(Stmt::Assign {
        place: Place::local(Handle::new(77), Default::default()),
        op: None,
        value: Handle::new(0),
    });
    let lit = f
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Literal(Literal::Float(_))))
        .map(|(h, _)| h)
        .unwrap();
    f.exprs[lit].kind = ExprKind::Call {
        function: Handle::new(55),
        args: vec![],
    };
    let e = errors(&m);
    assert!(
        e.iter()
            .filter(|e| matches!(e, ValidationError::InvalidHandle { .. }))
            .count()
            >= 3,
        "{e:?}"
    );
}
