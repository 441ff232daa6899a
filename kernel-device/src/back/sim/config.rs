//! What a simulated launch takes (its arguments, shape and options) and what it reports
//! when it succeeds.

use std::sync::Arc;

use super::memory::Buffer;
use crate::ir::{ScalarType, Type};

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
    // Hopper: TMA
    /// A tensor map (`proc::tma`'s simulator descriptor) over the tensor in `buffer`
    /// (from its first byte); `writable` where the host built it from a `&mut` array
    /// (a `TensorMapMut`: only such a map may be passed for one stores write through).
    TensorMap {
        descriptor: [u8; crate::proc::tma::DESCRIPTOR_BYTES],
        buffer: Arc<Buffer>,
        writable: bool,
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
    // print
    /// Where print statements append their records (`None`: prints are dropped, as
    /// for a module without any).
    pub prints: Option<super::print_sink::PrintSink>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            detect: true,
            seed: 0,
            schedules: 1,
            workers: 0,
            prints: None,
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
