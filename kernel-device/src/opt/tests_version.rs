//! Versioning as values: which runs and loops become `Stmt::Versioned`, what their
//! guards compare, which indices their fast copies leave unchecked; and the simulator
//! running both copies (results against plain Rust), and faulting on a wrong guard.

use super::optimise;
use crate::back::sim::{run, Arg, Buffer, Fault, LaunchShape, Options};
use crate::front::{lower_sources, tests::source};
use crate::ir::{
    Block, Function, GuardOp, Handle, Length, Module, Place, Projection, ScalarType, Stmt, Type,
    Unroll, VersionKind, Versioned,
};
use crate::source::SourceKind;
use std::sync::Arc;

fn lower(text: &str) -> Module {
    lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"))
}

fn kernel(module: &Module) -> &Function {
    module.kernels().next().expect("one kernel").1
}

/// The versioned statements of `block`'s top level.
fn versioned(block: &Block) -> Vec<&Versioned> {
    block
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Versioned(v) => Some(&**v),
            _ => None,
        })
        .collect()
}

/// The index of every slice place in `block` (nested blocks included), in order.
fn slice_indices(function: &Function, block: &Block) -> Vec<Handle<crate::ir::Expr>> {
    let mut found = Vec::new();
    crate::ir::visit::places_in_block(function, block, &mut |place: &Place| {
        if let (crate::ir::PlaceRoot::Pointee(_), Some(Projection::Index(i))) =
            (place.root, place.projections.first())
        {
            found.push(*i);
        }
    });
    found
}

