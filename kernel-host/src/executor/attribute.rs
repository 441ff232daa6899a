//! The device attributes cudajit reads from the driver, by its own names (no cudarc
//! type in the public API): below `Device`, so that the executors answering
//! [`Device::attribute`](crate::Device::attribute) name them without naming the device.

use cudarc::driver::sys::CUdevice_attribute as Attr;

/// A device attribute cudajit can read from the driver ([`Device::attribute`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceAttribute {
    MaxThreadsPerBlock,
    MaxBlockDimX,
    MaxBlockDimY,
    MaxBlockDimZ,
    MaxGridDimX,
    MaxGridDimY,
    MaxGridDimZ,
    MaxSharedMemoryPerBlock,
    MaxSharedMemoryPerBlockOptin,
    MaxSharedMemoryPerMultiprocessor,
    MaxRegistersPerBlock,
    MaxRegistersPerMultiprocessor,
    MaxThreadsPerMultiprocessor,
    MaxBlocksPerMultiprocessor,
    WarpSize,
    MultiprocessorCount,
    ComputeCapabilityMajor,
    ComputeCapabilityMinor,
    /// Core clock in kHz.
    ClockRate,
    /// Memory clock in kHz.
    MemoryClockRate,
    /// Memory bus width in bits.
    GlobalMemoryBusWidth,
    L2CacheSize,
    TotalConstantMemory,
    ConcurrentKernels,
    EccEnabled,
    CooperativeLaunch,
    UnifiedAddressing,
    MemoryPoolsSupported,
    PciBusId,
    PciDeviceId,
    PciDomainId,
}

impl DeviceAttribute {
    pub(crate) fn raw(self) -> Attr {
        use DeviceAttribute as D;
        match self {
            D::MaxThreadsPerBlock => Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            D::MaxBlockDimX => Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
            D::MaxBlockDimY => Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
            D::MaxBlockDimZ => Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
            D::MaxGridDimX => Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
            D::MaxGridDimY => Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
            D::MaxGridDimZ => Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
            D::MaxSharedMemoryPerBlock => Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
            D::MaxSharedMemoryPerBlockOptin => {
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
            }
            D::MaxSharedMemoryPerMultiprocessor => {
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
            }
            D::MaxRegistersPerBlock => Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
            D::MaxRegistersPerMultiprocessor => {
                Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR
            }
            D::MaxThreadsPerMultiprocessor => {
                Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR
            }
            D::MaxBlocksPerMultiprocessor => {
                Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR
            }
            D::WarpSize => Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE,
            D::MultiprocessorCount => Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            D::ComputeCapabilityMajor => Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            D::ComputeCapabilityMinor => Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            D::ClockRate => Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE,
            D::MemoryClockRate => Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
            D::GlobalMemoryBusWidth => Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
            D::L2CacheSize => Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
            D::TotalConstantMemory => Attr::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY,
            D::ConcurrentKernels => Attr::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS,
            D::EccEnabled => Attr::CU_DEVICE_ATTRIBUTE_ECC_ENABLED,
            D::CooperativeLaunch => Attr::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
            D::UnifiedAddressing => Attr::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
            D::MemoryPoolsSupported => Attr::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
            D::PciBusId => Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
            D::PciDeviceId => Attr::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
            D::PciDomainId => Attr::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
        }
    }
}

/// Device memory, in bytes, as the driver counts it now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemInfo {
    /// Not allocated by anyone (this process or another).
    pub free: usize,
    /// The device's memory.
    pub total: usize,
}

/// The properties Numba's and CuPy's users ask about most, read once per call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceProperties {
    pub name: String,
    pub compute_capability: (u32, u32),
    /// Device memory in bytes.
    pub total_memory: usize,
    pub multiprocessor_count: u32,
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    pub max_threads_per_multiprocessor: u32,
    pub shared_memory_per_block: u32,
    pub shared_memory_per_block_optin: u32,
    pub shared_memory_per_multiprocessor: u32,
    pub registers_per_block: u32,
    pub registers_per_multiprocessor: u32,
    pub l2_cache_bytes: u32,
    /// Core and memory clocks in kHz.
    pub clock_rate_khz: u32,
    pub memory_clock_rate_khz: u32,
    pub memory_bus_width_bits: u32,
    pub concurrent_kernels: bool,
    pub cooperative_launch: bool,
    pub ecc_enabled: bool,
    /// `domain:bus:device`, as `nvidia-smi` prints it (`0000:18:00`).
    pub pci_bus_id: String,
}
