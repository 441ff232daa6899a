//! A device's launch limits (block and grid extents, shared memory, warp size,
//! cooperative launch), read once when the device opens. They sit in `device`, below
//! `launch`, so that the executors that fill them in and the launch check that reads
//! them both import downward.

/// The device limits a launch is checked against, read once per device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    /// Shared memory a block may use without opting in (48 KiB on every GPU since Kepler).
    pub max_shared_per_block: u32,
    /// Shared memory a block may use after raising the kernel's attribute.
    pub max_shared_per_block_optin: u32,
    pub warp_size: u32,
    pub compute_capability: (u32, u32),
    pub multiprocessor_count: u32,
    /// `CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH`: kernels that call `grid_sync()` can run.
    pub cooperative_launch: bool,
}

impl DeviceLimits {
    /// An H100's limits, for examples and tests that need plausible numbers.
    pub const SM90_EXAMPLE: DeviceLimits = DeviceLimits {
        max_threads_per_block: 1024,
        max_block_dim: [1024, 1024, 64],
        max_grid_dim: [2_147_483_647, 65535, 65535],
        max_shared_per_block: 49152,
        max_shared_per_block_optin: 232_448,
        warp_size: 32,
        compute_capability: (9, 0),
        multiprocessor_count: 132,
        cooperative_launch: true,
    };
}
