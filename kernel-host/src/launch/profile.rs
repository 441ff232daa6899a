//! Where a launch's host time goes: an opt-in profile of the launch path's stages
//! (issue 27) and of a kernel's first launch (front end, disk lookup, libnvvm, module
//! load), for `bench/vecadd_launch.rs` to print beside its timings.
//!
//! Off by default, and then it costs one relaxed load per launch (the branch on it is
//! never taken): no clock is read. [`enable`] turns it on; a launch then reads the
//! clock once per stage and adds the time since the previous read to its stage, in
//! totals of the calling thread (one thread's launches, no shared counter to disturb
//! them). Each stage's figure includes one clock read ([`clock_cost_ns`] says how
//! long one takes on this machine, to subtract). First launches are recorded
//! process-wide, since they happen once per kernel and device (`crate::compile::profile`,
//! in the layer that makes them; its items are re-exported here).

use std::cell::Cell;
use std::time::Instant;

pub use crate::compile::jit_warm_up::{
    driver_jit_warm_up_report, DriverJitWarmUp, DRIVER_JIT_WARM_UP_VARIABLE,
};
use crate::compile::profile::enabled;
pub use crate::compile::profile::{enable, take_first_launches, FirstLaunch, FirstStage};
pub use crate::compile::warm_up::{warm_up_report, WarmUp, WARM_UP_VARIABLE};
pub use crate::compile::while_opening::{
    compiled_while_opening_report, CompiledWhileOpening, COMPILE_WHILE_OPENING_VARIABLE,
};
pub use crate::launch::host_bench::{host_path_bench, HostPathRow, EVICT_BYTES};
pub use crate::launch::ladder::{launch_ladder, LadderLaunch, LADDER_RUNGS};

/// A stage of a launch through the driver, in the order a launch passes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The context bound and guarded against a reset (`Device::bind`).
    Bind,
    /// The stream's panic record found and its launcher noted.
    PanicRecord,
    /// The shape checked against the device's and the kernel's limits, health checks.
    Validate,
    /// The loaded kernel found in its cache.
    KernelLookup,
    /// Argument types and devices checked, static shared memory counted.
    ArgumentCheck,
    /// Uses of device arrays ordered across streams, pending reads settled.
    StreamOrdering,
    /// Parameter slots filled, the proven copy chosen (the launch proof evaluated).
    Marshal,
    /// The driver call itself (`cuLaunchKernelEx`: `context::launch_kernel`).
    Driver,
    /// Tracked reads left pending on the stream.
    AfterLaunch,
}

impl Stage {
    pub const ALL: [Stage; 9] = [
        Stage::Bind,
        Stage::PanicRecord,
        Stage::Validate,
        Stage::KernelLookup,
        Stage::ArgumentCheck,
        Stage::StreamOrdering,
        Stage::Marshal,
        Stage::Driver,
        Stage::AfterLaunch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Bind => "bind",
            Stage::PanicRecord => "panic_record",
            Stage::Validate => "validate",
            Stage::KernelLookup => "kernel_lookup",
            Stage::ArgumentCheck => "argument_check",
            Stage::StreamOrdering => "stream_ordering",
            Stage::Marshal => "marshal",
            Stage::Driver => "driver",
            Stage::AfterLaunch => "after_launch",
        }
    }
}

const STAGES: usize = Stage::ALL.len();

thread_local! {
    /// This thread's nanoseconds per stage, and its profiled launches.
    static TOTALS: Cell<([u64; STAGES], u64)> = const { Cell::new(([0; STAGES], 0)) };
    /// The function this thread's latest profiled launch passed to the driver.
    static LAST_FUNCTION: Cell<usize> = const { Cell::new(0) };
}

thread_local! {
    /// Launches this thread made through the fast path (`super::fast`).
    static FAST_LAUNCHES: Cell<u64> = const { Cell::new(0) };
}

/// Counts a launch made through the fast path.
#[inline(always)]
pub(crate) fn note_fast_launch() {
    FAST_LAUNCHES.with(|n| n.set(n.get() + 1));
}

/// How many of the calling thread's launches took the fast path (`launch::fast`): a
/// launch the thread's memo knew, on arrays last used on its stream. A test of what that
/// path passes to the driver checks its launches came this way.
pub fn fast_path_launches() -> u64 {
    FAST_LAUNCHES.with(Cell::get)
}

