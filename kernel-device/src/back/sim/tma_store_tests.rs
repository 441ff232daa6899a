//! TMA stores' tiles on the simulator: planted bugs in `tests/gpu/tma.rs`'s
//! `tma_store_ring` (whose fixed version runs there, on both backends). A store reads
//! its tile until a `bulk_wait_group_read` of its thread retires its bulk group: a
//! stage rewritten before then is a race naming the store and the write, whichever of
//! the two the schedule runs first; a block that ends with a store reading is reported.

use super::tests::{buffer_of, module, read_back, slice, Rng};
use super::tma_copy_tests::{map_arg, map_layout};
use super::{run, Fault, LaunchShape, Options};
use crate::ir::ScalarType;
use crate::proc::tma::Swizzle;

const KERNELS: &str = include_str!("../../../../tests/gpu/tma.rs");
const ROUNDS: usize = 6;

/// `tma_store_ring` (`kernel`: the file, perhaps with a bug planted) on `input`, under
/// `seed`'s schedules; the stored tensor.
fn store_ring(kernel: &str, input: &[u32], seed: u64) -> Result<Vec<u32>, Fault> {
    let n = ROUNDS * 256;
    let layout = map_layout(
        ScalarType::U32,
        [(n / 32) as u64, 32],
        128,
        [8, 32],
        Swizzle::None,
    );
    let (bi, bo) = (buffer_of(input), buffer_of(&vec![0xDEAD_BEEFu32; n]));
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(
        &module(kernel, "tma_store_ring"),
        "tma_store_ring",
        &shape,
        &[
            slice(ScalarType::U32, &bi, n, false),
            map_arg(&layout, &bo, true),
        ],
        &Options {
            seed,
            schedules: 4,
            ..Options::default()
        },
    )?;
    Ok(read_back::<u32>(&bo, n))
}

/// The ring with each `from` replaced by its `to`: the planted bug's report, under
/// three schedule seeds (each must find it).
fn planted(edits: &[(&str, &str)]) -> Vec<Fault> {
    let mut kernel = KERNELS.to_string();
    for (from, to) in edits {
        assert_eq!(kernel.matches(from).count(), 1, "{from}");
        kernel = kernel.replace(from, to);
    }
    let input = vec![5u32; ROUNDS * 256];
    [3, 11, 29]
        .into_iter()
        .map(|seed| store_ring(&kernel, &input, seed).expect_err("the planted bug"))
        .collect()
}

/// The store and the write of a race on the stages, in either order. `in_flight`: the
/// write comes while the store still reads (the report says which rule broke); else
/// the schedule may run it after the wait, whose read of the tile (at the store's
/// site) the write is unordered with: a plain race naming the same two sites.
fn assert_store_race(err: &Fault, in_flight: bool) {
    let text = err.to_string();
    let Fault::Race { first, second, .. } = err else {
        panic!("expected a race: {text}");
    };
    assert!(text.contains("shared `stages`"), "{text}");
    assert!(
        !in_flight || text.contains("a tma_store still reads"),
        "{text}"
    );
    let store = line_of("tma_store(dst, [(it * 8) as i32, 0]");
    let write = line_of("stages[s * 256 + e] =");
    let mut lines = [first.site.line, second.site.line];
    lines.sort();
    let mut want = [store, write];
    want.sort();
    assert_eq!(lines, want, "the store and the write: {text}");
}

/// The 1-based line of `tests/gpu/tma.rs` holding `marker`.
fn line_of(marker: &str) -> u32 {
    let at = KERNELS.lines().position(|l| l.contains(marker));
    at.expect("the marker is in the file") as u32 + 1
}

#[test]
fn the_store_ring_runs_silent_and_right_under_several_schedules() {
    let mut rng = Rng::fresh();
    let input: Vec<u32> = (0..ROUNDS * 256).map(|_| rng.next() as u32).collect();
    for seed in [1, 7, rng.next()] {
        let out = store_ring(KERNELS, &input, seed)
            .unwrap_or_else(|f| panic!("input seed {}, seed {seed}: {f}", rng.seed));
        let want: Vec<u32> = input
            .iter()
            .map(|x| x.wrapping_mul(3).wrapping_add(1))
            .collect();
        assert_eq!(out, want, "input seed {}", rng.seed);
    }
}

#[test]
fn a_stage_rewritten_while_its_store_still_reads_is_a_race() {
    // Waiting for all but the two newest groups leaves the round before's store
    // reading the stage the next round writes.
    for err in planted(&[(
        "bulk_wait_group_read::<1>();",
        "bulk_wait_group_read::<2>();",
    )]) {
        assert_store_race(&err, true);
    }
}

#[test]
fn a_wait_after_the_barrier_leaves_the_other_threads_unordered_after_it() {
    // Thread 0 waits, but only after the barrier the writers passed: a writer of the
    // next round is ordered after the store's issue, not after its wait.
    let wait = "            bulk_wait_group_read::<1>();\n        }\n        sync_threads();\n";
    let late = "        }\n        sync_threads();\n        if t == 0 {\n            bulk_wait_group_read::<1>();\n        }\n";
    for err in planted(&[(wait, late)]) {
        assert_store_race(&err, false);
    }
}

#[test]
fn a_block_that_ends_with_a_store_reading_its_tile_is_reported() {
    let last = "    if t == 0 {\n        bulk_wait_group_read::<0>();\n    }\n}";
    for err in planted(&[(last, "}")]) {
        let text = err.to_string();
        assert!(matches!(err, Fault::UnwaitedBulkStore { .. }), "{text}");
        assert!(text.contains("shared `stages`"), "{text}");
        let store = line_of("tma_store(dst, [(it * 8) as i32, 0]");
        assert!(text.contains(&format!("sim.rs:{store}:")), "{text}");
    }
}
