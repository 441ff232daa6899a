//! The CPU simulator: a second backend that interprets the validated IR (the same
//! module the NVVM writer consumes), so that every kernel runs without a GPU and the
//! bugs a GPU hides (data races, reads of unwritten shared memory, divergent barriers,
//! warp operations naming inactive lanes, out-of-bounds accesses) come back as a
//! [`Fault`] naming both threads, the location and both source sites.
//!
//! Threads run as 32-lane warps in lockstep; a block's warps are interleaved by a seeded
//! scheduler and suspend at barriers; blocks are spread over host worker threads.
//! Device memory is [`Buffer`]s, which kernel-host's simulated `DeviceArray`s own.
//!
//! Layout, bottom up: `fault` (what a failed launch reports), `config` (what a launch
//! takes), `memory` (buffers and address spaces), `pointer`, `lanes`, `scalar`, `math`,
//! `plan` and `values` (the encodings of pointers, masks, scalars and values),
//! `detect` (the happens-before race detector and shadow memory), `launch` (a prepared
//! launch), then the interpreter (`warp`, `eval`, `place`, `batch`, `intrinsics`,
//! `diverge`, `spin`) and `sched`, the scheduler this file's [`run`] starts. Each file
//! imports only files below it; this one only declares, re-exports and starts.

// `Fault` is the public error (large, as it names two accesses); launches fail rarely.
#![allow(clippy::result_large_err)]

// async copies
mod async_copy;
mod async_state;
mod batch;
// Hopper: clusters
mod cluster;
mod cluster_state;
mod config;
mod detect;
mod diverge;
mod eval;
mod fault;
mod guard;
mod intrinsics;
mod lanes;
mod launch;
mod math;
// Hopper
mod mbarrier;
mod mbarrier_state;
mod memory;
// tensor cores: warp-collective `mma.sync`, `ldmatrix`, `stmatrix`
pub mod mma;
mod place;
mod plan;
mod pointer;
// print
mod print;
mod print_sink;
mod scalar;
mod sched;
mod spin;
#[cfg(test)]
mod tests;
// Hopper: TMA
#[cfg(test)]
#[path = "tma_tests.rs"]
mod tma_tests;
// Hopper: TMA
mod tma;
mod tma_args;
#[cfg(test)]
mod tma_copy_tests;
mod tma_multicast;
mod tma_state;
#[cfg(test)]
mod tma_store_tests;
mod values;
mod warp;
// Hopper: wgmma
mod wgmma;
mod wgmma_state;

use crate::ir;

pub use config::{Arg, LaunchShape, Options, Report};
pub use detect::{BlockDetector, Detector, Region, RegionId, SiteId, Space, WarpAccess};
pub use fault::{Access, AccessKind, Fault, Site, ThreadId};
pub use memory::Buffer;
// print
pub use print_sink::PrintSink;

/// Runs `kernel` of `module` over the whole grid, to completion.
pub fn run(
    module: &ir::Module,
    kernel: &str,
    shape: &LaunchShape,
    args: &[Arg],
    options: &Options,
) -> Result<Report, Fault> {
    sched::run_launch(launch::Launch::prepare(
        module, kernel, shape, args, options,
    )?)
}

// Hopper: clusters
/// [`run`] with the grid's blocks in clusters of `cluster` blocks (`[1, 1, 1]`: as
/// `run`); an `Err` if the grid is not tiled by whole clusters or a cluster is larger
/// than the portable 8 blocks.
pub fn run_in_clusters(
    module: &ir::Module,
    kernel: &str,
    shape: &LaunchShape,
    cluster: [u32; 3],
    args: &[Arg],
    options: &Options,
) -> Result<Report, Fault> {
    sched::run_launch(
        launch::Launch::prepare(module, kernel, shape, args, options)?.in_clusters(cluster)?,
    )
}
