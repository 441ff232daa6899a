//! The project's headline benchmark, cudajit's side (bench/run.sh runs it beside the
//! nvcc and Numba versions in one run on the GPU machine):
//!
//! * kernel time: `vecadd` on 2^24 f32 elements, 256-thread blocks, device arrays,
//!   CUDA events around each of 300 launches, median; bounds-checked and
//!   `#[kernel(boundscheck = false)]` interleaved launch by launch so clock drift
//!   cannot favour either. When `CUDAJIT_BENCH_PTX` names nvcc's PTX of
//!   bench/cuda/vecadd.cu, its `vecadd` is timed here too through cudarc: an nvcc
//!   control inside this very process.
//! * launch cost: 20,000 back-to-back launches of the same 3-slice kernel on small
//!   device arrays, host wall time per launch (synchronised at the end), median of 11
//!   repetitions interleaved across the variants; through cudajit, through cudarc's
//!   launch builder, and through cudarc's bare `cuLaunchKernel` wrapper (on cudarc's
//!   non-blocking stream and on cudajit's, non-blocking too), on the same PTX and
//!   parameter list. The issue-27 bars are judged on paired rounds instead
//!   (`launch_profile::paired_rounds`): each cudajit row and the bare launch on the
//!   same stream(s), 101 alternating rounds of 500 launches, the launch loop timed
//!   alone, the ratio taken round by round (`RESULT pair_*`).
//! * graph replay: cudajit's and cudarc's captured graphs of 100 `vecadd` nodes, beside
//!   a graph of 100 empty-kernel nodes (the driver's own per-node floor).
//!
//! * a new generic instantiation (issue 9): the host wall time of the first launch of
//!   `vecadd_generic::<f32>` in a fresh child process with an empty disk cache
//!   (`CUDAJIT_CACHE_DIR` a new folder, `CUDAJIT_AOT=0`: front end, libnvvm loaded and
//!   run, module load, launch), then of `vecadd_generic::<f64>` in the same process (a
//!   second instantiation: its own compile), then both again in a second child that
//!   finds them on disk; and, in the launch-cost table, later launches of the f32
//!   instantiation beside `vecadd`'s, whose per-repetition difference is the extra host
//!   time a generic kernel's launch costs.
//!
//! * the first calls again in two fresh child processes (issue 27's bars): an empty disk
//!   cache, `CUDAJIT_AOT=0`, the driver's JIT cache in a new folder (`CUDA_CACHE_PATH`):
//!   cold, as on a user's first run, then warm (the driver finds the machine code).
//!
//! * where a launch's host time goes (issue 27): after the timed rows, the same
//!   launches again with kernel_host's stage profile on (`launch_profile`), and the
//!   stages of every first launch above (front end, disk lookup, libnvvm, module load).
//!
//! * `vecadd_launch --cpu-host-path` (no GPU needed; bench/run.sh runs it too): the
//!   launch path's own work timed on the CPU alone, stage by stage
//!   (`launch_profile::cpu_host_path`), to measure a change of the path anywhere.
//!
//! Prints `RESULT <name> <median_us> <key=value,...>` lines (bench/report.py makes the
//! table) and exits 0 with `skipped: <reason>` where there is no GPU.

use std::cell::RefCell;
mod launch_profile;
mod stats;

use stats::median;
use std::error::Error as StdError;
use std::ffi::c_void;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use cudajit::prelude::*;
use cudajit::{Device, DeviceArray, Event, Graph, LaunchConfig, Stream};
use cudarc::driver::{
    result as cu_result, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr,
    LaunchConfig as RawConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

type BenchResult<T> = Result<T, Box<dyn StdError>>;

const N: usize = 1 << 24;
const BLOCK: u32 = 256;
const WARMUP: usize = 20;
const TIMED: usize = 300;
const TINY_N: usize = 1024;
const LAUNCHES: usize = 20_000;
const REPS: usize = 11;
/// Launches per round and rounds of the paired comparisons (`launch_profile::paired_rounds`):
/// few enough per round that the driver's queue does not fill.
const PAIR_LAUNCHES: usize = 500;
const PAIR_ROUNDS: usize = 101;
/// Bytes moved per element: two f32 reads and one f32 write.
const BYTES_PER_ELEMENT: f64 = 12.0;

#[kernel]
fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

#[kernel(boundscheck = false)]
fn vecadd_nocheck(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

/// `vecadd` written once for any numeric type: the generic kernel whose first launches
/// per instantiation, and later launches, the instantiation rows time.
#[kernel]
fn vecadd_generic<T: Num>(a: &[T], b: &[T], c: &mut [T]) {
    let i = grid(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

/// The child process's argument: `vecadd_launch --first-instantiation cold|disk`.
const FIRST_INSTANTIATION: &str = "--first-instantiation";
/// The child process's argument: `vecadd_launch --first-calls LABEL`, the first calls
/// alone in a fresh process (`first_call_children`), RESULT names prefixed by LABEL.
const FIRST_CALLS: &str = "--first-calls";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == FIRST_INSTANTIATION) {
        let state = args.get(2).map_or("cold", String::as_str).to_string();
        if let Err(e) = first_instantiations(&state) {
            eprintln!("vecadd_launch {FIRST_INSTANTIATION} {state}: error: {e}");
            std::process::exit(1);
        }
        return;
    }
    if args.get(1).is_some_and(|a| a == FIRST_CALLS) {
        let label = args.get(2).cloned().unwrap_or_default();
        if let Err(e) = first_calls_child(&label) {
            eprintln!("vecadd_launch {FIRST_CALLS} {label}: error: {e}");
            std::process::exit(1);
        }
        return;
    }
    // `vecadd_launch --cpu-host-path`: the launch path's own work, timed on the CPU
    // without a GPU (issue 27's microbench; run.sh's GPU run prints it too).
    if std::env::args().any(|a| a == "--cpu-host-path") {
        if let Err(e) = launch_profile::cpu_host_path(vecadd::source()) {
            eprintln!("vecadd_launch --cpu-host-path: error: {e}");
            std::process::exit(1);
        }
        return;
    }
    // `vecadd_launch --print-ptx`: the PTX the bench's kernels get for compute_90, made
    // without a GPU (libnvvm only), to read beside `nvcc -ptx bench/cuda/vecadd.cu`.
    if std::env::args().any(|a| a == "--print-ptx") {
        for (name, source) in [
            ("vecadd", vecadd::source()),
            ("vecadd_nocheck", vecadd_nocheck::source()),
        ] {
            match cudajit_ptx(source, (9, 0)) {
                Ok(ptx) => println!("// ---- {name}\n{ptx}"),
                Err(e) => {
                    eprintln!("{name}: {e}");
                    std::process::exit(1);
                }
            }
        }
        return;
    }
    let Some(device) = stats::gpu_device() else {
        return;
    };
    if let Err(e) = run(&device) {
        eprintln!("vecadd_launch: error: {e}");
        std::process::exit(1);
    }
}

fn run(device: &Device) -> BenchResult<()> {
    let ctx = CudaContext::new(device.ordinal())?;
    let (major, minor) = ctx.compute_capability()?;
    println!("cudajit bench: {} (sm_{major}{minor})", ctx.name()?);
    let stream = device.new_stream()?;
    // `CUDAJIT_BENCH_ONLY=launch`: the launch-cost and graph rows alone (a short run).
    let launch_only = std::env::var("CUDAJIT_BENCH_ONLY").is_ok_and(|v| v == "launch");
    if !launch_only {
        kernel_times(&stream)?;
        first_call_children()?;
    }

    // Raw cudarc on its own stream, with cudarc's cross-stream event tracking off (it
    // would add an event wait/record per slice argument): the bare launch cudajit is
    // held against.
    // SAFETY: set before any CudaSlice of this context exists; this bench
    // synchronises its one raw stream itself.
    unsafe { ctx.disable_event_tracking() };
    let raw_stream = ctx.new_stream()?;
    let nvcc_ptx = std::env::var_os("CUDAJIT_BENCH_PTX");
    if let (Some(path), false) = (&nvcc_ptx, launch_only) {
        nvcc_kernel_time(&ctx, &raw_stream, path.as_ref())?;
    }
    let other_stream = device.new_stream()?;
    if !launch_only {
        instantiation_costs()?;
    }
    launch_costs(
        &stream,
        &other_stream,
        &ctx,
        &raw_stream,
        nvcc_ptx.as_deref().map(|p| p.as_ref()),
    )?;
    graph_replay_costs(&stream, &ctx, nvcc_ptx.as_deref().map(|p| p.as_ref()))
}

/// The driver's `extra` array for a packed parameter `buffer` of `size` bytes
/// (`CU_LAUNCH_PARAM_BUFFER_POINTER`), ended by `CU_LAUNCH_PARAM_END`; both must
/// outlive the launch that reads it.
fn packed_extra(buffer: &mut [u64; 7], size: &mut usize) -> [*mut c_void; 5] {
    use cudarc::driver::sys;
    [
        sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
        buffer.as_mut_ptr() as *mut c_void,
        sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize as *mut c_void,
        size as *mut usize as *mut c_void,
        sys::CU_LAUNCH_PARAM_END_AS_INT as usize as *mut c_void,
    ]
}

/// xorshift64*, the same as bench/cuda/vecadd.cu: values k/2^23 - 1 in [-1, 1), exact in
/// f32, never all zeros (zeros hide unwritten outputs).
fn random_floats(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let r = s.wrapping_mul(0x2545_F491_4F6C_DD1D);
            ((r >> 40) as f64 / (1u64 << 24) as f64 * 2.0 - 1.0) as f32
        })
        .collect()
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn check(got: &[f32], want: &[f32], what: &str) -> BenchResult<()> {
    if let Some(i) = (0..want.len()).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        return Err(format!("{what} wrong at {i}: {} != {}", got[i], want[i]).into());
    }
    Ok(())
}

