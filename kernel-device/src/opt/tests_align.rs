//! The alignment of `cp_async` (`opt::align`, the NVVM writer's `copies_aligned_before`):
//! the index terms that are multiples of the copy's elements leave the test, a loop's
//! copies whose remaining terms the loop does not change are tested once by its guard
//! (also without bounds checks), a copy whose test the loop changes keeps it, and a
//! misaligned source still panics on the simulator.

use super::optimise;
use super::ranges::RangeFacts;
use super::tests_version::{read_u32s, u32_slice_arg};
use crate::back::nvvm::{write_string, Options};
use crate::back::sim::{run, Arg, Fault, LaunchShape, Options as SimOptions};
use crate::front::{lower_sources, tests::source};
use crate::ir::visit::exprs_in_block;
use crate::ir::{ExprKind, Intrinsic, Module, ScalarType};
use crate::source::SourceKind;

/// 32 threads copy 4 rows of `k` `u32`s, 8 chunks of 4 per row, 16 rows apart per half:
/// the source's alignment is `row_start`'s (`k` may be odd), the rest are multiples of 4.
const TILE: &str = "fn k(a: &[u32], out: &mut [u32], k: usize, tiles: usize) {
    let mut smem = dynamic_shared();
    let tile = smem.take::<u32>(2 * 256);
    let tid = thread_idx().x as usize;
    let row_start = (tid / 8) * k;
    let chunk = (tid % 8) * 4;
    let mut acc = 0u32;
    for kt in 0..tiles {
        sync_threads();
        for h in 0..2 {
            let dst = (kt % 2) * 256 + h * 128 + tid * 4;
            cp_async_cg::<16>(tile, dst, a, row_start + h * 16 * k + kt * 32 + chunk);
        }
        cp_async_commit();
        cp_async_wait::<0>();
        sync_threads();
        acc = acc + tile[(kt % 2) * 256 + tid * 4] + tile[(kt % 2) * 256 + 128 + tid * 4 + 3];
    }
    out[tid] = acc;
}";

pub(super) fn lower(text: &str, bounds_check: bool) -> Module {
    let mut module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let handles: Vec<_> = module.functions.iter().map(|(h, _)| h).collect();
    for h in handles {
        module.functions[h].options.bounds_check = bounds_check;
    }
    module
}

/// The arguments of every `cp_async` of `function`.
fn copy_args(function: &crate::ir::Function) -> Vec<Vec<crate::ir::Handle<crate::ir::Expr>>> {
    let mut copies = Vec::new();
    exprs_in_block(function, &function.body, &mut |_, e| {
        if let ExprKind::Intrinsic {
            intrinsic: Intrinsic::CpAsync { .. },
            args,
        } = &e.kind
        {
            copies.push(args.clone());
        }
    });
    copies
}

#[test]
fn only_the_terms_that_are_not_multiples_of_the_copy_are_tested() {
    let module = lower(TILE, true);
    let (_, function) = module.kernels().next().expect("one kernel");
    let facts = RangeFacts::new(function, None);
    let ranges = facts.of(function);
    let copies = copy_args(function);
    let [args] = &copies[..] else {
        panic!("one copy: {copies:?}")
    };
    // 16 bytes of u32: 4 elements, 2 low bits.
    let dst = super::align::unproven_terms(function, &ranges, args[1], 2);
    assert_eq!(
        dst,
        Some(vec![]),
        "every destination term is a multiple of 4"
    );
    let src = super::align::unproven_terms(function, &ranges, args[3], 2).expect("terms");
    let [term] = src[..] else {
        panic!("row_start alone: {src:?}")
    };
    let ExprKind::Local(l) = function.expr(term).kind else {
        panic!("a read of row_start: {:?}", function.expr(term))
    };
    assert_eq!(function.locals[l].name, "row_start");
    // `row_start` is `(tid / 8) * k`: nothing known of `k`, so nothing of it.
    assert_eq!(super::align::known_zero_bits(function, &ranges, term), 0);
    // `kt * 2` has one zero bit, not two: it stays.
    let kt2 = TILE.replace("kt * 32 + chunk", "kt * 2 + chunk");
    let module = lower(&kt2, true);
    let (_, function) = module.kernels().next().expect("one kernel");
    let facts = RangeFacts::new(function, None);
    let source = copy_args(function)[0][3];
    let terms =
        super::align::unproven_terms(function, &facts.of(function), source, 2).expect("terms");
    assert_eq!(terms.len(), 2, "row_start and kt * 2: {terms:?}");
}