/// The `CUfunction` the calling thread's latest profiled launch passed to
/// the driver (the kernel's proven copy where the launch chose it), so that a
/// benchmark can launch the very same function bare beside `launch!`: whether the
/// driver's own work differs between two functions of one kernel is then measured,
/// not guessed. `None` before a profiled launch.
pub fn last_launched_function() -> Option<cudarc::driver::sys::CUfunction> {
    let function = LAST_FUNCTION.with(Cell::get);
    (function != 0).then_some(function as cudarc::driver::sys::CUfunction)
}

/// Times one launch's stages (nothing when the profile is off).
pub(crate) struct LaunchTimer {
    last: Option<Instant>,
}

impl LaunchTimer {
    #[inline(always)]
    pub(crate) fn start() -> LaunchTimer {
        LaunchTimer {
            last: if enabled() {
                Some(Instant::now())
            } else {
                None
            },
        }
    }

    /// A timer that records nothing (a launch timed as part of another stage).
    pub(crate) fn off() -> LaunchTimer {
        LaunchTimer { last: None }
    }

    /// Ends `stage`: the time since the previous mark is its.
    #[inline(always)]
    pub(crate) fn mark(&mut self, stage: Stage) {
        if let Some(last) = &mut self.last {
            add_stage(last, stage);
        }
    }

    /// Remembers the function the launch passes to the driver (profiled launches only).
    #[inline(always)]
    pub(crate) fn note_function(&self, function: cudarc::driver::sys::CUfunction) {
        if self.last.is_some() {
            LAST_FUNCTION.with(|f| f.set(function as usize));
        }
    }

    /// Counts the launch (call once it was queued).
    #[inline(always)]
    pub(crate) fn finish(self) {
        if self.last.is_some() {
            TOTALS.with(|t| {
                let (stages, launches) = t.get();
                t.set((stages, launches + 1));
            });
        }
    }
}

#[cold]
#[inline(never)]
fn add_stage(last: &mut Instant, stage: Stage) {
    let now = Instant::now();
    let ns = now.duration_since(*last).as_nanos() as u64;
    *last = now;
    TOTALS.with(|t| {
        let (mut stages, launches) = t.get();
        stages[stage as usize] += ns;
        t.set((stages, launches));
    });
}

/// The calling thread's launches profiled since the last call, and the mean
/// nanoseconds per launch of each stage (each including one clock read).
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchProfile {
    pub launches: u64,
    pub stages: Vec<(Stage, f64)>,
}

/// Takes (and clears) the calling thread's launch profile.
pub fn take_launch_profile() -> LaunchProfile {
    let (stages, launches) = TOTALS.with(|t| t.replace(([0; STAGES], 0)));
    let per_launch = |ns: u64| ns as f64 / launches.max(1) as f64;
    LaunchProfile {
        launches,
        stages: Stage::ALL
            .iter()
            .map(|&s| (s, per_launch(stages[s as usize])))
            .collect(),
    }
}

/// Nanoseconds one clock read takes here (the least of many): what each stage of a
/// profiled launch carries on top of its own work.
pub fn clock_cost_ns() -> f64 {
    const READS: u32 = 1000;
    (0..20)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..READS {
                std::hint::black_box(Instant::now());
            }
            t.elapsed().as_nanos() as f64 / f64::from(READS)
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Off, a timer records nothing; on, each mark charges its stage with the time
    /// since the previous mark, and `take` clears the totals.
    #[test]
    fn stages_are_charged_only_while_enabled() {
        // Thread-local totals: this test's thread sees only its own launches, but the
        // switch is global, so no other test may rely on it being off.
        enable(false);
        let mut off = LaunchTimer::start();
        off.mark(Stage::Bind);
        off.finish();
        assert_eq!(take_launch_profile().launches, 0);

        enable(true);
        for _ in 0..4 {
            let mut timer = LaunchTimer::start();
            std::thread::sleep(std::time::Duration::from_millis(2));
            timer.mark(Stage::Bind);
            timer.mark(Stage::Driver);
            timer.finish();
        }
        enable(false);
        let profile = take_launch_profile();
        assert_eq!(profile.launches, 4);
        let of = |stage| profile.stages.iter().find(|(s, _)| *s == stage).unwrap().1;
        assert!(of(Stage::Bind) >= 2e6, "{profile:?}");
        assert!(of(Stage::Driver) < 1e6, "{profile:?}");
        assert_eq!(of(Stage::Marshal), 0.0);
        assert_eq!(take_launch_profile().launches, 0, "taken once");
        assert!(clock_cost_ns() > 0.0);
    }
}
