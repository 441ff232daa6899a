//! Bounds-check versioning (`versioning`, `check_plan`): which runs get a guard, what
//! the fast copy still checks, and that barriers are never duplicated.

use super::check_with_toolchain;
use crate::back::nvvm::{write_string, Options, Output};
use crate::front::lower_sources;
use crate::front::tests::source;
use crate::source::SourceKind;

/// The kernel `text` lowered by the frontend and written as NVVM IR (and, with the
/// toolchain configured, compiled by libnvvm and ptxas).
pub(super) fn write_kernel(text: &str) -> Output {
    let module = lower_sources(&[source(text, SourceKind::Kernel, 1)])
        .unwrap_or_else(|e| panic!("unexpected errors: {e:#?}"));
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    check_with_toolchain(&out.text);
    out
}

/// The text of the first fast copy of a versioned `kind` (`run` or `loop`): from
/// `{kind}.fast:` to `{kind}.checked:`.
pub(super) fn first_fast_copy<'t>(text: &'t str, kind: &str) -> &'t str {
    let start = text
        .find(&format!("\n{kind}.fast:"))
        .unwrap_or_else(|| panic!("a versioned {kind}"));
    let end = text[start..]
        .find(&format!("\n{kind}.checked:"))
        .expect("its checked copy")
        + start;
    &text[start..end]
}

/// The definition of the function `symbol` in `text`, up to its closing brace.
pub(super) fn definition<'t>(text: &'t str, symbol: &str) -> &'t str {
    let start = text
        .find(&format!("define void @{symbol}("))
        .unwrap_or_else(|| panic!("no kernel `{symbol}` in:\n{text}"));
    let end = text[start..].find("\n}\n").expect("its closing brace") + start;
    &text[start..end]
}

/// The text of the first fast copy of a run.
fn fast_copy(text: &str) -> &str {
    first_fast_copy(text, "run")
}

/// The guard's strided checks (`GuardOp::CheckStrided`) in `text`.
fn strided_checks(text: &str) -> usize {
    text.lines()
        .filter(|l| l.trim_start().starts_with("%guard.stepok"))
        .count()
}

pub(super) const PANIC_CALL: &str = "call void @__cudajit_panic(";

#[test]
fn a_literal_loop_of_pure_indices_runs_unchecked_behind_one_guard() {
    let out = write_kernel(
        "fn k(input: &[f32], out: &mut [f32], n: usize) {
            let tile = shared_array::<[[f32; 33]; 32]>();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let x = block_idx().x as usize * 32 + tx;
            let y = block_idx().y as usize * 32 + ty;
            for j in (0..32).step_by(8) {
                tile[ty + j][tx] = input[(y + j) * n + x];
            }
            out[0] = tile[0][0];
        }",
    );
    let t = &out.text;
    let fast = fast_copy(t);
    assert!(
        !fast.contains(PANIC_CALL),
        "the fast copy checks nothing:\n{fast}"
    );
    // The input index is affine in `j` with a run-time stride (`j * n`): checked at the
    // loop's first two elements (one strided check). The tile row only shifts by the
    // constants 0, 8, 16, 24: its lowest and highest are compared (opt/check_plan's
    // merge); the tile column once; out[0].
    let compares = t
        .lines()
        .filter(|l| l.trim_start().starts_with("%guard.ok"))
        .count();
    assert_eq!(compares, 5, "{t}");
    assert_eq!(strided_checks(t), 1, "{t}");
    // The checked copy keeps every check, with the unversioned code's sites: the tile's
    // two indices, input's, out's (tile[0][0] has literal indices, checked by no one).
    assert_eq!(out.panic_sites.len(), 4, "{:?}", out.panic_sites);
}

#[test]
fn an_index_read_from_memory_keeps_its_check_in_the_fast_copy() {
    let out = write_kernel(
        "fn k(idx: &[u32], out: &mut [u32]) {
            for j in 0..4 {
                out[idx[j] as usize] = 1;
            }
        }",
    );
    let fast = fast_copy(&out.text);
    // idx[j] is decided by the guard; out[idx[j]] is not (it reads memory).
    assert_eq!(fast.matches(PANIC_CALL).count(), 1, "{fast}");
    assert_eq!(out.panic_sites.len(), 2, "{:?}", out.panic_sites);
}

