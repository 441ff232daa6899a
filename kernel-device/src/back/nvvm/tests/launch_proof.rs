//! Launch-proven checks (`launch_proof`): which indices a launch bounds, the copy the
//! writer adds without their checks, and the conditions the host evaluates.

use super::versioning::{definition, write_kernel, PANIC_CALL};
use crate::back::nvvm::launch_proof::{Bound, LaunchCondition};
use crate::ir::Axis;

const BLOCK: [u32; 3] = [256, 1, 1];

/// The slices' lengths of a bound that names none.
fn no_lengths(_: usize) -> Option<u64> {
    None
}
const NO_LENGTHS: fn(usize) -> Option<u64> = no_lengths;

/// The slices' lengths by parameter index (`lengths[p]`; none past the end).
fn lens<const N: usize>(lengths: [u64; N]) -> impl Fn(usize) -> Option<u64> {
    move |p| lengths.get(p).copied()
}

/// Asserts that `kernel` gets no launch-proven copy.
fn assert_proves_nothing(kernel: &str) {
    let out = write_kernel(kernel);
    assert!(
        out.launch_proofs.is_empty(),
        "{kernel}: {:?}",
        out.launch_proofs
    );
}

#[test]
fn a_grid_index_through_a_barrier_is_proven_by_the_launch() {
    let out = write_kernel(
        "fn k(x: &[u32], out: &mut [u32]) {
            let i = grid(1);
            let v = x[i];
            sync_threads();
            out[i] = v + 1;
        }",
    );
    let [proof] = out.launch_proofs.as_slice() else {
        panic!("one copy: {:?}", out.launch_proofs);
    };
    assert_eq!(proof.symbol, "k__launch_proven");
    assert_eq!(
        proof.conditions.iter().map(|c| c.param).collect::<Vec<_>>(),
        [0, 1]
    );
    for c in &proof.conditions {
        // 4 blocks of 256: the largest index is 1023.
        assert_eq!(c.max_index.eval([4, 1, 1], BLOCK, &NO_LENGTHS), Some(1023));
        assert!(c.holds([4, 1, 1], BLOCK, &|_| Some(1024)));
        assert!(!c.holds([4, 1, 1], BLOCK, &|_| Some(1023)));
        assert!(!c.holds([5, 1, 1], BLOCK, &|_| Some(1024)));
    }
    assert_eq!(definition(&out.text, "k").matches(PANIC_CALL).count(), 2);
    let copy = definition(&out.text, "k__launch_proven");
    assert!(!copy.contains(PANIC_CALL), "{copy}");
    assert_eq!(copy.matches("@llvm.nvvm.barrier0()").count(), 1, "{copy}");
    assert!(
        out.text.contains("@k__launch_proven, !\"kernel\", i32 1}"),
        "the copy is a kernel too"
    );
}

#[test]
fn indices_that_read_memory_or_parameters_stay_checked_in_the_copy() {
    let out = write_kernel(
        "fn k(idx: &[u32], out: &mut [f32], n: usize) {
            let i = grid(1);
            let j = idx[i] as usize;
            out[j] = 1.0;
            out[i + n] = 2.0;
        }",
    );
    let [proof] = out.launch_proofs.as_slice() else {
        panic!("one copy: {:?}", out.launch_proofs);
    };
    assert_eq!(proof.conditions.len(), 1, "{:?}", proof.conditions);
    assert_eq!(proof.conditions[0].param, 0);
    let copy = definition(&out.text, "k__launch_proven");
    assert_eq!(copy.matches(PANIC_CALL).count(), 2, "{copy}");
}

#[test]
fn a_kernel_without_grid_bounded_indices_gets_no_copy() {
    let out = write_kernel(
        "fn k(x: &[f32], out: &mut [f32], n: usize) {
            for i in 0..n {
                out[i] = x[i];
            }
        }",
    );
    assert!(out.launch_proofs.is_empty(), "{:?}", out.launch_proofs);
    assert!(!out.text.contains("__launch_proven"));
}

