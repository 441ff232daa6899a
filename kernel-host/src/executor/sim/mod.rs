//! The simulated device's state: kernel-host's side of the CPU simulator
//! (`kernel_device::back::sim`, which interprets the kernel's IR). A simulated device
//! reports an H100's limits, so a launch is checked exactly as on a GPU; its arrays are
//! simulator [`Buffer`](kernel_device::back::sim::Buffer)s; every launch runs to
//! completion before it returns (`crate::launch::sim`).
//!
//! Faults follow the GPU's timing: a launch with host slices reports its own fault; a
//! launch on device arrays alone is "asynchronous", so its fault (a panic, a race, ...)
//! is kept by its stream (`crate::executor::panic::StreamFaults`) and reported by that
//! stream's next synchronisation (the default stream's also by a copy to the host) or a
//! device-wide one, as a GPU reports a device-side panic.

use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::executor::limits::DeviceLimits;
use crate::SimOptions;

/// What `Device::name` says for a simulated device.
pub(crate) const SIMULATOR_NAME: &str = "the CPU simulator";

/// The simulator reports an H100's limits (sm_90), so that `LaunchConfig::validate`
/// accepts and refuses the same shapes as on the GPU the project targets.
pub(crate) const SIMULATED_LIMITS: DeviceLimits = DeviceLimits::SM90_EXAMPLE;

/// Occupancy rules of sm_90, for `max_cooperative_grid_blocks`: the simulator runs
/// any grid, but a cooperative grid sized on it must also fit the GPU.
const THREADS_PER_MULTIPROCESSOR: u32 = 2048;
const BLOCKS_PER_MULTIPROCESSOR: u32 = 32;
const SHARED_PER_MULTIPROCESSOR: u32 = 233_472;
/// Shared memory the hardware reserves per resident block on sm_80 and later.
const SHARED_RESERVED_PER_BLOCK: u32 = 1024;

/// The environment variables of the simulator's options.
pub const SEED_VARIABLE: &str = "CUDAJIT_SIM_SEED";
pub const SCHEDULES_VARIABLE: &str = "CUDAJIT_SIM_SCHEDULES";
pub const DETECT_VARIABLE: &str = "CUDAJIT_SIM_DETECT";
pub const WORKERS_VARIABLE: &str = "CUDAJIT_SIM_WORKERS";

/// A simulated device's state.
pub(crate) struct SimDevice {
    /// Read (copied) at every launch; changed by `Device::set_sim_options`.
    options: Mutex<SimOptions>,
    /// Its ordinal among `Device::simulators(n)`; `None` for a device made alone.
    ordinal: Option<usize>,
}

impl SimDevice {
    pub(crate) fn new(options: SimOptions, ordinal: Option<usize>) -> SimDevice {
        SimDevice {
            options: Mutex::new(options),
            ordinal,
        }
    }

    pub(crate) fn ordinal(&self) -> Option<usize> {
        self.ordinal
    }

    pub(crate) fn options(&self) -> SimOptions {
        self.options
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn set_options(&self, options: SimOptions) {
        *self.options.lock().unwrap_or_else(|p| p.into_inner()) = options;
    }

    /// `sm_90 limits, race detection on, seed 0`: the options that shape a run.
    pub(crate) fn options_text(&self) -> String {
        let options = self.options();
        let mut text = format!(
            "sm_90 limits, race detection {}, seed {}",
            if options.detect { "on" } else { "off" },
            options.seed
        );
        if options.schedules > 1 {
            text.push_str(&format!(", {} schedules", options.schedules));
        }
        text
    }
}

/// The default options with those `variable` sets (`Err` naming a variable that does
/// not hold a valid value).
pub(crate) fn options_from_env(variable: impl Fn(&str) -> Option<String>) -> Result<SimOptions> {
    let mut options = SimOptions::default();
    if let Some(seed) = parsed(&variable, SEED_VARIABLE, "a seed (0 to 2^64-1)")? {
        options.seed = seed;
    }
    if let Some(schedules) = parsed::<u32>(&variable, SCHEDULES_VARIABLE, "a count of 1 or more")? {
        if schedules == 0 {
            return Err(bad_variable(
                SCHEDULES_VARIABLE,
                "0",
                "a count of 1 or more",
            ));
        }
        options.schedules = schedules;
    }
    if let Some(workers) = parsed(&variable, WORKERS_VARIABLE, "a thread count (0: all cores)")? {
        options.workers = workers;
    }
    if let Some(text) = variable(DETECT_VARIABLE).filter(|t| !t.trim().is_empty()) {
        options.detect = match text.trim().to_ascii_lowercase().as_str() {
            "1" | "on" | "true" | "yes" => true,
            "0" | "off" | "false" | "no" => false,
            _ => return Err(bad_variable(DETECT_VARIABLE, &text, "0 or 1")),
        };
    }
    Ok(options)
}

fn parsed<T: std::str::FromStr>(
    variable: &impl Fn(&str) -> Option<String>,
    name: &str,
    expected: &str,
) -> Result<Option<T>> {
    match variable(name).filter(|t| !t.trim().is_empty()) {
        None => Ok(None),
        Some(text) => text
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| bad_variable(name, &text, expected)),
    }
}

fn bad_variable(name: &str, text: &str, expected: &str) -> Error {
    Error::BackendChoice {
        detail: format!("{name}={text:?} is not {expected}"),
    }
}

/// How many blocks of `threads` threads using `shared_bytes` of shared memory (static
/// and dynamic) an sm_90 multiprocessor holds at once, registers aside.
pub(crate) fn blocks_per_multiprocessor(threads: u32, shared_bytes: u32) -> u32 {
    let warps = threads.div_ceil(32).max(1);
    let by_threads = THREADS_PER_MULTIPROCESSOR / 32 / warps;
    let by_shared = if shared_bytes == 0 {
        u32::MAX
    } else {
        SHARED_PER_MULTIPROCESSOR / shared_bytes.saturating_add(SHARED_RESERVED_PER_BLOCK)
    };
    by_threads.min(by_shared).min(BLOCKS_PER_MULTIPROCESSOR)
}
