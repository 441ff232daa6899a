//! Where a launch's host time goes on a real GPU (issue 27): the launch path rebuilt
//! one stage at a time around the driver call both launch paths make
//! (`context::launch_kernel`), each rung timed against that bare call on the same
//! stream in paired rounds. A stage's cost here includes what
//! it does to the driver call that follows (the cache lines and dependent loads it
//! adds between two driver calls), which the CPU microbench (`host_bench`) cannot see
//! and the stage profile (`profile`) blurs with its own clock reads. The last rung is
//! the launch itself (`launch!`, from the caller), so the rungs below it show what the
//! stages leave unexplained (guard drops, code layout). The launch memo answers for
//! the shape check, kernel lookup, argument check and proven copy (`memo`): the last
//! rung runs those in its place, for what a launch the memo does not know pays.
//! `vecadd_launch` prints the table; nothing else calls this.

use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

use cudarc::driver::sys;

use crate::compile::cache::KernelCache;
use crate::compile::loaded::LoadedKernel;
use crate::device::stream::Stream;
use crate::error::{DriverResultExt, Result};
use crate::launch::args::KernelArg;
use crate::launch::args::{check_args, fill_slots, ArgKind};
use crate::launch::config::{LaunchConfig, ValidLaunch};
use crate::launch::memo;
use crate::launch::ordering::{order_array_uses, uses_allocation};
use kernel_device::source::FnSource;

/// The rungs, each adding the named stage to the ones above it (rungs 1-5), then the
/// launch itself, then for comparison rung 5 with the checks the launch memo skips
/// run in its place (what a launch the memo does not know pays).
pub const LADDER_RUNGS: [&str; 8] = [
    "bare: cuLaunchKernelEx, slots filled once",
    "+ arguments built (as launch! does) and dropped",
    "+ bind: reset guard, context bound last trusted",
    "+ panic record: launcher noted, record read",
    "+ memo: last launch's decisions recalled, stream current",
    "+ stream ordering, launch noted",
    "launch!: the whole path",
    "rung 5 with the checks the memo skips in its place",
];

