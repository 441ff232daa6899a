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
//! Layout: `memory` (buffers and address spaces), `detect` (the happens-before race
//! detector and shadow memory), the interpreter in the other files.

// `Fault` is the public error (large, as it names two accesses); launches fail rarely.
#![allow(clippy::result_large_err)]

mod batch;
mod detect;
mod diverge;
mod eval;
mod guard;
mod intrinsics;
mod launch;
mod math;
mod memory;
mod place;
mod plan;
mod scalar;
mod sched;
mod spin;
#[cfg(test)]
mod tests;
mod warp;

use std::fmt;
use std::sync::Arc;

use crate::ir::{self, ScalarType, Type};

pub use detect::{
    AccessKind, BlockDetector, Detector, Region, RegionId, SiteId, Space, WarpAccess,
};
pub use memory::Buffer;

/// One kernel argument, in parameter order (a slice is one `Slice`, not a pointer and a
/// length).
#[derive(Clone, Debug)]
pub enum Arg {
    /// A scalar by value: its bit pattern in the low bits (bool: 0 or 1).
    Scalar { ty: ScalarType, bits: u64 },
    /// A `#[derive(DeviceCopy)]` struct by value: its bytes, laid out as `ir::layout`.
    Value { ty: Type, bytes: Vec<u8> },
    /// A slice of `len` elements of `elem` (a scalar or a struct) starting `offset`
    /// bytes into `buffer`.
    Slice {
        elem: Type,
        buffer: Arc<Buffer>,
        offset: usize,
        len: usize,
        mutable: bool,
    },
}

/// The launch configuration, already validated against the simulated device's limits
/// by kernel-host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The launch's dynamic shared memory (`shared_bytes`).
    pub dynamic_shared_bytes: u32,
}

/// How to run a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Track happens-before and shadow memory to find races, reads of unwritten shared
    /// memory and the other defects; off only for speed.
    pub detect: bool,
    /// Seeds the order in which warps of a block (and blocks) are interleaved.
    pub seed: u64,
    /// How many differently seeded schedules to try (the first fault wins).
    pub schedules: u32,
    /// Host threads to spread blocks over (0: every available core).
    pub workers: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            detect: true,
            seed: 0,
            schedules: 1,
            workers: 0,
        }
    }
}

/// What a successful launch did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub blocks: u64,
    pub threads: u64,
    /// Warp instructions executed (each counts once however many lanes were active).
    pub warp_steps: u64,
}

/// A thread of the launch: block and thread index, as CUDA's `blockIdx`/`threadIdx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadId {
    pub block: [u32; 3],
    pub thread: [u32; 3],
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(f, "block ({bx}, {by}, {bz}) thread ({tx}, {ty}, {tz})")
    }
}

/// A place in the kernel's source, as `file:line:column`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Site {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One side of a conflict: who accessed, how, and where in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub thread: ThreadId,
    pub kind: AccessKind,
    pub site: Site,
}

/// Why a simulated launch failed. Kernel-host turns `Panic` into the same
/// `Error::KernelPanic` a GPU launch gives, and the rest into its simulator error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Fault {
    /// A device-side panic, with the message the NVVM backend would record
    /// (`ir::checks` texts, operands substituted).
    #[error("panicked at {site}: {message} ({thread})")]
    Panic {
        message: String,
        site: Site,
        thread: ThreadId,
    },
    /// Two accesses of different threads to one location, at least one a write, not
    /// both atomic, that no barrier, grid sync or atomic orders.
    #[error("data race on {location}: {} at {} by {} conflicts with {} at {} by {}",
        .first.kind, .first.site, .first.thread, .second.kind, .second.site, .second.thread)]
    Race {
        /// The memory in the kernel's words: "`out`[17] (global)", "shared `tile`[3][4]".
        location: String,
        first: Access,
        second: Access,
    },
    /// A read of shared memory that no thread of the block has written.
    #[error("read of uninitialised shared memory {location} at {site} by {thread}")]
    UninitialisedRead {
        location: String,
        site: Site,
        thread: ThreadId,
    },
    /// A read of shared memory that no thread had written yet, by a thread that ran
    /// before the write of another thread of the block with no barrier between them.
    #[error("read of uninitialised shared memory {location} at {} by {}: {} writes it later at {}, with no barrier between them (a `sync_threads()` is missing between the write and the read)",
        .read.site, .read.thread, .write.thread, .write.site)]
    ReadBeforeWrite {
        location: String,
        read: Access,
        write: Access,
    },
    /// A block barrier reached by some threads of a block while others exited or wait
    /// at another barrier.
    #[error("barrier divergence: {waiting} waits at {site} but {other} {elsewhere}")]
    BarrierDivergence {
        site: Site,
        waiting: ThreadId,
        other: ThreadId,
        /// "exited", "waits at FILE:LINE:COL", ...
        elsewhere: String,
    },
    /// A warp operation whose mask names a lane that is not executing it.
    #[error("{operation} at {site} by {thread} names lane {lane} in mask {mask:#010x}, but that lane is not executing it")]
    InactiveLane {
        operation: String,
        site: Site,
        thread: ThreadId,
        lane: u32,
        mask: u32,
    },
    /// A warp operation's mask that is wrong in another way than naming an inactive
    /// lane: the calling lane missing from its own mask, a shuffle reading a lane
    /// outside the mask (or one that exited), lanes naming each other with
    /// different masks.
    #[error("{operation} at {site} by {thread} with mask {mask:#010x}: {problem}")]
    WarpMask {
        operation: String,
        site: Site,
        thread: ThreadId,
        mask: u32,
        problem: String,
    },
    /// An access outside every buffer (a kernel compiled with `boundscheck = false`
    /// indexing past a slice): the GPU's illegal address, found at its source.
    #[error("out-of-bounds {kind} of {location} at {site} by {thread}")]
    OutOfBounds {
        kind: AccessKind,
        location: String,
        site: Site,
        thread: ThreadId,
    },
    /// The launch cannot make progress (every remaining warp waits for one that never
    /// comes), which the GPU would show as a hang.
    #[error("deadlock: {0}")]
    Deadlock(String),
    /// The arguments do not match the kernel's parameters, or the kernel is missing.
    #[error("{0}")]
    Launch(String),
}

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