#[test]
fn arithmetic_that_could_wrap_at_the_launch_is_not_proven() {
    let out = write_kernel(
        "fn k(out: &mut [f32]) {
            let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
            for k in 0..4 {
                out[4 * t + k] = 1.0;
            }
        }",
    );
    let [proof] = out.launch_proofs.as_slice() else {
        panic!("one copy: {:?}", out.launch_proofs);
    };
    let [LaunchCondition { max_index, .. }] = proof.conditions.as_slice() else {
        panic!("{:?}", proof.conditions);
    };
    assert_eq!(
        max_index.eval([8, 1, 1], [32, 1, 1], &NO_LENGTHS),
        Some(4 * 255 + 3)
    );
    // 2^22 blocks of 1024 threads fill u32's range; one more block passes it, and
    // `block_idx * block_dim + thread_idx` wraps.
    let top = u64::from(u32::MAX);
    assert_eq!(
        max_index.eval([1 << 22, 1, 1], [1024, 1, 1], &NO_LENGTHS),
        Some(4 * top + 3)
    );
    assert_eq!(
        max_index.eval([(1 << 22) + 1, 1, 1], [1024, 1, 1], &NO_LENGTHS),
        None
    );
}

#[test]
fn bounds_evaluate_without_overflow_or_panic() {
    let big = Bound::Product(
        Box::new(Bound::GridDim(Axis::X)),
        Box::new(Bound::Const(u64::MAX)),
    );
    assert_eq!(big.eval([2, 1, 1], BLOCK, &NO_LENGTHS), None);
    let below_zero = Bound::Minus(Box::new(Bound::GridDim(Axis::Y)), 2);
    assert_eq!(below_zero.eval([1, 1, 1], BLOCK, &NO_LENGTHS), None);
    let shifted = Bound::ShiftRight(Box::new(Bound::BlockDim(Axis::X)), 70);
    assert_eq!(shifted.eval([1, 1, 1], BLOCK, &NO_LENGTHS), None);
    let capped = Bound::Min(Box::new(Bound::BlockDim(Axis::X)), 31);
    assert_eq!(capped.eval([1, 1, 1], BLOCK, &NO_LENGTHS), Some(31));
}

#[test]
fn an_index_the_kernel_guards_by_a_length_is_proven_below_it() {
    // `if i < c.len()`: the grid overshoots the data, so the launch proves `a[i]` and
    // `b[i]` when `a` and `b` are as long as the grid or as `c` (through `let j = i` too).
    let out = write_kernel(
        "fn k(a: &[f32], b: &[f32], c: &mut [f32]) {
            let i = grid(1);
            if i < c.len() {
                let j = i;
                c[j] = a[i] + b[j];
            }
        }",
    );
    let [proof] = out.launch_proofs.as_slice() else {
        panic!("one copy: {:?}", out.launch_proofs);
    };
    // `c[j]` under its own guard needs no condition (and the copy drops its check).
    let params: Vec<usize> = proof.conditions.iter().map(|c| c.param).collect();
    assert_eq!(params, [0, 1], "{:?}", proof.conditions);
    for c in &proof.conditions {
        assert!(
            matches!(c.max_index, Bound::BelowLen(_, 2)),
            "{:?}",
            c.max_index
        );
        // 4 blocks of 256 threads over 1000 elements of each.
        assert!(c.holds([4, 1, 1], BLOCK, &lens([1000, 1000, 1000])));
        assert_eq!(
            c.max_index
                .eval([4, 1, 1], BLOCK, &lens([1000, 1000, 1000])),
            Some(999)
        );
        // Longer than the grid, `c` longer still: the grid bounds the index.
        assert!(c.holds([4, 1, 1], BLOCK, &lens([1024, 1024, 5000])));
        // Shorter than `c` and than the grid: a thread reads past it.
        assert!(!c.holds([4, 1, 1], BLOCK, &lens([999, 999, 1000])));
        // `c` empty: nothing is read, and the bound is 0 (so an empty `a` still fails it).
        assert!(c.holds([4, 1, 1], BLOCK, &lens([1, 1, 0])));
        assert!(!c.holds([4, 1, 1], BLOCK, &lens([0, 0, 0])));
        // A length the host does not know proves nothing.
        assert!(!c.holds([4, 1, 1], BLOCK, &|p| (p != 2).then_some(1000)));
    }
    assert_eq!(definition(&out.text, "k").matches(PANIC_CALL).count(), 3);
    let copy = definition(&out.text, "k__launch_proven");
    assert!(!copy.contains(PANIC_CALL), "{copy}");
}