fn report_kernel(name: &str, us: &[f64]) {
    let med = median(us.to_vec());
    let gbps = BYTES_PER_ELEMENT * N as f64 / (med * 1e-6) / 1e9;
    println!(
        "RESULT {name} {med:.3} gbps={gbps:.1},min_us={:.3},n={N},block={BLOCK},reps={}",
        min(us),
        us.len()
    );
}

fn report_launch(name: &str, per_launch_us: &[f64]) {
    println!(
        "RESULT {name} {:.3} min_us={:.3},launches={LAUNCHES},reps={REPS},n={TINY_N}",
        median(per_launch_us.to_vec()),
        min(per_launch_us)
    );
}

/// cudajit's vecadd, bounds-checked and not, on 2^24 elements.
fn kernel_times(stream: &Stream) -> BenchResult<()> {
    let ha = random_floats(N, 1);
    let hb = random_floats(N, 2);
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    let poison = vec![f32::NAN; N];
    let a = DeviceArray::from_slice(&ha)?;
    let b = DeviceArray::from_slice(&hb)?;
    let mut c = DeviceArray::from_slice(&poison)?;
    let blocks = N.div_ceil(BLOCK as usize) as u32;
    let cfg = || LaunchConfig::new(blocks, BLOCK).stream(stream);

    first_calls("", stream, &a, &b, &mut c, &poison, &want)?;

    for _ in 0..WARMUP {
        vecadd::launch(cfg(), &a, &b, &mut c)?;
        // SAFETY: as above, equal lengths and a guarded index.
        unsafe { vecadd_nocheck::launch(cfg(), &a, &b, &mut c) }?;
    }
    stream.synchronize()?;
    let mut events = Vec::with_capacity(TIMED);
    for _ in 0..TIMED {
        let s0 = Event::record(stream)?;
        vecadd::launch(cfg(), &a, &b, &mut c)?;
        let e0 = Event::record(stream)?;
        let s1 = Event::record(stream)?;
        // SAFETY: as above, equal lengths and a guarded index.
        unsafe { vecadd_nocheck::launch(cfg(), &a, &b, &mut c) }?;
        let e1 = Event::record(stream)?;
        events.push((s0, e0, s1, e1));
    }
    // Also surfaces a device-side panic of the checked kernel as an Err.
    stream.synchronize()?;
    let (mut checked, mut unchecked) = (Vec::new(), Vec::new());
    for (s0, e0, s1, e1) in &events {
        checked.push(s0.elapsed_ms(e0)? as f64 * 1e3);
        unchecked.push(s1.elapsed_ms(e1)? as f64 * 1e3);
    }
    check(&c.to_host()?, &want, "vecadd after timing")?;
    report_kernel("kernel_cudajit", &checked);
    report_kernel("kernel_cudajit_nocheck", &unchecked);
    Ok(())
}

