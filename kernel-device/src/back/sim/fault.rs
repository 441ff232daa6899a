//! Why a simulated launch fails: [`Fault`] and the threads, accesses and source sites
//! it names. Every file of the simulator reports through these types, so they sit
//! below all of them.

use std::fmt;

use super::memory::Buffer;
use super::scalar;
use crate::ir::ScalarType;

/// What a step of the interpreter gives: its value, or the fault that ends the launch
/// (boxed: faults are large and rare).
pub type R<T> = Result<T, Box<Fault>>;

/// How a thread touched memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
    Atomic,
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic",
        })
    }
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
    // async copies
    /// A thread ended (or its block did) with a `cp_async` no wait retired.
    #[error("cp_async never waited for: the copy to {location} at {site} by {thread} was still in flight when the block ended (a cp_async_wait is missing: its bytes land at no point the kernel can rely on)")]
    UnwaitedAsyncCopy {
        location: String,
        site: Site,
        thread: ThreadId,
    },
    // Hopper: TMA
    /// A block ended with a `tma_store` whose read of its shared tile no
    /// `bulk_wait_group_read` retired.
    #[error("tma_store never waited for: the store from {location} at {site} by {thread} may still have been reading its tile when the block ended (a bulk_commit_group() and bulk_wait_group_read::<0>() are missing: the block's shared memory may be given to another block while the copy reads it)")]
    UnwaitedBulkStore {
        location: String,
        site: Site,
        thread: ThreadId,
    },
    // Hopper
    /// An mbarrier used against its protocol (`back::sim::mbarrier`): `problem` says
    /// how, naming the other site where there is one.
    #[error("mbarrier misuse on {location} at {site} by {thread}: {problem}")]
    Mbarrier {
        location: String,
        site: Site,
        thread: ThreadId,
        problem: String,
    },
    // Hopper: wgmma
    /// A warpgroup MMA used against its protocol (`back::sim::wgmma`): `problem` says
    /// how, naming the other site where there is one.
    #[error("wgmma misuse at {site} by {thread}: {problem}")]
    Wgmma {
        site: Site,
        thread: ThreadId,
        problem: String,
    },
    // Hopper: clusters
    /// Distributed shared memory used against the cluster's rules (`back::sim::cluster`):
    /// `problem` says how.
    #[error("cluster misuse at {site} by {thread}: {problem}")]
    Cluster {
        site: Site,
        thread: ThreadId,
        problem: String,
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

/// Two writes of one value race all the same (the memory model says so); saying so
/// lets the user judge. `v` is the second write's value, `offset` its place.
pub fn note_both_wrote(fault: &mut Fault, buffer: &Buffer, offset: u64, s: ScalarType, v: u64) {
    if let Fault::Race {
        location,
        first,
        second,
    } = fault
    {
        let both_write = first.kind == AccessKind::Write && second.kind == AccessKind::Write;
        if both_write && buffer.load(offset as usize, s.size_bytes()) == scalar::truncate(s, v) {
            location.push_str(&format!(", where both wrote {}", value_text(s, v)));
        }
    }
}

/// A scalar's value as the kernel's source would write it.
fn value_text(s: ScalarType, v: u64) -> String {
    match s {
        ScalarType::Bool => (v & 1 != 0).to_string(),
        ScalarType::F32 => scalar::f32_of(v).to_string(),
        ScalarType::F64 => scalar::f64_of(v).to_string(),
        _ if s.is_float() => scalar::half_to_f32(s, v).to_string(),
        _ => scalar::int_value(s, v).to_string(),
    }
}
