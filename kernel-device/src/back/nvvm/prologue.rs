//! A kernel's first instructions on sm_90 and later (written by `function`): what
//! lets a graph's kernel nodes overlap (`kernel_host::launch::graph`). A leaf: it
//! imports nothing of the writer.

/// A kernel's first instruction on sm_90 and later: wait until the grids this launch
/// depends on have completed and their memory is visible: at once for a plain launch
/// (they already have), and for a programmatic dependent (a graph's next kernel node,
/// `kernel_host::launch::graph`) it is what keeps every read and write of the kernel
/// after those of the kernel before it, as stream order would. Measured on the H200
/// (graph of 100 `vecadd` nodes on 1,024 elements, host time per node): 1.096 us with
/// plain edges, 0.877 with this wait. `griddepcontrol.launch_dependents` at the start as
/// well (0.622 us per node) is left out: with it, the same `vecadd` launched on a plain
/// stream ran 1.31x slower (82.8 against 63.0 us on 2^24 elements, H200 at 5f389bc).
pub const GRID_DEPENDENCY_WAIT: &str =
    "call void asm sideeffect \"griddepcontrol.wait;\", \"~{memory}\"()";

/// Whether kernels written for `arch` (`Options::arch`) begin with
/// [`GRID_DEPENDENCY_WAIT`]: for a target known to have the
/// instructions (sm_90+). The caches' key IR (no target) and older targets go without.
pub fn waits_for_prerequisite_grids(arch: Option<u32>) -> bool {
    arch.is_some_and(|arch| arch >= 90)
}
