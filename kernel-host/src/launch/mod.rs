//! `launch`: what every generated `kernel::launch(config, args..)` calls.
//!
//! Order matters: the configuration is checked against the device's limits and the
//! arguments against the kernel's parameters before anything is queued on the GPU, so
//! a bad launch costs nothing and leaves nothing behind. A launch whose arguments are
//! all device arrays is asynchronous and costs about one driver launch; one with
//! host slices copies them in (and `&mut` ones back), synchronises and reports a
//! device-side panic, like Numba's launch with host arrays. A kernel that calls
//! `grid_sync()` is launched with `cuLaunchCooperativeKernel`, after a check that its
//! grid can be resident at once (see `cooperative`).
//!
//! The GPU's path is this file's; a simulated device's is `sim`'s (both entry points,
//! `launch` and `max_cooperative_grid_blocks`, route here). Arguments are `args`
//! (N-d ones `nd`), the shape `config`, graphs `graph`.

#[cfg(test)]
mod alloc_free;
pub(crate) mod args;
pub(crate) mod bind;
pub(crate) mod config;
pub(crate) mod context;
// Hopper: clusters
pub(crate) mod cluster;
pub(crate) mod cooperative;
pub(crate) mod fast;
pub(crate) mod graph;
pub(crate) mod host_bench;
pub(crate) mod ladder;
pub(crate) mod memo;
pub(crate) mod nd;
pub(crate) mod ordering;
pub(crate) mod packed;
pub mod profile;
pub(crate) mod sim;
pub(crate) mod slice_args;
// Hopper: TMA
pub(crate) mod tensor_map;

use std::ffi::c_void;
use std::sync::atomic::Ordering;

use cudarc::driver::{result, sys};
use kernel_device::back::nvvm::launch_proof::LaunchCondition;
use kernel_device::source::FnSource;

use crate::compile::cache::KernelCache;
use crate::compile::loaded::{FirstLaunch, LoadedKernel};
use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};
use crate::executor::panic::StreamFaults;
use crate::launch::args::{check_args, fill_slots, ArgKind, KernelArg};
use crate::launch::bind::{
    bind_for_launch, confirm_bind, prefetch_for_next_launch, prefetch_launch_lines,
    relaunch_if_unbound,
};
use crate::launch::config::{LaunchConfig, ValidLaunch};
use crate::launch::context::{launch_kernel, LaunchTarget, Params};
use crate::launch::memo::{MemoHit, MemoKey};
use crate::launch::ordering::{
    arrays_quiet_on, leave_reads_pending, order_array_uses_slow, uses_allocation,
};
use crate::launch::packed::PackedLayout;
use crate::launch::profile::{LaunchTimer, Stage};

/// A kernel with its arguments converted, waiting for its launch configuration:
/// `launch!(k[grid, block](a, b))` is
/// `<k>::args(a, b).launch(<k>::launch_config(grid, block))`, so that rustc counts a
/// wrong number of arguments against the kernel's parameters alone.
pub struct PendingLaunch<'a, const N: usize> {
    pub source: &'static FnSource,
    pub cache: &'static KernelCache,
    pub args: [KernelArg<'a>; N],
}

impl<const N: usize> PendingLaunch<'_, N> {
    /// Launches the kernel with `config` (grid, block, stream, shared bytes).
    #[inline]
    pub fn launch<'c>(self, config: impl Into<LaunchConfig<'c>>) -> Result<()> {
        let config = config.into();
        let PendingLaunch {
            source,
            cache,
            mut args,
        } = self;
        // A launch the thread's memo knows, on quiet arrays: the fast path (`fast`).
        if let Some(launched) = fast::try_launch((source, cache), &config, &args) {
            // The fast path answers only launches whose arguments are scalars and device
            // arrays of scalars (the memo's kinds), which own nothing: their drop is no
            // work, and is not run (issue 27: a call per argument, after the driver's).
            debug_assert!(args.iter().all(KernelArg::owns_nothing));
            std::mem::forget(args);
            return launched;
        }
        launch(source, cache, config, &mut args)
    }
}

