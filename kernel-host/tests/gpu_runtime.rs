//! Runtime tests on the default device: a GPU, or the CPU simulator on a machine without
//! one. Without any device each test prints `skipped: no CUDA driver/GPU (<reason>)` and
//! returns; tests of what only a GPU has (driver launch cost, AOT PTX) say why they skip
//! on the simulator. They exercise device arrays, launch-configuration rejections,
//! launches of hand-written kernel sources (host slices, device arrays, streams,
//! events), and device-side panics.

use kernel_host::__private::{launch, FnSource, KernelArg, KernelCache, SliceArgMut, SourceKind};
use kernel_host::{Device, DeviceArray, Error, Event, LaunchConfig};

/// Says why a test did not run, on stderr written directly so that the test
/// harness's output capture does not hide the reason.
macro_rules! skip {
    ($($reason:tt)*) => {{
        use std::io::Write as _;
        let test = std::thread::current().name().unwrap_or("test").to_string();
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", format_args!($($reason)*));
    }};
}

/// The tests share the device's panic records (a device-wide synchronisation reports
/// any kernel's panic), so they run one at a time.
static GPU: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn device_or_skip() -> Option<(Device, std::sync::MutexGuard<'static, ()>)> {
    let guard = GPU.lock().unwrap_or_else(|p| p.into_inner());
    match Device::default() {
        Ok(device) => Some((device, guard)),
        Err(e @ (Error::NoDriver { .. } | Error::NoDevice { .. })) => {
            skip!("no CUDA driver/GPU ({e})");
            None
        }
        Err(e) => panic!("opening the default device failed unexpectedly: {e}"),
    }
}

/// The default device if it is a GPU; on the simulator the test is skipped, saying
/// `why` it needs a GPU.
fn gpu_or_skip(why: &str) -> Option<(Device, std::sync::MutexGuard<'static, ()>)> {
    let (device, guard) = device_or_skip()?;
    if device.is_simulator() {
        skip!("on the CPU simulator: {why}");
        return None;
    }
    Some((device, guard))
}

/// A launch error that means "libnvvm is not installed here" skips the test with its
/// reason; any other error fails it.
fn skip_if_no_nvvm(result: kernel_host::Result<()>) -> Option<()> {
    match result {
        Ok(()) => Some(()),
        Err(e @ Error::Nvvm { .. }) if e.to_string().contains("not found") => {
            skip!("libnvvm not available ({e})");
            None
        }
        Err(e) => panic!("launch failed: {e}"),
    }
}

/// Reproducible data: fastrand's generator from a fixed seed.
struct Rng(fastrand::Rng);
impl Rng {
    fn with_seed(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.u64(..)
    }
}

// Hand-written kernel sources, as the #[kernel] macro would embed them.

/// A kernel's source with default options, written at `line` of this file.
const fn kernel_source(name: &'static str, text: &'static str, line: u32) -> FnSource {
    FnSource {
        name,
        kind: SourceKind::Kernel,
        text,
        file: file!(),
        line,
        options: kernel_device::ir::FunctionOptions::DEFAULT,
        deps: &[],
        consts: &[],
        structs: &[],
        instance: &[],
    }
}

const SCALE_LINE: u32 = line!() + 2;
static SCALE: FnSource = kernel_source(
    "scale",
    "fn scale(x: &mut [f32], a: f32) {\n    let i = grid(1);\n    if i < x.len() {\n        x[i] = x[i] * a;\n    }\n}",
    SCALE_LINE,
);
static SCALE_CACHE: KernelCache = KernelCache::new();

const OOB_LINE: u32 = line!() + 2;
static OOB: FnSource = kernel_source(
    "oob",
    "fn oob(x: &mut [f32]) {\n    let i = grid(1);\n    x[i] = 1.0;\n}",
    OOB_LINE,
);
static OOB_CACHE: KernelCache = KernelCache::new();

fn scale<'a>(
    config: LaunchConfig<'_>,
    x: impl SliceArgMut<'a, f32>,
    a: f32,
) -> kernel_host::Result<()> {
    let mut args = [x.into_kernel_arg(), KernelArg::scalar(a)];
    launch(&SCALE, &SCALE_CACHE, config, &mut args)
}

#[test]
fn device_reports_sane_limits() {
    let Some((device, _gpu)) = device_or_skip() else {
        return;
    };
    let limits = device.limits();
    println!(
        "{} (compute {:?}): {limits:?}",
        device.name(),
        device.compute_capability()
    );
    assert!(limits.max_threads_per_block >= 512);
    assert_eq!(limits.warp_size, 32);
    assert!(limits.max_shared_per_block_optin >= limits.max_shared_per_block);
    assert!(device.arch().starts_with("compute_"));
    if !device.is_simulator() {
        assert_eq!(Device::new(device.ordinal()).unwrap(), device);
    }
    assert!(matches!(
        Device::new(10_000),
        Err(Error::NoDevice { .. } | Error::NoDriver { .. })
    ));
}

