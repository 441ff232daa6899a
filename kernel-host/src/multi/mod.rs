//! Several devices in one process: every GPU of the host (`Device::all`), copies
//! between devices (`peer`), and collective communication (`collective`) through NCCL
//! on GPUs (`nccl`, loaded at run time like the driver) or through the simulator's own
//! implementation (`sim_group`) on simulated devices, so that multi-device code is
//! tested on machines without GPUs.
//!
//! Every array, stream and loaded kernel belongs to one device; the launch's argument
//! check and the copies here refuse an array of another device with an `Err` naming
//! both. Collectives and peer copies run on the legacy NULL stream of each device,
//! ordered after the arrays' uses on other streams like every copy (see
//! `crate::memory::allocation`): a collective that reads an array waits for the kernel
//! that wrote it, and a later kernel waits for the collective.

mod collective;
mod nccl;
mod op;
mod peer;
mod sim_group;

pub use collective::{CollectiveElem, Communicator, Communicators, ReduceOp, UniqueId};
pub use nccl::NCCL_PATH_VARIABLE;
pub use peer::PeerPath;

use crate::device::Device;
use crate::error::Result;

/// The version of the NCCL library cudajit loads, `(major, minor, patch)`; `Err` naming
/// the places searched when there is none.
pub fn nccl_version() -> Result<(u32, u32, u32)> {
    let code = nccl::nccl()?.version as u32;
    // NCCL 2.9 and later: major * 10000 + minor * 100 + patch.
    Ok((code / 10000, code / 100 % 100, code % 100))
}

impl Device {
    /// Every GPU of the host, in ordinal order (`Err(NoDriver)` without a driver; an
    /// empty list when the driver sees no GPU).
    pub fn all() -> Result<Vec<Device>> {
        (0..Device::count()?).map(Device::new).collect()
    }

    /// `n` simulated devices, each with memory of its own and ordinals `0..n`, with the
    /// options of the process-wide simulator: several devices' code runs (and its
    /// collectives) on a machine without GPUs.
    pub fn simulators(n: usize) -> Result<Vec<Device>> {
        let options = Device::simulator()?.sim_options().unwrap_or_default();
        Ok((0..n)
            .map(|ordinal| Device::simulator_numbered(options.clone(), ordinal))
            .collect())
    }
}
