//! TMA copies from kernels on the simulator: a 2-D bf16 round trip through a
//! 128-byte-swizzled tile with boxes over the tensor's edge (the tile's bytes held to
//! the swizzle written out by hand here, the store to the tensor), the copy checks'
//! panics, and a two-stage TMA + mbarrier ring with each planted pipeline bug reported
//! and the fixed ring silent.

use std::sync::Arc;

use super::tests::{buffer_of, module, read_back, slice, Rng};
use super::{run, Arg, Buffer, Fault, LaunchShape, Options};
use crate::ir::ScalarType;
use crate::proc::tma::{Swizzle, TensorMapLayout};

const ROUND_TRIP: &str = r#"
#[kernel]
fn round_trip(src: &TensorMap<bf16, 2>, dst: &TensorMap<bf16, 2>, dump: &mut [u16]) {
    let tile = shared_array_aligned::<[bf16; 1024], 1024>();
    let bars = shared_array::<[u64; 1]>();
    let t = thread_idx().x as usize;
    let (bx, by) = (block_idx().x, block_idx().y);
    let at = [(by * 16) as i32, (bx * 64) as i32];
    if t == 0 {
        mbarrier_init(bars, 0, 1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        tma_prefetch(src);
        mbarrier_arrive_expect_tx(bars, 0, 2048);
        tma_load(src, tile, at, bars, 0);
    }
    while !mbarrier_try_wait_parity(bars, 0, 0) {}
    let block = (by * grid_dim().x + bx) as usize;
    for i in 0..8 {
        dump[block * 1024 + i * 128 + t] = tile[i * 128 + t].to_bits();
    }
    sync_threads();
    if t == 0 {
        fence_proxy_async();
        tma_store(dst, at, tile);
        bulk_commit_group();
        bulk_wait_group_read::<0>();
    }
}
"#;

/// 40 rows of 100 bf16 at a 104-element (208-byte) pitch; boxes of 16 x 64.
const ROWS: usize = 40;
const COLS: usize = 100;
const PITCH: usize = 104;

fn map_layout(
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

fn map_arg(layout: &TensorMapLayout, buffer: &Arc<Buffer>) -> Arg {
    Arg::TensorMap {
        descriptor: layout.to_descriptor(0),
        buffer: buffer.clone(),
    }
}

/// The round trip with the store's box moved by `store_shift` rows (0: as written).
fn round_trip(src: &[u16], kernel: &str) -> Result<(Vec<u16>, Vec<u16>), Fault> {
    let layout = map_layout(
        ScalarType::BF16,
        [ROWS as u64, COLS as u64],
        2 * PITCH as u64,
        [16, 64],
        Swizzle::B128,
    );
    let (bs, bd) = (buffer_of(src), buffer_of(&vec![0xDEADu16; ROWS * PITCH]));
    let blocks = 2 * 3;
    let dump = buffer_of(&vec![0u16; blocks * 1024]);
    let shape = LaunchShape {
        grid: [2, 3, 1],
        block: [128, 1, 1],
        dynamic_shared_bytes: 0,
    };
    run(
        &module(kernel, "round_trip"),
        "round_trip",
        &shape,
        &[
            map_arg(&layout, &bs),
            map_arg(&layout, &bd),
            slice(ScalarType::U16, &dump, blocks * 1024, true),
        ],
        &Options::default(),
    )?;
    Ok((
        read_back::<u16>(&bd, ROWS * PITCH),
        read_back::<u16>(&dump, blocks * 1024),
    ))
}

#[test]
fn a_swizzled_bf16_round_trip_lands_where_the_hardware_puts_it() {
    let mut rng = Rng::fresh();
    let src: Vec<u16> = (0..ROWS * PITCH)
        .map(|_| rng.below(1 << 16) as u16)
        .collect();
    let (dst, dump) =
        round_trip(&src, ROUND_TRIP).unwrap_or_else(|f| panic!("seed {}: {f}", rng.seed));
    for r in 0..ROWS {
        for c in 0..PITCH {
            // The store writes each row on to its 16-byte boundary (`stored_elements`):
            // the padding gets the tile's fill.
            let want = if c < COLS { src[r * PITCH + c] } else { 0 };
            assert_eq!(dst[r * PITCH + c], want, "({r}, {c}), seed {}", rng.seed);
        }
    }
    // Each box in shared memory: row `r` at 128 bytes, its 16-byte chunks XORed with
    // `r % 8` (the 128-byte swizzle); outside the tensor, zeros.
    for (block, (by, bx)) in (0..3).flat_map(|y| (0..2).map(move |x| (y, x))).enumerate() {
        for r in 0..16 {
            for c in 0..64 {
                let byte = r * 128 + (((c * 2) / 16) ^ (r % 8)) * 16 + (c * 2) % 16;
                let (gr, gc) = (by * 16 + r, bx * 64 + c);
                let want = if gr < ROWS && gc < COLS {
                    src[gr * PITCH + gc]
                } else {
                    0
                };
                assert_eq!(
                    dump[block * 1024 + byte / 2],
                    want,
                    "block {block} ({r}, {c})"
                );
            }
        }
    }
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

/// A two-stage ring: thread 0 loads 8 x 32 `u32` boxes by TMA into alternate stages,
/// warp 1 sums each column of a stage; `full[s]` completes on the copy's bytes,
/// `empty[s]` on the consumers' 32 arrivals.
const RING: &str = r#"
#[kernel]
fn ring(src: &TensorMap<u32, 2>, out: &mut [u32]) {
    let full = shared_array::<[u64; 2]>();
    let empty = shared_array::<[u64; 2]>();
    let stages = shared_array_aligned::<[u32; 512], 128>();
    let t = thread_idx().x as usize;
    if t == 0 {
        for s in 0..2 {
            mbarrier_init(full, s, 1);
            mbarrier_init(empty, s, 32);
        }
        fence_mbarrier_init();
    }
    sync_threads();
    for it in 0..out.len() / 32 {
        let s = it % 2;
        if t == 0 {
            if it >= 2 {
                while !mbarrier_try_wait_parity(empty, s, ((it / 2 - 1) % 2) as u32) {}
            }
            mbarrier_arrive_expect_tx(full, s, 1024);
            tma_load(src, &mut stages[s * 256..s * 256 + 256], [(it * 8) as i32, 0], full, s);
        } else if t >= 32 {
            let lane = t - 32;
            while !mbarrier_try_wait_parity(full, s, ((it / 2) % 2) as u32) {}
            let mut sum = 0u32;
            for r in 0..8 {
                sum = sum.wrapping_add(stages[s * 256 + r * 32 + lane]);
            }
            out[it * 32 + lane] = sum;
            mbarrier_arrive(empty, s);
        }
    }
}
"#;

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
        &module(kernel, "ring"),
        "ring",
        &shape,
        &[
            map_arg(&layout, &bi),
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

#[test]
fn the_tma_ring_is_silent_and_sums_every_column() {
    let mut rng = Rng::fresh();
    let input: Vec<u32> = (0..RING_ROUNDS * 8 * 32)
        .map(|_| rng.below(1 << 20) as u32)
        .collect();
    let want: Vec<u32> = (0..RING_ROUNDS * 32)
        .map(|i| {
            (0..8)
                .map(|r| input[((i / 32) * 8 + r) * 32 + i % 32])
                .sum()
        })
        .collect();
    let got = run_ring(RING, &input, rng.seed).unwrap_or_else(|f| panic!("seed {}: {f}", rng.seed));
    assert_eq!(got, want, "seed {}", rng.seed);
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