/// The first calls of `vecadd` (bounds-checked) and `vecadd_nocheck`, then the checked
/// kernel's second call, each synchronised and checked, with the stages of each first
/// launch; RESULT names start with `label` (`""` in the bench's own process).
fn first_calls(
    label: &str,
    stream: &Stream,
    a: &DeviceArray<f32>,
    b: &DeviceArray<f32>,
    c: &mut DeviceArray<f32>,
    poison: &[f32],
    want: &[f32],
) -> BenchResult<()> {
    let blocks = c.len().div_ceil(BLOCK as usize) as u32;
    let cfg = || LaunchConfig::new(blocks, BLOCK).stream(stream);
    // First call of each: front end + libnvvm + module load + launch (a cold disk
    // cache when run.sh points CUDAJIT_CACHE_DIR at a fresh folder), with the stages
    // of each first launch profiled (a few clock reads per compile).
    // Unless `CUDAJIT_NVVM_WARM_UP=0` (see kernel_host's `compile::warm_up`), libnvvm
    // was loaded and warmed by one small compile on a thread of its own while the
    // GPU's context was created, and joined before the device was handed out: the
    // first calls below then time what is left, and this line says what it took.
    match kernel_host::profile::warm_up_report() {
        Some(w) => println!(
            "RESULT {label}nvvm_warm_up_ms {:.3} load_ms={:.3},compile_ms={:.3},finished_before_first_call={},compiled={}",
            w.load_ms + w.compile_ms,
            w.load_ms,
            w.compile_ms,
            w.finished,
            w.compiled,
        ),
        None => println!("RESULT {label}nvvm_warm_up_ms 0 started=false"),
    }
    // Unless `CUDAJIT_DRIVER_JIT_WARM_UP=0` (kernel_host's `compile::jit_warm_up`), this
    // thread compiled a small module with the driver's JIT while another created the
    // context; its wall time ends with the context's creation.
    match kernel_host::profile::driver_jit_warm_up_report() {
        Some(w) => println!(
            "RESULT {label}driver_jit_warm_up_ms {:.3} load_result={}",
            w.ms, w.load_result
        ),
        None => println!("RESULT {label}driver_jit_warm_up_ms 0 ran=false"),
    }
    // Unless `CUDAJIT_COMPILE_WHILE_OPENING=0` (kernel_host's `compile::while_opening`),
    // the binary's kernels were compiled and JIT-compiled while the context was created.
    for kernel in kernel_host::profile::compiled_while_opening_report() {
        println!(
            "RESULT {label}compiled_while_opening_{} {:.3} ptx_ms={:.3},library_ms={:.3},machine_code={},loaded={}",
            kernel.kernel,
            kernel.ptx_ms + kernel.library_ms,
            kernel.ptx_ms,
            kernel.library_ms,
            kernel.machine_code,
            kernel.loaded
        );
    }
    kernel_host::profile::enable(true);
    for (name, checked) in [("cudajit", true), ("cudajit_nocheck", false)] {
        c.copy_from_host(poison)?;
        stream.synchronize()?;
        let t = Instant::now();
        if checked {
            vecadd::launch(cfg(), a, b, &mut *c)?;
        } else {
            // SAFETY: every thread indexes only below `c.len()`, and a, b, c have
            // equal lengths (the body guards `i < c.len()`).
            unsafe { vecadd_nocheck::launch(cfg(), a, b, &mut *c) }?;
        }
        stream.synchronize()?;
        let us = t.elapsed().as_secs_f64() * 1e6;
        println!("RESULT first_call_{label}{name} {us:.3} includes=compile+load+launch");
        launch_profile::print_first_launches(&format!("first_call_{label}{name}"));
        check(&c.to_host()?, want, name)?;
    }
    // The second call of the checked kernel, as the first: its first launch proved the
    // launch proof, so the first compile was the launch-proven copy alone, and this
    // launch (proven too) runs it; nothing is compiled (a launch that the copy cannot
    // serve would compile the checked kernel: tests/gpu/launch_proof.rs).
    let t = Instant::now();
    vecadd::launch(cfg(), a, b, &mut *c)?;
    stream.synchronize()?;
    let us = t.elapsed().as_secs_f64() * 1e6;
    println!("RESULT second_call_{label}cudajit {us:.3} includes=launch_of_the_launch-proven_copy");
    launch_profile::print_first_launches(&format!("second_call_{label}cudajit"));
    kernel_host::profile::enable(false);
    Ok(())
}

/// Runs this binary twice as a child that makes the first calls alone
/// (`first_calls_child`), each with an empty disk cache and `CUDAJIT_AOT=0`, and the
/// driver's JIT cache in a new folder: cold (the bars' case, a user's first run),
/// then warm (the same folder again: the driver finds the machine code it compiled).
/// Where this binary was built ahead of time (`cargo xtask gpu-bundle`), twice more
/// with its embedded kernels, the driver's JIT cache cold each time: the machine code
/// ptxas made at build time, then (`CUDAJIT_AOT_SASS=0`) the embedded PTX.
fn first_call_children() -> BenchResult<()> {
    in_scratch_dir("cudajit-first-calls", |dir| {
        // The table itself: this process may run with `CUDAJIT_AOT=0`, which hides it
        // from the lookup (the children do not).
        let embedded = kernel_host::aot_support::entries().any(|e| e.kernel == "vecadd");
        if embedded {
            for (label, sass) in [("aot_sass", "1"), ("aot_ptx", "0")] {
                first_calls_in_child(dir, label, &format!("driver_{label}"), |child| {
                    child
                        .env_remove("CUDAJIT_AOT")
                        .env(kernel_host::aot_support::AOT_SASS_VARIABLE, sass);
                })?;
            }
        } else {
            println!("(no ahead-of-time kernels in this binary: no AOT first calls)");
        }
        // `cold_serial`: the same as `cold` without compiling the kernels while the GPU
        // opens (kernel_host's `compile::while_opening`), its own JIT cache cold too:
        // what opening and the first calls cost with and without it, in one run.
        for (label, driver_cache, compile_while_opening) in [
            ("cold", "driver", "1"),
            ("cold_serial", "driver_serial", "0"),
            ("warm", "driver", "1"),
        ] {
            first_calls_in_child(dir, label, driver_cache, |child| {
                child.env("CUDAJIT_AOT", "0").env(
                    kernel_host::profile::COMPILE_WHILE_OPENING_VARIABLE,
                    compile_while_opening,
                );
            })?;
        }
        Ok(())
    })
}

/// [`first_calls_child`] labelled `label` in a fresh process: an empty disk cache in
/// `dir`, the driver's JIT cache in `dir/driver_cache`, and `configure`'s settings.
fn first_calls_in_child(
    dir: &Path,
    label: &str,
    driver_cache: &str,
    configure: impl FnOnce(&mut std::process::Command),
) -> BenchResult<()> {
    let cache = dir.join(label);
    std::fs::create_dir_all(&cache)?;
    let mut child = this_binary()?;
    child
        .args([FIRST_CALLS, &format!("{label}_")])
        .env("CUDAJIT_CACHE_DIR", &cache)
        .env("CUDA_CACHE_PATH", dir.join(driver_cache))
        .env_remove("CUDA_CACHE_DISABLE");
    configure(&mut child);
    run_child(&mut child, &format!("{label} first-calls"))
}

/// A command that runs this binary again (a fresh process for first-call timings).
fn this_binary() -> BenchResult<std::process::Command> {
    Ok(std::process::Command::new(std::env::current_exe()?))
}

/// Runs `command` to its end; a failure is an error naming `what`.
fn run_child(command: &mut std::process::Command, what: &str) -> BenchResult<()> {
    let status = command.status()?;
    if !status.success() {
        return Err(format!("the {what} child failed ({status})").into());
    }
    Ok(())
}

/// `work` in a new empty folder under the temp dir whose name starts with `name`,
/// removed afterwards whatever `work` returned.
fn in_scratch_dir(
    name: &str,
    work: impl FnOnce(&std::path::Path) -> BenchResult<()>,
) -> BenchResult<()> {
    let dir = tempfile::Builder::new().prefix(name).tempdir()?;
    work(dir.path())
}

