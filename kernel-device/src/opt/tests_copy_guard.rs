//! A pipelined k-loop's `cp_async` sources decided by the loop's guard
//! (`check_plan::copy_source`): the fast copy's copies are unchecked, the checked copy's
//! are not, the guard compares each copy's first and last element under the prefetch's
//! `if next < tiles`; and a source too short for the loop still panics on the simulator.

use super::optimise;
use super::tests_version::{read_u32s, u32_slice_arg};
use crate::back::sim::{run, Arg, Fault, LaunchShape, Options};
use crate::front::{lower_sources, tests::source};
use crate::ir::visit::exprs_in_block;
use crate::ir::{Block, ExprKind, Function, GuardOp, Handle, Intrinsic, Module, Stmt};
use crate::ir::{Expr, ScalarType, Versioned};
use crate::source::SourceKind;

/// Two stages of 32 threads × 4 `u32`: each k-step prefetches tile `kt + 1` (a literal
/// loop of two copies per thread whose end the ranges pin), reads its own tile after a
/// barrier and a warp shuffle, and sums it into `out[tid]`.
pub(super) const PIPELINE: &str = "fn k(a: &[u32], out: &mut [u32], tiles: usize) {
    let mut smem = dynamic_shared();
    let tile = smem.take::<u32>(2 * 256);
    let tid = thread_idx().x as usize;
    let halves = 256 / 128;
    cp_async_cg::<16>(tile, tid * 4, a, tid * 4);
    cp_async_cg::<16>(tile, 128 + tid * 4, a, 128 + tid * 4);
    cp_async_commit();
    let mut acc = 0u32;
    for kt in 0..tiles {
        cp_async_wait::<0>();
        sync_threads();
        let next = kt + 2 - 1;
        if next < tiles {
            for h in 0..halves {
                let dst = (next % 2) * 256 + h * 128 + tid * 4;
                cp_async_cg::<16>(tile, dst, a, next * 256 + h * 128 + tid * 4);
            }
        }
        cp_async_commit();
        let mine = tile[(kt % 2) * 256 + tid * 4] + tile[(kt % 2) * 256 + 128 + tid * 4 + 3];
        acc = acc + shfl_sync(0xffffffff, mine, tid as u32);
        sync_threads();
    }
    out[tid] = acc;
}";

pub(super) fn lower(text: &str) -> Module {
    lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"))
}

pub(super) fn kernel(module: &Module) -> &Function {
    module.kernels().next().expect("one kernel").1
}

/// The one versioned run (a loop or straight-line run) of `function`'s body.
pub(super) fn the_versioned_loop(function: &Function) -> &Versioned {
    let found: Vec<&Versioned> = function
        .body
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Versioned(v) => Some(&**v),
            _ => None,
        })
        .collect();
    let [v] = found[..] else {
        panic!("one versioned loop: {:#?}", function.body);
    };
    v
}

/// The source index of every `cp_async` in `block`.
fn copy_sources(function: &Function, block: &Block) -> Vec<Handle<Expr>> {
    let mut found = Vec::new();
    exprs_in_block(function, block, &mut |_, e| {
        if let ExprKind::Intrinsic {
            intrinsic: Intrinsic::CpAsync { .. },
            args,
        } = &e.kind
        {
            found.push(args[3]);
        }
    });
    found
}

#[test]
fn a_pipelined_loops_copies_are_unchecked_in_its_fast_copy_only() {
    let opt = optimise(lower(PIPELINE));
    let function = kernel(&opt.module);
    let v = the_versioned_loop(function);
    assert!(
        v.guard.block_uniform,
        "a loop with a barrier: one copy per block"
    );
    let (fast, checked) = (
        copy_sources(function, &v.fast),
        copy_sources(function, &v.checked),
    );
    assert_eq!((fast.len(), checked.len()), (1, 1), "one copy in each loop");
    assert!(function.unchecked_indices.contains(&fast[0]));
    assert!(!function.unchecked_indices.contains(&checked[0]));
    // The guard compares the copy's first element and its last (index + 3) across the
    // iterations that `next < tiles` lets through: the halves of the literal loop are
    // 128 elements apart, so the first half's first element and the second half's last
    // decide all four (`check_plan::merge`).
    let across: Vec<Handle<Expr>> = v
        .guard
        .ops
        .iter()
        .filter_map(|op| match op {
            GuardOp::CheckAcross {
                index,
                bound: Some(bound),
                ..
            } => {
                assert_eq!(bound.offset, 1, "next = kt + 2 - 1");
                Some(*index)
            }
            GuardOp::CheckAcross { bound: None, .. } => {
                panic!("the copy is under `if next < tiles`: {op:?}")
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        across.len(),
        2,
        "the lowest first element and the highest last one"
    );
    assert!(across.contains(&checked[0]));
    let last = across
        .iter()
        .find(|h| **h != checked[0])
        .expect("the last element");
    assert!(matches!(
        function.expr(*last).kind,
        ExprKind::Binary { lhs, .. } if lhs == checked[0]
    ));
    // The copies before the loop stay checked: no guard decides them.
    for h in copy_sources(function, &function.body) {
        if h != fast[0] && h != checked[0] {
            assert!(!function.unchecked_indices.contains(&h));
        }
    }
}

/// Runs the pipeline with 32 threads over `a`, `tiles` k-steps.
pub(super) fn simulate(module: &Module, a: &[u32], tiles: u64) -> Result<Vec<u32>, Fault> {
    let (_, input) = u32_slice_arg(a, false);
    let (out, output) = u32_slice_arg(&[0; 32], true);
    let args = [
        input,
        output,
        Arg::Scalar {
            ty: ScalarType::Usize,
            bits: tiles,
        },
    ];
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 2 * 256 * 4,
    };
    run(module, "k", &shape, &args, &Options::default())?;
    Ok(read_u32s(&out, 32))
}

#[test]
fn the_pipeline_sums_its_tiles_and_a_short_source_still_panics() {
    let opt = optimise(lower(PIPELINE));
    let tiles = 3usize;
    let a: Vec<u32> = (0..tiles * 256).map(|v| (v * 7 + 1) as u32).collect();
    // Plain Rust: thread t reads a[kt*256 + 4t] and a[kt*256 + 128 + 4t + 3].
    let expected: Vec<u32> = (0..32)
        .map(|t| {
            (0..tiles)
                .map(|kt| a[kt * 256 + 4 * t] + a[kt * 256 + 128 + 4 * t + 3])
                .sum()
        })
        .collect();
    assert_eq!(
        simulate(&opt.module, &a, tiles as u64).expect("runs"),
        expected
    );
    // One element short: the last tile's last copy reads past the end, and the guard
    // sends the block to the checked copy, which panics there.
    match simulate(&opt.module, &a[..a.len() - 1], tiles as u64) {
        Err(Fault::Panic { message, .. }) => {
            assert!(
                message.contains("cp_async"),
                "the copy's message: {message}"
            )
        }
        other => panic!("expected the copy's panic, got {other:?}"),
    }
}