#[test]
fn arrays_round_trip_random_data() {
    let Some((device, _gpu)) = device_or_skip() else {
        return;
    };
    let mut rng = Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    for len in [1usize, 3, 1000, 1 << 20] {
        let f: Vec<f32> = (0..len)
            .map(|_| rng.next() as f32 / u64::MAX as f32)
            .collect();
        assert_eq!(DeviceArray::from_slice(&f).unwrap().to_host().unwrap(), f);
        let i: Vec<i64> = (0..len).map(|_| rng.next() as i64).collect();
        assert_eq!(device.to_device(&i).unwrap().to_host().unwrap(), i);
        let b: Vec<bool> = (0..len).map(|_| rng.next() & 1 == 1).collect();
        assert_eq!(DeviceArray::to_device(&b).unwrap().to_host().unwrap(), b);
        let u: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let mut array = DeviceArray::from_slice(&u).unwrap();
        let mut back = vec![0u8; len];
        array.copy_to_host(&mut back).unwrap();
        assert_eq!(back, u);
        let u2: Vec<u8> = u.iter().map(|x| x.wrapping_add(1)).collect();
        array.copy_from_host(&u2).unwrap();
        assert_eq!(array.to_host().unwrap(), u2);
        assert_eq!(array.len(), len);
    }
    let empty = DeviceArray::<f64>::from_slice(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.to_host().unwrap(), Vec::<f64>::new());
    let mut three = DeviceArray::from_slice(&[1u32, 2, 3]).unwrap();
    assert!(matches!(
        three.copy_from_host(&[1, 2]),
        Err(Error::SizeMismatch {
            expected: 3,
            found: 2,
            ..
        })
    ));
    assert!(matches!(
        three.copy_to_host(&mut [0; 4]),
        Err(Error::SizeMismatch { .. })
    ));
}

#[test]
fn zeros_are_zero() {
    let Some((_device, _gpu)) = device_or_skip() else {
        return;
    };
    // Dirty some memory first so that a missing memset would show.
    drop(DeviceArray::from_slice(&vec![0xffu8; 1 << 22]).unwrap());
    assert!(DeviceArray::<f32>::zeros(1 << 20)
        .unwrap()
        .to_host()
        .unwrap()
        .iter()
        .all(|&x| x == 0.0));
    assert!(DeviceArray::<u8>::zeros(1 << 22)
        .unwrap()
        .to_host()
        .unwrap()
        .iter()
        .all(|&x| x == 0));
    assert!(DeviceArray::<bool>::zeros(17)
        .unwrap()
        .to_host()
        .unwrap()
        .iter()
        .all(|&x| !x));
    assert!(DeviceArray::<i64>::zeros(0).unwrap().is_empty());
}

#[test]
fn bad_configs_are_rejected_before_the_driver() {
    let Some((device, _gpu)) = device_or_skip() else {
        return;
    };
    let mut x = vec![1.0f32; 4];
    let cases: Vec<(LaunchConfig<'_>, &str)> = vec![
        (
            LaunchConfig::new(1, 2048),
            "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X",
        ),
        (
            LaunchConfig::new(1, (64, 32)),
            "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
        ),
        (LaunchConfig::new(0, 32), "at least 1"),
        (
            LaunchConfig::new(1, (1, 1, 65)),
            "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z",
        ),
        (
            LaunchConfig::new((1, 65536), 1),
            "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y",
        ),
        (
            LaunchConfig::new(1, 32)
                .shared_bytes(device.limits().max_shared_per_block_optin as usize + 1),
            "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
        ),
    ];
    for (config, limit_name) in cases {
        // `x` must come back untouched: nothing was copied or launched.
        let err = scale(config, &mut x, 2.0).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::InvalidLaunch { .. }), "{text}");
        assert!(text.starts_with("launch of `scale` rejected: "), "{text}");
        assert!(text.contains(limit_name), "{text}");
        assert_eq!(x, vec![1.0; 4]);
    }
}