/// The first `count` `u32`s of `buffer`.
pub(super) fn read_u32s(buffer: &Buffer, count: usize) -> Vec<u32> {
    let mut read = vec![0u8; count * 4];
    buffer.read(0, &mut read);
    read.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `values` in a new simulator buffer, and the `&[u32]` (`&mut` when `mutable`)
/// argument that passes it.
pub(super) fn u32_slice_arg(values: &[u32], mutable: bool) -> (Arc<Buffer>, Arg) {
    let buffer = Arc::new(Buffer::new(values.len() * 4));
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    buffer.write(0, &bytes);
    let arg = Arg::Slice {
        elem: Type::Scalar(ScalarType::U32),
        buffer: buffer.clone(),
        offset: 0,
        len: values.len(),
        mutable,
    };
    (buffer, arg)
}

/// Runs `k(a: &[u32], out: &mut [u32], n: usize)` with 8 threads; `out` has 8 elements.
fn simulate(module: &Module, a: &[u32], n: u64) -> Result<Vec<u32>, Fault> {
    let (_, input) = u32_slice_arg(a, false);
    let (out, output) = u32_slice_arg(&[0; 8], true);
    let mut args = vec![input, output];
    if kernel(module).params.len() == 3 {
        args.push(Arg::Scalar {
            ty: ScalarType::Usize,
            bits: n,
        });
    }
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [8, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(module, "k", &shape, &args, &Options::default())?;
    let mut read = [0u8; 32];
    out.read(0, &mut read);
    Ok(read
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

const PAIRS: &str = "fn k(a: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    out[t] = a[2 * t] + a[2 * t + 1];
}";

#[test]
fn a_run_of_three_checks_is_versioned_with_one_comparison_each() {
    let module = lower(PAIRS);
    let opt = optimise(module.clone());
    let original = kernel(&module);
    let function = kernel(&opt.module);
    let [v] = versioned(&function.body)[..] else {
        panic!("one versioned run: {:#?}", function.body);
    };
    assert_eq!(v.kind, VersionKind::Run);
    // The checked copy is the statement as written, with its own handles.
    let checked = slice_indices(function, &v.checked);
    assert_eq!(checked, slice_indices(original, &original.body));
    // The guard computes `t` (the run's `let`), then compares each index, in
    // evaluation order, with its slice's length.
    let Some((GuardOp::PreLet { .. }, checks)) = v.guard.ops.split_first() else {
        panic!("the guard computes `t` first: {:?}", v.guard.ops);
    };
    let compared: Vec<_> = checks
        .iter()
        .map(|op| match op {
            GuardOp::Check {
                index,
                len: Length::OfSlice(_),
            } => *index,
            other => panic!("only comparisons with lengths: {other:?}"),
        })
        .collect();
    // (Places in walking order: an assignment's place before its value.)
    let [out_t, a_lo, a_hi] = checked[..] else {
        panic!("three indices: {checked:?}");
    };
    assert_eq!(compared, [a_lo, a_hi, out_t]);
    // The fast copy is a deep copy whose three indices are unchecked.
    let fast = slice_indices(function, &v.fast);
    assert_eq!(fast.len(), 3);
    assert!(fast.iter().all(|h| !checked.contains(h)));
    assert!(fast.iter().all(|h| function.unchecked_indices.contains(h)));
    assert!(checked
        .iter()
        .all(|h| !function.unchecked_indices.contains(h)));
}

#[test]
fn the_simulator_takes_each_copy_of_a_run_and_a_wrong_guard_faults() {
    let opt = optimise(lower(PAIRS));
    let a: Vec<u32> = (0..16).map(|v| v * 7 + 1).collect();
    let expected: Vec<u32> = (0..8).map(|t| a[2 * t] + a[2 * t + 1]).collect();
    assert_eq!(simulate(&opt.module, &a, 0).expect("runs"), expected);

    // One element short: thread 7's guard fails, its checked copy panics as Rust does.
    let short = &a[..15];
    match simulate(&opt.module, short, 0) {
        Err(Fault::Panic { message, .. }) => assert_eq!(
            message,
            "index out of bounds: the len is 15 but the index is 15"
        ),
        other => panic!("expected the index panic, got {other:?}"),
    }

    // A guard that holds whatever the lengths sends thread 7 into the fast copy, which
    // does not check: the simulator reports the access, so a fuzz run would catch it.
    let mut wrong = opt.module.clone();
    let (h, _) = wrong.kernels().next().expect("one kernel");
    for stmt in &mut wrong.functions[h].body.stmts {
        if let Stmt::Versioned(v) = stmt {
            for op in &mut v.guard.ops {
                if let GuardOp::Check { len, .. } = op {
                    *len = Length::Const(u64::MAX >> 1);
                }
            }
        }
    }
    match simulate(&wrong, short, 0) {
        Err(Fault::Panic { .. }) | Ok(_) => panic!("an unchecked out-of-bounds read must fault"),
        Err(_) => {}
    }
}

const SUMS: &str = "fn k(a: &[u32], out: &mut [u32], n: usize) {
    let t = thread_idx().x as usize;
    let mut acc = 0u32;
    for j in 0..n {
        acc += a[t + j];
    }
    out[t] = acc;
}";

#[test]
fn a_loop_with_an_affine_index_is_versioned_and_its_fast_copy_is_unchecked() {
    let module = lower(SUMS);
    let opt = optimise(module.clone());
    let function = kernel(&opt.module);
    let [v] = versioned(&function.body)[..] else {
        panic!("one versioned loop: {:#?}", function.body);
    };
    assert_eq!(v.kind, VersionKind::Loop);
    let loop_parts = |b: &Block| match b.stmts.as_slice() {
        [Stmt::ForRange {
            start, end, body, ..
        }] => (*start, *end, slice_indices(function, body)),
        other => panic!("one loop per copy: {other:?}"),
    };
    let (fast_start, fast_end, fast) = loop_parts(&v.fast);
    let (start, end, checked) = loop_parts(&v.checked);
    // One evaluation of the bounds serves both copies.
    assert_eq!((fast_start, fast_end), (start, end));
    let ([a_fast], [a_checked]) = (&fast[..], &checked[..]) else {
        panic!("one index per copy: {fast:?} {checked:?}");
    };
    assert!(function.unchecked_indices.contains(a_fast));
    assert!(!function.unchecked_indices.contains(a_checked));
    // The guard walks the body at the loop's first two elements and checks `t + j`
    // across every iteration.
    let steps: Vec<&str> = v
        .guard
        .ops
        .iter()
        .map(|op| match op {
            GuardOp::SetLoopVar { second: false, .. } => "first",
            GuardOp::SetLoopVar { second: true, .. } => "second",
            GuardOp::Record { index, .. } if index == a_checked => "record",
            GuardOp::CheckAcross {
                index, bound: None, ..
            } if index == a_checked => "across",
            other => panic!("unexpected step {other:?}"),
        })
        .collect();
    assert_eq!(steps, ["first", "record", "second", "across"]);
    assert!(!v.guard.block_uniform, "no barrier in the loop");
}

#[test]
fn the_simulator_runs_a_versioned_loop_fast_and_checked() {
    let opt = optimise(lower(SUMS));
    let a: Vec<u32> = (0..16).map(|v| v * v + 3).collect();
    for n in [0u64, 1, 5, 9] {
        let expected: Vec<u32> = (0..8)
            .map(|t| (0..n as usize).map(|j| a[t + j]).sum())
            .collect();
        assert_eq!(
            simulate(&opt.module, &a, n).expect("runs"),
            expected,
            "n = {n}"
        );
    }
    // n = 10: thread 7's guard fails; its checked loop panics at `a[16]`.
    match simulate(&opt.module, &a, 10) {
        Err(Fault::Panic { message, .. }) => assert_eq!(
            message,
            "index out of bounds: the len is 16 but the index is 16"
        ),
        other => panic!("expected the index panic, got {other:?}"),
    }
}

/// The unroll hints of the `for` loops in `block` (nested blocks included), in order.
fn unroll_hints(block: &Block, out: &mut Vec<Unroll>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::ForRange { unroll, body, .. } => {
                out.push(*unroll);
                unroll_hints(body, out);
            }
            Stmt::Versioned(v) => {
                unroll_hints(&v.fast, out);
                unroll_hints(&v.checked, out);
            }
            _ => {}
        }
    }
}

