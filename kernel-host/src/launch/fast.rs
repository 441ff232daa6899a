//! The launch's fast path (issue 27): a launch this thread's memo knows (`memo`), on a
//! GPU, on a stream that is not capturing, whose device arrays were all last used on
//! that stream and which leaves no read pending. Such a launch needs none of the
//! whole path's branches for host slices, events, graphs or the stage profile, and its
//! arguments go to the driver in one packed buffer in the kernel's parameter layout
//! (`CU_LAUNCH_PARAM_BUFFER_POINTER`, the driver's faster form) instead of a table of
//! pointers to each argument. Anything else answers `None` before any effect, and
//! `super::launch` takes the whole path, which decides the same launch the same way.
//!
//! Monomorphic in the argument count, so that the memo compare and the packing are
//! unrolled for the kernel's arguments.

use std::ffi::c_void;

use cudarc::driver::sys;

use crate::device::stream::StreamRef;
use crate::device::Device;
use crate::error::Result;
use crate::launch::args::KernelArg;
use crate::launch::bind::{
    bind_for_launch, prefetch_for_next_launch, prefetch_stream_lines, relaunch_if_unbound,
};
use crate::launch::config::LaunchConfig;
use crate::launch::memo::{self, MemoHit};
use crate::launch::ordering::arrays_quiet_on;
use crate::launch::packed::PackedParams;
use kernel_device::source::FnSource;

use crate::compile::cache::KernelCache;

/// The fast path of `super::launch` for `source`'s kernel, or `None` when the launch is
/// not one it takes (then nothing was done that the whole path would not do again).
pub(crate) fn try_launch<const N: usize>(
    (source, cache): (&'static FnSource, &'static KernelCache),
    config: &LaunchConfig<'_>,
    args: &[KernelArg<'_>; N],
) -> Option<Result<()>> {
    if N > memo::MEMO_ARGS || config.cluster.is_some() || crate::compile::profile::enabled() {
        return None;
    }
    prefetch_stream_lines(config);
    let device: &Device = match config.stream {
        Some(stream) => stream.device(),
        None => Device::default_ref().ok()?,
    };
    // On the simulator: the whole path.
    device.launch_context()?;
    // The reset guard is held from here to the launch's end (`super::launch`).
    let (_guard, trusted) = match bind_for_launch(device) {
        Ok(bound) => bound,
        Err(error) => return Some(Err(error)),
    };
    let faults = match config.stream.and_then(|s| s.own_faults()) {
        Some(own) => own,
        None => device.thread_faults_borrowed()?,
    };
    let stream_ref: &StreamRef = config.stream.map_or(&NULL_STREAM, |s| s.handle());
    if let Some(handle) = stream_ref {
        let capturing = handle.capturing.load(std::sync::atomic::Ordering::Relaxed);
        if capturing || handle.pending_reads.any() {
            return None;
        }
    }
    let hit = memo::recall((source, cache), config, args, device.id())?;
    if !arrays_quiet_on(stream_ref, args) {
        return None;
    }
    let current = match config.stream {
        Some(stream) => stream.ensure_current(),
        None => device.ensure_alive(),
    };
    if let Err(error) = current {
        return Some(Err(error));
    }
    let mut packed = PackedParams::pack(args, faults.record_ptr())?;
    faults.note_launcher();
    device.note_launch(&hit.kernel.name);
    let stream = config
        .stream
        .map_or(std::ptr::null_mut(), |s| s.cu_stream());
    let launched = launch_packed(&hit, stream, &mut packed);
    let launched = relaunch_if_unbound(launched, trusted, || {
        launch_packed(&hit, stream, &mut packed)
    });
    let launched = device.watch(launched);
    crate::launch::profile::note_fast_launch();
    prefetch_for_next_launch(device, config, args, memo::entry_address((source, cache)));
    Some(launched)
}

/// The legacy NULL stream, as device arrays remember it.
static NULL_STREAM: StreamRef = None;

/// `cuLaunchKernel` of the memo's function with `packed` as its parameters.
#[inline(always)]
fn launch_packed(hit: &MemoHit, stream: sys::CUstream, packed: &mut PackedParams) -> Result<()> {
    let valid = &hit.valid;
    let [gx, gy, gz] = valid.grid;
    let [bx, by, bz] = valid.block;
    let mut size = packed.size;
    let mut extra: [*mut c_void; 5] = [
        sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
        packed.words.as_mut_ptr() as *mut c_void,
        sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize as *mut c_void,
        &mut size as *mut usize as *mut c_void,
        sys::CU_LAUNCH_PARAM_END_AS_INT as usize as *mut c_void,
    ];
    // SAFETY: the memo's function is live in the current context (its generation is
    // the memo key's, and the reset guard is held); `packed` holds the arguments in the
    // kernel's parameter layout, checked against its parameters when the memo learned
    // the launch, and the panic record last; both outlive the call (the driver copies
    // parameters before returning); `extra` ends with CU_LAUNCH_PARAM_END. The memo
    // keeps no cooperative or cluster launch.
    let status = unsafe {
        sys::cuLaunchKernel(
            hit.function,
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            valid.shared_bytes,
            stream,
            std::ptr::null_mut(),
            extra.as_mut_ptr(),
        )
    };
    status
        .result()
        .map_err(|e| super::launch_error(hit.kernel, valid, e))
}
