//! The CUDA driver's state for one GPU: its primary context, its health, its pool of
//! panic records and its stream-ordered memory pool (how it answers the executor
//! trait is in `crate::executor`; how a GPU is opened, `open_gpu`'s).

use std::sync::{Arc, Mutex};

use cudarc::driver::{sys, CudaContext};

use crate::executor::health::Health;
use crate::executor::panic::{ModuleTable, RecordPool};

/// A GPU's driver state.
pub(crate) struct CudaDevice {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) ordinal: usize,
    /// Every module loaded into this context that can report a device-side panic, by
    /// the tag its panics carry.
    pub(crate) modules: ModuleTable,
    /// Panic records of launches with host slices (one per launch in flight).
    pub(crate) records: RecordPool,
    /// Whether the context works (see `crate::executor::health`).
    pub(crate) health: Arc<Health>,
    /// The stream-ordered pool device arrays are allocated from (see `crate::memory::allocation`).
    pub(crate) pool: PoolState,
}

/// The device's memory pool, configured once per context generation (see
/// `crate::memory::pool`).
#[derive(Default)]
pub(crate) struct PoolState {
    /// `(generation, pool)`; `None` until first used.
    pub(crate) pool: Mutex<Option<(u64, sys::CUmemoryPool)>>,
}

// SAFETY: a pool handle is a device-wide driver object, usable from any thread.
unsafe impl Send for PoolState {}
unsafe impl Sync for PoolState {}
