//! High-level operations (issue 12) on 2^28 elements beside hand-written kernels and
//! the device-to-device copy: `#[vectorize]`d saxpy against a written grid-stride
//! saxpy kernel, `cudajit::sum` of f32 and `cudajit::inclusive_scan` of u32 (the
//! references, CuPy and CUB, are bench/cupy/hl_reference.py and
//! bench/cuda/hl_reference.cu; bench/run_hl.sh runs all three and prints the table).
//! Each result is checked against a CPU reference first; times are medians of 20
//! event-timed runs after 3 warm-ups, on one stream.
//!
//! What each line times, so that both sides time the same thing:
//! - `sum.device`: `sum_into_on` (result left in a one-element device array; two
//!   kernels, nothing read back), as `cupy.sum(x)` (a 0-d device array) and CUB's
//!   `DeviceReduce::Sum`;
//! - `sum.host`: `sum_on`, the same plus the synchronous 4-byte read back, as
//!   `float(cupy.sum(x))`;
//! - `scan`: `inclusive_scan_into_on` into an existing array, as CUB's `InclusiveSum`
//!   and `cupy.cumsum(u, out=y)`; `scan.alloc`: `inclusive_scan_on`, which also
//!   allocates its result (`cuMemAlloc`; CuPy draws from a pool instead).
//!
//! Prints `RESULT <name> <median_us> bytes=<n>,GBps=<g>[,pct_copy=<p>]` lines;
//! `skipped: <reason>` without a GPU.
//!
//!     cargo bench --bench hl

mod stats;

use std::error::Error as StdError;

use cudajit::prelude::*;
use cudajit::{device_fn, Device, DeviceArray, Event, Stream};

type BenchResult<T> = Result<T, Box<dyn StdError>>;

const N: usize = 1 << 28;
const REPS: usize = 20;

#[vectorize]
fn saxpy(x: f32, y: f32) -> f32 {
    2.5 * x + y
}

#[kernel]
fn saxpy_written(x: &[f32], y: &[f32], out: &mut [f32]) {
    let stride = grid_size(1);
    let mut i = grid(1);
    while i < out.len() {
        out[i] = 2.5 * x[i] + y[i];
        i += stride;
    }
}

