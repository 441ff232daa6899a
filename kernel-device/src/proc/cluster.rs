//! The rules of thread-block clusters (sm_90), once for every stage: their rows of the
//! intrinsic table, the architecture they need, the launch-shape rule (which the host
//! and the simulator both apply), and the panic texts of distributed shared memory
//! (DSMEM) accesses, which the NVVM writer prints and the simulator evaluates. The
//! user's guide is `docs/hopper.md`.
//!
//! A cluster is a group of blocks launched together on one GPC: they can wait for
//! each other (`cluster_sync()`) and read or write each other's shared memory
//! (`peer_read` / `peer_write` on a shared slice, naming the peer by its rank). The
//! cluster's shape is a launch parameter (`LaunchConfig::cluster`).

use super::intrinsics::{Effect, Form, IntrinsicDef, Param, Ret, Signature};
use super::target::TargetNeed;
use crate::ir::{Axis, ClusterOp, Intrinsic, ScalarType};

use ScalarType as S;

/// Element types a peer access moves (one `ld`/`st.shared::cluster` of 32 or 64 bits).
pub const PEER_TYPES: &[ScalarType] = &[S::I32, S::U32, S::F32, S::I64, S::U64, S::F64];

/// The most blocks a cluster may hold without the non-portable opt-in
/// (`CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`, up to 16 on an H100/H200).
pub const MAX_PORTABLE_BLOCKS: u64 = 8;

/// Every cluster feature needs sm_90 (none is sm_90a-only).
pub const TARGET_NEED: TargetNeed = TargetNeed {
    feature: "thread-block clusters (`%cluster_ctarank`, `barrier.cluster`, `mapa`)",
    min_arch: 90,
    arch_specific: false,
};

/// The panic of a peer access whose rank is not a block of the cluster (`{0}` the
/// rank, `{1}` the cluster's size).
pub const RANK_MESSAGE: &str = "peer rank {0} is outside the cluster of {1} blocks";

/// The panic of a peer access through a slice that is not in shared memory (`{0}` the
/// index, `{1}` the slice's length).
pub const SPACE_MESSAGE: &str =
    "peer_read/peer_write need a shared slice: element {0} of a slice of {1} is not in shared memory";

const fn cluster_row(
    name: &'static str,
    form: Form,
    op: ClusterOp,
    sig: Signature,
) -> IntrinsicDef {
    let effect = match op {
        ClusterOp::Sync => Effect::ClusterBarrier,
        ClusterOp::PeerRead | ClusterOp::PeerWrite => Effect::Memory,
        _ => Effect::Pure,
    };
    IntrinsicDef {
        name,
        form,
        intrinsic: Intrinsic::Cluster(op),
        sig,
        effect,
        nvvm: "",
    }
}

const U32: Signature = Signature {
    types: &[],
    params: &[],
    ret: Ret::Scalar(S::U32),
};

pub static CLUSTER_INTRINSICS: &[IntrinsicDef] = &[
    // `%cluster_ctarank`: this block's rank in its cluster, 0 to `cluster_size() - 1`.
    cluster_row("cluster_block_rank", Form::Call, ClusterOp::BlockRank, U32),
    // `%cluster_nctarank`: the blocks in the cluster.
    cluster_row("cluster_size", Form::Call, ClusterOp::Size, U32),
    // `%cluster_ctaid.{x,y,z}`: this block's position in its cluster.
    cluster_row(
        "cluster_block_idx",
        Form::DimField,
        ClusterOp::BlockIdx(Axis::X),
        U32,
    ),
    // `%cluster_nctaid.{x,y,z}`: the cluster's shape.
    cluster_row("cluster_dim", Form::DimField, ClusterOp::Dim(Axis::X), U32),
    // `barrier.cluster.arrive` (release) + `barrier.cluster.wait` (acquire): every
    // non-exited thread of the cluster.
    cluster_row(
        "cluster_sync",
        Form::Call,
        ClusterOp::Sync,
        Signature {
            types: &[],
            params: &[],
            ret: Ret::Unit,
        },
    ),
    // `peer_read(&tile, rank, i)`: `tile[i]` of the block of rank `rank`.
    cluster_row(
        "peer_read",
        Form::Call,
        ClusterOp::PeerRead,
        Signature {
            types: PEER_TYPES,
            params: &[
                Param::SliceOfT,
                Param::Scalar(S::U32),
                Param::Scalar(S::Usize),
            ],
            ret: Ret::T,
        },
    ),
    // `peer_write(&mut tile, rank, i, value)`: `tile[i] = value` in that block.
    cluster_row(
        "peer_write",
        Form::Call,
        ClusterOp::PeerWrite,
        Signature {
            types: PEER_TYPES,
            params: &[
                Param::MutSliceOfT,
                Param::Scalar(S::U32),
                Param::Scalar(S::Usize),
                Param::T,
            ],
            ret: Ret::Unit,
        },
    ),
];

/// The key of a per-axis row: its axis set to X.
pub fn row_key(i: Intrinsic) -> Intrinsic {
    match i {
        Intrinsic::Cluster(ClusterOp::BlockIdx(_)) => {
            Intrinsic::Cluster(ClusterOp::BlockIdx(Axis::X))
        }
        Intrinsic::Cluster(ClusterOp::Dim(_)) => Intrinsic::Cluster(ClusterOp::Dim(Axis::X)),
        other => other,
    }
}

