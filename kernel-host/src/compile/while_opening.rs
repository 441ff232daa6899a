//! The binary's kernels compiled while a GPU's context is created (issue 27). Creating
//! the primary context takes 100–200 ms on the H200's host, in the driver, while the
//! CPU's other cores are idle; a kernel's first launch on the JIT route spends ~20 ms
//! of its own in libnvvm and the driver's JIT. `cuLibraryLoadData` JIT-compiles PTX in
//! full before any context exists, and a context then takes the compiled module in
//! ~0.03 ms (`bench/probes/library_module_probe.c`,
//! `bench/results/2026-12-01-h200-s50-library-module-probe.txt`). So libnvvm's warm-up
//! thread (`crate::compile::warm_up`), which runs while the context is created,
//! compiles the binary's kernels (each non-generic `#[kernel]` registers itself:
//! [`RegisteredKernel`]), [`COMPILES_AT_ONCE`] at a time, each on a thread of its own
//! that makes its PTX with libnvvm and then JIT-compiles the PTX as a library; a
//! kernel's first launch on a GPU of that compute capability takes its module from
//! the library instead of compiling (`crate::compile::jit::load`).
//!
//! Bounded by the context's creation: no kernel is started once the context exists,
//! and the ones under way end before opening the GPU returns (libnvvm must not be in
//! use when the process may exit: `crate::compile::warm_up`'s documentation says why).
//! So that the last one started makes opening wait little, only kernels with short IR
//! are compiled ([`LONGEST_IR`]), and only in a binary of at most [`MOST_KERNELS`]
//! kernels (a program's few, not a test suite's ~150).
//! The whole module is compiled (the checked kernel and its launch-proven copy), found
//! as a first launch would find it (the AOT table's machine code, loaded as a library
//! without a JIT, which spares the first launch its front end and load; its PTX; the
//! disk cache's; libnvvm's), and it enters the disk cache only when a launch takes it.
//! Skipped when the primary context already exists (opening is then quick: nothing to
//! hide behind), for `-g` kernels, and with `CUDAJIT_COMPILE_WHILE_OPENING=0`. A generic
//! kernel's instantiations register where they are named: in `instantiate!`, or in a
//! `launch!` whose generic arguments are scalar types and literals (`k::<f32, 16>`); the
//! others (`k::<T>` in a generic function) compile at their first launch. A kernel
//! whose compile fails here is left to its first launch, which reports the error.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use kernel_device::source::FnSource;

use crate::compile::jit::{self, WholeModule};
use crate::compile::prepared::{self, Prepared};
use crate::device::open_gpu::ContextCreated;

/// The variable that turns compiling while a GPU opens off (`0`); it is on otherwise
/// (as part of libnvvm's warm-up, which `CUDAJIT_NVVM_WARM_UP=0` turns off with it).
pub const COMPILE_WHILE_OPENING_VARIABLE: &str = "CUDAJIT_COMPILE_WHILE_OPENING";

/// A kernel of the binary: its source. `#[kernel]` submits one per non-generic kernel,
/// `instantiate!` one per instantiation it lists and `launch!` one per launch naming a
/// concrete instantiation.
pub struct RegisteredKernel(pub fn() -> &'static FnSource);

inventory::collect!(RegisteredKernel);

/// A binary registering more kernels than this compiles none while a GPU opens: the
/// context's creation covers a few kernels, which would be some of many, seldom the
/// first launched, and the last one started makes opening wait for it (the GPU suite's
/// binary, ~150 kernels, took 194 ms longer from start to exit with them compiled:
/// `bench/results/2026-12-01-h200-s50-compile-while-opening.txt`).
const MOST_KERNELS: usize = 32;

/// A kernel whose NVVM IR is longer than this is left to its first launch: libnvvm's
/// and the JIT's times grow with it, and one started just before the context exists
/// makes opening the GPU wait for it. A bounds-checked vecadd's (both kernels) is 13 KB.
const LONGEST_IR: usize = 48 * 1024;

/// Kernels compiled at once, each by a thread that makes its PTX (~5–8 ms in libnvvm)
/// and then loads it as a library (the driver's JIT, ~15–20 ms). libnvvm's interface is
/// thread-safe and made for concurrent compiles (its API manual, "Thread Safety"), so
/// that they start together: taken one after another, the context's creation could
/// end before the second had started (s51: 1 run of 3 on the H200 compiled only the
/// first registered kernel of four), and registration order, not launch order, chose
/// which one. The GPU's host is otherwise idle meanwhile (the driver creates the
/// context on one thread); no more threads than the machine has cores.
const COMPILES_AT_ONCE: usize = 4;

/// What compiling while the GPU opened did for one kernel, for the bench's report.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledWhileOpening {
    /// As written: `axpy::<f32>` for an instantiation `instantiate!` lists.
    pub kernel: String,
    /// Its front end and PTX (libnvvm's compile, or the disk cache's or AOT table's
    /// PTX), ms on the warm-up thread.
    pub ptx_ms: f64,
    /// Its load as a library (the driver's JIT of its PTX, or its machine code's load),
    /// ms on its own thread.
    pub library_ms: f64,
    /// The AOT table's machine code was loaded (no JIT).
    pub machine_code: bool,
    /// The library loaded (a first launch can take it).
    pub loaded: bool,
}