/// In a fresh process: [`first_calls`] on 2^24-element arrays made before the clock
/// starts, RESULT names prefixed by `label`.
///
/// With `CUDAJIT_BENCH_FIRST_CALL_ELEMENTS=n`, arrays of n elements instead: with a
/// small n the first call follows the GPU's opening within a millisecond, so work
/// started when the GPU opens (a background warm-up) cannot hide in the setup; the
/// setup's time and the whole span are reported, so such work is seen either way.
fn first_calls_child(label: &str) -> BenchResult<()> {
    let n = std::env::var("CUDAJIT_BENCH_FIRST_CALL_ELEMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(N);
    let opened_at = Instant::now();
    let device = Device::default()?;
    let open_ms = opened_at.elapsed().as_secs_f64() * 1e3;
    if device.is_simulator() {
        return Err("the default device is the CPU simulator: nothing to time".into());
    }
    let stream = device.new_stream()?;
    let ha = random_floats(n, 1);
    let hb = random_floats(n, 2);
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    let poison = vec![f32::NAN; n];
    let a = DeviceArray::from_slice(&ha)?;
    let b = DeviceArray::from_slice(&hb)?;
    let mut c = DeviceArray::from_slice(&poison)?;
    stream.synchronize()?;
    let setup_ms = opened_at.elapsed().as_secs_f64() * 1e3;
    first_calls(label, &stream, &a, &b, &mut c, &poison, &want)?;
    // What the whole process waited for: the GPU opened, the arrays made, both first
    // calls (work started when the GPU opened overlaps the setup, or delays it).
    println!(
        "RESULT {label}open_to_first_calls_ms {:.3} setup_ms={setup_ms:.3},open_ms={open_ms:.3},elements={n}",
        opened_at.elapsed().as_secs_f64() * 1e3
    );
    println!("RESULT {label}open_ms {open_ms:.3}");
    Ok(())
}

/// Runs this binary twice as a child that times first launches of new generic
/// instantiations (`first_instantiations`): with an empty disk cache, then with the
/// one the first child filled. Its RESULT lines go to this process's stdout.
fn instantiation_costs() -> BenchResult<()> {
    in_scratch_dir("cudajit-first-instance", |dir| {
        for state in ["cold", "disk"] {
            run_child(
                this_binary()?
                    .args([FIRST_INSTANTIATION, state])
                    .env("CUDAJIT_CACHE_DIR", dir)
                    // The JIT, not ahead-of-time PTX a bundle may embed for these instantiations.
                    .env("CUDAJIT_AOT", "0"),
                &format!("{state} first-instantiation"),
            )?;
        }
        Ok(())
    })
}

/// In a fresh process: host wall time of the first launch of `vecadd_generic::<f32>`,
/// then of `vecadd_generic::<f64>` (each launch synchronised, its result checked). The
/// device, stream and arrays exist before the clock starts: what is timed is what a
/// new instantiation costs its first launch (with `cold`, the first compile in the
/// process: libnvvm is loaded then).
fn first_instantiations(state: &str) -> BenchResult<()> {
    let device = Device::default()?;
    if device.is_simulator() {
        return Err("the default device is the CPU simulator: nothing to time".into());
    }
    let stream = device.new_stream()?;
    let blocks = (TINY_N as u32).div_ceil(BLOCK);
    let cfg = || LaunchConfig::new(blocks, BLOCK).stream(&stream);
    let ha = random_floats(TINY_N, 7);
    let hb = random_floats(TINY_N, 8);
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    let a = DeviceArray::from_slice(&ha)?;
    let b = DeviceArray::from_slice(&hb)?;
    let mut c = DeviceArray::from_slice(&vec![f32::NAN; TINY_N])?;
    let wide = |v: &[f32]| v.iter().map(|&x| x as f64 * 1.5).collect::<Vec<f64>>();
    let (ha64, hb64) = (wide(&ha), wide(&hb));
    let want64: Vec<f64> = ha64.iter().zip(&hb64).map(|(x, y)| x + y).collect();
    let a64 = DeviceArray::from_slice(&ha64)?;
    let b64 = DeviceArray::from_slice(&hb64)?;
    let mut c64 = DeviceArray::from_slice(&vec![f64::NAN; TINY_N])?;
    stream.synchronize()?;
    kernel_host::profile::enable(true);

    let t = Instant::now();
    vecadd_generic::launch(cfg(), &a, &b, &mut c)?;
    stream.synchronize()?;
    let first_us = t.elapsed().as_secs_f64() * 1e6;
    check(&c.to_host()?, &want, "vecadd_generic::<f32>")?;

    let t = Instant::now();
    vecadd_generic::launch(cfg(), &a64, &b64, &mut c64)?;
    stream.synchronize()?;
    let second_us = t.elapsed().as_secs_f64() * 1e6;
    if c64.to_host()? != want64 {
        return Err("vecadd_generic::<f64> wrong".into());
    }
    let what = if state == "cold" {
        "fresh process+empty disk cache+CUDAJIT_AOT=0"
    } else {
        "fresh process+instantiation on disk"
    };
    println!("RESULT instance_first_{state} {first_us:.3} types=f32,when={what}");
    println!(
        "RESULT instance_second_{state} {second_us:.3} types=f64,when=after_f32_in_that_process"
    );
    kernel_host::profile::enable(false);
    launch_profile::print_first_launches(&format!("instance_{state}"));
    Ok(())
}

fn load(ctx: &Arc<CudaContext>, ptx: Ptx, entry: &str) -> BenchResult<CudaFunction> {
    Ok(ctx.load_module(ptx)?.load_function(entry)?)
}

/// nvcc's `vecadd` (bench/cuda/vecadd.cu, `nvcc -ptx`), launched through cudarc and
/// timed with cudarc's events: the same measurement as cudajit's, in this process.
fn nvcc_kernel_time(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    ptx_path: &Path,
) -> BenchResult<()> {
    let f = load(ctx, Ptx::from_file(ptx_path), "vecadd")?;
    let ha = random_floats(N, 3);
    let hb = random_floats(N, 4);
    let a = stream.clone_htod(&ha)?;
    let b = stream.clone_htod(&hb)?;
    let mut c = stream.clone_htod(&vec![f32::NAN; N])?;
    let n = N as i32;
    let cfg = RawConfig {
        grid_dim: (N.div_ceil(BLOCK as usize) as u32, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let launch = |c: &mut CudaSlice<f32>| -> BenchResult<()> {
        // SAFETY: vecadd(const float*, const float*, float*, int) over n elements of
        // buffers that hold n.
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&a)
                .arg(&b)
                .arg(c)
                .arg(&n)
                .launch(cfg)
        }?;
        Ok(())
    };
    launch(&mut c)?;
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    check(&stream.clone_dtoh(&c)?, &want, "nvcc vecadd via cudarc")?;
    for _ in 0..WARMUP {
        launch(&mut c)?;
    }
    stream.synchronize()?;
    let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let mut events = Vec::with_capacity(TIMED);
    for _ in 0..TIMED {
        let s = stream.record_event(timing)?;
        launch(&mut c)?;
        events.push((s, stream.record_event(timing)?));
    }
    stream.synchronize()?;
    let mut us = Vec::with_capacity(TIMED);
    for (s, e) in &events {
        us.push(s.elapsed_ms(e)? as f64 * 1e3);
    }
    report_kernel("kernel_nvcc_ptx_cudarc", &us);
    Ok(())
}

type Step<'a> = Box<dyn FnMut() -> BenchResult<()> + 'a>;

/// One way of launching the tiny kernel, with how to wait for it.
struct LaunchVariant<'a> {
    name: &'static str,
    launch: Step<'a>,
    sync: Step<'a>,
}

