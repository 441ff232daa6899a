//! TMA copies from kernels on the simulator, planted bugs in the kernels of
//! `tests/gpu/tma.rs` (whose fixed versions run there, on both backends): the copy
//! checks' panics in the round trip, and in the TMA + mbarrier ring a consumer reading a
//! stage before its phase, a stage released before its reads, an `expect_tx` one byte
//! over the copy.

use std::sync::Arc;

use super::tests::{buffer_of, module, read_back, slice};
use super::{run, Arg, Buffer, Fault, LaunchShape, Options};
use crate::ir::ScalarType;
use crate::proc::tma::{Swizzle, TensorMapLayout};

/// The kernels of the both-backend tests (`tests/gpu/tma.rs`: `tma_round_trip`,
/// `tma_ring`), read here to plant bugs in them and to look inside the tiles.
const KERNELS: &str = include_str!("../../../../tests/gpu/tma.rs");
const ROUND_TRIP: &str = KERNELS;

/// 40 rows of 100 bf16 at a 104-element (208-byte) pitch; boxes of 16 x 64.
const ROWS: usize = 40;
const COLS: usize = 100;
const PITCH: usize = 104;

pub(super) fn map_layout(
    elem: ScalarType,
    dims: [u64; 2],
    row_bytes: u64,
    box_rc: [u32; 2],
    swizzle: Swizzle,
) -> TensorMapLayout {
    TensorMapLayout {
        elem,
        rank: 2,
        global_dims: [dims[1], dims[0], 1, 1, 1],
        global_strides: [row_bytes, 0, 0, 0],
        box_dims: [box_rc[1], box_rc[0], 1, 1, 1],
        swizzle,
        oob_fill: Default::default(),
        l2_promotion: Default::default(),
    }
}

/// A map argument; `writable` for a `&TensorMapMut` parameter.
pub(super) fn map_arg(layout: &TensorMapLayout, buffer: &Arc<Buffer>, writable: bool) -> Arg {
    Arg::TensorMap {
        descriptor: layout.to_descriptor(0),
        buffer: buffer.clone(),
        writable,
    }
}

