//! TMA multicast within a cluster on the simulator, as a user meets its defects: the
//! pattern of a GEMM whose cluster shares a tile (every block announces the whole
//! tile's bytes on its own mbarrier, each block multicasts one slice of it to all, every
//! block waits and reads) runs clean and matches the tensor; each planted bug returns
//! the simulator's fault naming the sites in THIS file: a peer that never announced the
//! bytes, a peer reading its tile before waiting, a peer that left before the copy
//! landed. Random inputs, poisoned outputs, three seeded schedules per launch.

use cudajit::prelude::*;
use cudajit::{Error, SimFault, SimOptions, TensorMap, TensorMapOptions};

#[path = "../examples/common/mod.rs"]
mod common;

/// Columns of the tensor (one 128-byte row of `u32`) and rows of one block's slice.
const COLS: usize = 32;
const SLICE: usize = 8 * COLS;

fn simulator() -> Device {
    Device::simulator_with(SimOptions {
        schedules: 3,
        ..SimOptions::default()
    })
}

/// The 1-based line of the only line of this file ending in the comment `// marker`.
fn line_of(marker: &str) -> u32 {
    let comment = format!("// {marker}");
    let lines: Vec<usize> = include_str!("sim_multicast.rs")
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end().ends_with(&comment))
        .map(|(k, _)| k + 1)
        .collect();
    assert_eq!(lines.len(), 1, "marker {marker:?} must be on one line");
    lines[0] as u32
}

fn line(site: &cudajit::SimSite) -> u32 {
    assert_eq!(site.file, "tests/sim_multicast.rs", "{site}");
    site.line
}

/// What `shared_tile` does wrong in block 1 (rank 1) of each cluster.
const FIXED: u32 = 0;
const NO_EXPECT: u32 = 1;
const NO_WAIT: u32 = 2;
const LEFT_EARLY: u32 = 3;

/// Every block announces the cluster's `size` slices on its barrier, then (after the
/// cluster_sync that orders every barrier's init and expectation before the copies)
/// multicasts its own slice to the whole cluster, waits, and writes its tile to `out`.
#[kernel]
fn shared_tile(src: &TensorMap<u32, 2>, out: &mut [u32], tile_bytes: u32, bug: u32) {
    let tile = shared_array_aligned::<[u32; 1024], 128>();
    let bars = shared_array::<[u64; 1]>();
    let t = thread_idx().x as usize;
    let rank = cluster_block_rank() as usize;
    let size = cluster_size() as usize;
    let buggy = rank == 1;
    if buggy && bug == LEFT_EARLY {
        return; // site: left early
    }
    if t == 0 {
        mbarrier_init(bars, 0, 1); // site: barrier init
        fence_mbarrier_init();
        if buggy && bug == NO_EXPECT {
            mbarrier_arrive(bars, 0);
        } else {
            mbarrier_arrive_expect_tx(bars, 0, tile_bytes);
        }
    }
    cluster_sync();
    if t == 0 {
        let all = ((1u32 << size) - 1) as u16;
        let row = (block_idx().x as usize * 8) as i32;
        let mine = &mut tile[rank * 256..];
        tma_load_multicast(src, mine, [row, 0], bars, 0, all); // site: multicast
    }
    if !(buggy && bug == NO_WAIT) {
        while !mbarrier_try_wait_parity(bars, 0, 0) {}
    }
    let base = block_idx().x as usize * size * 256;
    let mut i = t;
    while i < size * 256 {
        out[base + i] = tile[i]; // site: tile read
        i += block_dim().x as usize;
    }
    cluster_sync();
}

/// Runs `shared_tile` with `bug` on 2 clusters of `size` over fresh random rows:
/// the result, the output and the tensor.
fn run(bug: u32, size: usize) -> (cudajit::Result<()>, Vec<u32>, Vec<u32>) {
    let device = simulator();
    let stream = device.default_stream();
    let blocks = 2 * size;
    let mut rng = common::Rng::fresh("sim multicast");
    let src: Vec<u32> = (0..blocks * SLICE).map(|_| rng.next_u64() as u32).collect();
    let array = DeviceArray::from_slice_on(&device, &src).expect("upload");
    let map = TensorMap::with_strides(
        &array,
        [(blocks * 8) as u64, COLS as u64],
        [(COLS * 4) as u64, 4],
        [8, COLS as u32],
        TensorMapOptions::default(),
    )
    .expect("a valid map");
    let mut out = vec![0xDEAD_BEEFu32; blocks * size * SLICE];
    let tile_bytes = size as u32 * map.box_bytes();
    let result = launch!(shared_tile[blocks, 64, cluster = (size, 1, 1), stream, 0](&map, &mut out, tile_bytes, bug));
    (result, out, src)
}