#[test]
fn launches_with_host_slices_and_device_arrays() {
    let Some((device, _gpu)) = device_or_skip() else {
        return;
    };
    let n = 10_000usize;
    let mut x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    // Host slice: copied in, back, synchronous.
    let Some(()) = skip_if_no_nvvm(scale(LaunchConfig::new(n.div_ceil(256), 256), &mut x, 2.0))
    else {
        return;
    };
    assert!(x.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32));

    // Device array: asynchronous; to_host waits for it.
    let mut d = DeviceArray::from_slice(&x).unwrap();
    scale(LaunchConfig::new(n.div_ceil(128), 128), &mut d, 0.5).unwrap();
    let back = d.to_host().unwrap();
    assert!(back.iter().enumerate().all(|(i, &v)| v == i as f32));

    // On a stream, timed with events; more dynamic shared memory than 48 KiB.
    let stream = device.new_stream().unwrap();
    let start = Event::record(&stream).unwrap();
    for _ in 0..10 {
        scale(
            LaunchConfig::new(n.div_ceil(256), 256).stream(&stream),
            &mut d,
            2.0,
        )
        .unwrap();
    }
    let end = Event::record(&stream).unwrap();
    let ms = start.elapsed_ms(&end).unwrap();
    assert!(ms >= 0.0, "{ms}");
    let big_shared = (device.limits().max_shared_per_block as usize + 1024)
        .min(device.limits().max_shared_per_block_optin as usize);
    scale(
        LaunchConfig::new(n.div_ceil(256), 256)
            .stream(&stream)
            .shared_bytes(big_shared),
        &mut d,
        1.0,
    )
    .unwrap();
    stream.synchronize().unwrap();
    assert_eq!(d.to_host().unwrap()[3], 3.0 * 1024.0);

    // An empty slice launches with (null, 0).
    let mut empty: Vec<f32> = Vec::new();
    scale(LaunchConfig::new(1, 32), &mut empty, 2.0).unwrap();
}

#[test]
fn argument_mismatch_is_rejected() {
    let Some((_device, _gpu)) = device_or_skip() else {
        return;
    };
    let mut x = vec![1.0f32; 4];
    let mut args = [
        SliceArgMut::<f32>::into_kernel_arg(&mut x),
        KernelArg::scalar(2.0f64),
    ];
    let result = launch(&SCALE, &SCALE_CACHE, LaunchConfig::new(1, 4), &mut args);
    match result {
        Err(Error::ArgumentMismatch { detail, .. }) => {
            assert!(detail.contains("argument 2 is a `f64`"), "{detail}")
        }
        Err(e @ Error::Nvvm { .. }) => skip!("libnvvm not available ({e})"),
        other => panic!("expected ArgumentMismatch, got {other:?}"),
    }
    assert_eq!(x, vec![1.0; 4]);
}

#[test]
fn device_panic_is_reported_and_context_survives() {
    let Some((device, _gpu)) = device_or_skip() else {
        return;
    };
    let mut x = vec![0.0f32; 8];
    let mut args = [SliceArgMut::<f32>::into_kernel_arg(&mut x)];
    // 32 threads, 8 elements: threads 8.. index out of bounds.
    match launch(&OOB, &OOB_CACHE, LaunchConfig::new(1, 32), &mut args) {
        Err(Error::KernelPanic {
            kernel,
            file,
            line,
            message,
            block,
            thread,
            ..
        }) => {
            assert_eq!(kernel, "oob");
            assert_eq!(file, file!());
            assert_eq!(line, OOB_LINE + 2);
            assert!(
                message.starts_with("index out of bounds: the len is 8 but the index is "),
                "{message}"
            );
            assert_eq!(block, 0);
            assert!(thread >= 8, "{thread}");
        }
        Err(e @ Error::Nvvm { .. }) => return skip!("libnvvm not available ({e})"),
        other => panic!("expected KernelPanic, got {other:?}"),
    }
    // On a GPU the in-bounds threads did their work (the simulator ends a launch at
    // its first panic), and the context is still usable.
    if !device.is_simulator() {
        assert_eq!(x, vec![1.0; 8]);
    }
    let mut y = vec![1.0f32; 8];
    scale(LaunchConfig::new(1, 8), &mut y, 3.0).unwrap();
    assert_eq!(y, vec![3.0; 8]);
    // Asynchronous launch on device arrays: the panic surfaces at the next sync.
    let mut d = DeviceArray::<f32>::zeros(4).unwrap();
    let mut args = [SliceArgMut::<f32>::into_kernel_arg(&mut d)];
    launch(&OOB, &OOB_CACHE, LaunchConfig::new(1, 8), &mut args).unwrap();
    assert!(matches!(
        kernel_host::synchronize(),
        Err(Error::KernelPanic { .. })
    ));
    kernel_host::synchronize().unwrap();
    let written = d.to_host().unwrap();
    if !device.is_simulator() {
        assert_eq!(written, vec![1.0; 4]);
    }
}