#[device]
fn add_u32(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

fn median_us(stream: &Stream, mut body: impl FnMut() -> BenchResult<()>) -> BenchResult<f64> {
    for _ in 0..3 {
        body()?;
    }
    stream.synchronize()?;
    let mut times = Vec::with_capacity(REPS);
    for _ in 0..REPS {
        let start = Event::record(stream)?;
        body()?;
        let end = Event::record(stream)?;
        end.synchronize()?;
        times.push(start.elapsed_ms(&end)? as f64 * 1e3);
    }
    Ok(stats::median(times))
}

fn report(name: &str, us: f64, bytes: usize) {
    println!(
        "RESULT {name} {us:.3} bytes={bytes},GBps={:.0}",
        bytes as f64 / (us * 1e-6) / 1e9
    );
}

/// A scan reads and writes each element once, as the copy does: its share of the
/// copy's bandwidth is the copy's time over its own.
fn report_scan(name: &str, us: f64, copy_us: f64) {
    let bytes = 8 * N;
    println!(
        "RESULT {name} {us:.3} bytes={bytes},GBps={:.0},pct_copy={:.1}",
        bytes as f64 / (us * 1e-6) / 1e9,
        100.0 * copy_us / us
    );
}

fn check_scan(input: &[u32], got: &[u32]) -> BenchResult<()> {
    let mut run = 0u32;
    for (i, (&g, &v)) in got.iter().zip(input).enumerate() {
        run = run.wrapping_add(v);
        if g != run {
            return Err(format!("scan: element {i} is {g}, want {run}").into());
        }
    }
    Ok(())
}

fn run(device: &Device) -> BenchResult<()> {
    let stream = device.new_stream()?;
    let hx: Vec<f32> = (0..N).map(|i| ((i * 7919) % 17) as f32 - 8.0).collect();
    let hy: Vec<f32> = (0..N).map(|i| ((i * 104_729) % 13) as f32).collect();
    let (x, y) = (DeviceArray::from_slice(&hx)?, DeviceArray::from_slice(&hy)?);
    let mut out = DeviceArray::<f32>::zeros(N)?;

    // Copy: the bandwidth ceiling (read + write of N f32).
    let copy = DeviceArray::<f32>::zeros(N)?;
    let us = median_us(&stream, || {
        // SAFETY: both arrays hold N f32 on this device.
        unsafe {
            cudarc::driver::result::memcpy_dtod_async(
                copy.device_ptr(),
                x.device_ptr(),
                4 * N,
                stream.cu_stream(),
            )
        }?;
        Ok(())
    })?;
    report("copy", us, 8 * N);
    let copy_us = us;
    drop(copy);

    // saxpy: vectorized against written.
    saxpy::apply_into_on(&stream, &x, &y, &mut out)?;
    let got = out.to_host()?;
    if got
        .iter()
        .zip(hx.iter().zip(&hy))
        .any(|(&g, (&a, &b))| g != saxpy(a, b))
    {
        return Err("vectorized saxpy: wrong result".into());
    }
    let us = median_us(&stream, || {
        Ok(saxpy::apply_into_on(&stream, &x, &y, &mut out)?)
    })?;
    report("saxpy.vectorize", us, 12 * N);
    let grid = device.multiprocessor_count() * 8;
    let us = median_us(&stream, || {
        Ok(launch!(saxpy_written[grid, 256, stream](&x, &y, &mut out))?)
    })?;
    report("saxpy.written", us, 12 * N);

    // sum of 2^28 f32 (small integers: exact), on the device and read back.
    let want: f64 = hx.iter().map(|&v| v as f64).sum();
    let got = cudajit::sum_on(&stream, &x)? as f64;
    if got != want {
        return Err(format!("sum: {got}, want {want}").into());
    }
    let mut total = DeviceArray::from_slice(&[f32::NAN])?;
    cudajit::sum_into_on(&stream, &x, &mut total)?;
    stream.synchronize()?;
    if total.to_host()?[0] as f64 != want {
        return Err("sum_into: wrong result".into());
    }
    let us = median_us(&stream, || {
        Ok(cudajit::sum_into_on(&stream, &x, &mut total)?)
    })?;
    report("sum.device", us, 4 * N);
    let us = median_us(&stream, || Ok(cudajit::sum_on(&stream, &x).map(drop)?))?;
    report("sum.host", us, 4 * N);

    // inclusive scan of 2^28 u32, into an existing array and allocating.
    let hu: Vec<u32> = (0..N).map(|i| (i % 5) as u32).collect();
    let u = DeviceArray::from_slice(&hu)?;
    let mut scanned = DeviceArray::<u32>::zeros(N)?;
    cudajit::inclusive_scan_into_on(&stream, &u, device_fn!(add_u32), 0, &mut scanned)?;
    stream.synchronize()?;
    check_scan(&hu, &scanned.to_host()?)?;
    let fresh = cudajit::inclusive_scan_on(&stream, &u, device_fn!(add_u32), 0)?;
    stream.synchronize()?;
    check_scan(&hu, &fresh.to_host()?)?;
    drop(fresh);
    let us = median_us(&stream, || {
        Ok(cudajit::inclusive_scan_into_on(
            &stream,
            &u,
            device_fn!(add_u32),
            0,
            &mut scanned,
        )?)
    })?;
    report_scan("scan", us, copy_us);
    let us = median_us(&stream, || {
        Ok(cudajit::inclusive_scan_on(&stream, &u, device_fn!(add_u32), 0).map(drop)?)
    })?;
    report_scan("scan.alloc", us, copy_us);
    // The look-back scan's other tile sizes and layouts (benchmark knobs; the default
    // is the classic kernel, one block per tile, 32 items per thread for u32): (name,
    // layout, resident blocks per SM (0: one per tile), items per thread).
    use cudajit::__private::hl::{
        set_scan_blocks_per_sm, set_scan_items_per_thread, set_scan_layout,
    };
    let variants = [
        ("scan.classic_16", 0, 8, 16),
        ("scan.classic_20", 0, 8, 20),
        ("scan.classic_24", 0, 8, 24),
        ("scan.classic_28", 0, 8, 28),
        ("scan.resident_24", 1, 8, 24),
        ("scan.pipelined", 2, 8, 16),
    ];
    for (name, layout, per_sm, items) in variants {
        set_scan_layout(layout);
        set_scan_blocks_per_sm(per_sm);
        set_scan_items_per_thread(items);
        // A variant that fails is reported and skipped: the others still run.
        let mut timed = || -> BenchResult<f64> {
            scanned = DeviceArray::<u32>::zeros(N)?;
            cudajit::inclusive_scan_into_on(&stream, &u, device_fn!(add_u32), 0, &mut scanned)?;
            stream.synchronize()?;
            check_scan(&hu, &scanned.to_host()?)?;
            median_us(&stream, || {
                Ok(cudajit::inclusive_scan_into_on(
                    &stream,
                    &u,
                    device_fn!(add_u32),
                    0,
                    &mut scanned,
                )?)
            })
        };
        match timed() {
            Ok(us) => report_scan(name, us, copy_us),
            Err(e) => println!("ERROR {name}: {e}"),
        }
    }
    set_scan_layout(0);
    set_scan_blocks_per_sm(8);
    set_scan_items_per_thread(0);
    Ok(())
}

fn main() {
    let Some(device) = stats::gpu_device() else {
        return;
    };
    println!(
        "hl: {}, {} SMs",
        device.name(),
        device.multiprocessor_count()
    );
    if let Err(e) = run(&device) {
        eprintln!("hl: error: {e}");
        std::process::exit(1);
    }
}
