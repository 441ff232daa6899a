//! TMA from kernels, on both backends: a 2-D bf16 round trip through a
//! 128-byte-swizzled shared tile (boxes over the tensor's edge; each tile's raw bytes
//! held to the swizzle written out by hand, the store through a map of the padded rows),
//! a two-stage TMA + mbarrier producer/consumer ring, a two-stage store ring whose
//! `bulk_wait_group_read::<1>` frees the tile of the round before, and maps ordered
//! across streams as their arrays are, a map of another device refused. Random inputs, poisoned outputs, CPU references.
//! TMA needs sm_90: on an older GPU the launch is an `Err` naming the feature.

use super::common;
use cudajit::prelude::*;
use cudajit::{Swizzle, TensorMap, TensorMapMut, TensorMapOptions};

/// 40 rows of 100 bf16 at a 104-element (208-byte) pitch; boxes of 16 x 64.
const ROWS: usize = 40;
const COLS: usize = 100;
const PITCH: usize = 104;

#[kernel]
fn tma_round_trip(src: &TensorMap<bf16, 2>, dst: &TensorMapMut<bf16, 2>, dump: &mut [u16]) {
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

fn swizzled() -> TensorMapOptions {
    TensorMapOptions {
        swizzle: Swizzle::B128,
        ..TensorMapOptions::default()
    }
}

/// The 100 columns of each padded row, to load from.
fn padded_map(array: &DeviceArray<bf16>) -> TensorMap<'_, bf16, 2> {
    let shape = [ROWS as u64, COLS as u64];
    TensorMap::with_strides(array, shape, [2 * PITCH as u64, 2], [16, 64], swizzled())
        .expect("a valid map")
}

/// Whole padded rows (104 columns, 208 bytes), to store into: a map of the 100 columns
/// is refused, as a store would write each row on to its 16-byte boundary.
fn padded_store_map(array: &mut DeviceArray<bf16>) -> TensorMapMut<'_, bf16, 2> {
    let shape = [ROWS as u64, PITCH as u64];
    TensorMapMut::with_strides(array, shape, [2 * PITCH as u64, 2], [16, 64], swizzled())
        .expect("a valid map")
}

