//! Thread-block clusters on the simulator, as a user meets their defects: each planted
//! bug below returns the simulator's fault naming the sites in THIS file, each fixed
//! version runs clean and matches a plain-Rust reference. Random inputs, poisoned
//! outputs; three seeded schedules per launch, so no report depends on one order.

use cudajit::prelude::*;
use cudajit::{Error, SimFault, SimOptions};

#[path = "../examples/common/mod.rs"]
mod common;

fn simulator() -> Device {
    Device::simulator_with(SimOptions {
        schedules: 3,
        ..SimOptions::default()
    })
}

/// The 1-based line of the only line of this file ending in the comment `// marker`.
fn line_of(marker: &str) -> u32 {
    let comment = format!("// {marker}");
    let lines: Vec<usize> = include_str!("sim_cluster.rs")
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end().ends_with(&comment))
        .map(|(k, _)| k + 1)
        .collect();
    assert_eq!(lines.len(), 1, "marker {marker:?} must be on one line");
    lines[0] as u32
}

fn fault_of(result: cudajit::Result<()>, kernel: &str) -> SimFault {
    match result {
        Err(Error::Simulator { kernel: k, fault }) => {
            assert_eq!(k, kernel);
            *fault
        }
        Err(other) => panic!("expected a simulator fault from `{kernel}`, got: {other}"),
        Ok(()) => panic!("`{kernel}` ran clean, but it is broken"),
    }
}

fn line(site: &cudajit::SimSite) -> u32 {
    assert_eq!(site.file, "tests/sim_cluster.rs", "{site}");
    site.line
}

// ---- 1. rank 0 reads its peers' sums with no cluster_sync after they wrote them ----

#[kernel]
fn cluster_sum_unsynced(x: &[i64], sums: &mut [i64]) {
    let total = shared_array::<[i64; 1]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        let base = block_idx().x as usize * 32;
        let mut s = 0i64;
        for i in 0..32 {
            s += x[base + i];
        }
        total[0] = s; // site: own write
    }
    if cluster_block_rank() == 0 && t == 0 {
        let mut s = 0i64;
        for r in 0..cluster_size() {
            s += peer_read(total, r, 0); // site: peer read
        }
        sums[block_idx().x as usize / cluster_size() as usize] = s;
    }
    cluster_sync();
}

#[kernel]
fn cluster_sum(x: &[i64], sums: &mut [i64]) {
    let total = shared_array::<[i64; 1]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        let base = block_idx().x as usize * 32;
        let mut s = 0i64;
        for i in 0..32 {
            s += x[base + i];
        }
        total[0] = s;
    }
    cluster_sync();
    if cluster_block_rank() == 0 && t == 0 {
        let mut s = 0i64;
        for r in 0..cluster_size() {
            s += peer_read(total, r, 0); // site: late read
        }
        sums[block_idx().x as usize / cluster_size() as usize] = s;
    }
    cluster_sync();
}

fn inputs(what: &str, n: usize) -> Vec<i64> {
    let mut rng = common::Rng::fresh(what);
    (0..n).map(|_| rng.next_u64() as i64 >> 16).collect()
}

fn reference(x: &[i64], size: usize) -> Vec<i64> {
    x.chunks(32 * size).map(|c| c.iter().sum()).collect()
}

#[test]
fn a_peer_read_without_cluster_sync_races_the_peers_write() {
    let device = simulator();
    let stream = device.default_stream();
    let (clusters, size) = (2, 4);
    let x = inputs("cluster race", clusters * size * 32);
    let mut sums = vec![i64::MIN; clusters];
    let fault = fault_of(
        launch!(cluster_sum_unsynced[clusters * size, 64, cluster = (size, 1, 1), stream, 0](&x, &mut sums)),
        "cluster_sum_unsynced",
    );
    match &fault {
        SimFault::Race {
            location,
            first,
            second,
        } => {
            assert!(
                location.contains("total") && location.contains("distributed shared memory"),
                "{fault}"
            );
            assert_ne!(first.thread.block, second.thread.block, "{fault}");
            let mut lines = [line(&first.site), line(&second.site)];
            lines.sort();
            let mut want = [line_of("site: own write"), line_of("site: peer read")];
            want.sort();
            assert_eq!(lines, want, "{fault}");
        }
        other => panic!("expected a race, got: {other}"),
    }
    let mut sums = vec![i64::MIN; clusters];
    launch!(cluster_sum[clusters * size, 64, cluster = (size, 1, 1), stream, 0](&x, &mut sums))
        .unwrap();
    assert_eq!(sums, reference(&x, size));
}

// ---- 2. a block leaves while rank 0 may still read its shared memory ---------------

#[kernel]
fn cluster_sum_early_exit(x: &[i64], sums: &mut [i64]) {
    let total = shared_array::<[i64; 1]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        let base = block_idx().x as usize * 32;
        let mut s = 0i64;
        for i in 0..32 {
            s += x[base + i];
        }
        total[0] = s;
    }
    cluster_sync();
    if cluster_block_rank() == 0 && t == 0 {
        let mut s = 0i64;
        for r in 0..cluster_size() {
            s += peer_read(total, r, 0); // site: read after exit
        }
        sums[block_idx().x as usize / cluster_size() as usize] = s;
    }
}

