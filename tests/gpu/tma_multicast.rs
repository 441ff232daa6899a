//! TMA multicast within a thread-block cluster, on both backends: every block of a
//! cluster of 2 and of 4 multicasts its slice (8 rows of 32 `u32`) of the cluster's
//! tile to all blocks of the cluster, each block expecting the whole tile's bytes on its
//! own mbarrier; every block then writes the tile it received to global memory,
//! checked against the CPU on fresh random input with the output poisoned. A mask that
//! names a block outside the cluster (or none) is a panic naming the mask and the
//! cluster's size, a launch without a cluster being a cluster of one. Multicast needs
//! sm_90a: on another GPU the launch is an `Err` naming it.

use super::common;
use cudajit::prelude::*;
use cudajit::{TensorMap, TensorMapOptions};

/// Columns of the tensor (one 128-byte row of `u32`) and rows of one block's slice.
const COLS: usize = 32;
const SLICE_ROWS: usize = 8;
const SLICE: usize = SLICE_ROWS * COLS;

/// Block `rank` of cluster `c` multicasts rows `(c * size + rank) * 8 ..` of `src` into
/// slice `rank` of every block's `tile`; each block announces the `size` slices' bytes
/// (`tile_bytes`) on its own barrier before the `cluster_sync()` that lets the copies
/// start, waits for its phase, and writes its tile to `out`.
#[kernel]
fn multicast_slices(src: &TensorMap<u32, 2>, out: &mut [u32], tile_bytes: u32) {
    let tile = shared_array_aligned::<[u32; 2048], 128>();
    let bars = shared_array::<[u64; 1]>();
    let t = thread_idx().x as usize;
    let rank = cluster_block_rank() as usize;
    let size = cluster_size() as usize;
    if t == 0 {
        mbarrier_init(bars, 0, 1);
        fence_mbarrier_init();
        mbarrier_arrive_expect_tx(bars, 0, tile_bytes);
    }
    // Every block's barrier is initialised and expects the bytes before any copy.
    cluster_sync();
    if t == 0 {
        let everyone = ((1u32 << size) - 1) as u16;
        let row = (block_idx().x as usize * 8) as i32;
        tma_load_multicast(src, &mut tile[rank * 256..], [row, 0], bars, 0, everyone);
    }
    while !mbarrier_try_wait_parity(bars, 0, 0) {}
    let base = block_idx().x as usize * size * 256;
    let mut i = t;
    while i < size * 256 {
        out[base + i] = tile[i];
        i += block_dim().x as usize;
    }
    // No block leaves while a peer's multicast may still target it.
    cluster_sync();
}

/// Thread 0 multicasts with `mask`; nothing waits (the mask is refused first). `ran`,
/// copied back, makes the launch wait for the kernel and report its panic.
#[kernel]
fn multicast_mask(src: &TensorMap<u32, 2>, mask: u16, ran: &mut [u32]) {
    let tile = shared_array_aligned::<[u32; 256], 128>();
    let bars = shared_array::<[u64; 1]>();
    if thread_idx().x == 0 {
        ran[block_idx().x as usize] = 1;
        mbarrier_init(bars, 0, 1);
        fence_mbarrier_init();
        tma_load_multicast(src, tile, [0, 0], bars, 0, mask);
    }
}

fn slice_map(array: &DeviceArray<u32>, rows: usize) -> TensorMap<'_, u32, 2> {
    let shape = [rows as u64, COLS as u64];
    let strides = [(COLS * 4) as u64, 4];
    TensorMap::with_strides(
        array,
        shape,
        strides,
        [SLICE_ROWS as u32, COLS as u32],
        TensorMapOptions::default(),
    )
    .expect("a valid map")
}

/// Whether the device runs sm_90a code; else the launch's `Err` names the need.
fn sm90a(gpu: &Device, launched: cudajit::Result<()>) -> bool {
    if gpu.compute_capability() != (9, 0) {
        let err = launched.unwrap_err().to_string();
        assert!(err.contains("sm_90a") || err.contains("9.0"), "{err}");
        return false;
    }
    launched.expect("launch");
    true
}

#[test]
fn every_block_of_a_cluster_receives_each_peers_multicast_slice() {
    let gpu = require_gpu!();
    let mut rng = common::Rng::fresh("tma multicast");
    for (clusters, size) in [(3usize, 2usize), (2, 4)] {
        let blocks = clusters * size;
        let rows = blocks * SLICE_ROWS;
        let src: Vec<u32> = (0..rows * COLS).map(|_| rng.next_u64() as u32).collect();
        let array = DeviceArray::from_slice(&src).expect("upload");
        let map = slice_map(&array, rows);
        let mut out = vec![0xDEAD_BEEFu32; blocks * size * SLICE];
        let tile_bytes = (size * SLICE * 4) as u32;
        assert_eq!(tile_bytes, size as u32 * map.box_bytes());
        let launched = launch!(multicast_slices[blocks, 128, cluster = (size, 1, 1)](&map, &mut out, tile_bytes));
        if !sm90a(&gpu, launched) {
            return;
        }
        for b in 0..blocks {
            // The cluster's rows, in rank order: its first block's slice first.
            let first_row = b / size * size * SLICE_ROWS;
            let want = &src[first_row * COLS..(first_row + size * SLICE_ROWS) * COLS];
            let got = &out[b * size * SLICE..(b + 1) * size * SLICE];
            if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
                panic!(
                    "cluster of {size}: block {b}, element {i} (slice {}): {:#x}, want {:#x}",
                    i / SLICE,
                    got[i],
                    want[i]
                );
            }
        }
    }
}

#[test]
fn a_multicast_mask_outside_the_cluster_is_a_panic_naming_mask_and_size() {
    let gpu = require_gpu!();
    let src = vec![7u32; 4 * SLICE];
    let array = DeviceArray::from_slice(&src).expect("upload");
    let map = slice_map(&array, 4 * SLICE_ROWS);
    // A bit at the cluster's size, no bit at all, and a launch without a cluster
    // (a cluster of one, whose only mask is 1).
    for (mask, cluster, size) in [(0b101u16, 2u32, 2u32), (0, 2, 2), (0b10, 1, 1)] {
        let mut ran = vec![0u32; 4];
        let launched = if cluster == 1 {
            launch!(multicast_mask[4, 32](&map, mask, &mut ran))
        } else {
            launch!(multicast_mask[4, 32, cluster = (cluster, 1, 1)](&map, mask, &mut ran))
        };
        if gpu.compute_capability() != (9, 0) {
            assert!(launched.is_err());
            return;
        }
        let err = launched.expect_err("the mask is refused").to_string();
        let want = format!("a TMA multicast's block mask {mask} must name 1 or more blocks of the cluster of {size} blocks");
        assert!(err.contains(&want), "{err}");
    }
}