#[test]
fn a_local_assigned_in_the_run_is_not_read_by_the_guard() {
    let out = write_kernel(
        "fn k(out: &mut [u32], start: usize) {
            let mut i = start;
            out[i] = 1;
            out[i + 1] = 2;
            i += 5;
            out[i] = 3;
        }",
    );
    let fast = fast_copy(&out.text);
    // out[i] and out[i + 1] are decided; out[i] after `i += 5` is checked where it is.
    assert_eq!(fast.matches(PANIC_CALL).count(), 1, "{fast}");
    let line_of_third = out.panic_sites.iter().map(|s| s.line).max().expect("sites");
    assert_eq!(line_of_third, 6);
}

#[test]
fn barriers_and_warp_operations_are_never_duplicated() {
    let out = write_kernel(
        "fn k(a: &mut [f32], b: &[f32]) {
            let i = grid(1);
            a[i] = b[i] + b[i + 1];
            sync_threads();
            a[i + 1] = b[i] + shfl_down_sync(0xffffffffu32, b[i + 2], 1);
            a[i + 2] = b[i + 3] + b[i + 4];
        }",
    );
    // (The kernel's copy without the checks its launch proves has its own barrier.)
    let t = definition(&out.text, "k");
    assert_eq!(
        t.matches("call void @llvm.nvvm.barrier0()").count(),
        1,
        "{t}"
    );
    assert_eq!(t.matches("call i32 @llvm.nvvm.shfl.sync").count(), 1, "{t}");
    // The runs around them are versioned on their own.
    assert_eq!(t.matches("\nrun.fast").count(), 2, "{t}");
}

#[test]
fn constant_indices_after_unrolling_need_no_guard_at_all() {
    let out = write_kernel(
        "fn k(out: &mut [f32]) {
            let mut acc = [[0.0f32; 4]; 4];
            for m in 0..4 {
                for j in 0..4 {
                    acc[m][j] += (m * 4 + j) as f32;
                }
            }
            out[0] = acc[3][3];
        }",
    );
    let t = &out.text;
    // Every check of acc[m][j] is decided while planning: the guard compares only
    // out's index with its length.
    let compares = t
        .lines()
        .filter(|l| l.trim_start().starts_with("%guard.ok"))
        .count();
    assert_eq!(compares, 1, "{t}");
    let fast = fast_copy(t);
    assert!(!fast.contains(PANIC_CALL), "{fast}");
}

#[test]
fn a_run_of_one_check_is_left_as_written() {
    let out = write_kernel(
        "fn k(out: &mut [f32]) {
            let i = grid(1);
            out[i] = 1.0;
        }",
    );
    assert!(!out.text.contains("run.fast"), "{}", out.text);
}

#[test]
fn a_loop_ending_at_a_slices_length_indexes_it_unchecked() {
    let out = write_kernel(
        "fn k(x: &[f32], out: &mut [f32]) {
            let n = x.len();
            let mut v = 0.0f32;
            for i in (grid(1)..x.len()).step_by(grid_size(1)) {
                v += x[i];
            }
            for i in 0..n {
                v += x[i] + out[i];
            }
            out[0] = v;
        }",
    );
    // x[i] is proven in both loops; out[i] (another slice) and out[0] keep their checks.
    let lines: Vec<u32> = out
        .panic_sites
        .iter()
        .filter(|s| s.message.starts_with("index out of bounds"))
        .map(|s| s.line)
        .collect();
    assert_eq!(lines, vec![8, 10], "{:?}", out.panic_sites);
}

