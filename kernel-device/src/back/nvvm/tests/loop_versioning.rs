//! Loop versioning (`loop_versioning`, `check_plan::loop_guard`): which `for` loops get a
//! guard before them, what their fast copy still checks, and when the guard is one
//! value for the whole block.

use super::versioning::{definition, first_fast_copy, write_kernel, PANIC_CALL};

/// The text of the first versioned loop's fast copy.
fn fast_loop(text: &str) -> &str {
    first_fast_copy(text, "loop")
}

const BLOCK_VOTE: &str = "@llvm.nvvm.barrier0.and(";

#[test]
fn a_prefetching_tile_loop_checks_nothing_inside_and_votes_per_block() {
    let out = write_kernel(
        "fn k(a: &[f32], out: &mut [f32], n: usize) {
            let tile = shared_array::<[f32; 256]>();
            let t = thread_idx().x as usize;
            let row = block_idx().x as usize;
            let mut next = [0.0f32; 4];
            let mut acc = 0.0f32;
            for k0 in (0..n).step_by(4) {
                let cur = next;
                if k0 + 4 < n {
                    for j in 0..4 {
                        next[j] = a[row * n + k0 + 4 + j];
                    }
                }
                tile[t] = cur[0] + cur[1] + cur[2] + cur[3];
                sync_threads();
                acc += tile[255 - t];
                sync_threads();
            }
            out[row * 256 + t] = acc;
        }",
    );
    let t = &out.text;
    let fast = fast_loop(t);
    assert!(
        !fast.contains(PANIC_CALL),
        "the fast loop checks nothing:\n{fast}"
    );
    // The prefetch runs only while `k0 + 4 < n`: the guard counts those iterations.
    assert!(
        t.contains("%bound.n"),
        "the guard counts the bounded iterations:\n{t}"
    );
    // Both copies have the barriers; the whole block takes one copy.
    assert!(
        t.contains(BLOCK_VOTE),
        "a barrier in the loop: one guard per block:\n{t}"
    );
    let kernel = definition(t, "k");
    assert_eq!(
        kernel.matches("call void @llvm.nvvm.barrier0()").count(),
        4,
        "{kernel}"
    );
}

#[test]
fn an_index_that_is_not_affine_keeps_its_check_in_the_fast_loop() {
    let out = write_kernel(
        "fn k(a: &[f32], out: &mut [f32], n: usize) {
            for i in 0..n {
                out[i] = a[i * i];
            }
        }",
    );
    let fast = fast_loop(&out.text);
    assert_eq!(
        fast.matches(PANIC_CALL).count(),
        1,
        "only `a[i * i]`:\n{fast}"
    );
    assert!(
        !out.text.contains(BLOCK_VOTE),
        "no barrier, no vote:\n{}",
        out.text
    );
}

#[test]
fn loops_with_warp_collectives_or_nothing_to_decide_are_written_once() {
    for (what, text) in [
        (
            "a shuffle",
            "fn k(a: &[f32], out: &mut [f32], n: usize) {
                let mut v = 0.0f32;
                for i in 0..n {
                    v += shfl_down_sync(0xffff_ffffu32, a[i], 1);
                }
                out[grid(1)] = v;
            }",
        ),
        (
            "only indices the loop's end proves",
            "fn k(a: &[f32], out: &mut [f32]) {
                let mut v = 0.0f32;
                for i in (grid(1)..a.len()).step_by(grid_size(1)) {
                    v += a[i];
                }
                out[grid(1)] = v;
            }",
        ),
        (
            "a barrier some iterations skip",
            "fn k(a: &[f32], out: &mut [f32], n: usize) {
                let tile = shared_array::<[f32; 256]>();
                let t = thread_idx().x as usize;
                for i in 0..n {
                    tile[t] = a[i * 256 + t];
                    if i % 2 == 0 {
                        sync_threads();
                    }
                    out[i * 256 + t] = tile[255 - t];
                }
            }",
        ),
        (
            "an index the loop changes",
            "fn k(a: &[f32], out: &mut [f32], n: usize) {
                let mut j = 0usize;
                let mut v = 0.0f32;
                for i in 0..n {
                    j = (j + i) % 7;
                    v += a[j];
                }
                out[grid(1)] = v;
            }",
        ),
    ] {
        let out = write_kernel(text);
        assert!(!out.text.contains("loop.fast:"), "{what}:\n{}", out.text);
    }
}
