//! Copies between devices. On GPUs: peer access is enabled once per pair of contexts
//! where the hardware allows it (NVLink or PCIe peer-to-peer), and the copy is one
//! `cuMemcpyPeer`, which the driver orders after all work queued in both contexts;
//! where peer access is impossible the driver stages the copy through host memory, and
//! [`Device::peer_path`] says which of the two a pair gets. On simulated devices the
//! bytes move between the two buffers.

use std::collections::HashSet;
use std::sync::Mutex;

use cudarc::driver::sys;

use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceElem;

/// How a copy between two devices travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerPath {
    /// Both arrays are on one device: a copy within its memory.
    SameDevice,
    /// Directly between the GPUs (peer access is enabled: NVLink or PCIe P2P), or
    /// between two simulated devices.
    Direct,
    /// Through host memory, staged by the driver: the GPUs cannot access each other.
    Staged,
}

/// `(accessor, owner, accessor's generation, owner's generation)`: one pair of contexts.
type ContextPair = (usize, usize, u64, u64);

/// Pairs of contexts whose peer access was enabled: enabling is once per pair.
static ENABLED: Mutex<Option<HashSet<ContextPair>>> = Mutex::new(None);

impl Device {
    /// How copies between this device and `other` travel; enables peer access in both
    /// directions the first time a pair of GPUs is asked. `Err` for a GPU and a
    /// simulated device (no copy crosses backends).
    pub fn peer_path(&self, other: &Device) -> Result<PeerPath> {
        if self == other {
            return Ok(PeerPath::SameDevice);
        }
        match (self.executor().cuda(), other.executor().cuda()) {
            (None, None) => Ok(PeerPath::Direct),
            (Some(_), Some(_)) => {
                let there = enable_peer_access(self, other)?;
                let back = enable_peer_access(other, self)?;
                Ok(if there && back {
                    PeerPath::Direct
                } else {
                    PeerPath::Staged
                })
            }
            _ => Err(cross_backend(self, other)),
        }
    }
}

fn cross_backend(a: &Device, b: &Device) -> Error {
    Error::Refused {
        operation: "copy between devices",
        detail: format!(
            "{} and {} are on different backends; copy through the host (`to_host`, \
             then `to_device`)",
            a.id(),
            b.id()
        ),
    }
}

/// Lets `accessor`'s context reach `owner`'s memory; `Ok(false)` when the hardware
/// cannot (the driver then stages copies through the host).
fn enable_peer_access(accessor: &Device, owner: &Device) -> Result<bool> {
    let (Some(from), Some(to)) = (accessor.executor().cuda(), owner.executor().cuda()) else {
        return Ok(false);
    };
    let key = (
        from.ordinal,
        to.ordinal,
        accessor.generation(),
        owner.generation(),
    );
    let mut enabled = ENABLED.lock().unwrap_or_else(|p| p.into_inner());
    let set = enabled.get_or_insert_with(HashSet::new);
    let mut possible = 0i32;
    // SAFETY: two valid device ordinals; the driver writes one int.
    unsafe { sys::cuDeviceCanAccessPeer(&mut possible, from.ordinal as i32, to.ordinal as i32) }
        .result()
        .call("cuDeviceCanAccessPeer")?;
    if possible == 0 {
        return Ok(false);
    }
    if set.contains(&key) {
        return Ok(true);
    }
    let _bound = accessor.bind()?;
    // SAFETY: `accessor`'s context is current; `owner`'s context is alive (its device
    // holds it). Already enabled (by another library sharing the primary contexts) is
    // success.
    match unsafe { sys::cuCtxEnablePeerAccess(to.ctx.cu_ctx(), 0) } {
        sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
        other => other.result().call("cuCtxEnablePeerAccess")?,
    }
    grant_pool_access(accessor, owner)?;
    set.insert(key);
    Ok(true)
}

/// Lets `accessor` read and write the memory of `owner`'s memory pool, where device
/// arrays come from: peer access between contexts does not reach pool memory, and
/// without this grant the driver stages every peer copy through the host (38 GB/s
/// instead of NVLink's ~390 on the H200 pair).
fn grant_pool_access(accessor: &Device, owner: &Device) -> Result<()> {
    let (Some(from), Some(pool)) = (accessor.executor().cuda(), owner.memory_pool()?) else {
        return Ok(());
    };
    let access = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: from.ordinal as i32,
        },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: a live pool of `owner`'s device and one access descriptor for a valid
    // device ordinal; the grant covers the pool's present and future allocations.
    unsafe { sys::cuMemPoolSetAccess(pool, &access, 1) }
        .result()
        .call("cuMemPoolSetAccess")
}

impl<T: DeviceElem> DeviceArray<T> {
    /// A copy of this array on `device` (another GPU, the same one, or another
    /// simulated device), ordered after the work that wrote this array.
    pub fn copy_to_device(&self, device: &Device) -> Result<DeviceArray<T>> {
        let mut copy = DeviceArray::unfilled_on(device, self.len())?;
        copy.copy_from_array(self)?;
        Ok(copy)
    }

    /// Copies `src` (of the same length, on any device of this backend) into this
    /// array: ordered after the uses of both arrays before it, and before their uses
    /// after it, on every stream of both devices.
    pub fn copy_from_array(&mut self, src: &DeviceArray<T>) -> Result<()> {
        if src.len() != self.len() {
            return Err(Error::SizeMismatch {
                operation: "copy_from_array",
                expected: self.len(),
                found: src.len(),
            });
        }
        if self.device() == src.device() {
            return self.copy_within_device(0, src, 0, self.len());
        }
        self.device().peer_path(src.device())?;
        self.ensure_current()?;
        src.ensure_current()?;
        if self.is_empty() {
            return Ok(());
        }
        match (self.sim_buffer(), src.sim_buffer()) {
            (Some(dst), Some(from)) => {
                let mut bytes = vec![0u8; src.len() * std::mem::size_of::<T>()];
                from.read(0, &mut bytes);
                dst.write(0, &bytes);
                Ok(())
            }
            _ => copy_between_gpus(self, src),
        }
    }
}

/// `cuMemcpyPeer` of the whole of `src` into `dst`, each array's use recorded on its
/// device's NULL stream (where the driver serialises the copy) so that later uses on
/// other streams wait for it.
fn copy_between_gpus<T: DeviceElem>(dst: &DeviceArray<T>, src: &DeviceArray<T>) -> Result<()> {
    let (Some(to), Some(from)) = (dst.allocation(), src.allocation()) else {
        unreachable!("two GPU arrays, both non-empty");
    };
    let (Some(dst_gpu), Some(src_gpu)) = (
        dst.device().executor().cuda(),
        src.device().executor().cuda(),
    ) else {
        unreachable!("two GPU arrays");
    };
    {
        let _bound = src.device().bind()?;
        src.device().watch(from.use_on(&None, false))?;
    }
    let _bound = dst.device().bind()?;
    dst.device().watch(to.use_on(&None, true))?;
    let bytes = dst.len() * std::mem::size_of::<T>();
    // SAFETY: both allocations hold `bytes` bytes and are alive in their (current
    // generation) contexts; the driver orders the copy after all work queued in both.
    dst.device().watch(
        unsafe {
            sys::cuMemcpyPeer(
                to.ptr,
                dst_gpu.ctx.cu_ctx(),
                from.ptr,
                src_gpu.ctx.cu_ctx(),
                bytes,
            )
        }
        .result()
        .call("cuMemcpyPeer"),
    )
}