#[test]
fn a_reassigned_slice_or_an_inclusive_range_proves_nothing() {
    let out = write_kernel(
        "fn k(x: &[f32], out: &mut [f32]) {
            let mut s = x;
            let n = s.len();
            s = &x[1..];
            let mut v = 0.0f32;
            for i in 0..n {
                v += s[i];
            }
            for i in 0..=x.len() {
                v += x[i];
            }
            out[0] = v;
        }",
    );
    let lines: Vec<u32> = out
        .panic_sites
        .iter()
        .filter(|s| s.message.starts_with("index out of bounds"))
        .map(|s| s.line)
        .collect();
    assert_eq!(lines, vec![7, 10, 12], "{:?}", out.panic_sites);
}

#[test]
fn an_index_not_affine_in_the_loop_variable_is_checked_at_its_extreme_offsets() {
    let out = write_kernel(
        "fn k(input: &[f32], out: &mut [f32]) {
            let i = grid(1);
            for j in 0..4 {
                out[i * 16 + j * j] = input[i + j * 64];
            }
        }",
    );
    let t = &out.text;
    // The literal loop makes both indices `i * 16` and `i` plus the constants j * j
    // (0, 1, 4, 9) and j * 64: no strided check; each slice's lowest and highest offsets
    // are compared, which decides every element's check exactly (opt/check_plan's merge).
    assert_eq!(strided_checks(t), 0, "{t}");
    let plain = t
        .lines()
        .filter(|l| l.trim_start().starts_with("%guard.ok") && l.contains("icmp ult"))
        .count();
    assert_eq!(plain, 4, "{t}");
}

#[test]
fn a_narrow_index_cast_after_the_arithmetic_is_not_strided() {
    // `(t + j) as usize` with `t: u32` wraps at 2^32 before the cast: not affine in
    // 64-bit arithmetic, so each element keeps its own comparison.
    let out = write_kernel(
        "fn k(out: &mut [f32]) {
            let t = thread_idx().x;
            for j in 0..4u32 {
                out[(t + j) as usize] = 1.0;
            }
        }",
    );
    assert!(!out.text.contains("%guard.stepok"), "{}", out.text);
}

#[test]
fn the_checked_copys_loops_stay_rolled_unless_they_index_a_local_array() {
    let out = write_kernel(
        "fn k(input: &[f32], out: &mut [f32]) {
            let i = grid(1);
            let mut acc = [0.0f32; 4];
            for j in 0..4 {
                acc[j] = input[i * 4 + j];
            }
            for j in 0..4 {
                out[i * 4 + j] = input[i + j * 8];
            }
            out[i] += acc[1];
        }",
    );
    let t = &out.text;
    // One rolled loop (the second run's checked copy), none in the fast copies.
    assert_eq!(t.matches(", !llvm.loop !").count(), 1, "{t}");
    assert!(t.contains("!{!\"llvm.loop.unroll.disable\"}"), "{t}");
    let fast = fast_copy(t);
    assert!(!fast.contains("!llvm.loop"), "{fast}");
}

#[test]
fn unroll_hints_and_launch_bounds_reach_the_nvvm_ir() {
    let text = "fn k(a: &mut [f32], n: usize) {
        #[unroll]
        for i in 0..8 { a[i] = 0.0; }
        #[unroll(4)]
        for i in 0..n { a[i] += 1.0; }
    }";
    let template = source(text, SourceKind::Kernel, 1);
    let bounded: &'static crate::source::FnSource = Box::leak(Box::new(crate::source::FnSource {
        options: crate::ir::FunctionOptions {
            launch_bounds: Some(crate::ir::LaunchBounds {
                max_threads: 256,
                min_blocks: 2,
                block_dim: None,
            }),
            ..template.options
        },
        ..*template
    }));
    let module = lower_sources(&[bounded]).unwrap_or_else(|e| panic!("{e:#?}"));
    let out = write_string(&module, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    check_with_toolchain(&out.text);
    let t = &out.text;
    assert!(t.contains("!{!\"llvm.loop.unroll.full\"}"), "{t}");
    assert!(t.contains("!{!\"llvm.loop.unroll.count\", i32 4}"), "{t}");
    assert!(t.contains("@k, !\"maxntidx\", i32 256}"), "{t}");
    assert!(t.contains("@k, !\"minctasm\", i32 2}"), "{t}");
    assert!(t.contains("!nvvm.annotations = !{"), "{t}");
}
