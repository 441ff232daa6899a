//! Cooperative launches, for kernels that call `grid_sync()`.
//!
//! A grid barrier only returns once every block has reached it, so every block must be
//! resident on the GPU at once: a grid larger than that would wait forever. The check
//! here runs before the driver is called (the driver would refuse such a grid too, but
//! only with `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`), and names the limit and what
//! fits: the occupancy calculator's blocks per multiprocessor for this block size and
//! dynamic shared memory, times the multiprocessors.

use crate::compile::loaded::LoadedKernel;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::executor::limits::DeviceLimits;
use crate::launch::config::{LaunchConfig, ValidLaunch};

/// The limit named when a cooperative grid is too large.
const CO_RESIDENCY_LIMIT: &str =
    "cuOccupancyMaxActiveBlocksPerMultiprocessor x CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT";

/// `Err` unless `device` can launch cooperatively at all.
pub(crate) fn check_support(kernel: &str, limits: &DeviceLimits) -> Result<()> {
    if limits.cooperative_launch {
        return Ok(());
    }
    Err(Error::InvalidLaunch {
        kernel: kernel.to_string(),
        limit: "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH".into(),
        detail: "the kernel calls grid_sync(), which needs a cooperative launch, and this \
                 device does not support cooperative launches"
            .into(),
    })
}

/// How many blocks of `valid`'s shape can be resident at once on `device`.
pub(crate) fn max_grid_blocks(
    kernel: &LoadedKernel,
    device: &Device,
    valid: &ValidLaunch,
) -> Result<u32> {
    let threads = valid.block.iter().product::<u32>();
    let per_sm = kernel
        .occupancy
        .blocks_per_sm(kernel, threads, valid.shared_bytes)?;
    Ok(per_sm.saturating_mul(device.multiprocessor_count()))
}

/// Checks a cooperative launch before the driver sees it: the device supports it and
/// the grid's blocks can all be resident at once.
pub(crate) fn check_launch(
    kernel: &LoadedKernel,
    device: &Device,
    valid: &ValidLaunch,
) -> Result<()> {
    check_support(&kernel.name, device.limits())?;
    let per_sm = kernel.occupancy.blocks_per_sm(
        kernel,
        valid.block.iter().product::<u32>(),
        valid.shared_bytes,
    )?;
    check_co_resident(&kernel.name, valid, per_sm, device.multiprocessor_count())
}

/// The pure co-residency rule: a grid of at most `blocks_per_sm × multiprocessors`
/// blocks.
pub(crate) fn check_co_resident(
    kernel: &str,
    valid: &ValidLaunch,
    blocks_per_sm: u32,
    multiprocessors: u32,
) -> Result<()> {
    let blocks = valid.grid.iter().map(|&g| u64::from(g)).product::<u64>();
    let max = u64::from(blocks_per_sm) * u64::from(multiprocessors);
    if blocks <= max {
        return Ok(());
    }
    let threads = valid.block.iter().product::<u32>();
    let fit = if blocks_per_sm == 0 {
        "no block of this shape fits on a multiprocessor at all (too many registers or too \
         much shared memory per block)"
            .to_string()
    } else {
        format!(
            "at most {max} blocks ({blocks_per_sm} per multiprocessor x {multiprocessors} \
             multiprocessors) fit at once; size the grid with \
             `{kernel}::max_cooperative_grid_blocks(block)`"
        )
    };
    Err(Error::InvalidLaunch {
        kernel: kernel.to_string(),
        limit: CO_RESIDENCY_LIMIT.into(),
        detail: format!(
            "the kernel calls grid_sync(), so all blocks of its grid must be resident at \
             once, but a grid of {blocks} blocks of {threads} threads with {} bytes of \
             dynamic shared memory cannot be: {fit}",
            valid.shared_bytes
        ),
    })
}

/// [`max_cooperative_grid_blocks`](crate::launch::max_cooperative_grid_blocks) on a
/// GPU: the occupancy calculator's answer for `shape`'s block and shared memory.
pub(crate) fn max_grid_blocks_on_gpu(
    source: &'static kernel_device::source::FnSource,
    cache: &'static crate::compile::cache::KernelCache,
    shape: &LaunchConfig<'_>,
    device: &Device,
) -> Result<u32> {
    let valid = shape.validate_for(source, device.limits())?;
    check_support(source.name, device.limits())?;
    let _guard = device.bind()?;
    let kernel = cache.get(source, device)?;
    let valid = valid.with_static_shared(source.name, kernel.static_shared, device.limits())?;
    if valid.needs_shared_opt_in {
        kernel.allow_shared(valid.shared_bytes)?;
    }
    max_grid_blocks(kernel, device, &valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(grid: [u32; 3], block: [u32; 3], shared_bytes: u32) -> ValidLaunch {
        ValidLaunch {
            grid,
            block,
            shared_bytes,
            needs_shared_opt_in: false,
            cluster: [1, 1, 1],
        }
    }

    #[test]
    fn co_resident_grids_pass() {
        let v = valid([264, 1, 1], [256, 1, 1], 0);
        check_co_resident("k", &v, 2, 132).unwrap();
        let v = valid([12, 11, 2], [32, 4, 1], 1024);
        check_co_resident("k", &v, 2, 132).unwrap();
    }

    #[test]
    fn a_grid_too_large_names_the_limit_and_what_fits() {
        let v = valid([265, 1, 1], [256, 1, 1], 4096);
        let error = check_co_resident("two_phase", &v, 2, 132).unwrap_err();
        let Error::InvalidLaunch { limit, detail, .. } = &error else {
            panic!("{error:?}");
        };
        assert_eq!(limit, CO_RESIDENCY_LIMIT);
        assert!(
            detail.contains("grid of 265 blocks of 256 threads"),
            "{detail}"
        );
        assert!(
            detail.contains("4096 bytes of dynamic shared memory"),
            "{detail}"
        );
        assert!(
            detail.contains("at most 264 blocks (2 per multiprocessor x 132"),
            "{detail}"
        );
        let text = error.to_string();
        assert!(text.starts_with("launch of `two_phase` rejected: the kernel calls grid_sync()"));
    }

    #[test]
    fn huge_grids_do_not_overflow() {
        let v = valid([2_147_483_647, 65535, 65535], [1024, 1, 1], 0);
        let error = check_co_resident("k", &v, 32, 132).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("grid of 9223090559730712575 blocks"),
            "{error}"
        );
    }

    #[test]
    fn a_block_that_never_fits_says_so() {
        let v = valid([1, 1, 1], [1024, 1, 1], 0);
        let error = check_co_resident("k", &v, 0, 132).unwrap_err();
        assert!(
            error.to_string().contains("no block of this shape fits"),
            "{error}"
        );
    }

    #[test]
    fn unsupported_devices_are_an_error() {
        let mut limits = DeviceLimits::SM90_EXAMPLE;
        check_support("k", &limits).unwrap();
        limits.cooperative_launch = false;
        let error = check_support("k", &limits).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)"),
            "{error}"
        );
    }
}
