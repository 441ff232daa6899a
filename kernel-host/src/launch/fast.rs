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
use crate::launch::args::{ArgKind, KernelArg};
use crate::launch::bind::{
    bind_for_launch, prefetch_for_next_launch, prefetch_stream_lines, relaunch_if_unbound,
};
use crate::launch::config::LaunchConfig;
use crate::launch::memo::{self, MemoHit};
use crate::launch::ordering::arrays_quiet_on;
use kernel_device::source::FnSource;

use crate::compile::cache::KernelCache;

/// Words of the packed parameter buffer: the memo's most arguments, each a slice (two
/// slots), and the panic record.
const PACKED_WORDS: usize = 2 * memo::MEMO_ARGS + 1;

/// A launch's parameters in the driver's packed layout: each slot at the next offset
/// aligned to its own size (the layout `.param` declarations of those sizes get), the
/// panic record (`u64`) last.
pub(crate) struct PackedParams {
    words: [u64; PACKED_WORDS],
    /// Bytes used.
    size: usize,
}

impl PackedParams {
    /// `args` (scalars and device arrays: what a memo hit holds) then `record`, packed;
    /// `None` for another kind of argument, or more than the buffer holds.
    #[inline(always)]
    pub(crate) fn pack(args: &[KernelArg<'_>], record: u64) -> Option<PackedParams> {
        let mut packed = PackedParams {
            words: [0; PACKED_WORDS],
            size: 0,
        };
        for arg in args {
            match &arg.kind {
                // Low bytes of `value` hold the scalar (`KernelArg::scalar`).
                ArgKind::Scalar(scalar) => packed.put(arg.value, scalar.size_bytes() as usize)?,
                ArgKind::Device { .. } => {
                    packed.put(arg.value, 8)?;
                    packed.put(arg.len as u64, 8)?;
                }
                _ => return None,
            }
        }
        packed.put(record, 8)?;
        Some(packed)
    }

    /// Appends the low `size` bytes of `value` (`size` 1, 2, 4 or 8) at the next offset
    /// aligned to `size`: one store, no copy loop.
    #[inline(always)]
    fn put(&mut self, value: u64, size: usize) -> Option<()> {
        // `size` is a power of two: a mask, not a division, rounds the offset up.
        let at = (self.size + size - 1) & !(size - 1);
        let end = at + size;
        if end > std::mem::size_of_val(&self.words) {
            return None;
        }
        let base = self.words.as_mut_ptr() as *mut u8;
        // SAFETY: `at..end` lies inside `words` (checked above); little-endian hosts
        // (x86-64, aarch64: CUDA's) keep a value's low bytes first, so each store writes
        // the scalar's own bytes.
        unsafe {
            let at = base.add(at);
            match size {
                1 => at.write(value as u8),
                2 => (at as *mut u16).write_unaligned(value as u16),
                4 => (at as *mut u32).write_unaligned(value as u32),
                _ => (at as *mut u64).write_unaligned(value),
            }
        }
        self.size = end;
        Some(())
    }

    /// The bytes in use (for tests).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> Vec<u8> {
        // SAFETY: the words are plain data; viewed as their bytes, in place.
        let all = unsafe {
            std::slice::from_raw_parts(
                self.words.as_ptr() as *const u8,
                std::mem::size_of_val(&self.words),
            )
        };
        all[..self.size].to_vec()
    }
}

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

#[cfg(test)]
mod tests;
