//! Stand-ins for thread-block clusters and distributed shared memory (sm_90). The
//! guide is `docs/hopper.md`; the rules are `proc::cluster`'s.
//!
//! The twin runs one thread of one block, which is a cluster of one: its rank is 0,
//! the cluster holds it alone, and a peer access may name rank 0 only (itself).

use super::Dim3;

/// `%cluster_ctarank`: this block's rank in its cluster (0 to `cluster_size() - 1`).
pub fn cluster_block_rank() -> u32 {
    0
}

/// `%cluster_nctarank`: how many blocks the cluster holds.
pub fn cluster_size() -> u32 {
    1
}

/// `%cluster_ctaid`: this block's position in its cluster.
pub fn cluster_block_idx() -> Dim3 {
    Dim3 { x: 0, y: 0, z: 0 }
}

/// `%cluster_nctaid`: the cluster's shape (the launch's `cluster`).
pub fn cluster_dim() -> Dim3 {
    Dim3 { x: 1, y: 1, z: 1 }
}

/// `barrier.cluster.arrive` + `barrier.cluster.wait`: waits for every non-exited thread
/// of the cluster; what they wrote before it (shared memory included) is visible to
/// the cluster after it. Before a block exits, a `cluster_sync()` must follow the last
/// peer access to its shared memory.
pub fn cluster_sync() {}

fn check_rank(rank: u32) {
    assert!(
        rank < cluster_size(),
        "peer rank {rank} is outside the cluster of {} blocks",
        cluster_size()
    );
}

/// `mapa.shared::cluster` + `ld.shared::cluster`: `tile[index]` in the shared memory
/// of the cluster's block of rank `rank` (`tile` names the same shared array in every
/// block). Bounds-checked against `tile`'s length and the cluster's size.
pub fn peer_read<T: Copy>(tile: &[T], rank: u32, index: usize) -> T {
    check_rank(rank);
    tile[index]
}

/// `mapa.shared::cluster` + `st.shared::cluster`: `tile[index] = value` in the shared
/// memory of the cluster's block of rank `rank`.
pub fn peer_write<T: Copy>(tile: &mut [T], rank: u32, index: usize, value: T) {
    check_rank(rank);
    tile[index] = value;
}
