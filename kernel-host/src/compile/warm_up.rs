//! libnvvm made ready while a GPU's context is created: a thread loads libnvvm and
//! compiles an empty kernel with it (pages in its verifier and code generator) during
//! `cuDevicePrimaryCtxRetain`, and opening the GPU joins it once the context exists. The
//! process's first compile then finds the library loaded: the load (3.6–4.7 ms on the
//! H200's host, 105 ms on a freshly started machine whose page cache did not hold the
//! 60 MB library) leaves the first launch and hides behind the context's creation
//! instead of being added to it. On by default; `CUDAJIT_NVVM_WARM_UP=0` turns it off.
//!
//! Why the thread is joined before the GPU counts as open: libnvvm registers static
//! destructors with `atexit` while it loads (3,313 of them, libnvvm 13.0.88), during
//! its first verify (3) and its first compile (2), and none in later compiles (counted
//! with gdb on `__cxa_atexit`). A process that exits while another thread is inside
//! libnvvm runs those destructors under that thread and crashes: last session's
//! warm-up, which loaded on a thread of its own, killed the bench's short-lived child
//! with SIGSEGV on the H200, and locally 2–3 exits in 5 during the load crashed; with
//! the load on the opening thread and a kernel compiled in the background behind an
//! `atexit` wait, 19 exits in 40 during that compile still crashed (SIGSEGV, SIGABRT,
//! the destructors registered by the first compile running first). Joined inside
//! `Device::new`, no libnvvm work of the warm-up is in flight once the caller can
//! exit. What was measured on the H200 (fresh processes, bench/vecadd_launch
//! `--first-instantiation cold`, 3 runs each): a background `-opt=3` warm-up compile
//! did not make the first kernel's compile faster (11.2–14.5 ms with it, 10.6–15.2
//! without), so none is made.

use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Instant;

use kernel_device::back::nvvm::Options;
use kernel_device::ir::FunctionOptions;
use kernel_device::source::{FnSource, SourceKind};

use crate::compile::{libnvvm, lower};
use crate::device::open_gpu::ContextCreated;

/// The variable that turns the warm-up off (`0`); it is on otherwise.
pub const WARM_UP_VARIABLE: &str = "CUDAJIT_NVVM_WARM_UP";

