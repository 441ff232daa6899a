//! libnvvm made ready before the process's first compile needs it: when a GPU opens,
//! libnvvm is loaded on the opening thread and one small bounds-checked kernel is
//! compiled on a thread of its own, so that the first real compile finds the library
//! loaded (~4.4 ms on the H200's host) and LLVM's first-use costs paid (a checked
//! vecadd's first compile in a process took 12.7 ms there, a second one 7.1 ms). On by
//! default; `CUDAJIT_NVVM_WARM_UP=0` turns it off (a process whose kernels all come from
//! the disk cache or ahead-of-time PTX then never loads libnvvm).
//!
//! Why part of it is on the opening thread: libnvvm registers static destructors with
//! `atexit` while it loads (3,313 of them, libnvvm 13.0.88), during its first verify
//! (3) and during its first compile (2), and none in later compiles (counted with gdb on
//! `__cxa_atexit`, whatever the options, libdevice included). A process that exits
//! while another thread is inside libnvvm runs the destructors registered after any
//! handler of ours under that thread: measured, a process exiting while libnvvm loaded
//! on the warm-up thread crashed 2–3 times in 5 (the bench's first-instantiation child
//! died of SIGSEGV on the H200), and with only the load moved here, 19 exits in 40
//! during the background compile crashed (SIGSEGV, SIGABRT). So the opening thread
//! loads libnvvm and compiles an empty module at `-opt=0` (every registration made),
//! then registers [`wait_at_exit`], which therefore runs before all of libnvvm's
//! destructors and waits for the background compile. The test
//! `an_exit_at_any_moment_of_the_warm_up_is_clean` exits child processes at every
//! moment of it.
//!
//! The warm-up holds libnvvm's lock while it compiles: a compile asked for in that
//! moment waits for the rest of it (a few ms), which a launch this early would
//! otherwise have spent on LLVM's first-use costs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::CudaContext;
use kernel_device::back::nvvm::Options;
use kernel_device::ir::FunctionOptions;
use kernel_device::source::{FnSource, SourceKind};

use crate::compile::{libnvvm, lower};

/// The variable that turns the warm-up off (`0`); it is on otherwise.
pub const WARM_UP_VARIABLE: &str = "CUDAJIT_NVVM_WARM_UP";

/// The kernel compiled: the shape of most first kernels (a guarded, bounds-checked
/// element-wise loop body), so that the same optimiser and code generator paths run.
static WARM_UP_KERNEL: FnSource = FnSource {
    name: "cudajit_nvvm_warm_up",
    kind: SourceKind::Kernel,
    text: "fn cudajit_nvvm_warm_up(a: &[f32], b: &[f32], c: &mut [f32]) { let i = grid(1); \
           if i < c.len() { c[i] = a[i] + b[i]; } }",
    file: "<cudajit libnvvm warm-up>",
    line: 1,
    options: FunctionOptions::DEFAULT,
    deps: &[],
    consts: &[],
    structs: &[],
    instance: &[],
};

/// What the warm-up did, for the bench's report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarmUp {
    /// libnvvm's load and an empty kernel's compile, on the thread that opened the GPU.
    pub load_ms: f64,
    /// The warm-up kernel's front end and compile, on the warm-up's thread.
    pub compile_ms: f64,
    /// It ended (successfully or not) before [`warm_up_report`] was asked.
    pub finished: bool,
    /// The compile succeeded (`false` too when a kernel's compile came first and the
    /// warm-up's was skipped: it would only have delayed that one).
    pub compiled: bool,
}

/// Set by the JIT's first compile: a warm-up compile not yet begun is skipped then,
/// since the kernel's compile would wait for it under libnvvm's lock.
static KERNEL_COMPILE_ASKED: AtomicBool = AtomicBool::new(false);

/// Tells the warm-up that a kernel's compile is about to take libnvvm's lock.
pub(crate) fn kernel_compile_asked() {
    KERNEL_COMPILE_ASKED.store(true, Ordering::Relaxed);
}

struct State {
    started: bool,
    load_ms: f64,
    compile_ms: f64,
    finished: bool,
    compiled: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    started: false,
    load_ms: 0.0,
    compile_ms: 0.0,
    finished: false,
    compiled: false,
});
static FINISHED: Condvar = Condvar::new();

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

inventory::submit! {
    crate::device::open_gpu::WhenAGpuOpens(warm_up_in_background)
}

/// Starts the warm-up for `ctx`'s architecture (once per process, unless turned off;
/// see the module documentation). Returns once libnvvm is loaded.
fn warm_up_in_background(ctx: &CudaContext) {
    if std::env::var(WARM_UP_VARIABLE).is_ok_and(|v| v.trim() == "0") {
        return;
    }
    match ctx.compute_capability() {
        Ok((major, minor)) => start(format!("compute_{major}{minor}")),
        Err(_) => {
            if claim_start() {
                finish(0.0, 0.0, false);
            }
        }
    }
}

