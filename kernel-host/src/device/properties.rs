//! What a device is and how much memory it has free, in cudajit's own types (no cudarc
//! type in the public API): [`Device::mem_info`], [`Device::properties`] and
//! [`Device::attribute`] with a [`DeviceAttribute`], as Numba's
//! `cuda.current_context().get_memory_info()` and `device.<ATTRIBUTE>` give.

use crate::device::Device;
use crate::error::Result;
use crate::executor::attribute::{DeviceAttribute, DeviceProperties, MemInfo};

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
        self.executor().driver_properties(&mut properties)?;
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
