//! Guards that merge checks whose indices differ by compile-time constants
//! (`check_plan::merge`): which comparisons a plan keeps, and the simulator running
//! the merged guard's copies against plain Rust, out-of-range stores included.

use super::optimise;
use super::tests_copy_guard::{kernel, lower, the_versioned_loop};
use super::tests_version::{read_u32s, u32_slice_arg};
use crate::back::sim::{run, Arg, Fault, LaunchShape, Options};
use crate::ir::{GuardOp, Module, ScalarType, Versioned};

/// The one versioned run of the kernel's body.
fn the_run(module: &Module) -> Versioned {
    the_versioned_loop(kernel(module)).clone()
}

/// The run-time comparisons of a guard: (plain, strided).
fn comparisons(v: &Versioned) -> (usize, usize) {
    let plain = v.guard.ops.iter();
    let plain = plain.filter(|op| matches!(op, GuardOp::Check { .. }));
    let strided = v.guard.ops.iter();
    let strided = strided.filter(|op| matches!(op, GuardOp::CheckStrided { .. }));
    (plain.count(), strided.count())
}

/// Sixteen stores, 57 elements from the first to the last: one group of offsets.
const TILES: &str = "fn k(out: &mut [u32], x: usize) {
    let t = thread_idx().x as usize;
    let row = x + t * 64;
    for i in 0..8 {
        out[row + i * 8] = i as u32;
        out[row + i * 8 + 1] = 100 + i as u32;
    }
}";

#[test]
fn indices_a_constant_apart_are_decided_by_the_lowest_and_the_highest() {
    let v = the_run(&optimise(lower(TILES)).module);
    assert_eq!(comparisons(&v), (2, 0), "{:?}", v.guard.ops);
}

/// Rows `n` apart, `n` known only at run time: each row's pair is one group.
const ROWS: &str = "fn k(out: &mut [u32], x: usize, n: usize) {
    for r in 0..2 {
        out[r * n + x] = 1;
        out[r * n + x + 1] = 2;
    }
}";

#[test]
fn indices_a_run_time_value_apart_keep_a_comparison_each_group() {
    let v = the_run(&optimise(lower(ROWS)).module);
    assert_eq!(comparisons(&v), (4, 0), "{:?}", v.guard.ops);
}

/// The index is assigned between its stores: the later stores are not members of the
/// earlier ones' group (their index is not the guard's to compute), and stay checked.
const MOVED: &str = "fn k(out: &mut [u32], x: usize) {
    let mut i = x;
    out[i] = 1;
    out[i + 1] = 2;
    i = i + 100;
    out[i] = 3;
    out[i + 2] = 4;
}";

/// Offsets on both sides of the first store's, the lowest one wrapping below zero for
/// `x < 3` (Rust's release arithmetic).
const AROUND: &str = "fn k(out: &mut [u32], x: usize) {
    out[x + 8] = 1;
    out[x] = 2;
    out[x - 3] = 3;
    out[x + 5] = 4;
}";

#[test]
fn an_assigned_index_leaves_the_group_of_its_old_value() {
    let opt = optimise(lower(MOVED));
    let v = the_run(&opt.module);
    assert_eq!(comparisons(&v), (2, 0), "{:?}", v.guard.ops);
    let function = opt.module.kernels().next().expect("one kernel").1;
    let mut checked_in_fast = 0;
    crate::ir::visit::places_in_block(function, &v.fast, &mut |place| {
        if let Some(crate::ir::Projection::Index(i)) = place.projections.first() {
            checked_in_fast += usize::from(!function.unchecked_indices.contains(i));
        }
    });
    assert_eq!(
        checked_in_fast, 2,
        "the stores after `i = i + 100` keep theirs"
    );
}

/// Runs a kernel `k(out: &mut [u32], x: usize)` on one thread, `out` of `len`
/// elements poisoned.
fn simulate(module: &Module, x: u64, len: usize) -> Result<Vec<u32>, Fault> {
    let (out, out_arg) = u32_slice_arg(&vec![0xdead_beef; len], true);
    let args = vec![
        out_arg,
        Arg::Scalar {
            ty: ScalarType::Usize,
            bits: x,
        },
    ];
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(module, "k", &shape, &args, &Options::default())?;
    Ok(read_u32s(&out, len))
}