/// Marks the warm-up started; `false` when it already was (once per process).
fn claim_start() -> bool {
    let mut state = state();
    !std::mem::replace(&mut state.started, true)
}

/// Loads libnvvm on this thread and compiles an empty module with it (so that every
/// destructor libnvvm registers is registered before [`wait_at_exit`]), then compiles
/// the warm-up kernel for `arch` on a thread of its own.
fn start(arch: String) {
    if !claim_start() {
        return;
    }
    let started = Instant::now();
    let Ok(nvvm) = libnvvm::shared() else {
        return finish(0.0, 0.0, false);
    };
    if !compile_empty_kernel(&nvvm, &arch) {
        // A libnvvm that cannot compile an empty module will not compile a kernel
        // either; the first launch reports why.
        return finish(0.0, 0.0, false);
    }
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    // SAFETY: registers a plain function that takes no arguments.
    unsafe { libc::atexit(wait_at_exit) };
    let spawned = std::thread::Builder::new()
        .name("cudajit-nvvm-warm-up".into())
        .spawn(move || compile_warm_up_kernel(&arch, load_ms));
    if spawned.is_err() {
        finish(load_ms, 0.0, false);
    }
}

/// One empty kernel: the cheapest compile that makes libnvvm register its first
/// verify's and first compile's destructors.
static EMPTY_KERNEL: FnSource = FnSource {
    name: "cudajit_nvvm_warm_up_empty",
    kind: SourceKind::Kernel,
    text: "fn cudajit_nvvm_warm_up_empty() {}",
    file: "<cudajit libnvvm warm-up>",
    line: 1,
    options: FunctionOptions::DEFAULT,
    deps: &[],
    consts: &[],
    structs: &[],
    instance: &[],
};

/// The empty kernel compiled at `-opt=0` (no line tables): `false` when it fails.
fn compile_empty_kernel(nvvm: &libnvvm::Compiler, arch: &str) -> bool {
    let ir_options = Options {
        ir_version: nvvm.ir_version(),
        arch: Options::arch_number(arch),
        ..Options::default()
    };
    lower::lower(&EMPTY_KERNEL, &ir_options).is_ok_and(|unit| {
        nvvm.compile(&unit.nvvm_ir, &empty_module_options(arch))
            .is_ok()
    })
}

fn empty_module_options(arch: &str) -> libnvvm::Options {
    libnvvm::Options {
        arch: arch.to_string(),
        opt_level: 0,
        fast_math: false,
        line_info: false,
        debug: false,
    }
}

fn compile_warm_up_kernel(arch: &str, load_ms: f64) {
    let Ok(nvvm) = libnvvm::shared() else {
        return finish(load_ms, 0.0, false);
    };
    if KERNEL_COMPILE_ASKED.load(Ordering::Relaxed) {
        return finish(load_ms, 0.0, false);
    }
    let compiled_at = Instant::now();
    let options = lower::runtime_options(&WARM_UP_KERNEL, arch.to_string());
    let compiled = lower::lower(
        &WARM_UP_KERNEL,
        &Options {
            ir_version: nvvm.ir_version(),
            arch: Options::arch_number(arch),
            debug: lower::debug_level(&WARM_UP_KERNEL),
            ..Options::default()
        },
    )
    .ok()
    .is_some_and(|unit| nvvm.compile(&unit.nvvm_ir, &options).is_ok());
    finish(load_ms, compiled_at.elapsed().as_secs_f64() * 1e3, compiled);
}

fn finish(load_ms: f64, compile_ms: f64, compiled: bool) {
    let mut state = state();
    *state = State {
        started: true,
        load_ms,
        compile_ms,
        finished: true,
        compiled,
    };
    FINISHED.notify_all();
}

/// At exit: waits (at most 2 s) for a warm-up compile in flight.
extern "C" fn wait_at_exit() {
    let state = state();
    let _ = FINISHED.wait_timeout_while(state, Duration::from_secs(2), |s| !s.finished);
}

/// The warm-up of this process, if one started.
pub fn warm_up_report() -> Option<WarmUp> {
    let state = state();
    state.started.then_some(WarmUp {
        load_ms: state.load_ms,
        compile_ms: state.compile_ms,
        finished: state.finished,
        compiled: state.compiled,
    })
}