/// In the kernel's first function: (alignment tests before the block's vote, all of
/// them, `cp.async` instructions).
fn alignment_tests(module: &Module) -> (usize, usize, usize) {
    let ir = write_string(module, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    let start = ir.find("define void @k(").expect("the kernel");
    let end = ir[start + 1..]
        .find("define ")
        .map_or(ir.len(), |e| start + 1 + e);
    let kernel = &ir[start..end];
    let mut at = 0;
    let mut tests = Vec::new();
    for line in kernel.lines() {
        if line.trim_start().starts_with("%cp.aligned") && line.contains("= icmp") {
            tests.push(at);
        }
        at += line.len() + 1;
    }
    let vote = kernel.find("loop.vote:").unwrap_or(0);
    let before_vote = tests.iter().filter(|i| **i < vote).count();
    let copies = kernel.matches("cp.async.cg.shared.global").count();
    (before_vote, tests.len(), copies)
}

#[test]
fn a_loops_guard_tests_the_alignment_its_copies_share_and_a_changing_one_stays() {
    for bounds_check in [true, false] {
        // The guard's test (before the block's vote), the checked copy's; the fast
        // copy's copy has none.
        let (before_vote, all, copies) = alignment_tests(&lower(TILE, bounds_check));
        assert_eq!(
            (before_vote, all, copies),
            (1, 2, 2),
            "checks {bounds_check}"
        );
    }
    // `kt * 2` changes with the loop: tested at the copy. Without bounds checks no
    // guard is left, and the loop is written once.
    let kt2 = TILE.replace("kt * 32 + chunk", "kt * 2 + chunk");
    assert_eq!(alignment_tests(&lower(&kt2, false)), (0, 1, 1));
}

/// Runs TILE without bounds checks with 32 threads, rows `k` apart, `tiles` k-steps.
fn simulate(a: &[u32], k: u64, tiles: u64) -> Result<Vec<u32>, Fault> {
    let opt = optimise(lower(TILE, false));
    let (_, input) = u32_slice_arg(a, false);
    let (out, output) = u32_slice_arg(&[0; 32], true);
    let usize_arg = |bits| Arg::Scalar {
        ty: ScalarType::Usize,
        bits,
    };
    let args = [input, output, usize_arg(k), usize_arg(tiles)];
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 2 * 256 * 4,
    };
    run(&opt.module, "k", &shape, &args, &SimOptions::default())?;
    Ok(read_u32s(&out, 32))
}

#[test]
fn aligned_rows_copy_and_a_misaligned_row_still_panics() {
    let tiles = 2usize;
    let a: Vec<u32> = (0..4096).map(|v| (v * 7 + 1) as u32).collect();
    // Plain Rust: thread t = 8r + c copies a[r k + 16 h k + 32 kt + 4c ..][..4] to its
    // own chunk of half h, and reads back the first element of half 0 and the last of
    // half 1.
    let k = 64usize;
    let expected: Vec<u32> = (0..32)
        .map(|t| {
            let (r, c) = (t / 8, t % 8);
            (0..tiles)
                .map(|kt| {
                    let at = |h: usize| r * k + h * 16 * k + kt * 32 + 4 * c;
                    a[at(0)] + a[at(1) + 3]
                })
                .sum()
        })
        .collect();
    assert_eq!(
        simulate(&a, k as u64, tiles as u64).expect("runs"),
        expected
    );
    // Rows 63 elements apart: row 1 starts 252 bytes in, not a multiple of 16.
    match simulate(&a, 63, tiles as u64) {
        Err(Fault::Panic { message, .. }) => {
            assert!(
                message.contains("cp_async"),
                "the copy's message: {message}"
            )
        }
        other => panic!("expected the copy's panic, got {other:?}"),
    }
}
