//! Programmatic dependent launch inside a captured graph (Hopper and later): each edge
//! from one kernel node to the next whose kernel begins by waiting for its
//! prerequisite grids (`crate::compile::grid_dependency`) becomes a programmatic edge,
//! so that the GPU launches the next kernel as soon as every block of the previous one
//! has exited, instead of after the previous kernel has completed and its memory has
//! been flushed. The next kernel's wait, its first instruction,
//! still holds each of its threads until the previous kernel has completed and its
//! writes are visible: what the graph computes is unchanged. Its blocks take only
//! the SM room the previous kernel's blocks leave free as they exit, so no kernel waits
//! for room behind one that waits for it.
//!
//! Measured on the H200 (graphs of 100 nodes on 1,024 elements, host time per node,
//! replayed back to back): `vecadd` 1.096 us with plain edges, 0.877 with programmatic
//! edges (as now: the primary signals as its blocks exit), 0.622 when every kernel also
//! began with `griddepcontrol.launch_dependents` — left out, since it made the same
//! `vecadd` 1.31x slower on a plain stream (`back::nvvm::prologue`); an empty kernel
//! 0.675 / 0.612 / 0.562 (cudarc's plain graph of an empty kernel: 0.671).
//!
//! Only kernel-to-kernel edges with a waiting kernel at their end change; copies,
//! memsets, event nodes, cooperative kernels and kernels of modules cudajit did not
//! compile with the wait keep full serialisation. `CUDAJIT_GRAPH_OVERLAP=0` turns the
//! rewrite off (for measuring, or to rule it out). If the driver refuses the rewritten
//! graph, the edges are restored and the graph instantiated as captured.

use cudarc::driver::sys;

use crate::compile::grid_dependency::waits_for_prerequisite_grids;

/// The variable that turns the rewrite off (`0`); it is on otherwise.
pub const GRAPH_OVERLAP_VARIABLE: &str = "CUDAJIT_GRAPH_OVERLAP";

/// An edge made programmatic: (from, to).
pub(super) type Rewritten = Vec<(sys::CUgraphNode, sys::CUgraphNode)>;

fn programmatic_edge() -> sys::CUgraphEdgeData {
    sys::CUgraphEdgeData {
        from_port: sys::CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC as u8,
        to_port: 0,
        type_: sys::CUgraphDependencyType_enum::CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC as u8,
        reserved: [0; 5],
    }
}

/// Whether `node` is a kernel node that is not cooperative; with its function.
fn plain_kernel(node: sys::CUgraphNode) -> Option<sys::CUfunction> {
    let mut kind = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
    // SAFETY: a node of a live graph; out-pointers to locals.
    unsafe {
        if sys::cuGraphNodeGetType(node, &mut kind) != sys::CUresult::CUDA_SUCCESS
            || kind != sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL
        {
            return None;
        }
        let mut params: sys::CUDA_KERNEL_NODE_PARAMS = std::mem::zeroed();
        if sys::cuGraphKernelNodeGetParams_v2(node, &mut params) != sys::CUresult::CUDA_SUCCESS
            || params.func.is_null()
        {
            return None;
        }
        let mut cooperative: sys::CUkernelNodeAttrValue = std::mem::zeroed();
        let status = sys::cuGraphKernelNodeGetAttribute(
            node,
            sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
            &mut cooperative,
        );
        (status == sys::CUresult::CUDA_SUCCESS && cooperative.cooperative == 0)
            .then_some(params.func)
    }
}

/// Rewrites `graph`'s kernel-to-kernel edges as the module docs say; returns the edges
/// it changed (empty when turned off, or when nothing qualifies).
pub(super) fn overlap_kernel_nodes(graph: sys::CUgraph) -> Rewritten {
    if crate::switches::turned_off(GRAPH_OVERLAP_VARIABLE) {
        return Vec::new();
    }
    let mut count = 0usize;
    // SAFETY: a live graph; null arrays ask for the count.
    let counted = unsafe {
        sys::cuGraphGetEdges_v2(
            graph,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut count,
        )
    };
    if counted != sys::CUresult::CUDA_SUCCESS || count == 0 {
        return Vec::new();
    }
    let mut from = vec![std::ptr::null_mut(); count];
    let mut to = vec![std::ptr::null_mut(); count];
    // SAFETY: plain bytes; the driver fills them.
    let mut data: Vec<sys::CUgraphEdgeData> = vec![unsafe { std::mem::zeroed() }; count];
    // SAFETY: arrays of `count` entries each.
    let listed = unsafe {
        sys::cuGraphGetEdges_v2(
            graph,
            from.as_mut_ptr(),
            to.as_mut_ptr(),
            data.as_mut_ptr(),
            &mut count,
        )
    };
    if listed != sys::CUresult::CUDA_SUCCESS {
        return Vec::new();
    }
    let mut rewritten = Vec::new();
    for i in 0..count.min(from.len()) {
        let default = data[i].type_ == 0 && data[i].from_port == 0 && data[i].to_port == 0;
        let qualifies = default
            && plain_kernel(from[i]).is_some()
            && plain_kernel(to[i]).is_some_and(waits_for_prerequisite_grids);
        if qualifies && replace_edge(graph, from[i], to[i], None, Some(programmatic_edge())) {
            rewritten.push((from[i], to[i]));
        }
    }
    rewritten
}

/// Puts the edges `overlap_kernel_nodes` changed back as they were captured.
pub(super) fn restore(graph: sys::CUgraph, rewritten: &Rewritten) {
    for &(from, to) in rewritten {
        replace_edge(graph, from, to, Some(programmatic_edge()), None);
    }
}

/// Replaces the edge `from -> to` carrying `old` (`None`: a default edge) by one
/// carrying `new`; `false`, with the old edge in place, when the driver refuses.
fn replace_edge(
    graph: sys::CUgraph,
    from: sys::CUgraphNode,
    to: sys::CUgraphNode,
    old: Option<sys::CUgraphEdgeData>,
    new: Option<sys::CUgraphEdgeData>,
) -> bool {
    let data_ptr = |d: &Option<sys::CUgraphEdgeData>| {
        d.as_ref()
            .map_or(std::ptr::null(), |d| d as *const sys::CUgraphEdgeData)
    };
    // SAFETY: nodes of the live graph `graph`; one edge each, its data (or null for a
    // default edge) in locals that outlive the calls.
    unsafe {
        if sys::cuGraphRemoveDependencies_v2(graph, &from, &to, data_ptr(&old), 1)
            != sys::CUresult::CUDA_SUCCESS
        {
            return false;
        }
        if sys::cuGraphAddDependencies_v2(graph, &from, &to, data_ptr(&new), 1)
            == sys::CUresult::CUDA_SUCCESS
        {
            return true;
        }
        let _ = sys::cuGraphAddDependencies_v2(graph, &from, &to, data_ptr(&old), 1);
        false
    }
}
