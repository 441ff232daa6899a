//! Remainders of loop variables as counters (`opt::loop_remainders`): rewritten where
//! `var + c` provably does not wrap, kept where it may, and the simulator's results
//! equal plain Rust's either way (a `continue` skipping part of the body included).

use super::optimise;
use super::tests_align::lower;
use super::tests_version::{read_u32s, u32_slice_arg};
use crate::back::nvvm::{write_string, Options};
use crate::back::sim::{run, Arg, LaunchShape, Options as SimOptions};
use crate::ir::visit::exprs_in_block;
use crate::ir::{BinaryOp, ExprKind, Module, ScalarType};

/// A pipeline's stages: `steps` is `n / 4`, so `kt + 2` cannot wrap.
const STAGES: &str = "fn k(out: &mut [u32], n: usize, skip: usize) {
    let tid = thread_idx().x as usize;
    let steps = n / 4;
    let mut acc = 0u32;
    for kt in 0..steps {
        let next = kt + 3 - 1;
        if kt == skip {
            continue;
        }
        acc = acc * 7 + (kt % 3) as u32 * 10 + (next % 3) as u32 + ((kt + 4) % 5) as u32 * 100;
    }
    out[tid] = acc + tid as u32;
}";

/// From near `usize::MAX` to an unknown end: `kt + 2` may wrap, `kt % 3` is exact.
const NEAR_MAX: &str = "fn k(out: &mut [u32], n: usize, skip: usize) {
    let tid = thread_idx().x as usize;
    let mut acc = 0u32;
    for kt in 18446744073709551610..n {
        let next = kt + 2;
        acc = acc * 7 + (kt % 3) as u32 * 10 + (next % 3) as u32;
    }
    out[tid] = acc + tid as u32 + skip as u32;
}";

/// The remainders left in the optimised kernel.
fn remainders_left(module: &Module) -> usize {
    let (_, function) = module.kernels().next().expect("one kernel");
    let mut left = 0;
    exprs_in_block(function, &function.body, &mut |_, e| {
        if matches!(
            e.kind,
            ExprKind::Binary {
                op: BinaryOp::Rem,
                ..
            }
        ) {
            left += 1;
        }
    });
    left
}

fn simulate(module: &Module, n: u64, skip: u64) -> Vec<u32> {
    let (out, output) = u32_slice_arg(&[0; 32], true);
    let usize_arg = |bits| Arg::Scalar {
        ty: ScalarType::Usize,
        bits,
    };
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
    };
    let args = [output, usize_arg(n), usize_arg(skip)];
    run(module, "k", &shape, &args, &SimOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    read_u32s(&out, 32)
}

/// Plain Rust's `acc` over `start..end` (wrapping `next` as release Rust does).
fn reference(start: u64, end: u64, skip: Option<u64>, next_offset: u64, fifth: bool) -> Vec<u32> {
    let mut acc = 0u32;
    let mut kt = start;
    while kt < end {
        if Some(kt) != skip {
            let next = kt.wrapping_add(next_offset);
            let mut term = (kt % 3) as u32 * 10 + (next % 3) as u32;
            if fifth {
                term += ((kt + 4) % 5) as u32 * 100;
            }
            acc = acc.wrapping_mul(7).wrapping_add(term);
        }
        kt += 1;
    }
    (0..32).map(|t| acc.wrapping_add(t)).collect()
}

#[test]
fn a_pipelines_stage_remainders_become_counters_with_the_same_results() {
    let module = optimise(lower(STAGES, false)).module;
    assert_eq!(remainders_left(&module), 0, "every remainder a counter");
    for (n, skip) in [(0, 0), (4, 0), (37, 2), (101, 5), (400, 99)] {
        assert_eq!(
            simulate(&module, n, skip),
            reference(0, n / 4, Some(skip), 2, true),
            "n {n}, skip {skip}"
        );
    }
    // The writer emits no remainder at all for them.
    let ir = write_string(&module, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    assert!(!ir.contains("urem"), "no remainder left in\n{ir}");
}

#[test]
fn a_remainder_of_a_value_that_may_wrap_stays_and_wraps_as_rust_does() {
    let module = optimise(lower(NEAR_MAX, false)).module;
    // `kt % 3` is exact whatever `kt`; `(kt + 2) % 3` wraps past `usize::MAX`.
    assert_eq!(remainders_left(&module), 1);
    let start = 18446744073709551610;
    for end in [start, start + 1, u64::MAX] {
        assert_eq!(
            simulate(&module, end, 7),
            reference(start, end, None, 2, false)
                .iter()
                .map(|v| v.wrapping_add(7))
                .collect::<Vec<_>>(),
            "end {end}"
        );
    }
}