static REPORT: Mutex<Vec<CompiledWhileOpening>> = Mutex::new(Vec::new());

/// What compiling while the GPU opened did, kernel by kernel (empty when it did not
/// run).
pub fn compiled_while_opening_report() -> Vec<CompiledWhileOpening> {
    REPORT.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Compiles the binary's kernels for a GPU of `capability` until `created` says its
/// context exists, and waits for the library loads under way. `false` when it compiled
/// nothing (turned off, no kernel, nothing to save), so that the caller warms libnvvm
/// up another way.
pub(crate) fn compile_registered(capability: (u32, u32), created: &ContextCreated) -> bool {
    if crate::switches::turned_off(COMPILE_WHILE_OPENING_VARIABLE) {
        return false;
    }
    // Each kernel once: an instantiation registers once per `launch!` naming it.
    let mut sources: Vec<&'static FnSource> = Vec::new();
    for registered in inventory::iter::<RegisteredKernel> {
        let source = (registered.0)();
        if !sources.iter().any(|known| std::ptr::eq(*known, source)) {
            sources.push(source);
        }
        if sources.len() > MOST_KERNELS {
            return false;
        }
    }
    let next = AtomicUsize::new(0);
    let compiled_any = AtomicBool::new(false);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = COMPILES_AT_ONCE.min(cores).min(sources.len());
    let work = || compile_until_created(&sources, &next, capability, created, &compiled_any);
    std::thread::scope(|scope| {
        // This thread is one of the workers; a thread that cannot be made is one fewer.
        for _ in 1..workers {
            let spawned = std::thread::Builder::new()
                .name("cudajit-compile-while-opening".into())
                .spawn_scoped(scope, work);
            if spawned.is_err() {
                break;
            }
        }
        work();
    });
    compiled_any.into_inner()
}

/// One worker of [`compile_registered`]: takes the next kernel of `sources` not yet
/// taken, makes its whole module and loads it as a library, until none is left or the
/// context exists.
fn compile_until_created(
    sources: &[&'static FnSource],
    next: &AtomicUsize,
    capability: (u32, u32),
    created: &ContextCreated,
    compiled_any: &AtomicBool,
) {
    while !created.get() {
        let Some(&source) = sources.get(next.fetch_add(1, Ordering::Relaxed)) else {
            return;
        };
        let began = Instant::now();
        // A front-end or compiler panic loses this kernel's head start only: its
        // first launch meets the same problem and reports it.
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            jit::whole_module(source, capability, LONGEST_IR)
        }));
        let Ok(Some(module)) = made else {
            continue;
        };
        compiled_any.store(true, Ordering::Relaxed);
        let ptx_ms = began.elapsed().as_secs_f64() * 1e3;
        load_as_library(source, capability, module, ptx_ms);
    }
}

