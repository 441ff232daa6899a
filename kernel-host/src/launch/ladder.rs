//! Where a launch's host time goes on a real GPU (issue 27): the launch path rebuilt
//! one stage at a time around a real `cuLaunchKernel`, each rung timed against the bare
//! driver call on the same stream in paired rounds. A stage's cost here includes what
//! it does to the driver call that follows (the cache lines and dependent loads it
//! adds between two driver calls), which the CPU microbench (`host_bench`) cannot see
//! and the stage profile (`profile`) blurs with its own clock reads. The last rung is
//! the launch itself ([`crate::launch::launch`]), so the rungs below it show what the
//! stages leave unexplained (argument conversion, guard drops, code layout).
//! `vecadd_launch` prints the table; nothing else calls this.

use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

use cudarc::driver::sys;

use crate::compile::loaded::LoadedKernel;
use crate::device::stream::Stream;
use crate::error::{DriverResultExt, Result};
use crate::launch::args::{check_args, fill_slots};
use crate::launch::config::{LaunchConfig, ValidLaunch};
use crate::launch::ordering::{order_array_uses, uses_allocation};
use crate::launch::PendingLaunch;

/// The rungs, each adding the named stage to the ones above it.
pub const LADDER_RUNGS: [&str; 9] = [
    "bare: arguments built, slots filled, cuLaunchKernel",
    "+ bind: cuCtxGetCurrent, reset guard",
    "+ panic record: launcher noted, record read",
    "+ validate: shape, stream current",
    "+ kernel lookup through the device",
    "+ argument check, static shared",
    "+ stream ordering, launch noted",
    "+ proven copy chosen",
    "launch!: the whole path",
];

/// Nanoseconds each rung adds to the bare launch of rung 0 (the median over `rounds`
/// paired rounds of `launches` launches each, on `stream`), and rung 0's own
/// microseconds per launch. `pending` makes the launch's arguments as `launch!` does.
pub fn launch_ladder<'a, const N: usize>(
    pending: &dyn Fn() -> PendingLaunch<'a, N>,
    stream: &Stream,
    config: LaunchConfig<'_>,
    launches: usize,
    rounds: usize,
) -> Result<(f64, Vec<f64>)> {
    let first = pending();
    let device = stream.device();
    let kernel = first.cache.get(first.source, device)?;
    let shape = config.validate_for(first.source, device.limits())?;
    let count = check_args(&kernel.name, &kernel.params, &first.args, device.id())?.slots;
    drop(first);
    let rungs: [&dyn Fn() -> Result<()>; 9] = [
        &|| rung::<0, N>(pending, stream, config, (kernel, &shape, count)),
        &|| rung::<1, N>(pending, stream, config, (kernel, &shape, count)),
        &|| rung::<2, N>(pending, stream, config, (kernel, &shape, count)),
        &|| rung::<3, N>(pending, stream, config, (kernel, &shape, count)),
        &|| rung::<4, N>(pending, stream, config, (kernel, &shape, count)),
        &|| rung::<5, N>(pending, stream, config, (kernel, &shape, count)),
        &|| rung::<6, N>(pending, stream, config, (kernel, &shape, count)),
        &|| rung::<7, N>(pending, stream, config, (kernel, &shape, count)),
        &|| pending().launch(config),
    ];
    let time = |launch: &dyn Fn() -> Result<()>| -> Result<f64> {
        stream.synchronize()?;
        let start = Instant::now();
        for _ in 0..launches {
            launch()?;
        }
        let elapsed = start.elapsed();
        stream.synchronize()?;
        Ok(elapsed.as_nanos() as f64 / launches as f64)
    };
    for launch in rungs {
        time(launch)?;
    }
    let mut extra: Vec<Vec<f64>> = vec![Vec::new(); rungs.len()];
    let mut bare = Vec::new();
    for round in 0..rounds {
        // Each rung beside a bare round of its own, in turns that alternate their order.
        for (i, launch) in rungs.iter().enumerate().skip(1) {
            let (ours, base) = if round % 2 == 0 {
                let ours = time(*launch)?;
                (ours, time(rungs[0])?)
            } else {
                let base = time(rungs[0])?;
                (time(*launch)?, base)
            };
            extra[i].push(ours - base);
            bare.push(base);
        }
    }
    let median = |mut v: Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    Ok((median(bare) / 1e3, extra.into_iter().map(median).collect()))
}

/// One launch through the first `K` stages of the launch path (in `launch`'s order,
/// on a created stream of a GPU, every array already on it), then the driver call.
fn rung<'a, const K: usize, const N: usize>(
    pending: &dyn Fn() -> PendingLaunch<'a, N>,
    stream: &Stream,
    config: LaunchConfig<'_>,
    (loaded, shape, count): (&'static LoadedKernel, &ValidLaunch, usize),
) -> Result<()> {
    let PendingLaunch {
        source,
        cache,
        mut args,
    } = pending();
    let device = stream.device();
    let _guard = if K >= 1 { Some(device.bind()?) } else { None };
    let faults = stream.own_faults().expect("a created stream");
    let mut record = if K >= 2 {
        faults.note_launcher();
        faults.record_ptr()
    } else {
        0
    };
    if K >= 3 {
        black_box(config.validate_for(source, device.limits())?);
        stream.ensure_current()?;
    }
    let kernel = if K >= 4 {
        cache.get(source, device)?
    } else {
        loaded
    };
    if K >= 5 {
        let summary = check_args(&kernel.name, &kernel.params, &args, device.id())?;
        black_box(summary);
        let valid = config.validate_for(source, device.limits())?;
        black_box(valid.with_static_shared(source.name, kernel.static_shared, device.limits())?);
    }
    if K >= 6 {
        let handle = stream.handle();
        black_box(order_array_uses(device, handle, &args)?);
        if let Some(handle) = handle {
            handle
                .pending_reads
                .before_launch(device, handle.raw, |memory| uses_allocation(&args, memory))?;
        }
        device.note_launch(&kernel.name);
    }
    let mut slots = [std::ptr::null_mut::<c_void>(); 16];
    fill_slots(&mut args, &mut slots[..count]);
    slots[count] = &mut record as *mut u64 as *mut c_void;
    let function = if K >= 7 {
        let arg_len = |i: usize| args.get(i).map(|arg| arg.len);
        let valid = config.validate_for(source, device.limits())?;
        kernel.function_for(valid.grid, valid.block, arg_len, true)
    } else {
        kernel.function
    };
    let [grid, block] = [shape.grid, shape.block];
    // SAFETY: `function` is live in the current context (made current by the bind,
    // or by the stream's earlier launches); the slots point at `args`' values and
    // `record`, which outlive the call; the kernel's parameters are those of `args`.
    unsafe {
        sys::cuLaunchKernel(
            function,
            grid[0],
            grid[1],
            grid[2],
            block[0],
            block[1],
            block[2],
            0,
            stream.cu_stream(),
            slots.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
    .call("cuLaunchKernel")
}
