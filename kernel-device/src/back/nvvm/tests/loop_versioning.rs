//! Loop versioning (`loop_versioning`, `check_plan::loop_guard`): which `for` loops get a
//! guard before them, what their fast copy still checks, and when the guard is one
//! value for the whole block.

use super::versioning::{definition, first_fast_copy, write_kernel, PANIC_CALL};

/// The text of the first versioned loop's fast copy, up to the loop's end: a kernel's
/// last block-uniform loop has its own copy of the statements after it
/// (`kernel_body`), which are not the loop's.
fn fast_loop(text: &str) -> &str {
    let copy = first_fast_copy(text, "loop");
    // The loop's own exit is the first loop exit its copy branches to (the outer loop's
    // condition block comes before any inner loop's).
    let Some(at) = copy.find("label %for.end") else {
        return copy;
    };
    let name: String = copy[at + "label %".len()..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '_')
        .collect();
    match copy.find(&format!("\n{name}:")) {
        Some(end) => &copy[..end],
        None => copy,
    }
}

const BLOCK_VOTE: &str = "@llvm.nvvm.barrier0.and(";

/// A loop with barriers whose prefetch of the next tile indexes affinely in `k0`.
const PREFETCHING_TILE_LOOP: &str = "fn k(a: &[f32], out: &mut [f32], n: usize) {
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
}";

#[test]
fn a_prefetching_tile_loop_checks_nothing_inside_and_votes_per_block() {
    let out = write_kernel(PREFETCHING_TILE_LOOP);
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

/// The value `line` (`store i1 VALUE, i1* %slot`) stores.
fn stored_value(line: &str) -> &str {
    let rest = line.trim().strip_prefix("store i1 ").expect("an i1 store");
    &rest[..rest.find(',').expect("its operands")]
}

#[test]
fn the_copy_a_block_takes_is_a_constant_or_its_warp_uniform_vote() {
    // ptxas keeps convergence barriers (BSSY/BSYNC, WARPSYNC) out of the fast loop only
    // when every path into it is warp-uniform to its eyes: the guard of a loop without
    // iterations is a constant, not the thread's own guard, and the block's vote is
    // re-read by `vote.sync.all` (ptxas does not know `bar.red`'s predicate is uniform).
    let out = write_kernel(PREFETCHING_TILE_LOOP);
    let t = definition(&out.text, "k");
    let stores: Vec<&str> = t
        .lines()
        .filter(|l| l.trim().starts_with("store i1 ") && l.contains("i1* %loop.guard"))
        .map(stored_value)
        .collect();
    assert_eq!(stores.len(), 2, "the zero-trip value, then the vote:\n{t}");
    assert_eq!(stores[0], "false", "no iterations: the checked copy:\n{t}");
    let vote = stores[1];
    let vote_line = t
        .lines()
        .find(|l| l.trim().starts_with(&format!("{vote} = ")))
        .unwrap_or_else(|| panic!("the definition of {vote}:\n{t}"));
    assert!(
        vote_line.contains("call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %barrier.all"),
        "the block's vote over the whole warp: {vote_line}"
    );
    // Which comes from the block barrier's `and`.
    let barrier = t
        .lines()
        .find(|l| l.trim().starts_with("%barrier.all = "))
        .expect("the block's vote");
    assert!(barrier.contains("icmp ne i32 %barrier"), "{barrier}");
    assert!(t.contains(BLOCK_VOTE), "{t}");
}

/// The writer's read of the `out` slice parameter's pointer and length.
const OUT_SLICE_READ: &str = "= load { float*, i64 }, { float*, i64 }* %out.addr";

/// A kernel's last block-uniform versioned loop takes the statements after it into each
/// copy (`kernel_body`): the fast loop's values never join the checked loop's before the
/// epilogue reads them (see the writer's reason, measured on the tf32 GEMM).
#[test]
fn the_last_block_uniform_loop_has_its_own_epilogue_in_each_copy() {
    let out = write_kernel(PREFETCHING_TILE_LOOP);
    let t = &out.text;
    let kernel = definition(t, "k");
    // `out[row * 256 + t] = acc` (the loop does not use `out`), once per copy.
    let out_reads = |text: &str| text.matches(OUT_SLICE_READ).count();
    assert_eq!(out_reads(kernel), 2, "{kernel}");
    let fast_copy = first_fast_copy(t, "loop");
    assert_eq!(out_reads(fast_copy), 1, "{fast_copy}");
    assert_eq!(
        out_reads(fast_loop(t)),
        0,
        "the loop itself does not use `out`"
    );
}

/// Only the last such loop: of two tile loops in a row, the statements after the second
/// are written twice and the second loop once per copy (not inside the first one's).
#[test]
fn only_the_last_block_uniform_loop_copies_what_follows() {
    let out = write_kernel(
        "fn k(a: &[f32], out: &mut [f32], n: usize) {
            let tile = shared_array::<[f32; 256]>();
            let t = thread_idx().x as usize;
            let row = block_idx().x as usize;
            let mut acc = 0.0f32;
            for k0 in 0..n {
                tile[t] = a[row * n + k0];
                sync_threads();
                acc += tile[255 - t];
                sync_threads();
            }
            for k0 in 0..n {
                tile[t] = a[row * n + k0] * 2.0;
                sync_threads();
                acc += tile[255 - t];
                sync_threads();
            }
            out[row * 256 + t] = acc;
        }",
    );
    let kernel = definition(&out.text, "k");
    // Two versioned loops of two barriers, each loop in a fast and a checked copy: eight
    // barriers; the epilogue once after each of the second loop's copies.
    assert_eq!(
        kernel.matches("call void @llvm.nvvm.barrier0()").count(),
        8,
        "{kernel}"
    );
    assert_eq!(kernel.matches(OUT_SLICE_READ).count(), 2, "{kernel}");
}