/// Asynchronous launches on device arrays should cost about a raw driver launch; prints
/// the measured numbers next to raw `cuLaunchKernel` of the same PTX.
#[test]
fn launch_overhead_is_small() {
    let Some((device, _gpu)) = gpu_or_skip("it measures the CUDA driver's launch cost") else {
        return;
    };
    let mut d = DeviceArray::<f32>::zeros(256).unwrap();
    let Some(()) = skip_if_no_nvvm(scale(LaunchConfig::new(1, 256), &mut d, 1.0)) else {
        return;
    };
    device.synchronize().unwrap();
    // Few enough launches that the driver's queue never fills: this measures the host.
    let burst = 500;
    let mut ours = f64::MAX;
    for _ in 0..20 {
        let t = std::time::Instant::now();
        for _ in 0..burst {
            scale(LaunchConfig::new(1, 256), &mut d, 1.0).unwrap();
        }
        ours = ours.min(t.elapsed().as_secs_f64() * 1e6 / burst as f64);
        device.synchronize().unwrap();
    }
    let raw = raw_launch_us(&device, &d, burst);
    println!("launch overhead (host, best of 20 bursts of {burst}): cudajit {ours:.2} µs, raw cuLaunchKernel {raw:.2} µs");

    let launches = 20_000;
    let stream = device.default_stream();
    let start = Event::record(&stream).unwrap();
    for _ in 0..launches {
        scale(LaunchConfig::new(1, 256), &mut d, 1.0).unwrap();
    }
    let end = Event::record(&stream).unwrap();
    let gpu_us = start.elapsed_ms(&end).unwrap() as f64 * 1e3 / launches as f64;
    println!("back-to-back: {gpu_us:.2} µs per launch on the GPU");
    assert!(ours < 50.0, "{ours} µs per launch");
}

