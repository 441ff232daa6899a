//! The device's stream-ordered memory pool that device arrays come from
//! (`cuMemAllocFromPoolAsync`, see `crate::memory::allocation`): configured once per context
//! generation, with the release threshold, trimming and the reserved bytes public.

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};

/// What the pool keeps reserved after a synchronisation before it gives memory back
/// to the driver: everything (as CuPy's pool), so that allocation in a loop costs no
/// driver round trip; `Device::set_pool_release_threshold` and
/// `Device::trim_memory_pool` give it back.
const DEFAULT_RELEASE_THRESHOLD: u64 = u64::MAX;

impl Device {
    /// The device's default memory pool (`None` when the device has none), with the
    /// release threshold set the first time in each context generation.
    pub(crate) fn memory_pool(&self) -> Result<Option<sys::CUmemoryPool>> {
        let cuda = self.cuda("memory pool")?;
        if !cuda.ctx.has_async_alloc() {
            return Ok(None);
        }
        let generation = self.generation();
        let mut state = cuda.pool.pool.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((made, pool)) = *state {
            if made == generation {
                return Ok(Some(pool));
            }
        }
        // SAFETY: the context's own device.
        let pool = unsafe { result::device::get_default_mem_pool(cuda.ctx.cu_device()) }
            .call("cuDeviceGetDefaultMemPool")?;
        set_release_threshold(pool, DEFAULT_RELEASE_THRESHOLD)?;
        *state = Some((generation, pool));
        Ok(Some(pool))
    }

    /// How many bytes the memory pool keeps reserved when the device synchronises
    /// (default: all; `0` gives freed memory back at every synchronisation). `Err` on
    /// the simulator and on a GPU without memory pools.
    pub fn set_pool_release_threshold(&self, bytes: u64) -> Result<()> {
        self.ensure_alive()?;
        let _guard = self.bind()?;
        set_release_threshold(self.pool_or_err("set_pool_release_threshold")?, bytes)
    }

    /// Gives the pool's unused memory back to the driver, keeping at least
    /// `keep_bytes` reserved.
    pub fn trim_memory_pool(&self, keep_bytes: usize) -> Result<()> {
        self.ensure_alive()?;
        let _guard = self.bind()?;
        let pool = self.pool_or_err("trim_memory_pool")?;
        // SAFETY: a live pool.
        unsafe { result::mem_pool::trim_to(pool, keep_bytes) }.call("cuMemPoolTrimTo")
    }

    /// Bytes the pool holds from the driver (in use and cached), for tests and
    /// monitoring; `Err` as `set_pool_release_threshold`.
    pub fn pool_reserved_bytes(&self) -> Result<u64> {
        self.ensure_alive()?;
        let _guard = self.bind()?;
        let pool = self.pool_or_err("pool_reserved_bytes")?;
        let mut value = 0u64;
        // SAFETY: a live pool; the attribute is a cuuint64_t.
        unsafe {
            result::mem_pool::get_attribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                &mut value as *mut u64 as *mut std::ffi::c_void,
            )
        }
        .call("cuMemPoolGetAttribute")?;
        Ok(value)
    }

    fn pool_or_err(&self, operation: &'static str) -> Result<sys::CUmemoryPool> {
        self.memory_pool()?.ok_or(Error::NotSupported {
            operation,
            backend: crate::Backend::Cuda,
        })
    }
}

fn set_release_threshold(pool: sys::CUmemoryPool, bytes: u64) -> Result<()> {
    let mut value = bytes;
    // SAFETY: a live pool; the attribute is a cuuint64_t.
    unsafe {
        result::mem_pool::set_attribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            &mut value as *mut u64 as *mut std::ffi::c_void,
        )
    }
    .call("cuMemPoolSetAttribute")
}