/// The launch of a `#[kernel(boundscheck = false)]` kernel, waiting for its launch shape:
/// what `launch!` of such a kernel builds. Its [`launch`](Self::launch) is `unsafe`
/// because nothing checks the kernel's indices: one out of range reads or writes outside
/// its buffer (undefined behaviour) where a checked kernel returns `Err(KernelPanic)`.
/// So `launch!` of a `boundscheck = false` kernel must sit in an `unsafe { .. }` block,
/// whose `// SAFETY:` comment says why every index is in bounds.
pub struct BoundscheckFalseLaunch<'a, const N: usize>(PendingLaunch<'a, N>);

impl<'a, const N: usize> BoundscheckFalseLaunch<'a, N> {
    /// What the generated `args` of a `boundscheck = false` kernel returns. The pending
    /// launch stays inside: only the `unsafe` [`launch`](Self::launch) runs it.
    #[doc(hidden)]
    pub fn new(pending: PendingLaunch<'a, N>) -> Self {
        BoundscheckFalseLaunch(pending)
    }

    /// Launches the kernel with `config` (grid, block, stream, shared bytes).
    ///
    /// # Safety
    /// The kernel was compiled with `boundscheck = false`: every index its body uses
    /// must be in bounds for the slices passed to it.
    pub unsafe fn launch<'c>(self, config: impl Into<LaunchConfig<'c>>) -> Result<()> {
        self.0.launch(config)
    }
}