/// The same kernel launched through the raw driver API, µs per launch (host side).
fn raw_launch_us(device: &Device, d: &DeviceArray<f32>, burst: usize) -> f64 {
    use cudarc::driver::{result, sys};
    use kernel_device::nvvm::{CompileOptions, Nvvm};
    use std::ffi::{c_void, CString};
    let nvvm = Nvvm::shared().unwrap();
    let options = kernel_device::back::nvvm::Options {
        ir_version: nvvm.ir_version(),
        ..Default::default()
    };
    let unit = kernel_device::nvvm_ir_for_kernel(&SCALE, &options).unwrap();
    let ptx = nvvm
        .compile(
            &unit.nvvm_ir,
            &CompileOptions {
                arch: device.arch(),
                ..Default::default()
            },
        )
        .unwrap();
    device
        .cuda_context()
        .expect("a GPU")
        .bind_to_thread()
        .unwrap();
    let image = CString::new(ptx).unwrap();
    // The hidden panic-record parameter is 0: a panic would just end the thread.
    let module = unsafe { result::module::load_data(image.as_ptr() as *const c_void) }.unwrap();
    let function =
        unsafe { result::module::get_function(module, CString::new("scale").unwrap()) }.unwrap();
    let (mut ptr, mut len, mut a) = (d.device_ptr(), d.len() as i64, 1.0f32);
    let mut no_record = 0u64;
    let mut params = [
        &mut ptr as *mut u64 as *mut c_void,
        &mut len as *mut i64 as *mut c_void,
        &mut a as *mut f32 as *mut c_void,
        &mut no_record as *mut u64 as *mut c_void,
    ];
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = std::time::Instant::now();
        for _ in 0..burst {
            unsafe {
                sys::cuLaunchKernel(
                    function,
                    1,
                    1,
                    1,
                    256,
                    1,
                    1,
                    0,
                    std::ptr::null_mut(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
            .result()
            .unwrap();
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e6 / burst as f64);
        device.synchronize().unwrap();
    }
    unsafe { result::module::unload(module) }.unwrap();
    best
}

/// With `CUDAJIT_AOT_OUT=DIR` (and libnvvm available), writes an AOT directory holding
/// `scale` for compute_90: a miniature `cargo xtask build-device`, used to test the AOT
/// path (`CUDAJIT_AOT_DIR=DIR` build, run with libnvvm unavailable).
#[test]
fn write_aot_dir_for_tests() {
    let Some(out) = std::env::var_os("CUDAJIT_AOT_OUT") else {
        return;
    };
    use kernel_device::nvvm::{CompileOptions, Nvvm};
    let out = std::path::PathBuf::from(out);
    let nvvm = Nvvm::shared().unwrap();
    let key = kernel_host::aot_support::ir_key(
        &kernel_device::nvvm_ir_for_kernel(&SCALE, &Default::default())
            .unwrap()
            .nvvm_ir,
    );
    let options = kernel_device::back::nvvm::Options {
        ir_version: nvvm.ir_version(),
        ..Default::default()
    };
    let unit = kernel_device::nvvm_ir_for_kernel(&SCALE, &options).unwrap();
    let ptx = nvvm
        .compile(&unit.nvvm_ir, &CompileOptions::default())
        .unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("scale.ptx"), ptx).unwrap();
    std::fs::write(
        out.join("manifest.txt"),
        format!("scale {key} compute_90 scale.ptx\n"),
    )
    .unwrap();
}

/// Run with a build that embedded `scale` (see above) and libnvvm made unavailable
/// (`CUDAJIT_NVVM_PATH=/nonexistent CUDAJIT_CACHE_DIR=`): the launch must still work.
#[test]
fn aot_kernel_launches_without_libnvvm() {
    if !kernel_host::aot_support::table()
        .iter()
        .any(|e| e.kernel == "scale")
    {
        return skip!("no AOT entry for `scale` in this build");
    }
    let Some((_device, _gpu)) = gpu_or_skip("it loads ahead-of-time PTX") else {
        return;
    };
    let mut x = vec![2.0f32; 100];
    scale(LaunchConfig::new(1, 128), &mut x, 4.0).unwrap();
    assert_eq!(x, vec![8.0; 100]);
}

/// Data passed both ways between cudarc and cudajit without a copy: a cudarc
/// `CudaSlice` borrowed as a device array and scaled by a cudajit kernel on a cudajit
/// stream, then read by cudarc on its own (non-blocking) stream; a `DeviceArray` lent
/// to cudarc to read and to write; a launch on a stream cudarc created; a raw pointer
/// with a length. Every hand-over is ordered by the runtime (no synchronisation by
/// the test in between).
#[test]
fn interop_with_cudarc_passes_data_both_ways_without_copies() {
    use cudarc::driver::DevicePtr;
    let Some((device, _gpu)) = gpu_or_skip("cudarc interop needs a GPU") else {
        return;
    };
    let n: usize = 1 << 20;
    let mut rng = Rng::with_seed(0x1234_5678 ^ std::process::id() as u64);
    let data: Vec<f32> = (0..n).map(|_| (rng.next() % 1000) as f32).collect();
    let config = || LaunchConfig::new(n.div_ceil(256), 256);
    let ctx = device.cuda_context().unwrap().clone();
    let theirs = ctx.new_stream().unwrap();

    // cudarc → cudajit → cudarc.
    let mut slice = theirs.clone_htod(&data).unwrap();
    let address = slice.device_ptr(&theirs).0;
    {
        let mut borrowed = DeviceArray::from_cudarc(&mut slice, &theirs).unwrap();
        assert_eq!(borrowed.device_ptr(), address, "the borrow copied the data");
        let ours = device.new_stream().unwrap();
        let Some(()) = skip_if_no_nvvm(scale(config().stream(&ours), &mut borrowed, 3.0)) else {
            return;
        };
    }
    let back = theirs.clone_dtoh(&slice).unwrap();
    for (i, (&got, &x)) in back.iter().zip(&data).enumerate() {
        assert_eq!(
            got,
            3.0 * x,
            "element {i} after cudajit's kernel, read by cudarc"
        );
    }

    // cudajit → cudarc (read), cudarc → cudajit (write).
    let mut d = DeviceArray::from_slice_on(&device, &data).unwrap();
    scale(config(), &mut d, 2.0).unwrap();
    {
        let lent = d.as_cudarc(&theirs).unwrap();
        assert_eq!(
            lent.device_ptr(&theirs).0,
            d.device_ptr(),
            "the loan copied the data"
        );
        let seen = theirs.clone_dtoh(&*lent).unwrap();
        for (i, (&got, &x)) in seen.iter().zip(&data).enumerate() {
            assert_eq!(got, 2.0 * x, "element {i} as cudarc reads cudajit's write");
        }
    }
    let fresh: Vec<f32> = (0..n).map(|_| (rng.next() % 1000) as f32).collect();
    {
        let mut lent = d.as_cudarc_mut(&theirs).unwrap();
        theirs.memcpy_htod(&fresh, &mut lent.view_mut()).unwrap();
    }
    assert_eq!(
        d.to_host().unwrap(),
        fresh,
        "cudarc's write as cudajit reads it"
    );

    // A launch on cudarc's stream.
    let on_theirs = kernel_host::Stream::from_cudarc(theirs.clone()).unwrap();
    scale(config().stream(&on_theirs), &mut d, 0.5).unwrap();
    on_theirs.synchronize().unwrap();
    let halved = d.to_host().unwrap();
    assert!(halved.iter().zip(&fresh).all(|(&h, &f)| h == 0.5 * f));

    // A raw pointer and a length, owned by cudarc.
    let raw = theirs.clone_htod(&data).unwrap().leak();
    {
        // SAFETY: `raw` holds `n` f32s of this context, nothing else uses or frees it
        // during the borrow, and it was last written on `theirs`.
        let mut borrowed =
            unsafe { DeviceArray::<f32>::from_raw_parts(&on_theirs, raw, n) }.unwrap();
        scale(config(), &mut borrowed, 4.0).unwrap();
    }
    // SAFETY: the allocation leaked above, `n` elements.
    let owned = unsafe { theirs.upgrade_device_ptr::<f32>(raw, n) };
    let back = theirs.clone_dtoh(&owned).unwrap();
    assert!(back.iter().zip(&data).all(|(&b, &x)| b == 4.0 * x));
}

/// Device arrays come from the device's stream-ordered pool: allocating reserves pool
/// memory, freed memory is reused, and trimming gives it back.
#[test]
fn device_arrays_come_from_the_memory_pool() {
    let Some((device, _gpu)) = gpu_or_skip("the memory pool is the driver's") else {
        return;
    };
    let before = match device.pool_reserved_bytes() {
        Ok(bytes) => bytes,
        Err(Error::NotSupported { .. }) => {
            skip!("this GPU has no memory pools");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let len = 16 << 20; // 64 MiB of f32
    let a = device.zeros::<f32>(len).unwrap();
    let reserved = device.pool_reserved_bytes().unwrap();
    assert!(
        reserved >= before + (len * 4) as u64 || reserved >= (len * 4) as u64,
        "the pool holds {reserved} bytes after a {} byte array (before: {before})",
        len * 4
    );
    drop(a);
    // Freed memory stays in the pool (release threshold) and is reused.
    device.synchronize().unwrap();
    let kept = device.pool_reserved_bytes().unwrap();
    let b = device.zeros::<f32>(len).unwrap();
    assert_eq!(
        device.pool_reserved_bytes().unwrap(),
        kept,
        "the pool grew instead of reusing"
    );
    assert!(b.to_host().unwrap().iter().all(|&x| x == 0.0));
    drop(b);
    device.synchronize().unwrap();
    device.trim_memory_pool(0).unwrap();
    let trimmed = device.pool_reserved_bytes().unwrap();
    assert!(trimmed < kept, "trimming kept {trimmed} of {kept} bytes");
}

/// The child of [`the_driver_jit_warms_up_while_the_gpu_opens`] (ignored in a plain
/// run): opens the GPU (after retaining its primary context through cudarc, with
/// `CUDAJIT_JIT_CHILD_RETAIN_FIRST`), prints the driver JIT's warm-up, and with
/// `CUDAJIT_JIT_CHILD_LAUNCH` makes a first launch and checks it.
#[test]
#[ignore = "run as a child process by the_driver_jit_warms_up_while_the_gpu_opens"]
fn driver_jit_warm_up_child() {
    if std::env::var_os("CUDAJIT_JIT_CHILD_RETAIN_FIRST").is_some() {
        // Code outside cudajit made the context first; it stays retained.
        std::mem::forget(cudarc::driver::CudaContext::new(0).expect("cudarc opens GPU 0"));
    }
    let device = Device::default().expect("a GPU");
    let report = kernel_host::profile::driver_jit_warm_up_report();
    println!("DRIVER_JIT_WARM_UP {report:?}");
    if std::env::var_os("CUDAJIT_JIT_CHILD_LAUNCH").is_some() {
        let mut rng = Rng::with_seed(27);
        let x: Vec<f32> = (0..1000)
            .map(|_| (rng.next() % 1000) as f32 / 7.0)
            .collect();
        let mut scaled = x.clone();
        scale(
            LaunchConfig::new(1000u32.div_ceil(128), 128),
            &mut scaled,
            2.5,
        )
        .expect("the first launch");
        let want: Vec<f32> = x.iter().map(|v| v * 2.5).collect();
        assert_eq!(scaled, want);
        println!("LAUNCHED on {}", device.name());
    }
}

/// Opening a GPU warms the driver's JIT on the opening thread while the context is
/// created (`compile::jit_warm_up`): in a fresh process the warm-up runs and a first
/// launch through libnvvm and the JIT then works; the warm-up leaves nothing in the
/// driver's JIT cache (a process that only opens the GPU leaves the same files with it
/// as without it); it does not run when turned off, nor when the primary context
/// already exists.
#[test]
fn the_driver_jit_warms_up_while_the_gpu_opens() {
    let Some((_device, _gpu)) = gpu_or_skip("the warm-up is the driver JIT's") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let child = |name: &str, settings: &[(&str, &str)]| {
        let dir = scratch.path().join(name);
        let unset = [kernel_host::profile::DRIVER_JIT_WARM_UP_VARIABLE];
        let stdout = run_child_test("driver_jit_warm_up_child", &dir, &unset, settings)?;
        Some((stdout, files(&dir.join("driver"))))
    };
    let Some((launched, _)) = child("launch", &[("CUDAJIT_JIT_CHILD_LAUNCH", "1")]) else {
        return skip!("libnvvm not available for the child's first launch");
    };
    assert!(launched.contains("DRIVER_JIT_WARM_UP Some("), "{launched}");
    assert!(launched.contains("LAUNCHED"), "{launched}");

    let (warmed, with) = child("open", &[]).unwrap();
    assert!(warmed.contains("DRIVER_JIT_WARM_UP Some("), "{warmed}");
    let off = [(kernel_host::profile::DRIVER_JIT_WARM_UP_VARIABLE, "0")];
    let (not_warmed, without) = child("off", &off).unwrap();
    assert!(
        not_warmed.contains("DRIVER_JIT_WARM_UP None"),
        "turned off: {not_warmed}"
    );
    // The driver writes its cache's `index` whenever its JIT runs, failing or not.
    let entries = |files: Vec<String>| -> Vec<String> {
        files.into_iter().filter(|name| name != "index").collect()
    };
    assert_eq!(
        entries(with),
        entries(without),
        "the warm-up left an entry in the driver's JIT cache"
    );

    let (retained, _) = child("retained", &[("CUDAJIT_JIT_CHILD_RETAIN_FIRST", "1")]).unwrap();
    assert!(
        retained.contains("DRIVER_JIT_WARM_UP None"),
        "the primary context existed: {retained}"
    );
}

/// Runs this binary's ignored test `test` in a process of its own, its caches fresh
/// under `dir` (the driver's JIT cache in `dir/driver`, cudajit's disk cache in
/// `dir/cudajit`), through the JIT (`CUDAJIT_AOT=0`), with the variables `unset`
/// removed and `settings` set. Its stdout; `None` when it failed for want of libnvvm.
fn run_child_test(
    test: &str,
    dir: &std::path::Path,
    unset: &[&str],
    settings: &[(&str, &str)],
) -> Option<String> {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command
        .args([test, "--exact", "--ignored", "--nocapture"])
        .env("CUDA_CACHE_PATH", dir.join("driver"))
        .env("CUDAJIT_CACHE_DIR", dir.join("cudajit"))
        .env("CUDAJIT_AOT", "0")
        .env_remove("CUDA_CACHE_DISABLE");
    for name in unset {
        command.env_remove(name);
    }
    let output = command
        .envs(settings.iter().copied())
        .output()
        .expect("the test binary runs");
    if !output.status.success() && String::from_utf8_lossy(&output.stderr).contains("libnvvm") {
        return None;
    }
    assert!(
        output.status.success(),
        "{test} in {}: {output:?}",
        dir.display()
    );
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The files under `dir`, relative to it, sorted (none when it does not exist).
fn files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = walk(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect();
    names.sort();
    names
}

/// Every file under `dir` (none when it does not exist).
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|entry| {
            let path = entry.path();
            if path.is_dir() {
                walk(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

// Kernels this binary registers, as `#[kernel]` registers every non-generic kernel, so
// that opening the GPU compiles them while the context is created
// (`compile::while_opening`): one launched correctly, one that panics, one never
// launched.
const SCALE_OPEN_LINE: u32 = line!() + 2;
static SCALE_OPEN: FnSource = kernel_source(
    "scale_open",
    "fn scale_open(x: &mut [f32], a: f32) {\n    let i = grid(1);\n    if i < x.len() {\n        x[i] = x[i] * a;\n    }\n}",
    SCALE_OPEN_LINE,
);
static SCALE_OPEN_CACHE: KernelCache = KernelCache::new();

const OOB_OPEN_LINE: u32 = line!() + 2;
static OOB_OPEN: FnSource = kernel_source(
    "oob_open",
    "fn oob_open(x: &mut [f32]) {\n    let i = grid(1);\n    x[i] = 2.0;\n}",
    OOB_OPEN_LINE,
);
static OOB_OPEN_CACHE: KernelCache = KernelCache::new();

static NEVER_LAUNCHED: FnSource = kernel_source(
    "never_launched",
    "fn never_launched(x: &mut [f32]) {\n    x[0] = 3.0;\n}",
    line!(),
);

kernel_host::__private::inventory::submit! {
    kernel_host::__private::RegisteredKernel(|| &SCALE_OPEN)
}
kernel_host::__private::inventory::submit! {
    kernel_host::__private::RegisteredKernel(|| &OOB_OPEN)
}
kernel_host::__private::inventory::submit! {
    kernel_host::__private::RegisteredKernel(|| &NEVER_LAUNCHED)
}

/// A fresh process's first launches of two registered kernels (`kernels_compile_while_the_gpu_opens`).
#[test]
#[ignore = "run by kernels_compile_while_the_gpu_opens in a process of its own"]
fn compile_while_opening_child() {
    let device = Device::default().expect("a GPU");
    for kernel in kernel_host::profile::compiled_while_opening_report() {
        println!(
            "COMPILED_WHILE_OPENING {} loaded={} ptx_ms={:.2} library_ms={:.2}",
            kernel.kernel, kernel.loaded, kernel.ptx_ms, kernel.library_ms
        );
    }
    kernel_host::profile::enable(true);
    let mut rng = Rng::with_seed(fastrand::u64(..));
    let x: Vec<f32> = (0..3000)
        .map(|_| (rng.next() % 4096) as f32 / 64.0 - 32.0)
        .collect();
    let a = (rng.next() % 100) as f32 / 8.0 + 0.5;
    let mut scaled = x.clone();
    let mut args = [
        SliceArgMut::<f32>::into_kernel_arg(&mut scaled),
        KernelArg::scalar(a),
    ];
    launch(
        &SCALE_OPEN,
        &SCALE_OPEN_CACHE,
        LaunchConfig::new(3000u32.div_ceil(256), 256),
        &mut args,
    )
    .expect("the first launch");
    let want: Vec<f32> = x.iter().map(|v| v * a).collect();
    assert_eq!(scaled, want);
    // The module's panic sites were installed: the panic names its line.
    let mut y = vec![0.0f32; 8];
    let mut args = [SliceArgMut::<f32>::into_kernel_arg(&mut y)];
    match launch(
        &OOB_OPEN,
        &OOB_OPEN_CACHE,
        LaunchConfig::new(1, 32),
        &mut args,
    ) {
        Err(Error::KernelPanic { kernel, line, .. }) => {
            assert_eq!((kernel.as_str(), line), ("oob_open", OOB_OPEN_LINE + 2));
        }
        other => panic!("expected KernelPanic, got {other:?}"),
    }
    assert_eq!(y, vec![2.0; 8], "the in-bounds threads wrote");
    for first in kernel_host::profile::take_first_launches() {
        let stages: Vec<&str> = first.stages.iter().map(|(s, _)| s.name()).collect();
        println!("STAGES {} {}", first.kernel, stages.join(","));
    }
    println!("LAUNCHED on {}", device.name());
}

/// Opening a GPU compiles the binary's registered kernels while the context is created
/// (`compile::while_opening`), in a fresh process: each is compiled and JIT-compiled
/// as a library, the first launches take their modules from those libraries (no
/// libnvvm compile, no module load: the profile's stages say so) and run correctly,
/// a panic in one is reported at its line, and only launched kernels enter the disk
/// cache. Turned off, the same launches compile as before.
#[test]
fn kernels_compile_while_the_gpu_opens() {
    let Some((_device, _gpu)) = gpu_or_skip("compiling while opening needs a GPU's open") else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let child = |name: &str, settings: &[(&str, &str)]| {
        let dir = scratch.path().join(name);
        let unset = [
            kernel_host::profile::COMPILE_WHILE_OPENING_VARIABLE,
            kernel_host::profile::WARM_UP_VARIABLE,
        ];
        let stdout = run_child_test("compile_while_opening_child", &dir, &unset, settings)?;
        Some((stdout, files(&dir.join("cudajit"))))
    };
    let Some((on, on_cache)) = child("on", &[]) else {
        return skip!("libnvvm not available for the child's compiles");
    };
    for kernel in ["scale_open", "oob_open"] {
        assert!(
            on.contains(&format!("COMPILED_WHILE_OPENING {kernel} loaded=true")),
            "{on}"
        );
        let stages = stages_of(&on, kernel);
        assert!(
            stages.contains(&"module_compiled_while_opening"),
            "{kernel}: {stages:?}"
        );
        for absent in ["compile", "module_load", "disk_lookup"] {
            assert!(!stages.contains(&absent), "{kernel}: {stages:?}");
        }
        assert!(
            on_cache
                .iter()
                .any(|f| f.starts_with(&format!("{kernel}-"))),
            "{kernel} not stored: {on_cache:?}"
        );
    }
    assert!(
        !on_cache.iter().any(|f| f.starts_with("never_launched-")),
        "a kernel no launch took entered the disk cache: {on_cache:?}"
    );

    let off = [(kernel_host::profile::COMPILE_WHILE_OPENING_VARIABLE, "0")];
    let (not_on, _) = child("off", &off).unwrap();
    assert!(!not_on.contains("COMPILED_WHILE_OPENING"), "{not_on}");
    let stages = stages_of(&not_on, "scale_open");
    assert!(stages.contains(&"compile"), "{stages:?}");
    assert!(
        !stages.contains(&"module_compiled_while_opening"),
        "{stages:?}"
    );
}

/// The first-launch stages a `compile_while_opening_child` printed for `kernel`.
fn stages_of<'a>(stdout: &'a str, kernel: &str) -> Vec<&'a str> {
    let prefix = format!("STAGES {kernel} ");
    stdout
        .lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
        .map(|stages| stages.split(',').collect())
        .unwrap_or_default()
}
