//! The launch's fast path (issue 27): a launch this thread's memo knows (`memo`), on a
//! GPU, on a stream that is not capturing and leaves no read pending. Such a launch
//! needs none of the whole path's branches for host slices, graphs or the stage
//! profile, and its arguments go to the driver in one packed buffer in the kernel's
//! parameter layout (`CU_LAUNCH_PARAM_BUFFER_POINTER`, the driver's faster form)
//! instead of a table of pointers to each argument. Its device arrays are ordered as
//! the whole path orders them: nothing where each was last used on the launch's
//! stream, else the event of the stream it was used on, waited on this one (launches
//! taking turns between streams stay here). Anything else answers `None` before any
//! effect, and `super::launch` takes the whole path, which decides the same launch the
//! same way (both read `super::context`).
//!
//! Monomorphic in the argument count, so that the memo compare and the packing are
//! unrolled for the kernel's arguments.

use std::ffi::c_void;

use cudarc::driver::sys;

use crate::error::Result;
use crate::launch::args::KernelArg;
use crate::launch::bind::{
    bind_for_launch, confirm_bind, prefetch_for_next_launch, prefetch_launch_lines,
    relaunch_if_unbound,
};
use crate::launch::config::LaunchConfig;
use crate::launch::context::{launch_kernel, LaunchTarget, Params};
use crate::launch::memo::{self, MemoHit};
use crate::launch::ordering::{arrays_quiet_on, leave_reads_pending, order_array_uses_slow};
use crate::launch::packed::PackedParams;
use kernel_device::source::FnSource;

use crate::compile::cache::KernelCache;

/// The fast path of `super::launch` for `source`'s kernel, or `None` when the launch is
/// not one it takes (then nothing was done that the whole path would not do again).
/// `Some` only for a launch the thread's memo knows: its arguments are scalars and
/// device arrays of scalars, which own nothing (`PendingLaunch::launch` skips their
/// drop).
pub(crate) fn try_launch<const N: usize>(
    (source, cache): (&'static FnSource, &'static KernelCache),
    config: &LaunchConfig<'_>,
    args: &[KernelArg<'_>; N],
) -> Option<Result<()>> {
    if N > memo::MEMO_ARGS || config.cluster.is_some() || crate::compile::profile::enabled() {
        return None;
    }
    prefetch_launch_lines(config, args);
    let target = LaunchTarget::of(config).ok()?;
    let device = target.device;
    // On the simulator: the whole path.
    device.launch_context()?;
    // The reset guard is held from here to the launch's end (`super::launch`). A bind
    // that fails is the whole path's to report (it binds the same way): the fast path
    // answers only launches its memo knows.
    let (_guard, mut trusted) = bind_for_launch(device).ok()?;
    let faults = target.borrowed_faults()?;
    let stream_ref = target.stream_ref();
    if let Some(handle) = stream_ref {
        let capturing = handle.capturing.load(std::sync::atomic::Ordering::Relaxed);
        if capturing || handle.pending_reads.any() {
            return None;
        }
    }
    let hit = memo::recall((source, cache), config, args, device.id())?;
    // The memo's layout is this launch's: its arguments are of the key's kinds.
    let mut packed = PackedParams::new();
    packed.fill_at(&hit.layout, args, faults.record_ptr());
    // No `None` past this point: the launch's effects begin.
    if let Err(error) = target.ensure_current() {
        return Some(Err(error));
    }
    // Arrays last used on another stream: that stream's event waited on this one.
    let tracked_reads = if arrays_quiet_on(stream_ref, args) {
        0
    } else {
        let ordered = confirm_bind(&mut trusted)
            .and_then(|()| order_array_uses_slow(device, stream_ref, args));
        match ordered {
            Ok(tracked) => tracked,
            Err(error) => return Some(Err(error)),
        }
    };
    faults.note_launcher();
    device.note_launch(&hit.kernel.name);
    let stream = target.cu_stream();
    let launched = launch_packed(&hit, stream, &mut packed);
    let launched = relaunch_if_unbound(launched, trusted, || {
        launch_packed(&hit, stream, &mut packed)
    });
    if let Err(error) = device.watch(launched) {
        return Some(Err(error));
    }
    leave_reads_pending(stream_ref, args, tracked_reads);
    crate::launch::profile::note_fast_launch();
    prefetch_for_next_launch(device, config, args, memo::entry_address((source, cache)));
    Some(Ok(()))
}

/// The launch (`context::launch_kernel`) of the memo's function with `packed` as its
/// parameters.
#[inline(always)]
fn launch_packed(hit: &MemoHit, stream: sys::CUstream, packed: &mut PackedParams) -> Result<()> {
    let valid = &hit.valid;
    let mut size = packed.size;
    let mut extra: [*mut c_void; 5] = [
        sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
        packed.as_mut_ptr(),
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
        launch_kernel(
            hit.function,
            valid,
            stream,
            Params::Extra(extra.as_mut_ptr()),
        )
    };
    status
        .result()
        .map_err(|e| super::launch_error(hit.kernel, valid, e))
}