impl<'a> LaunchVariant<'a> {
    fn new(name: &'static str, launch: Step<'a>, sync: Step<'a>) -> Self {
        LaunchVariant { name, launch, sync }
    }
}

/// Host time per launch of each variant, `launches` back to back per repetition,
/// synchronised once at the end of each. Repetitions are interleaved (every variant
/// once, then again) so that drift in the machine's state over the run weighs on all
/// variants alike.
fn interleaved_per_launch_us(
    variants: &mut [LaunchVariant<'_>],
    launches: usize,
) -> BenchResult<Vec<(&'static str, Vec<f64>)>> {
    for v in variants.iter_mut() {
        for _ in 0..1000 {
            (v.launch)()?;
        }
        (v.sync)()?;
    }
    let mut out: Vec<(&'static str, Vec<f64>)> = variants
        .iter()
        .map(|v| (v.name, Vec::with_capacity(REPS)))
        .collect();
    for _ in 0..REPS {
        for (v, (_, times)) in variants.iter_mut().zip(out.iter_mut()) {
            let t = Instant::now();
            for _ in 0..launches {
                (v.launch)()?;
            }
            (v.sync)()?;
            times.push(t.elapsed().as_secs_f64() * 1e6 / launches as f64);
        }
    }
    Ok(out)
}

/// The PTX the raw side launches: cudajit's own for `vecadd` where it can be made
/// here, else nvcc's `vecadd_abi`, which has cudajit's parameter list (pointer + i64
/// length per slice), so both sides push the same six parameters either way.
fn raw_kernel(
    ctx: &Arc<CudaContext>,
    nvcc_ptx: Option<&Path>,
) -> BenchResult<(CudaFunction, &'static str)> {
    let (major, minor) = ctx.compute_capability()?;
    match cudajit_ptx(vecadd::source(), (major, minor)) {
        Ok(ptx) => return Ok((load(ctx, Ptx::from_src(ptx), "vecadd")?, "cudajit's")),
        Err(e) => println!("cudajit's PTX not available to the raw side ({e}); using nvcc's"),
    }
    match nvcc_ptx {
        Some(path) => Ok((
            load(ctx, Ptx::from_file(path), "vecadd_abi")?,
            "nvcc's vecadd_abi",
        )),
        None => Err(
            "no PTX for the raw-cudarc launches: CUDAJIT_BENCH_PTX is unset \
                     (bench/run.sh sets it)"
                .into(),
        ),
    }
}

/// A kernel's PTX made the way cudajit's JIT makes it (the macro's embedded source →
/// NVVM IR → libnvvm) for compute capability `(major, minor)`.
fn cudajit_ptx(
    source: &'static kernel_device::source::FnSource,
    (major, minor): (i32, i32),
) -> BenchResult<String> {
    use kernel_device::back::nvvm::Options;
    use kernel_device::nvvm::{CompileOptions, Nvvm};
    let nvvm = Nvvm::shared()?;
    let options = Options {
        ir_version: nvvm.ir_version(),
        ..Options::default()
    };
    let unit = kernel_device::nvvm_ir_for_kernel(source, &options)?;
    let compile = CompileOptions {
        arch: format!("compute_{major}{minor}"),
        ..CompileOptions::default()
    };
    Ok(nvvm.compile(&unit.nvvm_ir, &compile)?)
}

fn launch_costs(
    stream: &Stream,
    other_stream: &Stream,
    ctx: &Arc<CudaContext>,
    raw_stream: &Arc<CudaStream>,
    nvcc_ptx: Option<&Path>,
) -> BenchResult<()> {
    let ha = random_floats(TINY_N, 5);
    let hb = random_floats(TINY_N, 6);
    let blocks = (TINY_N as u32).div_ceil(BLOCK);

    // cudajit's arrays, and the raw side's: the same kernel and parameter list.
    let a = DeviceArray::from_slice(&ha)?;
    let b = DeviceArray::from_slice(&hb)?;
    let c = RefCell::new(DeviceArray::<f32>::zeros(TINY_N)?);
    let (f, origin) = raw_kernel(ctx, nvcc_ptx)?;
    println!("raw cudarc launches use {origin} PTX");
    let ta = raw_stream.clone_htod(&ha)?;
    let tb = raw_stream.clone_htod(&hb)?;
    let tc = RefCell::new(raw_stream.alloc_zeros::<f32>(TINY_N)?);
    // The bare launches write their own output (its device pointer stays borrowed).
    let bare_out = raw_stream.alloc_zeros::<f32>(TINY_N)?;
    let len = TINY_N as i64;
    // cudajit's kernels take the device address of a panic record as a hidden last
    // parameter; 0 means none (a panic just ends the thread). nvcc's `vecadd_abi` has
    // no such parameter, and the driver ignores the extra pointer.
    let no_record = 0u64;
    let cfg = RawConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    // The floor: cudarc's thin cuLaunchKernel wrapper with a parameter array built once.
    let (pa, _ga) = ta.device_ptr(raw_stream);
    let (pb, _gb) = tb.device_ptr(raw_stream);
    let (pc, _gc) = bare_out.device_ptr(raw_stream);
    let params: [*mut c_void; 7] = [
        &pa as *const _ as *mut c_void,
        &len as *const _ as *mut c_void,
        &pb as *const _ as *mut c_void,
        &len as *const _ as *mut c_void,
        &pc as *const _ as *mut c_void,
        &len as *const _ as *mut c_void,
        &no_record as *const _ as *mut c_void,
    ];
    let bare_function = |function: cudarc::driver::sys::CUfunction,
                         on: cudarc::driver::sys::CUstream|
     -> BenchResult<()> {
        let mut params = params;
        // SAFETY: the seven parameters above outlive every launch (synchronised); both
        // streams belong to the same (primary) context; `function` is `vecadd` (or a
        // copy of it with the same parameters).
        unsafe {
            cu_result::launch_kernel(function, cfg.grid_dim, cfg.block_dim, 0, on, &mut params)
        }?;
        Ok(())
    };
    let bare = |on| bare_function(f.cu_function(), on);
    // The driver's other entry: the same seven parameter words packed in one buffer in
    // the kernel's parameter layout (each 8 bytes, 8-aligned), passed through `extra`
    // (`CU_LAUNCH_PARAM_BUFFER_POINTER`) instead of one pointer per parameter. The bars
    // are held against whichever bare form is faster in the run.
    let packed: [u64; 7] = [pa, len as u64, pb, len as u64, pc, len as u64, no_record];
    let bare_packed = |on: cudarc::driver::sys::CUstream| -> BenchResult<()> {
        let (mut buffer, mut size) = (packed, std::mem::size_of_val(&packed));
        let mut extra = packed_extra(&mut buffer, &mut size);
        // SAFETY: as `bare_function`'s launch; the buffer holds the same seven words in
        // the kernel's parameter layout and outlives the call, `extra` ends with
        // CU_LAUNCH_PARAM_END.
        unsafe {
            cudarc::driver::sys::cuLaunchKernel(
                f.cu_function(),
                cfg.grid_dim.0,
                1,
                1,
                cfg.block_dim.0,
                1,
                1,
                0,
                on,
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        }
        .result()?;
        Ok(())
    };
    // The entry point cudajit launches through since issue 27's s46 change:
    // `cuLaunchKernelEx` without attributes, the same packed buffer. The floor of
    // cudajit's own launch (the bars stay held against `cuLaunchKernel`).
    let bare_ex_packed = |on: cudarc::driver::sys::CUstream| -> BenchResult<()> {
        let (mut buffer, mut size) = (packed, std::mem::size_of_val(&packed));
        let mut extra = packed_extra(&mut buffer, &mut size);
        let config = cudarc::driver::sys::CUlaunchConfig {
            gridDimX: cfg.grid_dim.0,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: cfg.block_dim.0,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: 0,
            hStream: on,
            attrs: std::ptr::null_mut(),
            numAttrs: 0,
        };
        // SAFETY: as `bare_packed`'s launch; `config` names no attributes and outlives
        // the call.
        unsafe {
            cudarc::driver::sys::cuLaunchKernelEx(
                &config,
                f.cu_function(),
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        }
        .result()?;
        Ok(())
    };
    let mut variants: Vec<LaunchVariant> = vec![
        // cudajit on an explicit stream and on its default stream (`launch!` without a
        // stream).
        LaunchVariant::new(
            "launch_cudajit",
            Box::new(|| {
                let config = LaunchConfig::new(blocks, BLOCK).stream(stream);
                Ok(vecadd::launch(config, &a, &b, &mut *c.borrow_mut())?)
            }),
            Box::new(|| Ok(stream.synchronize()?)),
        ),
        // The same launch of a generic kernel's instantiation (`vecadd_generic::<f32>`,
        // compiled during the warm-up): what a generic kernel adds is its lookup.
        LaunchVariant::new(
            "launch_cudajit_generic",
            Box::new(|| {
                let config = LaunchConfig::new(blocks, BLOCK).stream(stream);
                Ok(vecadd_generic::launch(
                    config,
                    &a,
                    &b,
                    &mut *c.borrow_mut(),
                )?)
            }),
            Box::new(|| Ok(stream.synchronize()?)),
        ),
        LaunchVariant::new(
            "launch_cudajit_default_stream",
            Box::new(|| {
                let config = LaunchConfig::new(blocks, BLOCK);
                Ok(vecadd::launch(config, &a, &b, &mut *c.borrow_mut())?)
            }),
            Box::new(|| Ok(cudajit::synchronize()?)),
        ),
        // Every launch on the other stream than the one before, on the same arrays: each
        // pays the cross-stream ordering (an event recorded on the previous stream and
        // waited for on this one, per array), the worst case of the event tracking.
        LaunchVariant::new(
            "launch_cudajit_alternating_streams",
            Box::new({
                let (a, b, c) = (&a, &b, &c);
                let mut flip = false;
                move || {
                    flip = !flip;
                    let on = if flip { other_stream } else { stream };
                    let config = LaunchConfig::new(blocks, BLOCK).stream(on);
                    Ok(vecadd::launch(config, a, b, &mut *c.borrow_mut())?)
                }
            }),
            Box::new(|| {
                other_stream.synchronize()?;
                Ok(stream.synchronize()?)
            }),
        ),
        LaunchVariant::new(
            "launch_cudarc",
            Box::new(|| {
                let mut tc = tc.borrow_mut();
                // SAFETY: (a, len, b, len, c, len) with buffers of len f32 each.
                unsafe {
                    raw_stream
                        .launch_builder(&f)
                        .arg(&ta)
                        .arg(&len)
                        .arg(&tb)
                        .arg(&len)
                        .arg(&mut *tc)
                        .arg(&len)
                        .arg(&no_record)
                        .launch(cfg)
                }?;
                Ok(())
            }),
            Box::new(|| Ok(raw_stream.synchronize()?)),
        ),
        LaunchVariant::new(
            "launch_cudarc_driver",
            Box::new(|| bare(raw_stream.cu_stream())),
            Box::new(|| Ok(raw_stream.synchronize()?)),
        ),
        // The same bare launch on cudajit's created stream (non-blocking, as cudarc's;
        // the row keeps its name from when cudajit's streams were blocking ones).
        LaunchVariant::new(
            "launch_driver_blocking_stream",
            Box::new(|| bare(stream.cu_stream())),
            Box::new(|| Ok(stream.synchronize()?)),
        ),
        // And on the legacy NULL stream, which cudajit's default-stream row uses: the
        // floor that row is made of.
        LaunchVariant::new(
            "launch_driver_null_stream",
            Box::new(|| bare(std::ptr::null_mut())),
            Box::new(|| Ok(cudajit::synchronize()?)),
        ),
    ];
    let all = interleaved_per_launch_us(&mut variants, LAUNCHES)?;
    for (name, times) in &all {
        report_launch(name, times);
    }
    // Extra host time of a generic kernel's launch: the difference per repetition (the
    // two ran back to back in each), median.
    let times_of = |name: &str| all.iter().find(|(n, _)| *n == name).map(|(_, t)| t);
    if let (Some(generic), Some(plain)) = (
        times_of("launch_cudajit_generic"),
        times_of("launch_cudajit"),
    ) {
        let extra: Vec<f64> = generic.iter().zip(plain).map(|(g, p)| g - p).collect();
        println!(
            "RESULT generic_launch_extra {:.3} vs=launch_cudajit,min_us={:.3},reps={REPS}",
            median(extra.clone()),
            min(&extra)
        );
    }
    drop(variants);
    // The bars' figures: each cudajit row against the bare launch on the same stream(s),
    // round by round (`launch_profile::paired_rounds`).
    let ours = |on: Option<&Stream>| {
        let config = match on {
            Some(s) => LaunchConfig::new(blocks, BLOCK).stream(s),
            None => LaunchConfig::new(blocks, BLOCK),
        };
        vecadd::launch(config, &a, &b, &mut *c.borrow_mut())
    };
    let sync_stream = || -> BenchResult<()> { Ok(stream.synchronize()?) };
    let sync_default = || -> BenchResult<()> { Ok(cudajit::synchronize()?) };
    let sync_both = || -> BenchResult<()> {
        other_stream.synchronize()?;
        Ok(stream.synchronize()?)
    };
    use launch_profile::paired_rounds as pair;
    pair(
        "launch_cudajit",
        "launch_driver_blocking_stream",
        PAIR_LAUNCHES,
        PAIR_ROUNDS,
        (&mut || Ok(ours(Some(stream))?), &mut { sync_stream }),
        (&mut || bare(stream.cu_stream()), &mut { sync_stream }),
    )?;
    pair(
        "launch_cudajit_default_stream",
        "launch_driver_null_stream",
        PAIR_LAUNCHES,
        PAIR_ROUNDS,
        (&mut || Ok(ours(None)?), &mut { sync_default }),
        (&mut || bare(std::ptr::null_mut()), &mut { sync_default }),
    )?;
    // The bare forms against `cuLaunchKernel` with a parameter table, and cudajit
    // against each packed form: `cuLaunchKernel` with the buffer (the bars' baseline
    // where it is the faster form: report.py picks per run) and `cuLaunchKernelEx`, the
    // entry point cudajit makes (its floor).
    type Bare<'b> = &'b dyn Fn(cudarc::driver::sys::CUstream) -> BenchResult<()>;
    type Sync<'b> = &'b dyn Fn() -> BenchResult<()>;
    let null = std::ptr::null_mut();
    let forms: [(&str, &str, &str, Bare<'_>); 2] = [
        (
            "driver_packed_buffer",
            "launch_driver_packed_buffer",
            "packed",
            &bare_packed,
        ),
        (
            "driver_ex_packed",
            "launch_driver_ex_packed",
            "ex_packed",
            &bare_ex_packed,
        ),
    ];
    for (form, form_row, short, bare_form) in forms {
        let sides: [(Option<&Stream>, &str, Sync<'_>); 2] = [
            (Some(stream), "", &sync_stream),
            (None, "_null_stream", &sync_default),
        ];
        for (on, suffix, sync) in sides {
            let raw = on.map_or(null, Stream::cu_stream);
            let table_row = match on {
                Some(_) => "launch_driver_blocking_stream",
                None => "launch_driver_null_stream",
            };
            pair(
                &format!("{form}{suffix}"),
                table_row,
                PAIR_LAUNCHES,
                PAIR_ROUNDS,
                (&mut || bare_form(raw), &mut || sync()),
                (&mut || bare(raw), &mut || sync()),
            )?;
            let ours_name = match on {
                Some(_) => format!("launch_cudajit_vs_{short}"),
                None => format!("launch_cudajit_default_vs_{short}"),
            };
            pair(
                &ours_name,
                &format!("{form_row}{suffix}"),
                PAIR_LAUNCHES,
                PAIR_ROUNDS,
                (&mut || Ok(ours(on)?), &mut || sync()),
                (&mut || bare_form(raw), &mut || sync()),
            )?;
        }
    }
    // Alternating: against the bare launch on one stream (the bar), and against bare
    // launches that alternate too and order themselves as a correct program must (one
    // event recorded on the stream before, waited for on the next: what cudajit does
    // for the one array both streams write), the floor of this row.
    let mut flip = false;
    let mut alternate = || {
        flip = !flip;
        Ok(ours(Some(if flip { other_stream } else { stream }))?)
    };
    pair(
        "launch_cudajit_alternating_streams",
        "launch_driver_blocking_stream",
        PAIR_LAUNCHES,
        PAIR_ROUNDS,
        (&mut alternate, &mut { sync_both }),
        (&mut || bare(stream.cu_stream()), &mut { sync_stream }),
    )?;
    let ordering =
        cu_result::event::create(cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?;
    let mut bare_flip = false;
    let mut bare_alternate = || -> BenchResult<()> {
        bare_flip = !bare_flip;
        let (on, before) = if bare_flip {
            (other_stream, stream)
        } else {
            (stream, other_stream)
        };
        // SAFETY: a live event and two live streams of the bench's (primary) context.
        unsafe {
            cu_result::event::record(ordering, before.cu_stream())?;
            cu_result::stream::wait_event(
                on.cu_stream(),
                ordering,
                cudarc::driver::sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )?;
        }
        bare(on.cu_stream())
    };
    pair(
        "launch_cudajit_alternating_vs_ordered",
        "launch_driver_alternating_ordered",
        PAIR_LAUNCHES,
        PAIR_ROUNDS,
        (&mut alternate, &mut { sync_both }),
        (&mut bare_alternate, &mut { sync_both }),
    )?;
    // SAFETY: made above; every use of it completed (both streams synchronised).
    unsafe { cu_result::event::destroy(ordering) }?;
    profile_stages(stream, other_stream, &a, &b, &c, blocks)?;
    {
        // The launch path rebuilt stage by stage around real driver calls (issue 27).
        let mut c = c.borrow_mut();
        let c: *mut DeviceArray<f32> = &mut *c;
        // SAFETY: each rung consumes its arguments before the next are made, so no two
        // `&mut` of `c` live at once; `c` stays borrowed for the whole ladder.
        let pending = || {
            let launch = vecadd::args(&a, &b, unsafe { &mut *c });
            (launch.source, launch.cache, launch.args)
        };
        let config = LaunchConfig::new(blocks, BLOCK).stream(stream);
        let whole = || vecadd::launch(config, &a, &b, unsafe { &mut *c });
        launch_profile::launch_ladder(&pending, &whole, stream, config)?;
    }
    // The function cudajit's launches pass to the driver (its proven copy), launched
    // bare beside the raw side's: whether the driver's work differs between them.
    if let Some(function) = kernel_host::profile::last_launched_function() {
        pair(
            "driver_cudajit_function",
            "launch_driver_blocking_stream",
            PAIR_LAUNCHES,
            PAIR_ROUNDS,
            (&mut || bare_function(function, stream.cu_stream()), &mut {
                sync_stream
            }),
            (&mut || bare(stream.cu_stream()), &mut { sync_stream }),
        )?;
    }
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    check(&c.borrow().to_host()?, &want, "tiny vecadd (cudajit)")?;
    drop((_ga, _gb, _gc));
    check(
        &raw_stream.clone_dtoh(&*tc.borrow())?,
        &want,
        "tiny vecadd (cudarc)",
    )?;
    check(
        &raw_stream.clone_dtoh(&bare_out)?,
        &want,
        "tiny vecadd (bare launches)",
    )?;
    Ok(())
}

/// Issue 27's profile: the launches of the first three cudajit rows again, with the
/// stage profile on (after the timed rows, so that its clock reads weigh on none).
fn profile_stages(
    stream: &Stream,
    other_stream: &Stream,
    a: &DeviceArray<f32>,
    b: &DeviceArray<f32>,
    c: &RefCell<DeviceArray<f32>>,
    blocks: u32,
) -> BenchResult<()> {
    fn on(s: &Stream, blocks: u32) -> LaunchConfig<'_> {
        LaunchConfig::new(blocks, BLOCK).stream(s)
    }
    launch_profile::profile_launches(
        "launch_cudajit",
        LAUNCHES,
        || {
            Ok(vecadd::launch(
                on(stream, blocks),
                a,
                b,
                &mut *c.borrow_mut(),
            )?)
        },
        || Ok(stream.synchronize()?),
    )?;
    launch_profile::profile_launches(
        "launch_cudajit_default_stream",
        LAUNCHES,
        || {
            let config = LaunchConfig::new(blocks, BLOCK);
            Ok(vecadd::launch(config, a, b, &mut *c.borrow_mut())?)
        },
        || Ok(cudajit::synchronize()?),
    )?;
    let mut flip = false;
    launch_profile::profile_launches(
        "launch_cudajit_alternating_streams",
        LAUNCHES,
        || {
            flip = !flip;
            let config = on(if flip { other_stream } else { stream }, blocks);
            Ok(vecadd::launch(config, a, b, &mut *c.borrow_mut())?)
        },
        || {
            other_stream.synchronize()?;
            Ok(stream.synchronize()?)
        },
    )
}

/// A kernel that does nothing: the floor of a graph's kernel node on this GPU.
const EMPTY_KERNEL_PTX: &str = ".version 7.8\n.target sm_90\n.address_size 64\n\
                                .visible .entry empty()\n{\n\tret;\n}\n";

/// cudajit's empty kernel: its graph is the floor of a cudajit kernel node, with and
/// without the overlap of consecutive nodes (`CUDAJIT_GRAPH_OVERLAP`).
#[kernel]
fn empty_node() {}

/// Kernel nodes in the replayed graphs.
const GRAPH_NODES: usize = 100;

/// A graph row's variant: replays of cudajit's `graph` on `stream`.
fn replays<'a>(name: &'static str, graph: &'a Graph, stream: &'a Stream) -> LaunchVariant<'a> {
    LaunchVariant::new(
        name,
        Box::new(move || Ok(graph.launch(stream)?)),
        Box::new(move || Ok(stream.synchronize()?)),
    )
}
/// Replays per repetition.
const GRAPH_REPLAYS: usize = 200;

/// Issue 27's graph row: a CUDA graph of `GRAPH_NODES` launches of the tiny `vecadd`,
/// captured once, then replayed `GRAPH_REPLAYS` times back to back and synchronised:
/// host wall time per kernel node (what a replay of many small kernels costs end to
/// end, the GPU's node throughput included), median of `REPS` repetitions, cudajit's
/// `Stream::capture` / `Graph::launch` beside the same 100 launches captured with
/// cudarc on a raw stream (`cuStreamBeginCapture`, `cuGraphLaunch`), interleaved.
fn graph_replay_costs(
    stream: &Stream,
    ctx: &Arc<CudaContext>,
    nvcc_ptx: Option<&Path>,
) -> BenchResult<()> {
    let ha = random_floats(TINY_N, 7);
    let hb = random_floats(TINY_N, 8);
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    let blocks = (TINY_N as u32).div_ceil(BLOCK);
    let a = DeviceArray::from_slice(&ha)?;
    let b = DeviceArray::from_slice(&hb)?;
    let mut c = DeviceArray::from_slice(&vec![f32::NAN; TINY_N])?;
    let graph = stream.capture(|s| {
        for _ in 0..GRAPH_NODES {
            vecadd::launch(LaunchConfig::new(blocks, BLOCK).stream(s), &a, &b, &mut c)?;
        }
        Ok(())
    })?;
    if graph.len() != GRAPH_NODES {
        return Err(format!("captured {} launches, not {GRAPH_NODES}", graph.len()).into());
    }
    // Consecutive kernel nodes overlap by default on sm_90 (kernel_host's
    // `launch::graph::overlap`); the same graphs captured with that off, and cudajit's
    // empty kernel both ways: what the overlap saves per node.
    let capture_empty = || {
        stream.capture(|s| {
            for _ in 0..GRAPH_NODES {
                empty_node::launch(LaunchConfig::new(blocks, BLOCK).stream(s))?;
            }
            Ok(())
        })
    };
    let empty_cudajit = capture_empty()?;
    std::env::set_var("CUDAJIT_GRAPH_OVERLAP", "0");
    let serial = stream.capture(|s| {
        for _ in 0..GRAPH_NODES {
            vecadd::launch(LaunchConfig::new(blocks, BLOCK).stream(s), &a, &b, &mut c)?;
        }
        Ok(())
    });
    let empty_cudajit_serial = capture_empty();
    std::env::remove_var("CUDAJIT_GRAPH_OVERLAP");
    let (serial, empty_cudajit_serial) = (serial?, empty_cudajit_serial?);
    println!(
        "RESULT graph_overlapped_nodes {} serial={},empty={},empty_serial={}",
        graph.overlapped_nodes(),
        serial.overlapped_nodes(),
        empty_cudajit.overlapped_nodes(),
        empty_cudajit_serial.overlapped_nodes()
    );

    // The raw side: the same kernel and parameters, captured on a cudarc stream.
    let raw = ctx.new_stream()?;
    let (f, _) = raw_kernel(ctx, nvcc_ptx)?;
    let ta = raw.clone_htod(&ha)?;
    let tb = raw.clone_htod(&hb)?;
    let mut tc = raw.clone_htod(&vec![f32::NAN; TINY_N])?;
    let len = TINY_N as i64;
    let no_record = 0u64;
    let cfg = RawConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    raw.synchronize()?;
    raw.begin_capture(
        cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
    )?;
    for _ in 0..GRAPH_NODES {
        // SAFETY: (a, len, b, len, c, len, record) with buffers of len f32 each.
        unsafe {
            raw.launch_builder(&f)
                .arg(&ta)
                .arg(&len)
                .arg(&tb)
                .arg(&len)
                .arg(&mut tc)
                .arg(&len)
                .arg(&no_record)
                .launch(cfg)
        }?;
    }
    let raw_graph = raw
        .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0))?
        .ok_or("the raw capture recorded no graph")?;

    // The driver's own floor: the same chain of 100 nodes of an empty kernel (no
    // parameters, the same grid and block), captured the same way.
    let empty = ctx
        .load_module(Ptx::from_src(EMPTY_KERNEL_PTX))?
        .load_function("empty")?;
    raw.begin_capture(
        cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
    )?;
    for _ in 0..GRAPH_NODES {
        // SAFETY: a kernel without parameters.
        unsafe { raw.launch_builder(&empty).launch(cfg) }?;
    }
    let empty_graph = raw
        .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0))?
        .ok_or("the empty-kernel capture recorded no graph")?;

    let mut variants = [
        LaunchVariant::new(
            "graph_node_empty_cudarc",
            Box::new(|| Ok(empty_graph.launch()?)),
            Box::new(|| Ok(raw.synchronize()?)),
        ),
        replays("graph_node_cudajit", &graph, stream),
        LaunchVariant::new(
            "graph_node_cudarc",
            Box::new(|| Ok(raw_graph.launch()?)),
            Box::new(|| Ok(raw.synchronize()?)),
        ),
        replays("graph_node_cudajit_serial", &serial, stream),
        replays("graph_node_empty_cudajit", &empty_cudajit, stream),
        replays(
            "graph_node_empty_cudajit_serial",
            &empty_cudajit_serial,
            stream,
        ),
    ];
    // Per replay, then per kernel node. The warm-up's replays also write the outputs
    // checked below.
    for (name, per_replay) in interleaved_per_launch_us(&mut variants, GRAPH_REPLAYS)? {
        let per_node: Vec<f64> = per_replay
            .iter()
            .map(|us| us / GRAPH_NODES as f64)
            .collect();
        println!(
            "RESULT {name} {:.3} min_us={:.3},nodes={GRAPH_NODES},replays={GRAPH_REPLAYS},reps={REPS},n={TINY_N}",
            median(per_node.clone()),
            min(&per_node)
        );
    }
    drop(variants);
    check(&c.to_host()?, &want, "graph replay (cudajit)")?;
    check(&raw.clone_dtoh(&tc)?, &want, "graph replay (cudarc)")?;
    Ok(())
}
