//! What a device is and how much memory it has free, in cudajit's own types (no cudarc
//! type in the public API): [`Device::mem_info`], [`Device::properties`] and
//! [`Device::attribute`] with a [`DeviceAttribute`], as Numba's
//! `cuda.current_context().get_memory_info()` and `device.<ATTRIBUTE>` give.

use crate::device::Device;
use crate::error::Result;
use crate::executor::attribute::DeviceAttribute;

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

impl Device {
    /// Free and total device memory in bytes (`cuMemGetInfo`); `Err(NotSupported)` on
    /// the simulator, whose memory is the host's.
    pub fn mem_info(&self) -> Result<MemInfo> {
        let _guard = self.bind()?;
        let (free, total) = self.executor().mem_info()?;
        Ok(MemInfo { free, total })
    }

    /// A device attribute, read from the driver now (`Err(NotSupported)` on the
    /// simulator, which has no driver: read [`Device::limits`] or
    /// [`Device::properties`] instead).
    pub fn attribute(&self, attribute: DeviceAttribute) -> Result<i32> {
        self.executor().attribute(attribute)
    }

    /// The device's properties. On the simulator: the limits it checks launches
    /// against (an H100's), with the driver-only figures (memory, clocks, PCI) as 0.
    pub fn properties(&self) -> Result<DeviceProperties> {
        let limits = self.limits();
        let mut properties = DeviceProperties {
            name: self.name().to_string(),
            compute_capability: limits.compute_capability,
            total_memory: 0,
            multiprocessor_count: limits.multiprocessor_count,
            warp_size: limits.warp_size,
            max_threads_per_block: limits.max_threads_per_block,
            max_block_dim: limits.max_block_dim,
            max_grid_dim: limits.max_grid_dim,
            max_threads_per_multiprocessor: 2048,
            shared_memory_per_block: limits.max_shared_per_block,
            shared_memory_per_block_optin: limits.max_shared_per_block_optin,
            shared_memory_per_multiprocessor: 233_472,
            registers_per_block: 65_536,
            registers_per_multiprocessor: 65_536,
            l2_cache_bytes: 0,
            clock_rate_khz: 0,
            memory_clock_rate_khz: 0,
            memory_bus_width_bits: 0,
            concurrent_kernels: true,
            cooperative_launch: limits.cooperative_launch,
            ecc_enabled: false,
            pci_bus_id: String::new(),
        };
        if self.is_simulator() {
            return Ok(properties);
        }
        use DeviceAttribute as D;
        let read = |a: D| -> Result<u32> { Ok(self.attribute(a)?.max(0) as u32) };
        properties.total_memory = self.mem_info()?.total;
        properties.max_threads_per_multiprocessor = read(D::MaxThreadsPerMultiprocessor)?;
        properties.shared_memory_per_multiprocessor = read(D::MaxSharedMemoryPerMultiprocessor)?;
        properties.registers_per_block = read(D::MaxRegistersPerBlock)?;
        properties.registers_per_multiprocessor = read(D::MaxRegistersPerMultiprocessor)?;
        properties.l2_cache_bytes = read(D::L2CacheSize)?;
        properties.clock_rate_khz = read(D::ClockRate)?;
        properties.memory_clock_rate_khz = read(D::MemoryClockRate)?;
        properties.memory_bus_width_bits = read(D::GlobalMemoryBusWidth)?;
        properties.concurrent_kernels = read(D::ConcurrentKernels)? != 0;
        properties.ecc_enabled = read(D::EccEnabled)? != 0;
        properties.pci_bus_id = format!(
            "{:04x}:{:02x}:{:02x}",
            read(D::PciDomainId)?,
            read(D::PciBusId)?,
            read(D::PciDeviceId)?
        );
        Ok(properties)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The simulator answers with the limits it enforces, and refuses what needs a
    /// driver, in words.
    #[test]
    fn simulator_properties_are_its_limits() {
        let device = Device::simulator_with(crate::SimOptions::default());
        let p = device.properties().unwrap();
        assert_eq!(p.compute_capability, device.compute_capability());
        assert_eq!(
            p.max_threads_per_block,
            device.limits().max_threads_per_block
        );
        assert_eq!(p.warp_size, 32);
        assert_eq!(p.total_memory, 0);
        let e = device.mem_info().unwrap_err().to_string();
        assert_eq!(
            e,
            "`mem_info` is not available on the CPU simulator backend"
        );
        let e = device.attribute(DeviceAttribute::WarpSize).unwrap_err();
        assert!(e.to_string().contains("`attribute`"), "{e}");
    }
}