#[test]
fn an_early_return_guards_what_follows_it() {
    // CUDA's shape: leave when past the data, then index. `||` of two exits guards both;
    // the length may come through `let`s.
    for guard in [
        "if i >= c.len() { return; }",
        "if c.len() <= i { return; }",
        "if i >= c.len() || i >= x.len() { return; }",
        "let n = c.len(); let m = n; if i >= m { return; }",
    ] {
        let out = write_kernel(&format!(
            "fn k(x: &[f32], y: &[f32], c: &mut [f32]) {{
                let i = grid(1);
                {guard}
                c[i] = x[i] + y[i];
            }}"
        ));
        let [proof] = out.launch_proofs.as_slice() else {
            panic!("{guard}: one copy: {:?}", out.launch_proofs);
        };
        for cond in &proof.conditions {
            // 4 blocks of 256 over 1000 elements: proven by `c`'s length, not the grid's.
            assert!(
                cond.holds([4, 1, 1], BLOCK, &lens([1000, 1000, 1000])),
                "{guard}"
            );
            assert!(
                !cond.holds([4, 1, 1], BLOCK, &lens([999, 999, 1000])),
                "{guard}"
            );
        }
        let copy = definition(&out.text, "k__launch_proven");
        assert!(!copy.contains(PANIC_CALL), "{guard}: {copy}");
    }
}

#[test]
fn an_early_return_that_may_not_leave_proves_nothing() {
    // The exit in an `else`, a `return` that is not the block's last statement, `&&` of
    // two exits, and a read before the exit leave `x[i]` checked.
    for body in [
        "if i >= c.len() { } else { return; } c[0] = x[i];",
        "if i >= c.len() { if i > 7 { return; } } c[0] = x[i];",
        "if i >= c.len() && i >= 7 { return; } c[0] = x[i];",
        "c[0] = x[i]; if i >= c.len() { return; }",
    ] {
        assert_proves_nothing(&format!(
            "fn k(x: &[f32], c: &mut [f32]) {{ let i = grid(1); {body} }}"
        ));
    }
}

#[test]
fn a_grid_stride_loop_bounds_its_variable_by_the_range_end() {
    // The saxpy example's loop: `i` stays below `y.len()`, stepped by the grid.
    let out = write_kernel(
        "fn k(a: f32, x: &[f32], y: &mut [f32]) {
            for i in (grid(1)..y.len()).step_by(grid_size(1)) {
                y[i] = a * x[i] + y[i];
            }
        }",
    );
    let [proof] = out.launch_proofs.as_slice() else {
        panic!("one copy: {:?}", out.launch_proofs);
    };
    let [cond] = proof.conditions.as_slice() else {
        panic!("one condition, on x: {:?}", proof.conditions);
    };
    assert_eq!(cond.param, 1);
    // Any grid: the loop, not the launch, bounds `i`.
    for grid in [[1, 1, 1], [4096, 1, 1]] {
        assert!(cond.holds(grid, BLOCK, &lens([0, 1000, 1000])));
        assert!(cond.holds(grid, BLOCK, &lens([0, 5000, 1000])));
        assert!(!cond.holds(grid, BLOCK, &lens([0, 999, 1000])));
    }
    // The copy keeps only `step_by`'s own check (a zero step panics), not `x[i]`'s.
    let copy = definition(&out.text, "k__launch_proven");
    assert_eq!(copy.matches(PANIC_CALL).count(), 1, "{copy}");
    assert!(copy.contains("%step.nonzero"), "{copy}");
    assert!(definition(&out.text, "k").matches(PANIC_CALL).count() > 1);
    // An inclusive range, or one whose end is not a length, proves nothing.
    for range in ["grid(1)..=y.len()", "grid(1)..x.len() + 1"] {
        assert_proves_nothing(&format!(
            "fn k(x: &[f32], y: &mut [f32]) {{ for i in {range} {{ y[0] = x[i]; }} }}"
        ));
    }
}

#[test]
fn a_guard_that_does_not_bound_the_index_proves_nothing() {
    // A mutable index, a guard in the other branch, `<=`, `||` and a mutable length
    // leave `x[i]` checked.
    for body in [
        "let mut i = grid(1); if i < c.len() { i += 1; c[i] = x[i]; }",
        "let i = grid(1); if i < c.len() { } else { c[0] = x[i]; }",
        "let i = grid(1); if i <= c.len() { c[0] = x[i]; }",
        "let i = grid(1); if i < c.len() || i < 7 { c[0] = x[i]; }",
        "let i = grid(1); let mut n = c.len(); n += 1; if i < n { c[0] = x[i]; }",
    ] {
        assert_proves_nothing(&format!("fn k(x: &[f32], c: &mut [f32]) {{ {body} }}"));
    }
}
