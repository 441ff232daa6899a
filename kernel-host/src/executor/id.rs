//! Which device an object lives on, as launches and arrays compare it: below `Device`
//! and the executors, which both name it.

/// Which device an array lives on, for the launch's argument check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeviceId {
    /// A GPU by ordinal, and the generation of its context (see `crate::executor::health`).
    Cuda(usize, u64),
    /// A simulated device, by the address of its executor's state (each is distinct),
    /// and its ordinal among `Device::simulators(n)` (`None` for one made alone).
    Sim(usize, Option<usize>),
}

impl std::fmt::Display for DeviceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceId::Cuda(ordinal, _) => write!(f, "CUDA device {ordinal}"),
            DeviceId::Sim(_, None) => f.write_str("the CPU simulator"),
            DeviceId::Sim(_, Some(ordinal)) => write!(f, "simulated device {ordinal}"),
        }
    }
}
