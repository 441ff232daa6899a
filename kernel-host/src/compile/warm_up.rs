//! libnvvm made ready before the process's first compile needs it, when asked
//! (`CUDAJIT_NVVM_WARM_UP=1`): when a GPU opens, a thread of its own loads libnvvm and
//! compiles one small bounds-checked kernel, so that the first real compile finds the
//! library loaded (~5.5 ms on the H200's host) and LLVM's first-use costs paid.
//! Measured on the development machine (2 cores, libnvvm 13.0.88, `-opt=3`, line
//! tables): a checked vecadd's first compile in a fresh process took 10–23 ms cold and
//! 7.7–8.8 ms after one other compile; touching the library's pages alone did not
//! help. On the H200 (bench/vecadd_launch, one device call): first call checked
//! 18.4 and 15.6 ms with it, 24.3 and 26.3 ms without.
//!
//! Off by default because a process that exits while libnvvm loads on another thread
//! can crash or hang in the exit: libnvvm's static destructors, registered while it
//! loads, run under its constructors or its compile. Measured: the first-instantiation
//! child of bench/vecadd_launch (which exits a few ms after opening the GPU) died of
//! SIGSEGV; locally, a process exiting 0–3 ms after starting the load crashed 2–3
//! times in 5 and once spun forever. The `atexit` handler below (registered once
//! libnvvm is loaded, so that it runs before libnvvm's destructors) covers an exit
//! during the compile, not one during the load. Turn it on in processes that live
//! past their first launch.
//!
//! The warm-up holds libnvvm's lock while it compiles: a compile asked for in that
//! moment waits for the rest of it (a few ms), which a launch this early would
//! otherwise have spent loading the library.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use cudarc::driver::CudaContext;
use kernel_device::back::nvvm::Options;
use kernel_device::ir::FunctionOptions;
use kernel_device::source::{FnSource, SourceKind};

use crate::compile::{libnvvm, lower};

/// The variable that turns the warm-up on (`1`).
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
    /// libnvvm's load, on the warm-up's thread.
    pub load_ms: f64,
    /// The warm-up kernel's front end and compile.
    pub compile_ms: f64,
    /// It ended (successfully or not) before [`warm_up_report`] was asked.
    pub finished: bool,
    /// The compile succeeded.
    pub compiled: bool,
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

/// Starts the warm-up for `ctx`'s architecture (once per process, only when asked for;
/// see the module documentation). Returns at once.
fn warm_up_in_background(ctx: &CudaContext) {
    if !std::env::var(WARM_UP_VARIABLE).is_ok_and(|v| v.trim() == "1") {
        return;
    }
    {
        let mut state = state();
        if state.started {
            return;
        }
        state.started = true;
    }
    let arch = match ctx.compute_capability() {
        Ok((major, minor)) => format!("compute_{major}{minor}"),
        Err(_) => return finish(0.0, 0.0, false),
    };
    let spawned = std::thread::Builder::new()
        .name("cudajit-nvvm-warm-up".into())
        .spawn(move || warm_up(&arch));
    if spawned.is_err() {
        finish(0.0, 0.0, false);
    }
}

fn warm_up(arch: &str) {
    let started = Instant::now();
    let Ok(nvvm) = libnvvm::shared() else {
        return finish(0.0, 0.0, false);
    };
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    // Registered after libnvvm's load, so it runs before the destructors the library
    // registered while loading: exit waits for the compile instead of tearing LLVM
    // down under it.
    // SAFETY: registers a plain function that takes no arguments.
    unsafe { libc::atexit(wait_at_exit) };
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
}
