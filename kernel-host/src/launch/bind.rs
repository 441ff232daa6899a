//! A launch's bind (issue 27): the reset guard, and the context made current without
//! asking the driver where this thread's last bind was of the same context
//! (`crate::executor::bound_here`). Such a bind is *trusted*: before any driver call
//! other than the launch's own, [`confirm_bind`] binds for real, and a launch the
//! driver refuses asks the driver and launches again once bound (`super::launch`),
//! since code outside cudajit may have changed the thread's context. Also the
//! prefetches of the lines a launch reads (or the next launch will read) soon.

use cudarc::driver::sys;

use crate::device::Device;
use crate::error::Result;
use crate::executor::health::ContextGuard;
use crate::launch::args::KernelArg;
use crate::launch::config::LaunchConfig;

/// Asks the processor for the lines a launch reads right after its bind: a created
/// stream's handle and its panic record's state, and each device array's memory state
/// (where it was last used, which the stream ordering compares). After the driver's
/// last call they are mostly out of the nearest caches, and fetched now their misses
/// overlap the bind's and each other's instead of following them one by one (issue
/// 27). A hint, nothing else.
#[inline(always)]
pub(crate) fn prefetch_launch_lines(config: &LaunchConfig<'_>, args: &[KernelArg<'_>]) {
    if let Some(stream) = config.stream {
        if let Some(handle) = stream.handle() {
            prefetch(std::sync::Arc::as_ptr(handle));
        }
        if let Some(faults) = stream.own_faults() {
            prefetch(faults);
        }
    }
    for arg in args {
        if let Some((memory, _)) = arg.kind.ordered_memory() {
            prefetch(std::sync::Arc::as_ptr(memory));
        }
    }
}

/// After the driver call, which evicts them: asks for the lines the next launch on
/// the same device and stream with the same arrays reads first (the context's health,
/// the stream's, each array's memory state, and the memo's entry for the kernel at
/// `memo_entry`), so that a loop of
/// launches finds them in the nearest cache (issue 27). A hint, nothing else.
#[inline]
pub(crate) fn prefetch_for_next_launch(
    device: &Device,
    config: &LaunchConfig<'_>,
    args: &[KernelArg<'_>],
    memo_entry: Option<*const u8>,
) {
    if let Some((health, _)) = device.launch_context() {
        prefetch(health);
    }
    prefetch_launch_lines(config, args);
    // The memo's entry for the kernel: its key, then the decisions (`memo::MemoTable`).
    if let Some(entry) = memo_entry {
        for line in 0..crate::launch::memo::ENTRY_LINES {
            prefetch(entry.wrapping_add(64 * line));
        }
    }
}

/// A prefetch of the cache line at `at` into every cache level (x86-64; nothing
/// elsewhere).
#[inline(always)]
fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it never faults, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(at as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// The launch's bind: the reset guard taken, and the device's context made current
/// unless this thread's latest bind left it so (`crate::executor::bound_here`): then
/// the context is returned, trusted without `cuCtxGetCurrent` (issue 27), for
/// [`confirm_bind`] to bind for real where the launch calls the driver before its
/// launch, or the launch to check when the driver refuses it.
#[inline]
pub(crate) fn bind_for_launch(
    device: &Device,
) -> Result<(ContextGuard<'_>, Option<sys::CUcontext>)> {
    match device.launch_context() {
        Some((health, ctx)) => {
            let guard = health.enter();
            if crate::executor::bound_here(ctx) {
                return Ok((guard, Some(ctx)));
            }
            crate::executor::make_current_raw(ctx)?;
            Ok((guard, None))
        }
        None => Ok((device.bind()?, None)),
    }
}

/// Binds a context [`bind_for_launch`] trusted, before a driver call other than the
/// launch's own (which answers a wrong context with an error the launch checks; an
/// event, copy or module load might not).
#[inline]
pub(crate) fn confirm_bind(trusted: &mut Option<sys::CUcontext>) -> Result<()> {
    match trusted.take() {
        Some(ctx) => crate::executor::make_current_raw(ctx),
        None => Ok(()),
    }
}

/// `launched`, a launch made with the context `trusted` ([`bind_for_launch`]): where
/// the driver refused it and the context is not the thread's current one (code outside
/// cudajit changed it since this thread's last bind), the context is bound and
/// `again` launches once more.
#[inline]
pub(crate) fn relaunch_if_unbound(
    launched: Result<()>,
    trusted: Option<sys::CUcontext>,
    again: impl FnOnce() -> Result<()>,
) -> Result<()> {
    match (launched, trusted) {
        (Err(error), Some(ctx)) => match crate::executor::is_current(ctx) {
            Ok(false) => {
                crate::executor::make_current_raw(ctx)?;
                again()
            }
            _ => Err(error),
        },
        (launched, _) => launched,
    }
}