/// Launches `source`'s kernel with `args` (one per kernel parameter, in order), on the
/// stream's device or the default device: through the CUDA driver, or on the simulator.
pub fn launch(
    source: &'static FnSource,
    cache: &'static KernelCache,
    config: LaunchConfig<'_>,
    args: &mut [KernelArg<'_>],
) -> Result<()> {
    let mut timer = LaunchTimer::start();
    prefetch_launch_lines(&config, args);
    let target = LaunchTarget::of(&config)?;
    let device = target.device;
    // From here to the end no reset runs (see `crate::executor::health`): a record made below
    // is one the reset renews, and the generation checks stay true while the launch
    // uses the context. Nothing on the simulator. `trusted`: the context this thread
    // bound last, not asked of the driver; bound for real before any driver call but
    // the launch's own (`confirm_bind`), and after a refused launch.
    let (_guard, mut trusted) = bind_for_launch(device)?;
    timer.mark(Stage::Bind);
    // Where an asynchronous launch reports a device-side panic: its stream's record
    // (the calling thread's on the default stream); the thread is the one whose
    // device-wide synchronisation reports it. Nothing reads the record here: it is
    // checked at the stream's (or the device's) synchronisation.
    // Borrowed, without reference-count traffic: a created stream's own faults, or the
    // thread's (default stream) once it has some (its first launch makes them).
    let thread_faults;
    let faults: &StreamFaults = match target.borrowed_faults() {
        Some(faults) => faults,
        None => {
            thread_faults = device.thread_faults()?;
            &thread_faults
        }
    };
    faults.note_launcher();
    timer.mark(Stage::PanicRecord);
    let stream_ref = target.stream_ref();
    let capturing = stream_ref
        .as_ref()
        .is_some_and(|h| h.capturing.load(Ordering::Relaxed));
    // A GPU has a context (the device's own copy, no call through the executor).
    if device.launch_health().is_none() {
        if let Some(sim) = device.as_sim() {
            if capturing {
                return crate::launch::graph::record_sim_launch(
                    source, cache, &config, device, args,
                );
            }
            return crate::launch::sim::launch(source, cache, config, device, sim, faults, args);
        }
    }
    // The decisions a launch of this kernel in this shape with these kinds of
    // arguments made last time on this thread (`memo`), or the checks that make them.
    let device_id = device.id();
    // `cooperative` from the hit: never (the memo keeps no cooperative kernel's
    // launch), without reading the loaded kernel, a line the driver call evicts.
    // Hopper: clusters: the memo's key has no cluster shape; such launches skip it.
    let recalled = match config.cluster {
        None => memo::recall((source, cache), &config, args, device_id),
        Some(_) => None,
    };
    let (decided, host_slices, cooperative) = match recalled {
        Some(hit) => {
            target.ensure_current()?;
            timer.mark(Stage::Validate);
            (hit, false, false)
        }
        None => {
            // The checks may load a module or set a function attribute.
            confirm_bind(&mut trusted)?;
            let checks = (source, cache, capturing);
            let (decided, host_slices) = check_launch(checks, &config, &target, args, &mut timer)?;
            let key = MemoKey::of((source, cache), &config, args, device_id);
            // The packed layout is a function of the arguments' kinds, which the key
            // holds: every launch the key matches packs the same way.
            let layout = PackedLayout::of(args);
            if let (Some(key), Some(layout), None) = (key, layout, config.cluster) {
                memo::remember(key, MemoHit { layout, ..decided });
            }
            (decided, host_slices, decided.kernel.cooperative)
        }
    };
    let MemoHit {
        kernel,
        valid,
        slots,
        function,
        ..
    } = decided;
    let stream = target.cu_stream();
    timer.mark(Stage::ArgumentCheck);
    let quiet = arrays_quiet_on(stream_ref, args);
    let reads_pending = stream_ref
        .as_ref()
        .is_some_and(|handle| handle.pending_reads.any());
    if capturing || host_slices || !quiet || reads_pending {
        // Events, copies or a capture: driver calls before the launch's own.
        confirm_bind(&mut trusted)?;
    }
    if capturing {
        // Recorded into the graph, not run: the graph keeps the arrays alive and
        // orders them when it is launched.
        crate::launch::graph::note_captured_arrays(stream_ref, &kernel.name, args)?;
    }
    let tracked_reads = if capturing || quiet {
        0
    } else {
        order_array_uses_slow(device, stream_ref, args)?
    };
    if let (Some(handle), false) = (stream_ref, capturing) {
        handle
            .pending_reads
            .before_launch(device, stream, |memory| uses_allocation(args, memory))?;
    }
    device.note_launch(&kernel.name);
    timer.mark(Stage::StreamOrdering);
    device.watch(if host_slices {
        launch_with_host_slices(device, (kernel, function), &valid, stream, args, slots)
    } else {
        let record = faults.record_ptr();
        let chosen = (kernel, function, cooperative);
        let launched = launch_raw(
            chosen,
            &valid,
            stream,
            (&mut *args, slots),
            record,
            &mut timer,
        );
        relaunch_if_unbound(launched, trusted, || {
            launch_raw(chosen, &valid, stream, (args, slots), record, &mut timer)
        })
    })?;
    leave_reads_pending(stream_ref, args, tracked_reads);
    prefetch_for_next_launch(device, &config, args, memo::entry_address((source, cache)));
    timer.mark(Stage::AfterLaunch);
    timer.finish();
    Ok(())
}

/// The whole path's checks, for a launch the memo does not know: the shape against the
/// device's and the kernel's limits, the stream's (or device's) health, the loaded
/// kernel, the arguments against its parameters, shared memory, co-residency of a
/// cooperative grid, then the function to launch (the proven copy where the launch
/// proves its conditions). Also whether a host slice is among the arguments.
#[inline(never)]
fn check_launch(
    (source, cache, capturing): (&'static FnSource, &'static KernelCache, bool),
    config: &LaunchConfig<'_>,
    target: &LaunchTarget<'_>,
    args: &[KernelArg<'_>],
    timer: &mut LaunchTimer,
) -> Result<(MemoHit, bool)> {
    let device = target.device;
    let valid = config.validate_for(source, device.limits())?;
    target.ensure_current()?;
    timer.mark(Stage::Validate);
    let arg_len = |i: usize| args.get(i).map(|arg| arg.len);
    // A first launch that its kernel's launch proof covers compiles only the copy it
    // runs; one inside a capture compiles the checked kernel first, as before (the
    // copy first inside a capture has not been run on a GPU).
    let proves_first = |conditions: &[LaunchCondition]| {
        crate::compile::loaded::proves(conditions, valid.grid, valid.block, &arg_len)
    };
    let first_launch: FirstLaunch<'_> = (!capturing).then_some(&proves_first);
    let kernel = cache.get_for_launch(source, device, first_launch)?;
    timer.mark(Stage::KernelLookup);
    let summary = check_args(&kernel.name, &kernel.params, args, device.id())?;
    let valid = valid.with_static_shared(source.name, kernel.static_shared, device.limits())?;
    if valid.needs_shared_opt_in {
        kernel.allow_shared(valid.shared_bytes)?;
    }
    if kernel.cooperative {
        // Hopper: clusters
        if let Some((limit, detail)) = kernel_device::proc::cluster::grid_sync_error(valid.cluster)
        {
            return Err(crate::error::Error::InvalidLaunch {
                kernel: kernel.name.clone(),
                limit,
                detail,
            });
        }
        crate::launch::cooperative::check_launch(kernel, device, &valid)?;
    }
    // A capture records the launch: no deferred compile (a module load and its
    // synchronous copy) in the middle of it.
    let function = kernel.function_for(valid.grid, valid.block, arg_len, !capturing)?;
    let decided = MemoHit {
        kernel,
        valid,
        slots: summary.slots,
        function,
        // Set where the memo remembers the launch (below, in `launch`).
        layout: Default::default(),
    };
    Ok((decided, summary.host_slices))
}

/// `kernel::max_cooperative_grid_blocks_for(config)`: the largest grid (in blocks) a
/// cooperative launch of `config`'s block shape and dynamic shared memory may have on
/// `config`'s device (the grid in `config` is ignored).
pub fn max_cooperative_grid_blocks(
    source: &'static FnSource,
    cache: &'static KernelCache,
    config: LaunchConfig<'_>,
) -> Result<u32> {
    let device: &Device = match config.stream {
        Some(stream) => stream.device(),
        None => Device::default_ref()?,
    };
    let shape = LaunchConfig {
        grid: 1u32.into(),
        ..config
    };
    if device.is_simulator() {
        return crate::launch::sim::max_cooperative_grid_blocks(source, cache, &shape, device);
    }
    crate::launch::cooperative::max_grid_blocks_on_gpu(source, cache, &shape, device)
}

/// Queues `function` (the kernel's, or its proven copy; `cooperative`: the kernel's
/// own flag). `args` must hold device
/// pointers in every slice slot, and occupy `slots` parameter slots (`check_args`'
/// count); `record` is the device address of the panic record the launch reports into
/// (the kernel's hidden last parameter).
fn launch_raw(
    (kernel, function, cooperative): (&LoadedKernel, sys::CUfunction, bool),
    valid: &ValidLaunch,
    stream: sys::CUstream,
    (args, slots): (&mut [KernelArg<'_>], usize),
    mut record: u64,
    timer: &mut LaunchTimer,
) -> Result<()> {
    // Parameter addresses on the stack for the usual handful of parameters (two cache
    // lines to clear; more parameters than that are rare and take the heap).
    const INLINE: usize = 16;
    let count = slots + 1;
    let mut inline = [std::ptr::null_mut::<c_void>(); INLINE];
    let mut heap = Vec::new();
    let slots: &mut [*mut c_void] = if count <= INLINE {
        &mut inline[..count]
    } else {
        heap.resize(count, std::ptr::null_mut());
        &mut heap
    };
    let (last, slots_of_args) = slots.split_last_mut().expect("at least the record slot");
    fill_slots(args, slots_of_args);
    *last = &mut record as *mut u64 as *mut c_void;
    let params = slots.as_mut_ptr();
    timer.note_function(function);
    timer.mark(Stage::Marshal);
    // SAFETY: `function` is live in the current context; `slots` points at `args`'
    // value slots, laid out per the kernel ABI and checked against the parameters, then
    // at `record`, the hidden last parameter; all outlive the call (the driver copies parameters before returning). A
    // cooperative launch was checked for co-residency by the caller.
    let status = unsafe {
        // Hopper: clusters
        if valid.cluster != [1, 1, 1] {
            let config = crate::launch::context::launch_config(
                valid.grid,
                valid.block,
                valid.shared_bytes,
                stream,
            );
            crate::launch::cluster::launch_ex(function, config, valid.cluster, params)
        } else if cooperative {
            let [gx, gy, gz] = valid.grid;
            let [bx, by, bz] = valid.block;
            sys::cuLaunchCooperativeKernel(
                function,
                gx,
                gy,
                gz,
                bx,
                by,
                bz,
                valid.shared_bytes,
                stream,
                params,
            )
        } else {
            launch_kernel(function, valid, stream, Params::Table(params))
        }
    };
    timer.mark(Stage::Driver);
    status.result().map_err(|e| launch_error(kernel, valid, e))
}

/// Explains the driver's refusal in terms of the limit involved where possible.
#[cold]
fn launch_error(kernel: &LoadedKernel, valid: &ValidLaunch, e: result::DriverError) -> Error {
    let resources = matches!(
        e.0,
        sys::CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES | sys::CUresult::CUDA_ERROR_INVALID_VALUE
    );
    if resources {
        let attribute = |attribute| {
            // SAFETY: live function of the current context.
            unsafe { result::function::get_function_attribute(kernel.function, attribute) }.ok()
        };
        use sys::CUfunction_attribute as A;
        let facts = ResourceFacts {
            out_of_resources: e.0 == sys::CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            threads: valid.block.iter().product::<u32>(),
            max_threads: attribute(A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
            dynamic_shared: valid.shared_bytes,
            allowed_dynamic_shared: attribute(A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
        };
        if let Some((limit, detail)) = facts.explain() {
            return Error::InvalidLaunch {
                kernel: kernel.name.clone(),
                limit: limit.into(),
                detail,
            };
        }
    }
    if kernel.cooperative {
        return Error::driver("cuLaunchCooperativeKernel", e);
    }
    Error::driver("cuLaunchKernelEx", e)
}

/// What is known when the driver refuses a launch for lack of resources.
struct ResourceFacts {
    /// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES` (else `CUDA_ERROR_INVALID_VALUE`).
    out_of_resources: bool,
    threads: u32,
    max_threads: Option<i32>,
    dynamic_shared: u32,
    allowed_dynamic_shared: Option<i32>,
}

impl ResourceFacts {
    /// The limit that was broken and why, or `None` when the facts do not show one
    /// (then the driver's own error is reported). A block within the function's thread
    /// limit is never blamed on registers: under a race of the shared-memory opt-in the
    /// cause was the dynamic shared memory allowance (issue 10).
    fn explain(&self) -> Option<(&'static str, String)> {
        if let Some(max) = self.max_threads {
            if self.out_of_resources && i64::from(self.threads) > i64::from(max) {
                return Some((
                    "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
                    format!(
                        "block of {} threads needs more registers than a block may have; \
                         this kernel allows at most {max} threads per block",
                        self.threads
                    ),
                ));
            }
        }
        let allowed = self.allowed_dynamic_shared?;
        (i64::from(self.dynamic_shared) > i64::from(allowed)).then(|| {
            (
                "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
                format!(
                    "{} bytes of dynamic shared memory exceed the {allowed} bytes this kernel \
                     is allowed",
                    self.dynamic_shared
                ),
            )
        })
    }
}

/// A device buffer holding a host slice for one launch.
struct TempBuffer {
    ptr: sys::CUdeviceptr,
    stream: sys::CUstream,
    /// Allocated from the stream-ordered pool (freed without a device-wide sync).
    pooled: bool,
}

impl TempBuffer {
    fn new(device: &Device, bytes: usize, stream: sys::CUstream) -> Result<TempBuffer> {
        let pooled = device.executor().has_async_alloc();
        // SAFETY: plain allocations; filled by the copy that follows.
        let ptr = if pooled {
            unsafe { result::malloc_async(stream, bytes) }.call("cuMemAllocAsync")?
        } else {
            unsafe { result::malloc_sync(bytes) }.call("cuMemAlloc")?
        };
        Ok(TempBuffer {
            ptr,
            stream,
            pooled,
        })
    }
}

impl Drop for TempBuffer {
    fn drop(&mut self) {
        // Stream-ordered: freed after the kernel that uses it, even on an early error.
        // SAFETY: allocated in `new`, freed only here.
        let _ = unsafe {
            if self.pooled {
                result::free_async(self.ptr, self.stream)
            } else {
                result::free_sync(self.ptr)
            }
        };
    }
}

fn launch_with_host_slices(
    device: &Device,
    (kernel, function): (&LoadedKernel, sys::CUfunction),
    valid: &ValidLaunch,
    stream: sys::CUstream,
    args: &mut [KernelArg<'_>],
    slots: usize,
) -> Result<()> {
    // A record of this launch's own, so that it reports its panic and no other
    // launch's (and no other launch reports this one's).
    let (ctx, health, pool) = device
        .record_pool()
        .expect("a launch through the driver is on a GPU");
    let record = pool.acquire(ctx, health)?;
    let mut buffers: Vec<Option<TempBuffer>> = Vec::with_capacity(args.len());
    for arg in args.iter_mut() {
        let bytes: &[u8] = match &arg.kind {
            ArgKind::Host { bytes, .. } => bytes,
            ArgKind::HostMut { bytes, .. } => bytes,
            _ => {
                buffers.push(None);
                continue;
            }
        };
        if bytes.is_empty() {
            // The driver refuses empty allocations; the kernel sees (null, 0).
            arg.value = 0;
            buffers.push(None);
            continue;
        }
        let buffer = TempBuffer::new(device, bytes.len(), stream)?;
        // SAFETY: the buffer holds `bytes.len()` bytes. From pageable memory the call
        // returns once the data is staged, so `bytes` may change afterwards.
        unsafe { result::memcpy_htod_async(buffer.ptr, bytes, stream) }
            .call("cuMemcpyHtoDAsync")?;
        arg.value = buffer.ptr;
        buffers.push(Some(buffer));
    }
    // Before the kernel is queued the record is untouched: returning it on an error
    // above is safe. Once queued, the record goes back to the pool only after the
    // synchronisation below, so a kernel still running never writes a record another
    // launch uses (on a failure it is leaked, a few bytes, rather than risk that).
    let mut untimed = LaunchTimer::off();
    // Never under a capture, which refuses host slices.
    let ptr = record.device_ptr();
    let marshalled = (&mut *args, slots);
    let chosen = (kernel, function, kernel.cooperative);
    if let Err(error) = launch_raw(chosen, valid, stream, marshalled, ptr, &mut untimed) {
        pool.release(record);
        return Err(error);
    }
    let mut copied = Ok(());
    for (arg, buffer) in args.iter_mut().zip(&buffers) {
        if let (ArgKind::HostMut { bytes, .. }, Some(buffer)) = (&mut arg.kind, buffer) {
            // SAFETY: same size as the buffer; into pageable memory the call returns
            // after the copy completed.
            copied = unsafe { result::memcpy_dtoh_async(bytes, buffer.ptr, stream) }
                .call("cuMemcpyDtoHAsync");
            if copied.is_err() {
                break;
            }
        }
    }
    // SAFETY: `stream` is NULL or a live stream of the current context.
    let synced = unsafe { result::stream::synchronize(stream) }.call("cuStreamSynchronize");
    drop(buffers);
    if let Err(error) = synced {
        std::mem::forget(record);
        return Err(error);
    }
    crate::print::drain(device); // print: the launch synchronised its stream
                                 // The copies back are complete: staged N-d views go back into the caller's arrays.
    crate::launch::args::write_back_staged(args);
    let panic = record.take_raw();
    pool.release(record);
    if let (Some(bytes), Some(modules)) = (panic, device.modules()) {
        return Err(modules.decode(&bytes));
    }
    copied
}

#[cfg(test)]
mod tests {
    use super::ResourceFacts;

    fn facts(threads: u32, max_threads: i32, dynamic: u32, allowed: i32) -> ResourceFacts {
        ResourceFacts {
            out_of_resources: true,
            threads,
            max_threads: Some(max_threads),
            dynamic_shared: dynamic,
            allowed_dynamic_shared: Some(allowed),
        }
    }

    #[test]
    fn out_of_resources_names_the_real_limit() {
        // Too many threads for the kernel's registers.
        let (limit, detail) = facts(1024, 640, 0, 49152).explain().unwrap();
        assert_eq!(limit, "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK");
        assert!(
            detail.starts_with("block of 1024 threads needs more registers"),
            "{detail}"
        );
        // The case: 32 threads, dynamic shared memory over the allowance.
        let (limit, detail) = facts(32, 1024, 100_000, 65_536).explain().unwrap();
        assert_eq!(limit, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES");
        assert!(!detail.contains("registers"), "{detail}");
        assert!(
            detail.contains("100000 bytes") && detail.contains("65536 bytes"),
            "{detail}"
        );
        // Invalid value with shared memory over the allowance: the same explanation.
        let invalid = ResourceFacts {
            out_of_resources: false,
            ..facts(32, 1024, 100_000, 65_536)
        };
        assert_eq!(
            invalid.explain().unwrap().0,
            "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"
        );
        // Nothing over a limit we know: the driver's error stands.
        assert_eq!(facts(32, 1024, 1024, 49152).explain(), None);
        let unknown = ResourceFacts {
            max_threads: None,
            allowed_dynamic_shared: None,
            ..facts(2048, 0, 1 << 20, 0)
        };
        assert_eq!(unknown.explain(), None);
    }
}