#[test]
fn loops_of_checked_copies_stay_rolled_unless_they_index_a_local_array() {
    let hints = |text: &str| {
        let opt = optimise(lower(text));
        let body = &kernel(&opt.module).body;
        let loops: Vec<_> = versioned(body)
            .into_iter()
            .filter(|v| v.kind == VersionKind::Loop)
            .collect();
        let [v] = loops[..] else {
            panic!("one versioned loop: {body:#?}");
        };
        let (mut fast, mut checked) = (Vec::new(), Vec::new());
        unroll_hints(&v.fast, &mut fast);
        unroll_hints(&v.checked, &mut checked);
        (fast, checked)
    };
    // The fast copy keeps the compiler's choice; the checked copy is cold: its loop is
    // rolled, and so are both copies of the inner loop's run, versioned again there.
    let (fast, checked) = hints(
        "fn k(a: &[u32], out: &mut [u32], n: usize) {
            let t = thread_idx().x as usize;
            let mut s = 0u32;
            for j in 0..n {
                for r in 0..4 {
                    s += a[t + j + r];
                }
            }
            out[t] = s;
        }",
    );
    assert_eq!(fast, [Unroll::Auto, Unroll::Auto]);
    assert_eq!(checked, [Unroll::Rolled; 3]);
    // `acc[r]` indexes a local array with `r`: rolled, the inner loop would send the
    // array to local memory, so it keeps the compiler's choice.
    let (_, checked) = hints(
        "fn k(a: &[u32], out: &mut [u32], n: usize) {
            let t = thread_idx().x as usize;
            let mut acc = [0u32; 4];
            for j in 0..n {
                for r in 0..4 {
                    acc[r] += a[t + j + r];
                }
            }
            out[t] = acc[0] + acc[3];
        }",
    );
    assert_eq!(checked, [Unroll::Rolled, Unroll::Auto, Unroll::Auto]);
}

/// Whether the kernel's first top-level `if` has its body marked as a predicated
/// prefetch.
fn first_if_is_prefetch(text: &str) -> bool {
    let opt = optimise(lower(text));
    let function = kernel(&opt.module);
    let mut found = None;
    crate::ir::visit::exprs_in_block(function, &function.body, &mut |_, e| {
        if let (crate::ir::ExprKind::If { then_block, .. }, None) = (&e.kind, &found) {
            found = Some(matches!(
                then_block.stmts.as_slice(),
                [Stmt::PredicatedPrefetch(_)]
            ));
        }
    });
    found.expect("an `if`")
}

#[test]
fn an_if_that_only_loads_slice_elements_into_locals_becomes_a_predicated_prefetch() {
    assert!(first_if_is_prefetch(
        "fn k(a: &[f32], out: &mut [f32], n: usize) {
            let t = thread_idx().x as usize;
            let mut next = [0.0f32; 4];
            if t + 4 < n {
                for j in 0..4 {
                    next[j] = a[t + j];
                }
            }
            out[t] = next[0] + next[3];
        }"
    ));
    // A store to memory is an effect: the branch stays.
    assert!(!first_if_is_prefetch(
        "fn k(a: &[f32], out: &mut [f32], n: usize) {
            let t = thread_idx().x as usize;
            if t + 4 < n {
                out[t] = a[t + 4];
            }
        }"
    ));
}

/// Every load a predicated prefetch assigns, in each copy of its versioned body, is
/// listed with the `if`'s own condition; nothing else is.
#[test]
fn a_predicated_prefetch_lists_each_of_its_loads_with_the_if_condition() {
    let opt = optimise(lower(
        "fn k(a: &[f32], out: &mut [f32], n: usize) {
            let t = thread_idx().x as usize;
            let mut next = [0.0f32; 4];
            if t + 4 < n {
                for j in 0..4 {
                    next[j] = a[t + j];
                }
            }
            out[t] = a[t] + next[0] + next[3];
        }",
    ));
    let function = kernel(&opt.module);
    let mut condition = None;
    crate::ir::visit::exprs_in_block(function, &function.body, &mut |_, e| {
        if let (crate::ir::ExprKind::If { cond, .. }, None) = (&e.kind, &condition) {
            condition = Some(*cond);
        }
    });
    let condition = condition.expect("an `if`");
    // The body was versioned (a fast and a checked copy), so its one load is listed
    // twice, each time under the same condition.
    let loads: Vec<_> = function.predicated_loads.iter().collect();
    assert_eq!(loads.len(), 2, "{loads:?}");
    for (&load, &cond) in loads {
        assert_eq!(cond, condition);
        assert!(matches!(
            function.expr(load).kind,
            crate::ir::ExprKind::Load(_)
        ));
    }
}