/// A kernel and its arguments, converted as `launch!` converts them (the parts of the
/// generated `args(..)`'s `PendingLaunch`).
pub type LadderLaunch<'a, const N: usize> =
    (&'static FnSource, &'static KernelCache, [KernelArg<'a>; N]);

/// Nanoseconds each rung adds to the bare launch of rung 0 (the median over `rounds`
/// paired rounds of `launches` launches each, on `stream`), and rung 0's own
/// microseconds per launch. `pending` makes the launch's arguments as `launch!` does;
/// `whole` is the launch itself, `launch!` of the same kernel, arguments and `config`.
pub fn launch_ladder<'a, const N: usize>(
    pending: &dyn Fn() -> LadderLaunch<'a, N>,
    whole: &dyn Fn() -> Result<()>,
    stream: &Stream,
    config: LaunchConfig<'_>,
    launches: usize,
    rounds: usize,
) -> Result<(f64, Vec<f64>)> {
    // Launched as the bench launches it, so that the memo knows it (the second
    // proving launch settles a deferred proven copy).
    for _ in 0..3 {
        whole()?;
    }
    let (source, cache, mut first_args) = pending();
    let device = stream.device();
    let kernel = cache.get(source, device)?;
    let shape = config.validate_for(source, device.limits())?;
    let count = check_args(&kernel.name, &kernel.params, &first_args, device.id())?.slots;
    // The function the whole path launches for this shape (the proven copy where the
    // shape proves it), so that every rung launches the same machine code.
    let arg_len = |i: usize| first_args.get(i).map(|arg| arg.len);
    let function = kernel.function_for(shape.grid, shape.block, arg_len, true)?;
    // The bare rung's parameter words, read once from the arguments' slots (each a
    // pointer, length or scalar of at most 8 bytes: no struct by value here); the
    // record word stays 0 (no panic).
    assert!(
        count < 16,
        "the ladder launches kernels of at most 15 parameter words"
    );
    assert!(
        !first_args
            .iter()
            .any(|a| matches!(a.kind, ArgKind::Value { .. })),
        "the ladder launches kernels without structs by value"
    );
    let mut filled = [std::ptr::null_mut::<c_void>(); 16];
    fill_slots(&mut first_args, &mut filled[..count]);
    let mut words = [0u64; 16];
    for (word, slot) in words.iter_mut().zip(&filled[..count]) {
        // SAFETY: each slot points at an argument's 8-byte value or length word.
        *word = unsafe { *(*slot as *const u64) };
    }
    drop(first_args);
    let bare = || {
        let mut words = words;
        let mut slots = [std::ptr::null_mut::<c_void>(); 16];
        for (slot, word) in slots.iter_mut().zip(&mut words[..=count]) {
            *slot = word as *mut u64 as *mut c_void;
        }
        driver_launch(function, &shape, stream, &mut slots)
    };
    let rungs: [&dyn Fn() -> Result<()>; 8] = [
        &bare,
        &|| rung::<0, N>(pending, stream, config, (kernel, function, &shape, count)),
        &|| rung::<1, N>(pending, stream, config, (kernel, function, &shape, count)),
        &|| rung::<2, N>(pending, stream, config, (kernel, function, &shape, count)),
        &|| rung::<3, N>(pending, stream, config, (kernel, function, &shape, count)),
        &|| rung::<4, N>(pending, stream, config, (kernel, function, &shape, count)),
        whole,
        &|| rung::<CHECKED, N>(pending, stream, config, (kernel, function, &shape, count)),
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

/// [`rung`]'s `K` that runs the checks the memo skips in place of the memo.
const CHECKED: usize = 99;

/// One launch through the first `K` stages of the launch path (in `launch`'s order,
/// on a created stream of a GPU, every array already on it), then the driver call;
/// [`CHECKED`]: all of them, with the whole checks where the memo would answer.
fn rung<'a, const K: usize, const N: usize>(
    pending: &dyn Fn() -> LadderLaunch<'a, N>,
    stream: &Stream,
    config: LaunchConfig<'_>,
    (loaded, function, shape, count): (&'static LoadedKernel, sys::CUfunction, &ValidLaunch, usize),
) -> Result<()> {
    let (source, cache, mut args) = pending();
    let device = stream.device();
    let _guard = if K >= 1 {
        Some(crate::launch::bind::bind_for_launch(device)?)
    } else {
        None
    };
    let faults = stream.own_faults().expect("a created stream");
    let mut record = if K >= 2 {
        faults.note_launcher();
        faults.record_ptr()
    } else {
        0
    };
    // Decided once, as `launch` does, and reused by the later rungs.
    let (function, valid, kernel) = if K == CHECKED {
        let valid = config.validate_for(source, device.limits())?;
        stream.ensure_current()?;
        let kernel = cache.get(source, device)?;
        black_box(check_args(
            &kernel.name,
            &kernel.params,
            &args,
            device.id(),
        )?);
        let valid = valid.with_static_shared(source.name, kernel.static_shared, device.limits())?;
        let arg_len = |i: usize| args.get(i).map(|arg| arg.len);
        let function = kernel.function_for(valid.grid, valid.block, arg_len, true)?;
        (function, valid, kernel)
    } else if K >= 3 {
        let Some(hit) = memo::recall((source, cache), &config, &args, device.id()) else {
            return Err(crate::Error::Refused {
                operation: "the launch ladder",
                detail: "the launch memo does not know the ladder's launch (launch it first, \
                         on this thread, until its proven copy is settled)"
                    .into(),
            });
        };
        stream.ensure_current()?;
        (hit.function, hit.valid, hit.kernel)
    } else {
        (function, *shape, loaded)
    };
    if K >= 4 {
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
    driver_launch(function, &valid, stream, &mut slots)
}

/// The launch both launch paths make (`super::context::launch_kernel`) of `function` in
/// `shape` on `stream` with parameters `slots`, so that every rung pays the same driver
/// call.
fn driver_launch(
    function: sys::CUfunction,
    shape: &ValidLaunch,
    stream: &Stream,
    slots: &mut [*mut c_void; 16],
) -> Result<()> {
    // SAFETY: `function` is live in the stream's context, current on this thread (the
    // ladder's first launch, through `launch`, bound it); the slots point at the
    // arguments' values and a record slot, which outlive the call; the kernel's
    // parameters are those values.
    unsafe {
        crate::launch::context::launch_kernel(
            function,
            shape,
            stream.cu_stream(),
            crate::launch::context::Params::Table(slots.as_mut_ptr()),
        )
    }
    .result()
    .call("cuLaunchKernelEx")
}