/// One empty kernel: the cheapest compile that runs libnvvm's verifier and code
/// generator once (and makes its first-use registrations).
static EMPTY_KERNEL: FnSource = FnSource {
    name: "cudajit_nvvm_warm_up",
    kind: SourceKind::Kernel,
    text: "fn cudajit_nvvm_warm_up() {}",
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
    /// The binary's kernels compiled while the GPU opened (their front ends, libnvvm
    /// and driver JITs: `crate::compile::while_opening`), or where that compiled
    /// nothing, the empty kernel's front end and compile (`-opt=0`), on the warm-up's
    /// thread.
    pub compile_ms: f64,
    /// It ended (successfully or not) before [`warm_up_report`] was asked: always, once
    /// the GPU is open.
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

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

inventory::submit! {
    crate::device::open_gpu::WhileAGpuOpens(warm_up_while_the_context_is_created)
}

/// Starts the warm-up for GPU `ordinal`'s architecture (once per process, unless turned
/// off); the caller joins the thread returned once the context exists.
fn warm_up_while_the_context_is_created(
    ordinal: usize,
    created: ContextCreated,
) -> Option<JoinHandle<()>> {
    if crate::switches::turned_off(WARM_UP_VARIABLE) || !claim_start() {
        return None;
    }
    let Some(capability) = crate::device::open_gpu::capability_before_context(ordinal) else {
        finish(0.0, 0.0, false);
        return None;
    };
    // With the context already there, opening is quick: compiling the binary's kernels
    // would only make it longer.
    let compile_kernels = !crate::device::open_gpu::primary_context_exists(ordinal);
    let spawned = std::thread::Builder::new()
        .name("cudajit-nvvm-warm-up".into())
        .spawn(move || load_and_compile(capability, compile_kernels.then_some(created)));
    if spawned.is_err() {
        finish(0.0, 0.0, false);
    }
    spawned.ok()
}

/// Marks the warm-up started; `false` when it already was (once per process).
fn claim_start() -> bool {
    let mut state = state();
    !std::mem::replace(&mut state.started, true)
}

/// libnvvm loaded, then the binary's kernels compiled until the context exists
/// (`crate::compile::while_opening`; not when `created` is `None`), or, when that
/// compiles nothing, the empty kernel.
fn load_and_compile(capability: (u32, u32), created: Option<ContextCreated>) {
    let started = Instant::now();
    let nvvm = libnvvm::shared();
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    let compiled_at = Instant::now();
    // Without libnvvm too: an ahead-of-time build's kernels load from its table.
    let compiled = created.is_some_and(|created| {
        crate::compile::while_opening::compile_registered(capability, &created)
    }) || nvvm.is_ok_and(|nvvm| {
        compile_empty_kernel(&nvvm, &format!("compute_{}{}", capability.0, capability.1))
    });
    finish(load_ms, compiled_at.elapsed().as_secs_f64() * 1e3, compiled);
}

/// The empty kernel compiled at `-opt=0` without line tables: `false` when it fails.
fn compile_empty_kernel(nvvm: &libnvvm::Compiler, arch: &str) -> bool {
    let ir_options = Options {
        ir_version: nvvm.ir_version(),
        arch: Options::arch_number(arch),
        ..Options::default()
    };
    let options = libnvvm::Options {
        arch: arch.to_string(),
        opt_level: 0,
        fast_math: false,
        line_info: false,
        debug: false,
    };
    lower::lower(&EMPTY_KERNEL, &ir_options)
        .is_ok_and(|unit| nvvm.compile(&unit.nvvm_ir, &options).is_ok())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The empty kernel goes through the front end and the writer, and libnvvm (where
    /// the tests are given one) compiles it to PTX with its entry.
    #[test]
    fn the_empty_kernel_compiles() {
        let unit = lower::lower(&EMPTY_KERNEL, &Options::default()).expect("lowers");
        assert!(unit.nvvm_ir.contains("define void @cudajit_nvvm_warm_up("));
        assert!(unit.panic_sites.is_empty());
        let Ok(nvvm) = libnvvm::shared() else {
            eprintln!("skipped the compile: no libnvvm (set CUDAJIT_NVVM_PATH)");
            return;
        };
        assert!(compile_empty_kernel(&nvvm, "compute_90"));
    }

    /// The child of [`a_process_exits_cleanly_right_after_the_warm_up`] (ignored in a
    /// plain run): the warm-up's thread, joined as opening a GPU joins it, then an exit
    /// (`CUDAJIT_WARM_UP_CHILD_EXIT`) or a report of what it did.
    #[test]
    #[ignore = "run as a child process by a_process_exits_cleanly_right_after_the_warm_up"]
    fn warm_up_child() {
        assert!(claim_start());
        std::thread::spawn(|| load_and_compile((9, 0), None))
            .join()
            .expect("the warm-up thread ends");
        if std::env::var_os(CHILD_EXIT_VARIABLE).is_some() {
            std::process::exit(0);
        }
        let report = warm_up_report().expect("started");
        println!(
            "WARM_UP finished={} compiled={}",
            report.finished, report.compiled
        );
    }

    const CHILD_EXIT_VARIABLE: &str = "CUDAJIT_WARM_UP_CHILD_EXIT";

    fn run_child(exit: bool) -> std::process::Output {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command.args([
            "compile::warm_up::tests::warm_up_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ]);
        command.env_remove(CHILD_EXIT_VARIABLE);
        if exit {
            command.env(CHILD_EXIT_VARIABLE, "1");
        }
        command.output().expect("the test binary runs")
    }

    /// The warm-up ends complete, and processes that exit the moment it is joined (as a
    /// program that opens a GPU and ends at once does) exit cleanly, 20 times.
    #[test]
    fn a_process_exits_cleanly_right_after_the_warm_up() {
        if libnvvm::shared().is_err() {
            eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
            return;
        }
        let waited = run_child(false);
        let stdout = String::from_utf8_lossy(&waited.stdout);
        assert!(waited.status.success(), "{waited:?}");
        assert!(
            stdout.contains("WARM_UP finished=true compiled=true"),
            "{stdout}"
        );
        let failed: Vec<String> = (0..20)
            .map(|_| run_child(true).status)
            .filter(|status| !status.success())
            .map(|status| format!("{status:?}"))
            .collect();
        assert!(
            failed.is_empty(),
            "children that did not exit cleanly: {failed:?}"
        );
    }
}
