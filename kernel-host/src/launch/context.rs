//! What both launch paths (`super::launch` and its fast path, `super::fast`) decide the
//! same way before any effect: the device, the stream (as the driver and as device
//! arrays know it), where a device-side panic is reported, whether the stream is still
//! usable; and the one launch call both make. One definition, so that the
//! fast path cannot decide a launch differently from the whole path it stands in for.

use std::ffi::c_void;

use cudarc::driver::sys;

use crate::device::stream::Stream;
use crate::device::stream::StreamRef;
use crate::device::Device;
use crate::error::Result;
use crate::executor::panic::StreamFaults;
use crate::launch::config::{LaunchConfig, ValidLaunch};

/// The legacy NULL stream, as device arrays remember it.
pub(crate) static NULL_STREAM: StreamRef = None;

/// A launch's device and stream.
pub(crate) struct LaunchTarget<'c> {
    pub(crate) device: &'c Device,
    /// `None`: the device's default stream (the legacy NULL stream).
    pub(crate) stream: Option<&'c Stream>,
}

impl<'c> LaunchTarget<'c> {
    /// The stream's device, or the default device on the default stream.
    #[inline(always)]
    pub(crate) fn of(config: &LaunchConfig<'c>) -> Result<LaunchTarget<'c>> {
        let device = match config.stream {
            Some(stream) => stream.device(),
            None => Device::default_ref()?,
        };
        Ok(LaunchTarget {
            device,
            stream: config.stream,
        })
    }

    /// The stream as device arrays remember their uses (`None`: the NULL stream).
    #[inline(always)]
    pub(crate) fn stream_ref(&self) -> &'c StreamRef {
        self.stream.map_or(&NULL_STREAM, |s| s.handle())
    }

    /// The stream's driver handle (null: the legacy NULL stream).
    #[inline(always)]
    pub(crate) fn cu_stream(&self) -> sys::CUstream {
        self.stream.map_or(std::ptr::null_mut(), |s| s.cu_stream())
    }

    /// Where an asynchronous launch reports a device-side panic, borrowed without
    /// reference-count traffic: a created stream's own record, or the calling thread's
    /// on the default stream once it has one (`None` before its first launch: the
    /// whole path makes it). Nothing reads the record here: the stream's (or the
    /// device's) synchronisation checks it.
    #[inline(always)]
    pub(crate) fn borrowed_faults(&self) -> Option<&'c StreamFaults> {
        match self.stream.and_then(|s| s.own_faults()) {
            Some(own) => Some(own),
            None => self.device.thread_faults_borrowed(),
        }
    }

    /// `Err` when the stream was made before a reset, or the device's context is lost
    /// (the device's liveness, for the default stream).
    #[inline(always)]
    pub(crate) fn ensure_current(&self) -> Result<()> {
        match self.stream {
            Some(stream) => stream.ensure_current(),
            None => self.device.ensure_alive(),
        }
    }
}

/// How a launch hands its parameters to the driver.
pub(crate) enum Params {
    /// `kernelParams`: a table of pointers, one per parameter slot.
    Table(*mut *mut c_void),
    /// `extra`: `CU_LAUNCH_PARAM_BUFFER_POINTER` and its size, the packed form.
    Extra(*mut *mut c_void),
}

/// `cuLaunchKernelEx` of `function` in `valid`'s shape on `stream`, without launch
/// attributes: the same launch as `cuLaunchKernel`'s, through the entry point that
/// costs the driver less host time (issue 27: on the H200, driver 580, 3.2–3.9 % less
/// than `cuLaunchKernel` with a parameter table and 1.6–2.2 % less than with the same
/// packed buffer, interleaved rounds in three processes,
/// `bench/results/2026-11-30-h200-e2ebf7b-launch-entry-points.txt`).
///
/// # Safety
/// `function` is live in the current context, `stream` is null or a live stream of
/// it, and `params` describes every parameter of `function` (its table or its packed
/// buffer, ended by `CU_LAUNCH_PARAM_END`), alive for the call (the driver copies the
/// parameters before returning).
#[inline(always)]
pub(crate) unsafe fn launch_kernel(
    function: sys::CUfunction,
    valid: &ValidLaunch,
    stream: sys::CUstream,
    params: Params,
) -> sys::CUresult {
    let (table, extra) = match params {
        Params::Table(table) => (table, std::ptr::null_mut()),
        Params::Extra(extra) => (std::ptr::null_mut(), extra),
    };
    let config = launch_config(valid.grid, valid.block, valid.shared_bytes, stream);
    // SAFETY: the caller's; `config` outlives the call and names no attributes.
    unsafe { sys::cuLaunchKernelEx(&config, function, table, extra) }
}

/// `cuLaunchKernelEx`'s configuration of a launch in this shape on `stream`, without
/// attributes (a cluster launch adds its own: `super::cluster::launch_ex`).
#[inline(always)]
pub(crate) fn launch_config(
    [gx, gy, gz]: [u32; 3],
    [bx, by, bz]: [u32; 3],
    shared_bytes: u32,
    stream: sys::CUstream,
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: gx,
        gridDimY: gy,
        gridDimZ: gz,
        blockDimX: bx,
        blockDimY: by,
        blockDimZ: bz,
        sharedMemBytes: shared_bytes,
        hStream: stream,
        attrs: std::ptr::null_mut(),
        numAttrs: 0,
    }
}