#[test]
fn a_tma_round_trip_through_a_swizzled_tile_matches_the_cpu() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("tma round trip");
    let bits: Vec<u16> = (0..ROWS * PITCH).map(|_| rng.next_u64() as u16).collect();
    let src: Vec<bf16> = bits.iter().map(|&b| bf16::from_bits(b)).collect();
    let src_array = DeviceArray::from_slice(&src).expect("upload");
    let mut dst_array =
        DeviceArray::from_slice(&vec![bf16::from_bits(0xDEAD); ROWS * PITCH]).expect("upload");
    let (src_map, dst_map) = (padded_map(&src_array), padded_store_map(&mut dst_array));
    let mut dump = vec![0xBEEFu16; 6 * 1024];
    let launched = launch!(tma_round_trip[(2, 3), 128](&src_map, &dst_map, &mut dump));
    if gpu.compute_capability() < (9, 0) {
        let err = launched.unwrap_err();
        assert!(err.to_string().contains("compute capability 9.0"), "{err}");
        return;
    }
    launched.expect("launch");
    drop(dst_map);
    let dst: Vec<u16> = dst_array
        .to_host()
        .expect("download")
        .iter()
        .map(|v| v.to_bits())
        .collect();
    for r in 0..ROWS {
        for c in 0..PITCH {
            // The store map's rows are the padded ones: the padding gets the tile's
            // fill, loaded from outside the 100 columns.
            let want = if c < COLS { bits[r * PITCH + c] } else { 0 };
            assert_eq!(dst[r * PITCH + c], want, "({r}, {c})");
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
                    bits[gr * PITCH + gc]
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

const ROUNDS: usize = 12;

/// Thread 0 loads 8 x 32 `u32` boxes by TMA into two alternating stages; warp 1 sums
/// each column of a stage. `full[s]` completes on the copy's bytes, `empty[s]` on the
/// consumers' 32 arrivals.
#[kernel]
fn tma_ring(src: &TensorMap<u32, 2>, out: &mut [u32]) {
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
            tma_load(
                src,
                &mut stages[s * 256..s * 256 + 256],
                [(it * 8) as i32, 0],
                full,
                s,
            );
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

#[test]
fn a_tma_mbarrier_ring_matches_the_cpu() {
    let gpu = require_gpu!();
    if gpu.compute_capability() < (9, 0) {
        return;
    }
    let mut rng = common::Rng::fresh("tma ring");
    let input: Vec<u32> = (0..ROUNDS * 8 * 32)
        .map(|_| rng.next_u64() as u32)
        .collect();
    let array = DeviceArray::from_slice(&input).expect("upload");
    let nd = DeviceNd::from_array(array, [ROUNDS * 8, 32]).expect("2-d");
    let map = TensorMap::tiled(&nd, [8, 32], TensorMapOptions::default()).expect("a valid map");
    let mut out = vec![0xDEAD_BEEFu32; ROUNDS * 32];
    launch!(tma_ring[1, 64](&map, &mut out)).expect("launch");
    for it in 0..ROUNDS {
        for lane in 0..32 {
            let want = (0..8).fold(0u32, |a, r| a.wrapping_add(input[(it * 8 + r) * 32 + lane]));
            assert_eq!(out[it * 32 + lane], want, "round {it} lane {lane}");
        }
    }
}

/// A map's descriptor holds its array's address, which means nothing on another
/// device: a launch elsewhere is an `Err` naming the argument, before any copy runs.
#[test]
fn a_map_made_on_another_device_is_an_err_naming_it() {
    let gpu = require_gpu!();
    if gpu.compute_capability() < (9, 0) {
        return;
    }
    let elsewhere = Device::simulators(2).expect("two simulated devices");
    let array = DeviceArray::from_slice_on(&elsewhere[1], &[7u32; 8 * 32]).expect("upload");
    let nd = DeviceNd::from_array(array, [8, 32]).expect("2-d");
    let map = TensorMap::tiled(&nd, [8, 32], TensorMapOptions::default()).expect("a valid map");
    let mut out = vec![0xDEAD_BEEFu32; 32];
    let err = launch!(tma_ring[1, 64](&map, &mut out)).expect_err("a map of another device");
    let message = err.to_string();
    assert!(
        matches!(err, cudajit::Error::ArgumentMismatch { .. })
            && message.contains("argument 1 is a tensor map of an array on simulated device 1"),
        "{message}"
    );
    assert!(out.iter().all(|&x| x == 0xDEAD_BEEF), "the kernel ran");
}

/// A load whose innermost coordinate is `inner` (in elements) and a store at row
/// `row`: the copies the H200 stops with `CUDA_ERROR_ILLEGAL_INSTRUCTION` unless the
/// checks catch them first.
#[kernel]
fn tma_misplaced(src: &TensorMapMut<u16, 2>, inner: i32, row: i32, out: &mut [u16]) {
    let tile = shared_array_aligned::<[u16; 1024], 1024>();
    let bars = shared_array::<[u64; 1]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        mbarrier_init(bars, 0, 1);
        fence_mbarrier_init();
        mbarrier_arrive_expect_tx(bars, 0, 2048);
        tma_load(src, tile, [0, inner], bars, 0);
        while !mbarrier_try_wait_parity(bars, 0, 0) {}
        out[0] = tile[0];
        fence_proxy_async();
        tma_store(src, [row, 0], tile);
        bulk_commit_group();
        bulk_wait_group_read::<0>();
    }
}

#[test]
fn a_copy_the_gpu_would_fault_on_is_a_panic_naming_the_rule() {
    let gpu = require_gpu!();
    if gpu.compute_capability() < (9, 0) {
        return;
    }
    let array = DeviceArray::from_slice(&vec![7u16; 64 * 64]).expect("upload");
    let mut nd = DeviceNd::from_array(array, [64, 64]).expect("2-d");
    let map = TensorMapMut::tiled(&mut nd, [16, 64], TensorMapOptions::default()).expect("a map");
    for (inner, row, rule) in [
        (
            10,
            0,
            "multiple of 16 bytes into the row: 10 elements of 2 bytes",
        ),
        (
            0,
            -3,
            "a TMA store's box must not start before the tensor: axis 0 starts at -3",
        ),
    ] {
        let mut out = vec![0u16; 1];
        let err = launch!(tma_misplaced[1, 32](&map, inner, row, &mut out)).unwrap_err();
        assert!(err.to_string().contains(rule), "{err}");
    }
    // The context is still usable, and the copies at valid places run.
    let mut out = vec![0u16; 1];
    launch!(tma_misplaced[1, 32](&map, 8, 16, &mut out)).expect("launch");
    assert_eq!(out[0], 7);
}

const STORE_ROUNDS: usize = 10;

/// Each round every thread writes its share of an 8 x 32 tile of `u32` (the input,
/// times 3 plus 1) into one of two stages, and thread 0 stores the stage through TMA;
/// its `bulk_wait_group_read::<1>` leaves this round's store reading while it frees the
/// other stage (the round before's), which the next round writes after the barrier.
#[kernel]
fn tma_store_ring(input: &[u32], dst: &TensorMapMut<u32, 2>) {
    let stages = shared_array_aligned::<[u32; 512], 128>();
    let t = thread_idx().x as usize;
    for it in 0..input.len() / 256 {
        let s = it % 2;
        for k in 0..4 {
            let e = k * 64 + t;
            stages[s * 256 + e] = input[it * 256 + e].wrapping_mul(3).wrapping_add(1);
        }
        fence_proxy_async();
        sync_threads();
        if t == 0 {
            tma_store(dst, [(it * 8) as i32, 0], &stages[s * 256..s * 256 + 256]);
            bulk_commit_group();
            bulk_wait_group_read::<1>();
        }
        sync_threads();
    }
    if t == 0 {
        bulk_wait_group_read::<0>();
    }
}

#[test]
fn a_tma_store_ring_matches_the_cpu() {
    let gpu = require_gpu!();
    if gpu.compute_capability() < (9, 0) {
        return;
    }
    let mut rng = common::Rng::fresh("tma store ring");
    let n = STORE_ROUNDS * 256;
    let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let poison = DeviceArray::from_slice(&vec![0xDEAD_BEEFu32; n]).expect("upload");
    let mut out = DeviceNd::from_array(poison, [n / 32, 32]).expect("2-d");
    let map = TensorMapMut::tiled(&mut out, [8, 32], TensorMapOptions::default()).expect("map");
    launch!(tma_store_ring[1, 64](&input, &map)).expect("launch");
    drop(map);
    let got = out.array().to_host().expect("download");
    for (i, (&g, &x)) in got.iter().zip(&input).enumerate() {
        assert_eq!(g, x.wrapping_mul(3).wrapping_add(1), "element {i}");
    }
}

/// `x` after `rounds` steps of `x -> 1664525 x + 1013904223`, slowly (one step at a
/// time: a kernel doing this is slow enough on a GPU that a launch on another stream
/// that did not wait for it would see or clobber the array mid-way).
#[device]
fn lcg(x: u32, rounds: u32) -> u32 {
    let mut x = x;
    for _ in 0..rounds {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    }
    x
}

/// Each block stores one 8 x 32 box: element `i` is `lcg(i ^ seed, rounds)`.
#[kernel]
fn slow_store(dst: &TensorMapMut<u32, 2>, seed: u32, rounds: u32) {
    let tile = shared_array_aligned::<[u32; 256], 128>();
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    tile[t] = lcg((b * 256 + t) as u32 ^ seed, rounds);
    fence_proxy_async();
    sync_threads();
    if t == 0 {
        tma_store(dst, [(b * 8) as i32, 0], tile);
        bulk_commit_group();
        bulk_wait_group_read::<0>();
    }
}

/// Each block loads one 8 x 32 box and writes `lcg(x, rounds)` of each element `x`.
#[kernel]
fn slow_load(src: &TensorMap<u32, 2>, out: &mut [u32], rounds: u32) {
    let tile = shared_array_aligned::<[u32; 256], 128>();
    let bars = shared_array::<[u64; 1]>();
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    if t == 0 {
        mbarrier_init(bars, 0, 1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        mbarrier_arrive_expect_tx(bars, 0, 1024);
        tma_load(src, tile, [(b * 8) as i32, 0], bars, 0);
    }
    while !mbarrier_try_wait_parity(bars, 0, 0) {}
    out[b * 256 + t] = lcg(tile[t], rounds);
}

#[kernel]
fn plus_one(a: &[u32], out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = a[i].wrapping_add(1);
    }
}

#[kernel]
fn times_three_plus_five(a: &mut [u32]) {
    let i = grid(1);
    if i < a.len() {
        a[i] = a[i].wrapping_mul(3).wrapping_add(5);
    }
}

/// A map takes part in the launch's stream ordering as its array would: a store on
/// stream 1, then a plain read of the array on stream 2, sees the store
/// (read-after-write through a `TensorMapMut`); a load on stream 1, then a plain write
/// on stream 2, does not clobber what the load reads (write-after-read through a
/// `TensorMap`). On the simulator launches finish before they return.
#[test]
fn a_maps_array_is_ordered_across_streams_as_the_array_is() {
    let device = require_gpu!();
    if device.compute_capability() < (9, 0) {
        return;
    }
    let (n, rounds, repeats) = if device.is_simulator() {
        (1024, 3, 2)
    } else {
        (1 << 20, 2000, 10)
    };
    let (s1, s2) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let step = lcg_reference(rounds);
    let mut rng = common::Rng::fresh("tma streams");
    let boxes = TensorMapOptions::default();
    for _ in 0..repeats {
        let seed = rng.next_u64() as u32;
        let zeros = device.zeros::<u32>(n).unwrap();
        let mut a = DeviceNd::from_array(zeros, [n / 32, 32]).unwrap();
        let poison = vec![0xDEAD_BEEFu32; n];
        let mut read = DeviceArray::from_slice_on(&device, &poison).unwrap();
        let mut loaded = DeviceArray::from_slice_on(&device, &poison).unwrap();
        let store = TensorMapMut::tiled(&mut a, [8, 32], boxes).unwrap();
        launch!(slow_store[n / 256, 256, &s1](&store, seed, rounds)).unwrap();
        drop(store);
        launch!(plus_one[n / 256, 256, &s2](a.array(), &mut read)).unwrap();
        let load = TensorMap::tiled(&a, [8, 32], boxes).unwrap();
        launch!(slow_load[n / 256, 256, &s1](&load, &mut loaded, rounds)).unwrap();
        launch!(times_three_plus_five[n / 256, 256, &s2](a.array_mut())).unwrap();
        s1.synchronize().unwrap();
        s2.synchronize().unwrap();
        let (read, loaded) = (read.to_host().unwrap(), loaded.to_host().unwrap());
        let last = a.array().to_host().unwrap();
        for i in 0..n {
            let stored = step(i as u32 ^ seed);
            assert_eq!(
                read[i],
                stored.wrapping_add(1),
                "element {i}: read before the store"
            );
            assert_eq!(
                loaded[i],
                step(stored),
                "element {i}: the load saw the later write"
            );
            assert_eq!(
                last[i],
                stored.wrapping_mul(3).wrapping_add(5),
                "element {i}"
            );
        }
    }
}

/// `lcg(_, rounds)` on the CPU: the step is affine, so `rounds` steps are one affine map
/// `x -> mul * x + add`, composed once (a step at a time per element is too slow for
/// 2^20 elements in a debug build).
fn lcg_reference(rounds: u32) -> impl Fn(u32) -> u32 {
    let (mul, add) = (0..rounds).fold((1u32, 0u32), |(mul, add), _| {
        (
            mul.wrapping_mul(1_664_525),
            add.wrapping_mul(1_664_525).wrapping_add(1_013_904_223),
        )
    });
    move |x| mul.wrapping_mul(x).wrapping_add(add)
}
