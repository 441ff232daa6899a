//! The first-launch half of the opt-in profile (`crate::launch::profile` has the
//! launch path's, and re-exports these items): the stages of a kernel's first launch
//! on a device, timed by `crate::compile::jit` and recorded process-wide, since they
//! happen once per kernel and device. Also the switch both halves read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use kernel_device::source::FnSource;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Turns the profile on or off for the launches that follow (all threads).
pub fn enable(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Whether the profile is on (one relaxed load).
#[inline(always)]
pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// A stage of a kernel's first launch on a device (`crate::compile::jit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstStage {
    /// The kernel's source to NVVM IR (the disk and AOT keys' input), AOT lookup.
    FrontEnd,
    /// The disk cache read (toolchain identified by its files, no library loaded).
    DiskLookup,
    /// libnvvm loaded (the process's first compile) and the key for storing found.
    LibnvvmLoad,
    /// The IR for this libnvvm written and compiled to PTX.
    Compile,
    /// The PTX loaded by the driver (its JIT to machine code included).
    ModuleLoad,
    /// Of `ModuleLoad`, the driver's PTX-to-machine-code compile, by its own clock
    /// (`CU_JIT_WALL_TIME`): a note, not a stage of its own (it is inside `ModuleLoad`).
    DriverJit,
    /// Of `ModuleLoad`, embedded machine code loaded (`crate::compile::aot`): no JIT.
    /// A note, as `DriverJit`.
    MachineCodeLoad,
    /// The module compiled while the GPU opened (`crate::compile::while_opening`) taken
    /// into the context: in place of every stage from the disk lookup to the module's
    /// load.
    FromOpening,
    /// Panic sites installed, functions and attributes found.
    Install,
    /// The PTX written to the disk cache.
    DiskStore,
}

impl FirstStage {
    pub fn name(self) -> &'static str {
        match self {
            FirstStage::FrontEnd => "front_end",
            FirstStage::DiskLookup => "disk_lookup",
            FirstStage::LibnvvmLoad => "libnvvm_load",
            FirstStage::Compile => "compile",
            FirstStage::ModuleLoad => "module_load",
            FirstStage::DriverJit => "driver_jit_in_module_load",
            FirstStage::MachineCodeLoad => "machine_code_in_module_load",
            FirstStage::FromOpening => "module_compiled_while_opening",
            FirstStage::Install => "install",
            FirstStage::DiskStore => "disk_store",
        }
    }
}

/// One kernel's first launch on a device: microseconds per stage, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstLaunch {
    pub kernel: String,
    pub stages: Vec<(FirstStage, f64)>,
}

static FIRST_LAUNCHES: Mutex<Vec<FirstLaunch>> = Mutex::new(Vec::new());

/// Takes (and clears) the first launches profiled so far, in the order they ended.
pub fn take_first_launches() -> Vec<FirstLaunch> {
    std::mem::take(&mut *FIRST_LAUNCHES.lock().unwrap_or_else(|p| p.into_inner()))
}

/// Times the stages of one first launch (nothing when the profile is off).
pub(crate) struct FirstLaunchTimer {
    running: Option<(Instant, FirstLaunch)>,
}

impl FirstLaunchTimer {
    /// Times the first launch of `source` (`part`: which of its module's kernels,
    /// empty for the kernel itself), named as written (`axpy::<f32>`).
    pub(crate) fn start(source: &FnSource, part: &str) -> FirstLaunchTimer {
        FirstLaunchTimer {
            running: enabled().then(|| {
                (
                    Instant::now(),
                    FirstLaunch {
                        kernel: source.written_name() + part,
                        stages: Vec::new(),
                    },
                )
            }),
        }
    }

    /// A timer that records nothing (work that is no launch's).
    pub(crate) fn off() -> FirstLaunchTimer {
        FirstLaunchTimer { running: None }
    }

    pub(crate) fn mark(&mut self, stage: FirstStage) {
        if let Some((last, record)) = &mut self.running {
            let now = Instant::now();
            record
                .stages
                .push((stage, now.duration_since(*last).as_secs_f64() * 1e6));
            *last = now;
        }
    }

    /// Records `us` for `stage` measured by another clock, without ending the stage
    /// being timed.
    pub(crate) fn note(&mut self, stage: FirstStage, us: f64) {
        if let Some((_, record)) = &mut self.running {
            record.stages.push((stage, us));
        }
    }

    pub(crate) fn finish(self) {
        if let Some((_, record)) = self.running {
            FIRST_LAUNCHES
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(record);
        }
    }
}
