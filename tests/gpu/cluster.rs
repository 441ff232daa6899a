//! Thread-block clusters, on both backends: a cluster reduction through distributed
//! shared memory (each block sums its slice into shared memory, `cluster_sync()`, the
//! block of rank 0 adds its peers' sums with `peer_read`), the same with the peers
//! pushing their sums into rank 0 (`peer_write`), the cluster registers, and the
//! launch errors of a bad cluster shape. Random inputs, a CPU reference, poisoned
//! outputs. Clusters need sm_90: on an older GPU the launch is an `Err`.

use super::common;
use cudajit::prelude::*;

const THREADS: usize = 128;

/// `sums[c]`: the sum of the cluster `c`'s slice of `x` (each block's share is
/// `per_block` elements), computed by rank 0 from its peers' shared partials.
#[kernel]
fn cluster_sum(x: &[i64], sums: &mut [i64], per_block: usize) {
    let partial = shared_array::<[i64; 128]>();
    let total = shared_array::<[i64; 1]>();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * per_block;
    let mut acc = 0i64;
    let mut i = t;
    while i < per_block {
        acc += x[base + i];
        i += 128;
    }
    partial[t] = acc;
    sync_threads();
    if t == 0 {
        let mut s = 0i64;
        for k in 0..128 {
            s += partial[k];
        }
        total[0] = s;
    }
    // The block's sum is published to the cluster.
    cluster_sync();
    if cluster_block_rank() == 0 && t == 0 {
        let mut s = 0i64;
        for r in 0..cluster_size() {
            s += peer_read(total, r, 0);
        }
        sums[block_idx().x as usize / cluster_size() as usize] = s;
    }
    // No block leaves while rank 0 may still read its shared memory.
    cluster_sync();
}

/// The same sum, pushed: every block writes its sum into slot `rank` of rank 0's
/// shared `inbox`, and rank 0 adds its inbox after the barrier.
#[kernel]
fn cluster_push_sum(x: &[f64], sums: &mut [f64], per_block: usize) {
    let inbox = shared_array::<[f64; 8]>();
    let t = thread_idx().x as usize;
    if t == 0 {
        let base = block_idx().x as usize * per_block;
        let mut s = 0.0f64;
        for i in 0..per_block {
            s += x[base + i];
        }
        peer_write(inbox, 0, cluster_block_rank() as usize, s);
    }
    cluster_sync();
    if cluster_block_rank() == 0 && t == 0 {
        let mut s = 0.0f64;
        for r in 0..cluster_size() as usize {
            s += inbox[r];
        }
        sums[block_idx().x as usize / cluster_size() as usize] = s;
    }
}

/// Each thread 0 records its block's cluster registers.
#[kernel]
fn cluster_registers(out: &mut [u32]) {
    if thread_idx().x == 0 {
        let b = (block_idx().x + block_idx().y * grid_dim().x) as usize;
        out[b * 6] = cluster_block_rank();
        out[b * 6 + 1] = cluster_size();
        out[b * 6 + 2] = cluster_block_idx().x;
        out[b * 6 + 3] = cluster_block_idx().y;
        out[b * 6 + 4] = cluster_dim().x;
        out[b * 6 + 5] = cluster_dim().y;
    }
}

/// A grid barrier: needs a cooperative launch, which clusters cannot have.
#[kernel]
fn grid_barrier_count(out: &mut [u32]) {
    if thread_idx().x == 0 {
        out[block_idx().x as usize] = 1;
    }
    grid_sync();
    if thread_idx().x == 0 {
        out[block_idx().x as usize] += 1;
    }
}

fn sm90(gpu: &Device) -> bool {
    if gpu.compute_capability() < (9, 0) {
        let mut sums = vec![0i64; 1];
        let err = launch!(cluster_sum[2, THREADS, cluster = (2, 1, 1)](&[0i64; 8], &mut sums, 4))
            .unwrap_err();
        assert!(err.to_string().contains("9.0"), "{err}");
        return false;
    }
    true
}