/// Waits (at most `timeout`) for the warm-up to end: for tests and benches that
/// time a first compile apart from it.
pub fn wait_for_warm_up(timeout: Duration) -> Option<WarmUp> {
    {
        let state = state();
        if !state.started {
            return None;
        }
        let _ = FINISHED.wait_timeout_while(state, timeout, |s| !s.finished);
    }
    warm_up_report()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The warm-up kernel goes through the whole front end and writer: its IR is a
    /// checked kernel (a panic helper and the kernel's annotation), so libnvvm's
    /// compile of it runs the paths a user's first kernel runs.
    #[test]
    fn warm_up_kernel_lowers_to_a_checked_kernel() {
        let unit = lower::lower(&WARM_UP_KERNEL, &Options::default()).expect("lowers");
        assert_eq!(unit.kernel_name, "cudajit_nvvm_warm_up");
        assert!(unit.nvvm_ir.contains("define void @cudajit_nvvm_warm_up("));
        assert!(unit.nvvm_ir.contains("@__cudajit_panic"));
        assert!(unit.nvvm_ir.contains("!\"kernel\""));
        assert_eq!(unit.panic_sites.len(), 3);
    }

    /// Compiles with the libnvvm the tests are given (skips without one): the IR is
    /// accepted and the PTX has the kernel's entry.
    #[test]
    fn warm_up_kernel_compiles_with_libnvvm() {
        let Ok(nvvm) = libnvvm::shared() else {
            eprintln!("skipped: no libnvvm");
            return;
        };
        let unit = lower::lower(
            &WARM_UP_KERNEL,
            &Options {
                ir_version: nvvm.ir_version(),
                ..Options::default()
            },
        )
        .expect("lowers");
        let options = lower::runtime_options(&WARM_UP_KERNEL, "compute_90".into());
        let ptx = nvvm.compile(&unit.nvvm_ir, &options).expect("compiles");
        assert!(ptx.contains(".entry cudajit_nvvm_warm_up("), "{ptx}");
    }

    /// The child of [`an_exit_at_any_moment_of_the_warm_up_is_clean`] (ignored in a
    /// plain run): starts the warm-up as opening a GPU does, then exits after
    /// `CUDAJIT_WARM_UP_CHILD_EXIT_US` microseconds, or (without it) waits for the
    /// warm-up and prints what it did.
    #[test]
    #[ignore = "run as a child process by an_exit_at_any_moment_of_the_warm_up_is_clean"]
    fn warm_up_child() {
        start("compute_90".into());
        match std::env::var(CHILD_EXIT_VARIABLE) {
            Ok(us) => {
                std::thread::sleep(Duration::from_micros(us.parse().expect("microseconds")));
                std::process::exit(0);
            }
            Err(_) => {
                let report = wait_for_warm_up(Duration::from_secs(30)).expect("started");
                println!(
                    "WARM_UP finished={} compiled={}",
                    report.finished, report.compiled
                );
            }
        }
    }

    const CHILD_EXIT_VARIABLE: &str = "CUDAJIT_WARM_UP_CHILD_EXIT_US";

    fn run_child(exit_after_us: Option<u64>) -> std::process::Output {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command.args([
            "compile::warm_up::tests::warm_up_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ]);
        command.env_remove(CHILD_EXIT_VARIABLE);
        if let Some(us) = exit_after_us {
            command.env(CHILD_EXIT_VARIABLE, us.to_string());
        }
        command.output().expect("the test binary runs")
    }

    /// Processes that exit at every moment of the warm-up (right after libnvvm's load,
    /// during the compile, after it) exit cleanly: the hazard that kept the warm-up off
    /// by default (a crash when the exit overlapped libnvvm's load on the warm-up's
    /// thread). Each child's exit status is checked; one child that waits shows the
    /// warm-up compiles.
    #[test]
    fn an_exit_at_any_moment_of_the_warm_up_is_clean() {
        if libnvvm::shared().is_err() {
            eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
            return;
        }
        let waited = run_child(None);
        let stdout = String::from_utf8_lossy(&waited.stdout);
        assert!(waited.status.success(), "{waited:?}");
        assert!(
            stdout.contains("WARM_UP finished=true compiled=true"),
            "{stdout}"
        );
        // The compile takes 5–40 ms on the development machine: exits spread over it.
        let exits_us = [
            0, 0, 100, 300, 600, 1_000, 1_500, 2_000, 3_000, 4_000, 5_000,
        ];
        let later_us = [
            6_500, 8_000, 10_000, 13_000, 16_000, 20_000, 25_000, 32_000, 45_000,
        ];
        let failed: Vec<String> = exits_us
            .iter()
            .chain(&later_us)
            .flat_map(|&us| [us, us + 250])
            .filter_map(|us| {
                let output = run_child(Some(us));
                (!output.status.success())
                    .then(|| format!("exit after {us} us: {:?}", output.status))
            })
            .collect();
        assert!(
            failed.is_empty(),
            "children that did not exit cleanly:\n{}",
            failed.join("\n")
        );
    }
}