/// The stores `(index, value)` in order, in plain Rust: the output, or the index of
/// the first store out of range.
fn reference(stores: &[(u64, u32)], len: usize) -> Result<Vec<u32>, u64> {
    let mut out = vec![0xdead_beef; len];
    for &(index, value) in stores {
        match out.get_mut(index as usize) {
            Some(slot) if index < len as u64 => *slot = value,
            _ => return Err(index),
        }
    }
    Ok(out)
}

/// A fresh generator (xorshift64*) seeded from the clock; its seed is printed.
fn generator() -> impl FnMut(u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let mut state = nanos | 1;
    println!("seed {state:#x}");
    move |below| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d) % below
    }
}

/// Compares the simulator with `stores(x)` in plain Rust over random `x` and lengths
/// around the edge of the stores' range.
fn agrees_with_rust(text: &str, stores: impl Fn(u64) -> Vec<(u64, u32)>) {
    let module = optimise(lower(text)).module;
    let mut below = generator();
    for _ in 0..40 {
        let x = below(140);
        let len = 1 + below(160) as usize;
        let simulated = simulate(&module, x, len);
        match (reference(&stores(x), len), simulated) {
            (Ok(want), Ok(got)) => assert_eq!(got, want, "x {x}, len {len}"),
            (Err(index), Err(Fault::Panic { message, .. })) => assert!(
                message.contains(&format!("the len is {len} but the index is {index}")),
                "x {x}, len {len}: {message}"
            ),
            (want, got) => panic!("x {x}, len {len}: expected {want:?}, got {got:?}"),
        }
    }
}

#[test]
fn the_simulator_runs_merged_guards_as_the_stores_are_written() {
    agrees_with_rust(MOVED, |x| {
        vec![(x, 1), (x + 1, 2), (x + 100, 3), (x + 102, 4)]
    });
    agrees_with_rust(AROUND, |x| {
        vec![(x + 8, 1), (x, 2), (x.wrapping_sub(3), 3), (x + 5, 4)]
    });
}

#[test]
fn offsets_below_the_first_store_are_the_groups_low_end() {
    let v = the_run(&optimise(lower(AROUND)).module);
    assert_eq!(comparisons(&v), (2, 0), "{:?}", v.guard.ops);
}

/// The pipeline of `tests_copy_guard` with its halves `half` apart, a local set before
/// the loop that the ranges pin to 128: still a constant offset.
fn pipeline_with_a_pinned_stride() -> String {
    let text = super::tests_copy_guard::PIPELINE
        .replace(
            "let halves = 256 / 128;",
            "let halves = 256 / 128;\n    let half = 256 / 2;",
        )
        .replace("h * 128 + tid * 4);", "h * half + tid * 4);");
    assert!(text.contains("h * half + tid * 4);"), "{text}");
    text
}

#[test]
fn a_loops_copies_a_pinned_stride_apart_are_compared_at_their_ends() {
    let opt = optimise(lower(&pipeline_with_a_pinned_stride()));
    let v = the_run(&opt.module);
    let across = v.guard.ops.iter();
    let across = across.filter(|op| matches!(op, GuardOp::CheckAcross { .. }));
    assert_eq!(across.count(), 2, "{:?}", v.guard.ops);
    // Against plain Rust, and one element short of the last copy.
    let tiles = 3usize;
    let mut below = generator();
    let a: Vec<u32> = (0..tiles * 256).map(|_| below(1 << 20) as u32).collect();
    let expected: Vec<u32> = (0..32)
        .map(|t| {
            (0..tiles)
                .map(|kt| a[kt * 256 + 4 * t] + a[kt * 256 + 128 + 4 * t + 3])
                .fold(0u32, u32::wrapping_add)
        })
        .collect();
    let simulate = super::tests_copy_guard::simulate;
    assert_eq!(
        simulate(&opt.module, &a, tiles as u64).expect("runs"),
        expected
    );
    match simulate(&opt.module, &a[..a.len() - 1], tiles as u64) {
        Err(Fault::Panic { message, .. }) => assert!(message.contains("cp_async"), "{message}"),
        other => panic!("expected the copy's range panic, got {other:?}"),
    }
}
