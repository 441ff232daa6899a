//! How the simulator is opened as a [`Device`]: the process-wide one with the
//! environment's options, or one of its own.

use std::sync::OnceLock;

use crate::device::Device;
use crate::error::Result;

use crate::executor::sim::{options_from_env, SimDevice, SIMULATED_LIMITS, SIMULATOR_NAME};

/// The process-wide simulated device (`Device::simulator()`), with the environment's
/// options.
pub(crate) fn shared_simulator() -> Result<&'static Device> {
    static SIMULATOR: OnceLock<Result<Device>> = OnceLock::new();
    SIMULATOR
        .get_or_init(|| {
            options_from_env(|name| std::env::var(name).ok()).map(Device::simulator_with)
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl Device {
    /// The process-wide simulated device, with the options of `CUDAJIT_SIM_SEED`,
    /// `CUDAJIT_SIM_SCHEDULES`, `CUDAJIT_SIM_DETECT` and `CUDAJIT_SIM_WORKERS`
    /// (`Err` naming the variable when one is not a number).
    pub fn simulator() -> Result<Device> {
        shared_simulator().cloned()
    }

    /// A new simulated device of its own with `options` (seed, schedules, detection,
    /// worker threads); its arrays are not shared with other simulated devices.
    pub fn simulator_with(options: crate::SimOptions) -> Device {
        Device::from_executor(
            SIMULATOR_NAME.to_string(),
            SIMULATED_LIMITS,
            Box::new(SimDevice::new(options, None)),
        )
    }

    /// Simulated device `ordinal` of a set (`Device::simulators`): named by its
    /// ordinal in messages, so that an error can say which of them an array is on.
    pub(crate) fn simulator_numbered(options: crate::SimOptions, ordinal: usize) -> Device {
        Device::from_executor(
            format!("{SIMULATOR_NAME} {ordinal}"),
            SIMULATED_LIMITS,
            Box::new(SimDevice::new(options, Some(ordinal))),
        )
    }
}
