//! Launches in thread-block clusters (sm_90): the cluster shape's checks before any
//! driver call, and the launch through `cuLaunchKernelEx` with
//! `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`. The shape rule itself (whole clusters tile
//! the grid, at most 8 blocks per cluster) is `kernel_device::proc::cluster`'s, which
//! the simulator applies too.

use std::ffi::c_void;

use cudarc::driver::sys;

use crate::error::{Error, Result};
use crate::executor::limits::DeviceLimits;
use kernel_device::proc::cluster::{shape_error, MAX_PORTABLE_BLOCKS};

/// The cluster shape of `extents` (the launch's `Dim`) for a valid launch of `grid`,
/// or an `Err` naming the broken limit: an extent below 1 or past `u32`, a device below
/// compute capability 9.0, a cluster of more than 8 blocks, a grid not tiled by whole
/// clusters. (Plain arrays in and out, so that `launch::config`, which asks, is not
/// imported back.)
pub(crate) fn checked_shape(
    kernel: &str,
    extents: [i128; 3],
    grid: [u32; 3],
    limits: &DeviceLimits,
) -> Result<[u32; 3]> {
    let reject = |limit: &str, detail: String| Error::InvalidLaunch {
        kernel: kernel.to_string(),
        limit: limit.to_string(),
        detail,
    };
    let mut shape = [1u32; 3];
    for (axis, extent) in extents.into_iter().enumerate() {
        shape[axis] = u32::try_from(extent)
            .ok()
            .filter(|&e| e >= 1)
            .ok_or_else(|| {
                reject(
                    "every cluster extent must be at least 1",
                    format!("cluster {} of {extent}", ['x', 'y', 'z'][axis]),
                )
            })?;
    }
    let (major, minor) = limits.compute_capability;
    if major < 9 {
        return Err(reject(
            "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR >= 9",
            format!(
                "thread-block clusters need compute capability 9.0 or later; this device \
                 is {major}.{minor}"
            ),
        ));
    }
    if let Some((limit, detail)) = shape_error(grid, shape, MAX_PORTABLE_BLOCKS) {
        return Err(reject(&limit, detail));
    }
    Ok(shape)
}

/// `cuLaunchKernelEx` of `function` with `config` (a checked launch's shape, stream
/// and no attributes: `super::context::launch_config`) in clusters of `cluster` blocks.
///
/// # Safety
/// As `cuLaunchKernel`: `function` is live in the current context and `params` points
/// at the kernel's parameter slots, which outlive the call.
pub(crate) unsafe fn launch_ex(
    function: sys::CUfunction,
    config: sys::CUlaunchConfig,
    [cx, cy, cz]: [u32; 3],
    params: *mut *mut c_void,
) -> sys::CUresult {
    // SAFETY: a plain C struct of integers and a union; all-zero is a valid value.
    let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
        x: cx,
        y: cy,
        z: cz,
    };
    let config = sys::CUlaunchConfig {
        attrs: &mut attribute,
        numAttrs: 1,
        ..config
    };
    // SAFETY: the caller's promise; `config` and `attribute` outlive the call.
    unsafe { sys::cuLaunchKernelEx(&config, function, params, std::ptr::null_mut()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(grid: [u32; 3], cluster: [i128; 3], limits: &DeviceLimits) -> String {
        checked_shape("k", cluster, grid, limits)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_cluster_shape_is_checked_before_the_driver() {
        let sm90 = DeviceLimits::SM90_EXAMPLE;
        let ok = checked_shape("k", [2, 1, 1], [8, 1, 1], &sm90).unwrap();
        assert_eq!(ok, [2, 1, 1]);
        let e = error([6, 1, 1], [4, 1, 1], &sm90);
        assert!(e.contains("divisible") && e.contains("grid x of 6"), "{e}");
        let e = error([16, 1, 1], [16, 1, 1], &sm90);
        assert!(e.contains("portable") && e.contains("non-portable"), "{e}");
        let e = error([4, 1, 1], [0, 1, 1], &sm90);
        assert!(e.contains("at least 1"), "{e}");
        let ampere = DeviceLimits {
            compute_capability: (8, 0),
            ..sm90
        };
        let e = error([4, 1, 1], [2, 1, 1], &ampere);
        assert!(e.contains("9.0") && e.contains("8.0"), "{e}");
    }
}