/// A per-axis row's intrinsic on `axis` (others unchanged).
pub fn on_axis(i: Intrinsic, axis: Axis) -> Intrinsic {
    match i {
        Intrinsic::Cluster(ClusterOp::BlockIdx(_)) => Intrinsic::Cluster(ClusterOp::BlockIdx(axis)),
        Intrinsic::Cluster(ClusterOp::Dim(_)) => Intrinsic::Cluster(ClusterOp::Dim(axis)),
        other => other,
    }
}

/// What the cluster intrinsics of `module` need of the target.
pub fn module_needs(module: &crate::ir::Module) -> Vec<TargetNeed> {
    super::target::need_if_used(module, TARGET_NEED, |i| matches!(i, Intrinsic::Cluster(_)))
}

/// Why a launch of `grid` blocks in clusters of `cluster` blocks is impossible (the
/// rule the host checks before the driver and the simulator alike), or `None`.
/// `max_blocks` is the cluster-size limit in force (8, or 16 with the opt-in).
pub fn shape_error(grid: [u32; 3], cluster: [u32; 3], max_blocks: u64) -> Option<(String, String)> {
    const AXES: [char; 3] = ['x', 'y', 'z'];
    if let Some(axis) = (0..3).find(|&a| cluster[a] == 0) {
        return Some((
            "every cluster extent must be at least 1".into(),
            format!("cluster {} of 0 is zero", AXES[axis]),
        ));
    }
    let blocks: u64 = cluster.iter().map(|&c| u64::from(c)).product();
    if blocks > max_blocks {
        return Some((
            "cluster size (portable limit 8 blocks)".into(),
            format!(
                "a cluster of {} x {} x {} = {blocks} blocks exceeds the portable limit of \
                 {max_blocks} blocks per cluster (16 on an H100/H200 needs the non-portable \
                 opt-in, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, which cudajit \
                 does not set)",
                cluster[0], cluster[1], cluster[2]
            ),
        ));
    }
    if let Some(axis) = (0..3).find(|&a| grid[a] % cluster[a] != 0) {
        return Some((
            "grid divisible by the cluster shape".into(),
            format!(
                "grid {} of {} blocks is not a multiple of cluster {} of {} (the grid \
                 is tiled by whole clusters)",
                AXES[axis], grid[axis], AXES[axis], cluster[axis]
            ),
        ));
    }
    None
}

/// Why a kernel that calls `grid_sync()` cannot launch in clusters of `cluster`
/// blocks, or `None` for a launch without clusters. A cooperative launch guarantees
/// every block of the grid resident at once, which the grid barrier needs; cudajit
/// launches clusters through `cuLaunchKernelEx` without that guarantee, so the grid
/// barrier could wait forever. Both backends refuse the combination.
pub fn grid_sync_error(cluster: [u32; 3]) -> Option<(String, String)> {
    (cluster != [1, 1, 1]).then(|| {
        (
            "a kernel that calls grid_sync() launches without clusters".into(),
            format!(
                "the kernel calls grid_sync(), which needs a cooperative launch of the whole \
                 grid, and cannot launch in clusters of {} x {} x {} blocks: use \
                 cluster_sync() for the cluster, or launch without `cluster`",
                cluster[0], cluster[1], cluster[2]
            ),
        )
    })
}

/// The linear ranks of a cluster's blocks: block `b` (its index in the grid) is at
/// position `b % cluster` of cluster `b / cluster` on each axis, and its rank is
/// `x + y * cx + z * cx * cy` (PTX's `%cluster_ctarank`).
pub fn rank_of(block: [u32; 3], cluster: [u32; 3]) -> u32 {
    let [x, y, z] = [0, 1, 2].map(|a| block[a] % cluster[a]);
    x + y * cluster[0] + z * cluster[0] * cluster[1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked_in_the_order_a_user_fixes_them() {
        assert!(shape_error([8, 2, 1], [2, 2, 1], 8).is_none());
        let (limit, detail) = shape_error([6, 1, 1], [4, 1, 1], 8).unwrap();
        assert!(
            limit.contains("divisible") && detail.contains("grid x of 6"),
            "{detail}"
        );
        let (limit, detail) = shape_error([32, 1, 1], [16, 1, 1], 8).unwrap();
        assert!(
            limit.contains("portable") && detail.contains("16 blocks"),
            "{detail}"
        );
        assert!(shape_error([4, 1, 1], [0, 1, 1], 8).is_some());
        assert!(grid_sync_error([1, 1, 1]).is_none());
        let (limit, detail) = grid_sync_error([2, 1, 1]).unwrap();
        assert!(
            limit.contains("grid_sync") && detail.contains("2 x 1 x 1"),
            "{detail}"
        );
    }

    #[test]
    fn ranks_count_x_fastest_within_the_cluster() {
        assert_eq!(rank_of([5, 0, 0], [2, 1, 1]), 1);
        assert_eq!(rank_of([2, 3, 0], [2, 2, 1]), 2);
        assert_eq!(rank_of([3, 3, 1], [2, 2, 2]), 7);
    }
}