fn fault_of(result: cudajit::Result<()>) -> SimFault {
    match result {
        Err(Error::Simulator { kernel, fault }) => {
            assert_eq!(kernel, "shared_tile");
            *fault
        }
        Err(other) => panic!("expected a simulator fault, got: {other}"),
        Ok(()) => panic!("`shared_tile` ran clean, but it is broken"),
    }
}

#[test]
fn a_cluster_sharing_a_tile_by_multicast_runs_clean_and_matches_the_tensor() {
    for size in [2, 4] {
        let (result, out, src) = run(FIXED, size);
        result.expect("the fixed kernel runs clean");
        for b in 0..2 * size {
            let first = b / size * size * SLICE;
            let want = &src[first..first + size * SLICE];
            assert_eq!(
                &out[b * size * SLICE..(b + 1) * size * SLICE],
                want,
                "block {b}"
            );
        }
    }
}

#[test]
fn a_peer_that_never_expected_the_bytes_is_reported_with_the_multicast() {
    let fault = fault_of(run(NO_EXPECT, 2).0);
    let multicast = line_of("site: multicast");
    match &fault {
        // The phase completed on the arrival alone: the tile read races the copy.
        SimFault::Race { first, second, .. }
        | SimFault::ReadBeforeWrite {
            read: first,
            write: second,
            ..
        } => {
            let mut lines = [line(&first.site), line(&second.site)];
            lines.sort();
            let mut want = [multicast, line_of("site: tile read")];
            want.sort();
            assert_eq!(lines, want, "{fault}");
        }
        // The copy's bytes ran ahead of any expectation: the phase never completes.
        SimFault::Mbarrier { site, problem, .. } => {
            assert_eq!(line(site), line_of("site: barrier init"), "{fault}");
            assert!(
                problem.contains(&format!("tests/sim_multicast.rs:{multicast}"))
                    && problem.contains("no `mbarrier_arrive_expect_tx`"),
                "{fault}"
            );
        }
        other => panic!("expected a race or an mbarrier report, got: {other}"),
    }
}

#[test]
fn a_peer_reading_its_tile_before_waiting_races_the_multicast() {
    let fault = fault_of(run(NO_WAIT, 2).0);
    let (first, second) = match &fault {
        SimFault::Race { first, second, .. } => (first, second),
        SimFault::ReadBeforeWrite { read, write, .. } => (read, write),
        other => panic!("expected a race, got: {other}"),
    };
    let mut lines = [line(&first.site), line(&second.site)];
    lines.sort();
    let mut want = [line_of("site: multicast"), line_of("site: tile read")];
    want.sort();
    assert_eq!(lines, want, "{fault}");
    // The reader is the block that skipped its wait.
    let reader = if line(&first.site) == line_of("site: tile read") {
        first
    } else {
        second
    };
    assert_eq!(reader.thread.block[0] % 2, 1, "{fault}");
}

#[test]
fn a_multicast_into_a_block_that_already_left_is_reported() {
    let fault = fault_of(run(LEFT_EARLY, 2).0);
    match &fault {
        SimFault::Cluster { site, problem, .. } => {
            assert_eq!(line(site), line_of("site: multicast"), "{fault}");
            assert!(problem.contains("already exited"), "{fault}");
        }
        other => panic!("expected a cluster misuse report, got: {other}"),
    }
}

/// Thread 0 multicasts with `mask`; nothing waits (the mask is refused first). `ran`,
/// copied back, makes the launch wait for the kernel and report its panic.
#[kernel]
fn mask_only(src: &TensorMap<u32, 2>, mask: u16, ran: &mut [u32]) {
    let tile = shared_array_aligned::<[u32; 256], 128>();
    let bars = shared_array::<[u64; 1]>();
    if thread_idx().x == 0 {
        ran[block_idx().x as usize] = 1;
        mbarrier_init(bars, 0, 1);
        fence_mbarrier_init();
        tma_load_multicast(src, tile, [0, 0], bars, 0, mask); // site: bad mask
    }
}

#[test]
fn a_mask_beyond_the_cluster_panics_at_the_multicast() {
    let device = simulator();
    let stream = device.default_stream();
    let src = vec![7u32; 4 * SLICE];
    let array = DeviceArray::from_slice_on(&device, &src).expect("upload");
    let map = TensorMap::with_strides(
        &array,
        [32, COLS as u64],
        [(COLS * 4) as u64, 4],
        [8, COLS as u32],
        TensorMapOptions::default(),
    )
    .expect("a valid map");
    let err =
        launch!(mask_only[4, 32, cluster = (2, 1, 1), stream, 0](&map, 0b100, &mut vec![0u32; 4]))
            .unwrap_err();
    match &err {
        Error::KernelPanic { message, line, .. } => {
            assert!(
                message.starts_with("a TMA multicast's block mask 4 must name 1 or more blocks of the cluster of 2 blocks"),
                "{err}"
            );
            assert_eq!(*line, line_of("site: bad mask"), "{err}");
        }
        other => panic!("expected a kernel panic, got: {other}"),
    }
}
