//! A `u32` loop (a k loop counted as nvcc's `int`) whose loads sit under `if j + 2 < n`:
//! its guard counts the iterations that `if` lets through, as for a `usize` loop, and
//! tests that `j + 2` cannot wrap in 32 bits; the simulator runs both copies.

use super::optimise;
use super::tests_version::u32_slice_arg;
use crate::back::sim::{run, Arg, Fault, LaunchShape, Options};
use crate::front::{lower_sources, tests::source};
use crate::ir::guard::{bounded_iterations, LoopBound};
use crate::ir::{GuardOp, Handle, Module, ScalarType, Stmt};
use crate::source::SourceKind;

const PREFETCH: &str = "fn k(a: &[u32], out: &mut [u32], n: u32) {
    let t = thread_idx().x as usize;
    let mut acc = 0u32;
    for j in 0..n {
        let next = j + 2;
        if next < n {
            acc += a[t + j as usize + 2];
        }
    }
    out[t] = acc;
}";

fn optimised() -> Module {
    let module = lower_sources(&[source(PREFETCH, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    optimise(module).module
}

/// Runs `k` with 8 threads over `a`; `out` has 8 elements.
fn simulate(module: &Module, a: &[u32], n: u32) -> Result<Vec<u32>, Fault> {
    let (_, input) = u32_slice_arg(a, false);
    let (out, output) = u32_slice_arg(&[0; 8], true);
    let count = Arg::Scalar {
        ty: ScalarType::U32,
        bits: u64::from(n),
    };
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [8, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(
        module,
        "k",
        &shape,
        &[input, output, count],
        &Options::default(),
    )?;
    Ok(super::tests_version::read_u32s(&out, 8))
}

#[test]
fn a_u32_loops_guard_counts_the_iterations_its_if_lets_through() {
    let module = optimised();
    let (_, function) = module.functions.iter().next().expect("the kernel");
    let bounds: Vec<(u64, u64)> = function
        .body
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Versioned(v) => Some(v),
            _ => None,
        })
        .flat_map(|v| v.guard.ops.iter())
        .filter_map(|op| match op {
            GuardOp::CheckAcross { bound, .. } => {
                let b = bound.as_ref().expect("the load is under `if next < n`");
                Some((b.offset, b.top))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        bounds,
        [(2, u64::from(u32::MAX))],
        "j + 2 < n, counted in u32"
    );
}

#[test]
fn the_count_holds_only_while_the_sum_cannot_wrap_in_the_loops_type() {
    let bound = |top: u64| LoopBound {
        offset: 2,
        limit: Handle::new(0),
        inclusive: false,
        top,
    };
    let u32_top = u64::from(u32::MAX);
    // j in 0..10 under `j + 2 < 10`: the first 8 iterations.
    assert_eq!(
        bounded_iterations(&bound(u32_top), 10, [0, 10, 1]),
        (8, true)
    );
    // An end past u32::MAX - 2 lets `j + 2` wrap to 0, 1: the count would miss them.
    let (_, no_wrap) = bounded_iterations(&bound(u32_top), 10, [0, u32_top, 1]);
    assert!(!no_wrap);
    let (_, no_wrap) = bounded_iterations(&bound(u64::MAX), 10, [0, u32_top, 1]);
    assert!(no_wrap, "a 64-bit variable does not wrap there");
}

#[test]
fn the_simulator_runs_a_u32_loops_fast_copy_and_its_checked_one() {
    let module = optimised();
    let a: Vec<u32> = (0..16).map(|v| 7 * v * v + 1).collect();
    // Thread t reads a[t + j + 2] for j + 2 < n: the last index is t + n - 1.
    for n in [0u32, 1, 2, 3, 6, 9] {
        let expected: Vec<u32> = (0..8)
            .map(|t| (2..n as usize).map(|j| a[t + j]).sum())
            .collect();
        assert_eq!(simulate(&module, &a, n).expect("runs"), expected, "n = {n}");
    }
    // n = 10: thread 7 reads a[16]; its guard fails and its checked copy panics there.
    match simulate(&module, &a, 10) {
        Err(Fault::Panic { message, .. }) => assert_eq!(
            message,
            "index out of bounds: the len is 16 but the index is 16"
        ),
        other => panic!("expected the index panic, got {other:?}"),
    }
}