#[test]
fn a_block_that_exits_before_its_peer_reads_it_is_reported() {
    let device = simulator();
    let stream = device.default_stream();
    let (clusters, size) = (1, 2);
    let x = inputs("cluster exit", clusters * size * 32);
    let mut sums = vec![i64::MIN; clusters];
    let fault = fault_of(
        launch!(cluster_sum_early_exit[clusters * size, 32, cluster = (size, 1, 1), stream, 0](&x, &mut sums)),
        "cluster_sum_early_exit",
    );
    match &fault {
        SimFault::Cluster { site, problem, .. } => {
            assert_eq!(line(site), line_of("site: read after exit"), "{fault}");
            assert!(problem.contains("cluster_sync()"), "{fault}");
        }
        other => panic!("expected a cluster misuse report, got: {other}"),
    }
}

// ---- 3. a cluster_sync that only some threads reach ---------------------------------

#[kernel]
fn partial_cluster_sync(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 32 {
        cluster_sync(); // site: partial cluster sync
    }
    sync_threads(); // site: block barrier
    out[block_idx().x as usize * 64 + t] = cluster_block_rank();
}

#[kernel]
fn whole_cluster_sync(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    cluster_sync();
    sync_threads();
    out[block_idx().x as usize * 64 + t] = cluster_block_rank();
}

#[test]
fn a_cluster_sync_reached_by_part_of_the_cluster_is_reported_not_hung() {
    let device = simulator();
    let stream = device.default_stream();
    let mut out = vec![u32::MAX; 4 * 64];
    let fault = fault_of(
        launch!(partial_cluster_sync[4, 64, cluster = (2, 1, 1), stream, 0](&mut out)),
        "partial_cluster_sync",
    );
    match &fault {
        SimFault::BarrierDivergence { site, .. } => {
            let at = line(site);
            assert!(
                at == line_of("site: partial cluster sync") || at == line_of("site: block barrier"),
                "{fault}"
            );
        }
        other => panic!("expected barrier divergence, got: {other}"),
    }
    let mut out = vec![u32::MAX; 4 * 64];
    launch!(whole_cluster_sync[4, 64, cluster = (2, 1, 1), stream, 0](&mut out)).unwrap();
    let want: Vec<u32> = (0..4 * 64).map(|i| (i / 64 % 2) as u32).collect();
    assert_eq!(out, want);
}

// ---- 4. a peer rank outside the cluster ---------------------------------------------

#[kernel]
fn peer_out_of_cluster(out: &mut [i64], rank: u32) {
    let cell = shared_array::<[i64; 1]>();
    if thread_idx().x == 0 {
        cell[0] = 7;
    }
    cluster_sync();
    if thread_idx().x == 0 {
        out[block_idx().x as usize] = peer_read(cell, rank, 0); // site: bad rank
    }
    cluster_sync();
}

#[test]
fn a_peer_rank_outside_the_cluster_panics_with_both_numbers() {
    let device = simulator();
    let stream = device.default_stream();
    let mut out = vec![0i64; 2];
    let err = launch!(peer_out_of_cluster[2, 32, cluster = (2, 1, 1), stream, 0](&mut out, 5))
        .unwrap_err();
    match &err {
        Error::KernelPanic { message, line, .. } => {
            assert_eq!(
                message, "peer rank 5 is outside the cluster of 2 blocks",
                "{err}"
            );
            assert_eq!(*line, line_of("site: bad rank"), "{err}");
        }
        other => panic!("expected a kernel panic, got: {other}"),
    }
    let mut out = vec![0i64; 2];
    launch!(peer_out_of_cluster[2, 32, cluster = (2, 1, 1), stream, 0](&mut out, 1)).unwrap();
    assert_eq!(out, vec![7, 7]);
}

// ---- 5. a block reads its peer's global write: ordered by cluster_sync only ---------

/// Rank 0 of each cluster writes `x[c] * 3` into `relay[c]`; rank 1 copies it to
/// `out[c]`, after a `cluster_sync()` when `synced`, or racing the write when not.
#[kernel]
fn relay_through_global(x: &[u64], relay: &mut [u64], out: &mut [u64], synced: bool) {
    let c = block_idx().x as usize / 2;
    if cluster_block_rank() == 0 && thread_idx().x == 0 {
        relay[c] = x[c] * 3; // site: global write
    }
    if synced {
        cluster_sync();
    }
    if cluster_block_rank() == 1 && thread_idx().x == 0 {
        out[c] = relay[c]; // site: global read
    }
}

#[test]
fn cluster_sync_orders_global_memory_between_the_clusters_blocks() {
    let device = simulator();
    let stream = device.default_stream();
    let clusters = 3;
    let x: Vec<u64> = inputs("cluster global", clusters)
        .into_iter()
        .map(|v| v as u64 >> 8)
        .collect();
    let mut relay = vec![u64::MAX; clusters];
    let mut out = vec![u64::MAX; clusters];
    let fault = fault_of(
        launch!(relay_through_global[2 * clusters, 32, cluster = (2, 1, 1), stream, 0](
            &x, &mut relay, &mut out, false
        )),
        "relay_through_global",
    );
    match &fault {
        SimFault::Race {
            location,
            first,
            second,
        } => {
            assert!(
                location.contains("relay") && location.contains("global"),
                "{fault}"
            );
            let mut lines = [line(&first.site), line(&second.site)];
            lines.sort();
            let mut want = [line_of("site: global write"), line_of("site: global read")];
            want.sort();
            assert_eq!(lines, want, "{fault}");
        }
        other => panic!("expected a race, got: {other}"),
    }
    let mut relay = vec![u64::MAX; clusters];
    let mut out = vec![u64::MAX; clusters];
    launch!(relay_through_global[2 * clusters, 32, cluster = (2, 1, 1), stream, 0](
        &x, &mut relay, &mut out, true
    ))
    .unwrap();
    let want: Vec<u64> = x.iter().map(|v| v * 3).collect();
    assert_eq!(out, want);
    assert_eq!(relay, want);
}