#[test]
fn a_cluster_reduction_through_distributed_shared_memory_matches_the_cpu() {
    let gpu = require_gpu!();
    if !sm90(&gpu) {
        return;
    }
    let mut rng = common::Rng::fresh("cluster sum");
    for (clusters, size, per_block) in [(3usize, 2usize, 300usize), (2, 4, 129), (1, 8, 1000)] {
        let blocks = clusters * size;
        let x: Vec<i64> = (0..blocks * per_block)
            .map(|_| rng.next_u64() as i64 >> 20)
            .collect();
        let mut sums = vec![i64::MIN; clusters];
        launch!(cluster_sum[blocks, THREADS, cluster = (size, 1, 1)](&x, &mut sums, per_block))
            .expect("launch");
        for c in 0..clusters {
            let want: i64 = x[c * size * per_block..(c + 1) * size * per_block]
                .iter()
                .sum();
            assert_eq!(sums[c], want, "cluster {c} of {clusters} (size {size})");
        }
    }
}

#[test]
fn peers_write_into_rank_zeros_shared_memory() {
    let gpu = require_gpu!();
    if !sm90(&gpu) {
        return;
    }
    let mut rng = common::Rng::fresh("cluster push");
    let (clusters, size, per_block) = (4usize, 4usize, 37usize);
    let x: Vec<f64> = (0..clusters * size * per_block)
        .map(|_| rng.f64_in(-1.0, 1.0))
        .collect();
    let mut sums = vec![f64::NAN; clusters];
    launch!(cluster_push_sum[clusters * size, 32, cluster = (size, 1, 1)](&x, &mut sums, per_block))
        .expect("launch");
    for c in 0..clusters {
        let want: f64 = x[c * size * per_block..(c + 1) * size * per_block]
            .iter()
            .sum();
        assert!(
            (sums[c] - want).abs() <= 1e-12 * (1.0 + want.abs()),
            "cluster {c}: {} vs {want}",
            sums[c]
        );
    }
}

#[test]
fn cluster_registers_follow_the_launch_shape() {
    let gpu = require_gpu!();
    if !sm90(&gpu) {
        return;
    }
    let (gx, gy) = (4u32, 6u32);
    let mut out = vec![u32::MAX; (gx * gy * 6) as usize];
    launch!(cluster_registers[(gx, gy), 32, cluster = (2, 3, 1)](&mut out)).expect("launch");
    for by in 0..gy {
        for bx in 0..gx {
            let b = ((bx + by * gx) * 6) as usize;
            let (cx, cy) = (bx % 2, by % 3);
            let want = [cx + cy * 2, 6, cx, cy, 2, 3];
            assert_eq!(out[b..b + 6], want, "block ({bx}, {by})");
        }
    }
}

#[test]
fn a_bad_cluster_shape_is_an_err_naming_the_limit() {
    let gpu = require_gpu!();
    if !sm90(&gpu) {
        return;
    }
    let mut sums = vec![0i64; 4];
    let x = vec![1i64; 64];
    let err = launch!(cluster_sum[6, THREADS, cluster = (4, 1, 1)](&x, &mut sums, 4)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("divisible") && text.contains("grid x of 6"),
        "{text}"
    );
    let err =
        launch!(cluster_sum[16, THREADS, cluster = (16, 1, 1)](&x, &mut sums, 4)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("portable limit of 8") && text.contains("non-portable"),
        "{text}"
    );
    let err = launch!(cluster_sum[4, THREADS, cluster = (2, 0, 1)](&x, &mut sums, 4)).unwrap_err();
    assert!(err.to_string().contains("at least 1"), "{err}");
}

#[test]
fn a_grid_sync_kernel_in_clusters_is_an_err_and_runs_without_them() {
    let gpu = require_gpu!();
    if !sm90(&gpu) {
        return;
    }
    let mut out = vec![u32::MAX; 4];
    let err = launch!(grid_barrier_count[4, THREADS, cluster = (2, 1, 1)](&mut out)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("grid_sync()") && text.contains("2 x 1 x 1") && text.contains("cluster_sync"),
        "{text}"
    );
    assert_eq!(out, vec![u32::MAX; 4], "a refused launch writes nothing");
    // The same kernel without clusters: each block's two writes.
    launch!(grid_barrier_count[4, THREADS](&mut out)).unwrap();
    assert_eq!(out, vec![2; 4]);
}