/// One kernel's module loaded as a library (the driver's JIT of its PTX, or its
/// machine code), kept for its first launch.
fn load_as_library(
    source: &'static FnSource,
    capability: (u32, u32),
    module: WholeModule,
    ptx_ms: f64,
) {
    let began = Instant::now();
    // A driver without `cuLibraryLoadData` panics in cudarc's loader: nothing is kept.
    let loaded = std::panic::catch_unwind(|| jit::load_library(&module, source.name).ok())
        .ok()
        .flatten();
    REPORT
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(CompiledWhileOpening {
            kernel: source.written_name(),
            ptx_ms,
            library_ms: began.elapsed().as_secs_f64() * 1e3,
            machine_code: module.machine_code.is_some(),
            loaded: loaded.is_some(),
        });
    if let Some(library) = loaded {
        let WholeModule {
            ptx,
            unit,
            options,
            disk_entry,
            ..
        } = module;
        let prepared = Prepared {
            ptx,
            unit,
            disk_entry,
            library,
        };
        prepared::keep(source, capability, options, prepared);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_device::ir::FunctionOptions;
    use kernel_device::source::SourceKind;

    const fn kernel(name: &'static str, text: &'static str, options: FunctionOptions) -> FnSource {
        FnSource {
            name,
            kind: SourceKind::Kernel,
            text,
            file: "while_opening.rs",
            line: 1,
            options,
            deps: &[],
            consts: &[],
            structs: &[],
            instance: &[],
        }
    }

    static CHECKED: FnSource = kernel(
        "opening_scale",
        "fn opening_scale(x: &mut [f32], y: &[f32]) {\n    let i = grid(1);\n    if i < x.len() {\n        x[i] = x[i] * y[i];\n    }\n}",
        FunctionOptions::DEFAULT,
    );
    static DEBUG: FnSource = kernel(
        "opening_debug",
        "fn opening_debug(x: &mut [f32]) {\n    x[0] = 1.0;\n}",
        FunctionOptions {
            debug_info: true,
            ..FunctionOptions::DEFAULT
        },
    );
    static SECOND: FnSource = kernel(
        "opening_add",
        "fn opening_add(x: &mut [f32], y: &[f32]) {\n    let i = grid(1);\n    if i < x.len() {\n        x[i] = x[i] + y[i];\n    }\n}",
        FunctionOptions::DEFAULT,
    );
    static BROKEN: FnSource = kernel(
        "opening_broken",
        "fn opening_broken(x: &mut [f32]) {\n    x[0] = undefined_name;\n}",
        FunctionOptions::DEFAULT,
    );

    /// What opening a GPU compiles for a kernel is the whole module a first launch
    /// would load (the checked kernel and its launch-proven copy), for the GPU's
    /// architecture; a `-g` kernel, a kernel with long IR and a kernel that does not
    /// compile are left to their first launch.
    #[test]
    fn the_whole_module_is_compiled_and_only_what_a_launch_would_jit() {
        if kernel_device::nvvm::Nvvm::locate().is_none() {
            return eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
        }
        let WholeModule {
            ptx, unit, options, ..
        } = jit::whole_module(&CHECKED, (9, 0), LONGEST_IR).expect("compiled");
        assert_eq!(options.arch, "compute_90");
        assert!(ptx.contains(".target sm_90"), "{ptx}");
        let proof = unit
            .launch_proof
            .as_ref()
            .expect("a checked kernel with a launch proof");
        for entry in ["opening_scale", proof.symbol.as_str()] {
            assert!(ptx.contains(&format!(".entry {entry}(")), "{entry}: {ptx}");
        }
        assert!(
            unit.nvvm_ir.len() < LONGEST_IR / 2,
            "{}",
            unit.nvvm_ir.len()
        );
        assert!(jit::whole_module(&DEBUG, (9, 0), LONGEST_IR).is_none());
        assert!(jit::whole_module(&BROKEN, (9, 0), LONGEST_IR).is_none());
        // A kernel whose IR is longer than LONGEST_IR: 400 distinct stores.
        let body: String = (0..400)
            .map(|k| format!("    x[{k}] = x[{}] * {k}.5;\n", k + 1))
            .collect();
        let text = format!("fn opening_long(x: &mut [f32]) {{\n{body}}}");
        let long: &'static FnSource = Box::leak(Box::new(kernel(
            "opening_long",
            Box::leak(text.into_boxed_str()),
            FunctionOptions::DEFAULT,
        )));
        let written = crate::compile::lower::Lowered::new(long)
            .and_then(|lowered| lowered.write(&kernel_device::back::nvvm::Options::default()))
            .expect("the long kernel lowers");
        assert!(
            written.nvvm_ir.len() > LONGEST_IR,
            "{}",
            written.nvvm_ir.len()
        );
        assert!(jit::whole_module(long, (9, 0), LONGEST_IR).is_none());
    }

    /// Workers of `compile_registered` take every kernel once between them, skip the
    /// ones a first launch must compile (`-g`, not compiling) and go on past them; once
    /// the context exists they take none.
    #[test]
    fn workers_take_each_kernel_once_until_the_context_exists() {
        if kernel_device::nvvm::Nvvm::locate().is_none() {
            return eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
        }
        let sources: [&'static FnSource; 4] = [&DEBUG, &CHECKED, &BROKEN, &SECOND];
        let next = AtomicUsize::new(0);
        let compiled_any = AtomicBool::new(false);
        let opening = ContextCreated::default();
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| {
                    compile_until_created(&sources, &next, (9, 0), &opening, &compiled_any)
                });
            }
        });
        // Each worker takes one index past the end before it stops.
        assert_eq!(next.load(Ordering::Relaxed), sources.len() + 3);
        assert!(compiled_any.load(Ordering::Relaxed));
        // Only the two that compile reach their library load (which needs a driver:
        // without one it keeps nothing, and says so), each once.
        let report = compiled_while_opening_report();
        for name in [
            "opening_scale",
            "opening_add",
            "opening_debug",
            "opening_broken",
        ] {
            let times = report.iter().filter(|row| row.kernel == name).count();
            let expected = usize::from(name == "opening_scale" || name == "opening_add");
            assert_eq!(times, expected, "{name}: {report:?}");
        }

        let next = AtomicUsize::new(0);
        let compiled_any = AtomicBool::new(false);
        compile_until_created(
            &sources,
            &next,
            (9, 0),
            &ContextCreated::already(),
            &compiled_any,
        );
        assert_eq!(next.load(Ordering::Relaxed), 0);
        assert!(!compiled_any.load(Ordering::Relaxed));
    }
}
