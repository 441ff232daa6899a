//! A kernel's first instructions on sm_90 and later (written by `function`): what
//! lets a graph's kernel nodes overlap (`kernel_host::launch::graph`). A leaf: it
//! imports nothing of the writer.

/// A kernel's first two instructions on sm_90 and later. The first lets the kernel
/// launched after this one as its programmatic dependent (a graph's next kernel node,
/// `kernel_host::launch::graph`) start once every block of this one has started,
/// rather than once they have all exited; without such a dependent it does nothing.
/// The second waits until the grids this launch depends on have completed and their
/// memory is visible: at once for a plain launch (they already have), and for a
/// programmatic dependent it is what keeps every read and write of the kernel after
/// those of the kernel before it, as stream order would. Measured on the H200 (graph of
/// 100 `vecadd` nodes on 1,024 elements, host time per node): 1.096 us with plain
/// edges, 0.877 with the wait alone, 0.622 with both.
pub const LAUNCH_DEPENDENTS: &str =
    "call void asm sideeffect \"griddepcontrol.launch_dependents;\", \"~{memory}\"()";
/// See [`LAUNCH_DEPENDENTS`].
pub const GRID_DEPENDENCY_WAIT: &str =
    "call void asm sideeffect \"griddepcontrol.wait;\", \"~{memory}\"()";

/// Whether kernels written for `arch` (`Options::arch`) begin with
/// [`LAUNCH_DEPENDENTS`] and [`GRID_DEPENDENCY_WAIT`]: for a target known to have the
/// instructions (sm_90+). The caches' key IR (no target) and older targets go without.
pub fn waits_for_prerequisite_grids(arch: Option<u32>) -> bool {
    arch.is_some_and(|arch| arch >= 90)
}
