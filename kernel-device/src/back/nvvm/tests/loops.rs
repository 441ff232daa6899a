//! `for` loops with `.step_by(n)` and `.rev()`: the zero-step panic site, the
//! overflow-free trip count and cursor, and the plain forms' text left as it was.

use super::*;

/// `for v in range { out[0] += v as u64 }` with the given bounds, step and direction.
fn strided(
    f: &mut F,
    out: Handle<Local>,
    s: ScalarType,
    (start, end, inclusive): (i64, i64, bool),
    step: Option<Handle<Expr>>,
    reverse: bool,
    id: u32,
) {
    let var = f.local("v", Type::Scalar(s));
    let (start, end) = (f.int(s, start), f.int(s, end));
    let value = f.read(var);
    let value = f.e(
        ExprKind::Cast {
            operand: value,
            to: ScalarType::U64,
        },
        Type::Scalar(ScalarType::U64),
    );
    let (o, z) = (f.read(out), f.int(ScalarType::Usize, 0));
    f.stmt(Stmt::ForRange {
        unroll: crate::ir::Unroll::Auto,
        id: LoopId(id),
        var,
        start,
        end,
        inclusive,
        step,
        reverse,
        body: Block {
            stmts: vec![Stmt::Assign {
                place: Place::slice_element(o, z, Default::default()),
                op: Some(BinaryOp::Add),
                value,
            }],
            tail: None,
        },
    });
}

#[test]
fn step_by_and_rev() {
    let mut f = F::new("strided", FunctionKind::Kernel);
    // The loops' lowering as written: without bounds checks no run is versioned (the
    // zero-step check stays: it is not a bounds check).
    f.0.options.bounds_check = false;
    let out = f.param("out", slice(ScalarType::U64, true));
    let step_p = f.param("step", USIZE);
    // (0u8..=255).step_by(step): a run-time step, checked once.
    let step = f.read(step_p);
    strided(
        &mut f,
        out,
        ScalarType::U8,
        (0, 255, true),
        Some(step),
        false,
        0,
    );
    // (-5i32..5).rev(): from the last element down, no step.
    strided(&mut f, out, ScalarType::I32, (-5, 5, false), None, true, 1);
    // (0u64..n).rev().step_by(3): a literal step needs no check; no trunc in 64 bits.
    let three = f.int(ScalarType::Usize, 3);
    strided(
        &mut f,
        out,
        ScalarType::U64,
        (0, 1000, false),
        Some(three),
        true,
        2,
    );
    let out = write(&module(vec![f]));
    let t = &out.text;
    let steps: Vec<_> = out
        .panic_sites
        .iter()
        .filter(|s| s.message == "assertion failed: step != 0")
        .collect();
    assert_eq!(steps.len(), 1, "one zero-step site: {:?}", out.panic_sites);
    assert!(t.contains("icmp ne i64 %step.1, 0"), "{t}");
    // u8 forward: a trip count from the widened distance, counted down; the cursor
    // advances by the truncated step.
    assert!(t.contains("icmp ule i8 0, -1"), "{t}");
    assert!(t.contains("%for.diff = sub i8 -1, 0"), "{t}");
    assert!(t.contains("zext i8 %for.diff to i64"), "{t}");
    assert!(t.contains("udiv i64 %for.diff.1, %step.1"), "{t}");
    assert!(t.contains("icmp ne i64 %for.left, 0"), "{t}");
    assert!(t.contains("trunc i64 %step.1 to i8"), "{t}");
    // i32 rev: starts at end - 1, stops after yielding start.
    assert!(t.contains("%for.hi = add i32 5, -1"), "{t}");
    assert!(t.contains("icmp sge i32 -5, 5"), "exclusive emptiness\n{t}");
    assert!(t.contains("icmp eq i32 %for.i.1, -5"), "{t}");
    assert!(t.contains("sub i32 %for.i.1, 1"), "{t}");
    // u64 rev().step_by(3): distance to start, then down by 3.
    assert!(t.contains("sub i64 %for.i.2, 0"), "{t}");
    assert!(t.contains("icmp ult i64 %for.rem, 3"), "{t}");
    assert!(t.contains("sub i64 %for.i.2, 3"), "{t}");
    assert!(!t.contains("trunc i64 3"), "{t}");
}

#[test]
fn a_zero_literal_step_keeps_its_check() {
    let mut f = F::new("zero", FunctionKind::Kernel);
    let out = f.param("out", slice(ScalarType::U64, true));
    let zero = f.int(ScalarType::Usize, 0);
    strided(
        &mut f,
        out,
        ScalarType::I64,
        (0, 10, false),
        Some(zero),
        false,
        0,
    );
    let out = write(&module(vec![f]));
    assert_eq!(out.panic_sites.len(), 2, "{:?}", out.panic_sites);
    assert_eq!(out.panic_sites[0].message, "assertion failed: step != 0");
    assert!(out.text.contains("icmp ne i64 0, 0"), "{}", out.text);
}

#[test]
fn plain_ranges_keep_their_form() {
    let mut f = F::new("plain", FunctionKind::Kernel);
    let out = f.param("out", slice(ScalarType::U64, true));
    strided(&mut f, out, ScalarType::U32, (0, 10, false), None, false, 0);
    let t = write(&module(vec![f])).text;
    assert!(t.contains("%for.more = icmp ult i32 %for.cur, 10"), "{t}");
    assert!(!t.contains("for.done") && !t.contains("step"), "{t}");
}