/// `tma_round_trip` (`kernel`: the file it is in, perhaps with a bug planted).
fn round_trip(src: &[u16], kernel: &str) -> Result<(), Fault> {
    let layout = map_layout(
        ScalarType::BF16,
        [ROWS as u64, COLS as u64],
        2 * PITCH as u64,
        [16, 64],
        Swizzle::B128,
    );
    // The store map's rows are the padded ones (`padded_store_map`).
    let store_layout = TensorMapLayout {
        global_dims: [PITCH as u64, ROWS as u64, 1, 1, 1],
        ..layout
    };
    let (bs, bd) = (buffer_of(src), buffer_of(&vec![0xDEADu16; ROWS * PITCH]));
    let blocks = 2 * 3;
    let dump = buffer_of(&vec![0u16; blocks * 1024]);
    let shape = LaunchShape {
        grid: [2, 3, 1],
        block: [128, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(
        &module(kernel, "tma_round_trip"),
        "tma_round_trip",
        &shape,
        &[
            map_arg(&layout, &bs, false),
            map_arg(&store_layout, &bd, true),
            slice(ScalarType::U16, &dump, blocks * 1024, true),
        ],
        &Options::default(),
    )
    .map(|_| ())
}

#[test]
fn a_copy_the_gpu_would_fault_on_panics_naming_the_rule() {
    let src = vec![1u16; ROWS * PITCH];
    for (from, to, rule) in [
        // A store before the tensor's start.
        (
            "tma_store(dst, at, tile);",
            "tma_store(dst, [at[0] - 16, at[1]], tile);",
            "a TMA store's box must not start before the tensor: axis 0 starts at -16",
        ),
        // An innermost coordinate 20 bytes into the row.
        (
            "tma_load(src, tile, at, bars, 0);",
            "tma_load(src, tile, [at[0], at[1] + 10], bars, 0);",
            "multiple of 16 bytes into the row: 10 elements of 2 bytes",
        ),
        // A tile too small for the box.
        (
            "tma_load(src, tile, at, bars, 0);",
            "tma_load(src, &mut tile[..1000], at, bars, 0);",
            "a TMA copy's shared tile of 2000 bytes is too small for the map's box, which lands in 2048 bytes",
        ),
        // A tile off the swizzle's 1024-byte repeat.
        (
            "tma_load(src, tile, at, bars, 0);",
            "tma_load(src, &mut tile[64..], at, bars, 0);",
            "shared tile at byte 128 is not 1024-byte aligned",
        ),
    ] {
        let kernel = ROUND_TRIP.replace(from, to);
        assert_ne!(kernel, ROUND_TRIP);
        let err = round_trip(&src, &kernel).expect_err(rule);
        let text = err.to_string();
        assert!(matches!(err, Fault::Panic { .. }), "{text}");
        assert!(text.contains(rule), "{text}");
    }
}

/// `tma_ring`: thread 0 loads 8 x 32 `u32` boxes by TMA into two alternating stages,
/// warp 1 sums each column of a stage; `full[s]` completes on the copy's bytes,
/// `empty[s]` on the consumers' 32 arrivals.
const RING: &str = KERNELS;

const RING_ROUNDS: usize = 6;

fn run_ring(kernel: &str, input: &[u32], seed: u64) -> Result<Vec<u32>, Fault> {
    let layout = map_layout(
        ScalarType::U32,
        [(RING_ROUNDS * 8) as u64, 32],
        128,
        [8, 32],
        Swizzle::None,
    );
    let (bi, bo) = (buffer_of(input), buffer_of(&vec![0u32; RING_ROUNDS * 32]));
    let shape = LaunchShape {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(
        &module(kernel, "tma_ring"),
        "tma_ring",
        &shape,
        &[
            map_arg(&layout, &bi, false),
            slice(ScalarType::U32, &bo, RING_ROUNDS * 32, true),
        ],
        &Options {
            seed,
            schedules: 4,
            ..Options::default()
        },
    )?;
    Ok(read_back::<u32>(&bo, RING_ROUNDS * 32))
}

/// The ring with `from` replaced by `to`: the planted bug's report.
fn planted(from: &str, to: &str) -> (Fault, String) {
    let kernel = RING.replace(from, to);
    assert_ne!(kernel, RING, "{from}");
    let input = vec![1u32; RING_ROUNDS * 8 * 32];
    let err = run_ring(&kernel, &input, 7).expect_err(to);
    let text = err.to_string();
    (err, text)
}

#[test]
fn a_consumer_reading_a_stage_before_its_phase_is_a_race_on_the_stage() {
    let (err, text) = planted(
        "while !mbarrier_try_wait_parity(full, s, ((it / 2) % 2) as u32) {}",
        "",
    );
    assert!(
        matches!(
            err,
            Fault::Race { .. } | Fault::ReadBeforeWrite { .. } | Fault::UninitialisedRead { .. }
        ),
        "{text}"
    );
    assert!(text.contains("`stages`"), "{text}");
}

#[test]
fn a_stage_released_before_its_reads_is_refilled_under_them_a_race() {
    // The consumers arrive on `empty` before reading: the producer's wait for that
    // release then lets it refill the stage while they still read it.
    let kernel = RING
        .replace("            mbarrier_arrive(empty, s);\n", "")
        .replace(
            "((it / 2) % 2) as u32) {}\n",
            "((it / 2) % 2) as u32) {}\n            mbarrier_arrive(empty, s);\n",
        );
    assert_eq!(kernel.matches("mbarrier_arrive(empty, s)").count(), 1);
    let input = vec![1u32; RING_ROUNDS * 8 * 32];
    let err = run_ring(&kernel, &input, 7).expect_err("a refill under the reads");
    let text = err.to_string();
    assert!(matches!(err, Fault::Race { .. }), "{text}");
    assert!(text.contains("`stages`"), "{text}");
}

#[test]
fn an_expect_tx_one_byte_over_the_copy_is_the_deadlock_report() {
    let (err, text) = planted(
        "mbarrier_arrive_expect_tx(full, s, 1024);",
        "mbarrier_arrive_expect_tx(full, s, 1025);",
    );
    assert!(matches!(err, Fault::Deadlock(_)), "{text}");
    assert!(text.contains("1 transaction bytes outstanding"), "{text}");
    assert!(text.contains("`full`[0]"), "{text}");
}

#[test]
fn a_producer_that_skips_its_wait_for_room_is_a_race_on_the_stage() {
    // The producer refills a stage without waiting on `empty[s]`: its copy overwrites
    // the stage the consumers may still read. Its arrival on `full[s]` must not
    // acquire the consumers' reads through their waits on `full[s]`.
    let (err, text) = planted(
        "while !mbarrier_try_wait_parity(empty, s, ((it / 2 - 1) % 2) as u32) {}",
        "",
    );
    let Fault::Race { first, second, .. } = &err else {
        panic!("expected a race: {text}");
    };
    assert!(text.contains("`stages`"), "{text}");
    assert_ne!(first.site.line, second.site.line, "two sites: {text}");
}

#[test]
fn the_ring_runs_silent_and_right_under_several_schedules() {
    let mut rng = super::tests::Rng::fresh();
    let input: Vec<u32> = (0..RING_ROUNDS * 8 * 32)
        .map(|_| rng.next() as u32)
        .collect();
    for seed in [1, 7, rng.next()] {
        let out = run_ring(RING, &input, seed)
            .unwrap_or_else(|f| panic!("input seed {}, seed {seed}: {f}", rng.seed));
        for it in 0..RING_ROUNDS {
            for lane in 0..32 {
                let want =
                    (0..8).fold(0u32, |a, r| a.wrapping_add(input[(it * 8 + r) * 32 + lane]));
                assert_eq!(out[it * 32 + lane], want, "input seed {}", rng.seed);
            }
        }
    }
}
