//! TMA tensor maps on the host: [`TensorMap<T, N>`], the descriptor a Hopper kernel's
//! `cp.async.bulk.tensor` copies read, built from a [`DeviceArray`] or [`DeviceNd`]
//! with the box (the tile one copy moves), the swizzle, the L2 promotion and the
//! out-of-bounds fill. The map is checked here, before the driver sees it, by
//! `kernel_device::proc::tma`'s rules (each failure an `Err` naming the axis or the
//! byte count that is wrong), then encoded by the driver's `cuTensorMapEncodeTiled`; on
//! the simulator it is that module's plain 128-byte descriptor and no driver is called.
//!
//! Axes and box extents are given in the array's own row-major order (axis 0
//! outermost), as `DeviceNd::shape` reports them; the driver's innermost-first order is
//! this module's business. The map keeps the array's memory alive.
//!
//! Two kinds, as for slices: a [`TensorMap`] is built from a shared borrow, holds it
//! while it lives (so no `&mut` of the array can be lent beside it: a kernel reading
//! the array through the map while writing it through a slice would race) and is only
//! read through (`tma_load`, a kernel's `&TensorMap<T, N>`); a [`TensorMapMut`] is built
//! from the array's `&mut` and holds that borrow while it lives, so it is the one map
//! of the array and no other argument lends it meanwhile — the only map `tma_store`
//! writes through (a kernel's `&TensorMapMut<T, N>`). A store map's rows must span a
//! multiple of 16 bytes (`TensorMapLayout::check_store_rows`: the GPU writes a box's
//! rows on to that boundary). At a launch a map's array is ordered across streams as
//! the array would be: a read for a `TensorMap`, a write for a `TensorMapMut`.

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use cudarc::driver::sys;
use kernel_device::back::sim::Buffer;
pub use kernel_device::proc::tma::{L2Promotion, OobFill, Swizzle};
use kernel_device::proc::tma::{TensorMapLayout, DESCRIPTOR_BYTES, MAX_RANK};

use crate::error::{DriverResultExt, Error, Result};
use crate::executor::id::DeviceId;
use crate::launch::nd::DeviceNd;
use crate::memory::allocation::Allocation;
use crate::memory::array::DeviceArray;
use crate::memory::elem::DeviceScalar;

/// How a map lays out and fills its boxes; `Default` is no swizzle, no L2 promotion,
/// zeros outside the tensor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TensorMapOptions {
    pub swizzle: Swizzle,
    pub l2_promotion: L2Promotion,
    pub oob_fill: OobFill,
}

/// The 128 bytes of a tensor map, aligned as the kernel parameter that holds them
/// (`.param .align 64 .b8 map[128]`).
#[repr(C, align(64))]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TensorMapBytes(pub [u8; DESCRIPTOR_BYTES]);

/// What keeps the tensor's memory alive as long as the map.
#[derive(Clone)]
enum Keep {
    /// The driver's map holds the address; the launch orders the memory's uses.
    Gpu(Arc<Allocation>),
    Sim(Arc<Buffer>),
    /// An empty array has no memory (and no map of it passes the checks).
    Nothing,
}

/// A tiled tensor map over an `N`-axis tensor of `T` (1 ≤ `N` ≤ 5), holding the shared
/// borrow of the array it was built from.
///
/// Writing the array while a map of it lives does not compile (the kernel would read
/// it through the map and write it through the slice at once):
///
/// ```compile_fail,E0502
/// use kernel_host::{Device, DeviceArray, DeviceNd, TensorMap, TensorMapOptions};
/// let device = Device::simulator().unwrap();
/// let array = DeviceArray::from_slice_on(&device, &[0f32; 64 * 64]).unwrap();
/// let mut nd = DeviceNd::from_array(array, [64, 64]).unwrap();
/// let load = TensorMap::tiled(&nd, [16, 16], TensorMapOptions::default()).unwrap();
/// let written = nd.array_mut();
/// drop((load, written));
/// ```
#[derive(Clone)]
pub struct TensorMap<'a, T: DeviceScalar, const N: usize> {
    bytes: TensorMapBytes,
    layout: TensorMapLayout,
    keep: Keep,
    /// The array's device: a launch elsewhere is an `Err` (`launch::args::check_args`).
    device: DeviceId,
    _array: PhantomData<&'a DeviceArray<T>>,
}

impl<T: DeviceScalar, const N: usize> std::fmt::Debug for TensorMap<'_, T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TensorMap<{:?}, {N}> {{ shape: {:?}, box: {:?}, {:?} }}",
            T::SCALAR,
            self.shape(),
            self.box_shape(),
            self.layout.swizzle
        )
    }
}

impl<'a, T: DeviceScalar, const N: usize> TensorMap<'a, T, N> {
    /// A map of the row-major N-d array `nd`, copying boxes of `box_shape` elements.
    pub fn tiled(
        nd: &'a DeviceNd<T, N>,
        box_shape: [u32; N],
        options: TensorMapOptions,
    ) -> Result<Self> {
        let shape = nd.shape().map(|n| n as u64);
        let elem = std::mem::size_of::<T>() as u64;
        // Row-major: each axis steps over the product of the later axes' lengths.
        let mut strides = [0u64; N];
        let mut step = elem;
        for axis in (0..N).rev() {
            strides[axis] = step;
            step *= shape[axis];
        }
        Self::with_strides(nd.array(), shape, strides, box_shape, options)
    }

    /// A map of `array` viewed with `shape` and byte `strides` (row-major order: axis 0
    /// outermost; the last axis must be dense, its stride the element size), for
    /// padded rows or a sub-tensor. `Err` where the view reaches past the array.
    pub fn with_strides(
        array: &'a DeviceArray<T>,
        shape: [u64; N],
        strides: [u64; N],
        box_shape: [u32; N],
        options: TensorMapOptions,
    ) -> Result<Self> {
        let invalid = |detail: String| Error::InvalidTensorMap { detail };
        if N == 0 || N > MAX_RANK {
            return Err(invalid(format!("a tensor map has 1 to 5 axes, not {N}")));
        }
        let elem = std::mem::size_of::<T>() as u64;
        if strides[N - 1] != elem {
            return Err(invalid(format!(
                "the last axis must be dense: its stride is {} bytes, not the element's {elem}",
                strides[N - 1]
            )));
        }
        // Driver order: innermost first.
        let mut layout = TensorMapLayout {
            elem: T::SCALAR,
            rank: N,
            global_dims: [1; MAX_RANK],
            global_strides: [0; MAX_RANK - 1],
            box_dims: [1; MAX_RANK],
            swizzle: options.swizzle,
            oob_fill: options.oob_fill,
            l2_promotion: options.l2_promotion,
        };
        for i in 0..N {
            layout.global_dims[i] = shape[N - 1 - i];
            layout.box_dims[i] = box_shape[N - 1 - i];
            if i > 0 {
                layout.global_strides[i - 1] = strides[N - 1 - i];
            }
        }
        let (keep, address) = match (array.allocation(), array.sim_buffer()) {
            (Some(gpu), _) => (Keep::Gpu(gpu.clone()), array.device_ptr()),
            (None, Some(sim)) => (Keep::Sim(sim.clone()), 0),
            (None, None) => (Keep::Nothing, 0),
        };
        layout.check(address).map_err(invalid)?;
        let last_byte = (0..N)
            .map(|axis| (shape[axis] - 1) * strides[axis])
            .sum::<u64>()
            + elem;
        let array_bytes = array.len() as u64 * elem;
        if last_byte > array_bytes {
            return Err(invalid(format!(
                "the shape {shape:?} with strides {strides:?} bytes reaches byte {last_byte}; the array has {array_bytes}"
            )));
        }
        let bytes = match keep {
            Keep::Gpu(_) => encode_tiled(&layout, address)?,
            Keep::Sim(_) | Keep::Nothing => TensorMapBytes(layout.to_descriptor(address)),
        };
        Ok(TensorMap {
            bytes,
            layout,
            keep,
            device: array.device_id(),
            _array: PhantomData,
        })
    }

    /// The 128 bytes a kernel parameter of this map receives.
    pub fn bytes(&self) -> &TensorMapBytes {
        &self.bytes
    }

    /// The layout, innermost axis first (the driver's and the simulator's order).
    pub fn layout(&self) -> &TensorMapLayout {
        &self.layout
    }

    /// The tensor's shape, row-major.
    pub fn shape(&self) -> [u64; N] {
        std::array::from_fn(|axis| self.layout.global_dims[N - 1 - axis])
    }

    /// The box's shape, row-major.
    pub fn box_shape(&self) -> [u32; N] {
        std::array::from_fn(|axis| self.layout.box_dims[N - 1 - axis])
    }

    /// The bytes one box copy moves: what its mbarrier's `expect_tx` must say.
    pub fn box_bytes(&self) -> u32 {
        self.layout.box_bytes() as u32
    }

    /// The simulator's buffer under the map (`None` on a GPU).
    pub fn sim_buffer(&self) -> Option<&Arc<Buffer>> {
        match &self.keep {
            Keep::Sim(buffer) => Some(buffer),
            Keep::Gpu(_) | Keep::Nothing => None,
        }
    }

    /// The GPU memory under the map (`None` on the simulator).
    fn allocation(&self) -> Option<&Arc<Allocation>> {
        match &self.keep {
            Keep::Gpu(memory) => Some(memory),
            Keep::Sim(_) | Keep::Nothing => None,
        }
    }

    /// The kernel argument of this map; `writable` for a `&TensorMapMut` parameter.
    fn kernel_arg(&self, writable: bool) -> crate::launch::args::KernelArg<'_> {
        use crate::launch::tensor_map::TensorMapArg;
        crate::launch::args::KernelArg {
            kind: crate::launch::args::ArgKind::TensorMap(TensorMapArg {
                ty: kernel_device::ir::Type::TensorMap {
                    elem: T::SCALAR,
                    rank: N as u8,
                    writable,
                },
                bytes: &self.bytes.0,
                sim_buffer: self.sim_buffer(),
                allocation: self.allocation(),
                writable,
                device: &self.device,
            }),
            value: 0,
            len: self.layout.tile_word() as i64,
        }
    }
}

/// A tiled tensor map that kernels store through (`tma_store`, a kernel's
/// `&TensorMapMut<T, N>` parameter): built from the array's `&mut`, whose borrow it
/// holds, so while it lives no other map or argument lends the array. It reads as a
/// [`TensorMap`] (and passes for a `&TensorMap<T, N>` parameter, as a read).
///
/// A second map of the array beside it does not compile:
///
/// ```compile_fail,E0499
/// use kernel_host::{Device, DeviceArray, DeviceNd, TensorMapMut, TensorMapOptions};
/// let device = Device::simulator().unwrap();
/// let array = DeviceArray::from_slice_on(&device, &[0f32; 64 * 64]).unwrap();
/// let mut nd = DeviceNd::from_array(array, [64, 64]).unwrap();
/// let a = TensorMapMut::tiled(&mut nd, [16, 16], TensorMapOptions::default()).unwrap();
/// let b = TensorMapMut::tiled(&mut nd, [8, 16], TensorMapOptions::default()).unwrap();
/// drop((a, b));
/// ```
///
/// nor does lending the array (here as a read-only map's source) while it lives:
///
/// ```compile_fail,E0502
/// use kernel_host::{Device, DeviceArray, DeviceNd, TensorMap, TensorMapMut, TensorMapOptions};
/// let device = Device::simulator().unwrap();
/// let array = DeviceArray::from_slice_on(&device, &[0f32; 64 * 64]).unwrap();
/// let mut nd = DeviceNd::from_array(array, [64, 64]).unwrap();
/// let store = TensorMapMut::tiled(&mut nd, [16, 16], TensorMapOptions::default()).unwrap();
/// let load = TensorMap::tiled(&nd, [16, 16], TensorMapOptions::default()).unwrap();
/// drop((store, load));
/// ```
pub struct TensorMapMut<'a, T: DeviceScalar, const N: usize> {
    map: TensorMap<'a, T, N>,
    _array: PhantomData<&'a mut DeviceArray<T>>,
}

impl<T: DeviceScalar, const N: usize> std::fmt::Debug for TensorMapMut<'_, T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TensorMapMut({:?})", self.map)
    }
}

impl<'a, T: DeviceScalar, const N: usize> Deref for TensorMapMut<'a, T, N> {
    type Target = TensorMap<'a, T, N>;

    fn deref(&self) -> &TensorMap<'a, T, N> {
        &self.map
    }
}

impl<'a, T: DeviceScalar, const N: usize> TensorMapMut<'a, T, N> {
    /// [`TensorMap::tiled`] of an array kernels store into.
    pub fn tiled(
        nd: &'a mut DeviceNd<T, N>,
        box_shape: [u32; N],
        options: TensorMapOptions,
    ) -> Result<Self> {
        Self::writable(TensorMap::tiled(nd, box_shape, options)?)
    }

    /// [`TensorMap::with_strides`] of an array kernels store into; also `Err` where the
    /// view's rows (its last axis) do not span a multiple of 16 bytes, since a store
    /// writes each row on to that boundary, past the view.
    pub fn with_strides(
        array: &'a mut DeviceArray<T>,
        shape: [u64; N],
        strides: [u64; N],
        box_shape: [u32; N],
        options: TensorMapOptions,
    ) -> Result<Self> {
        Self::writable(TensorMap::with_strides(
            array, shape, strides, box_shape, options,
        )?)
    }

    fn writable(map: TensorMap<'a, T, N>) -> Result<Self> {
        map.layout
            .check_store_rows()
            .map_err(|detail| Error::InvalidTensorMap { detail })?;
        Ok(TensorMapMut {
            map,
            _array: PhantomData,
        })
    }
}

impl<'a, T: DeviceScalar> TensorMapMut<'a, T, 1> {
    /// [`TensorMap::tiled_1d`] of an array kernels store into (its length a multiple
    /// of 16 bytes: see [`TensorMapMut::with_strides`]).
    pub fn tiled_1d(
        array: &'a mut DeviceArray<T>,
        box_len: u32,
        options: TensorMapOptions,
    ) -> Result<Self> {
        Self::writable(TensorMap::tiled_1d(array, box_len, options)?)
    }
}

impl<'a, T: DeviceScalar> TensorMap<'a, T, 1> {
    /// A map of a flat array, copying boxes of `box_len` elements.
    pub fn tiled_1d(
        array: &'a DeviceArray<T>,
        box_len: u32,
        options: TensorMapOptions,
    ) -> Result<Self> {
        let elem = std::mem::size_of::<T>() as u64;
        Self::with_strides(array, [array.len() as u64], [elem], [box_len], options)
    }
}

/// The driver's tiled map of a tensor at `address` (checked already).
fn encode_tiled(layout: &TensorMapLayout, address: u64) -> Result<TensorMapBytes> {
    use kernel_device::ir::ScalarType as S;
    use sys::CUtensorMapDataType as D;
    let data_type = match layout.elem {
        S::U8 | S::I8 | S::E4M3 => D::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        S::U16 | S::I16 => D::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        S::U32 => D::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        S::I32 => D::CU_TENSOR_MAP_DATA_TYPE_INT32,
        S::U64 | S::Usize => D::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        S::I64 | S::Isize => D::CU_TENSOR_MAP_DATA_TYPE_INT64,
        S::F16 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        S::BF16 => D::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        S::F32 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        S::F64 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        S::Bool => unreachable!("checked: no map of bool"),
    };
    let swizzle = match layout.swizzle {
        Swizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
        Swizzle::B32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        Swizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        Swizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
    };
    let l2 = match layout.l2_promotion {
        L2Promotion::None => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
        L2Promotion::B64 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
        L2Promotion::B128 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        L2Promotion::B256 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
    };
    let fill = match layout.oob_fill {
        OobFill::Zeros => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        OobFill::NanRequestZeroFma => {
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
        }
    };
    let element_strides = [1u32; MAX_RANK];
    let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
    // SAFETY: the arrays hold at least `rank` entries each (the driver reads `rank`, and
    // `rank - 1` strides); `map` is a writable CUtensorMap; the address is the device
    // memory the map keeps alive.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            map.as_mut_ptr(),
            data_type,
            layout.rank as u32,
            address as *mut std::ffi::c_void,
            layout.global_dims.as_ptr(),
            layout.global_strides.as_ptr(),
            layout.box_dims.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            l2,
            fill,
        )
    }
    .result()
    .call("cuTensorMapEncodeTiled")?;
    // SAFETY: the driver initialised the map (and it was zeroed before).
    let map = unsafe { map.assume_init() };
    let mut bytes = [0u8; DESCRIPTOR_BYTES];
    for (chunk, word) in bytes.chunks_exact_mut(8).zip(map.opaque) {
        chunk.copy_from_slice(&word.to_ne_bytes());
    }
    Ok(TensorMapBytes(bytes))
}

// The kernel argument (`launch::tensor_map`): here, where the map is, so that the
// launch code does not depend on this module.
impl<T: DeviceScalar, const N: usize> kernel_device::device_api::tma::TensorMapOf<T, N>
    for TensorMap<'_, T, N>
{
}

impl<T: DeviceScalar, const N: usize> kernel_device::device_api::tma::TensorMapOf<T, N>
    for TensorMapMut<'_, T, N>
{
}

impl<T: DeviceScalar, const N: usize> kernel_device::device_api::tma::TensorMapMutOf<T, N>
    for TensorMapMut<'_, T, N>
{
}

impl<'a> crate::launch::args::KernelArg<'a> {
    /// A tensor map for a `&TensorMap<T, N>` parameter (the generated launcher's call):
    /// the map's bytes, then its tile word in the second slot; its array is read.
    pub fn tensor_map<T: DeviceScalar, const N: usize>(map: &'a TensorMap<'_, T, N>) -> Self {
        map.kernel_arg(false)
    }

    /// A tensor map for a `&TensorMapMut<T, N>` parameter: as [`Self::tensor_map`],
    /// its array written.
    pub fn tensor_map_mut<T: DeviceScalar, const N: usize>(
        map: &'a TensorMapMut<'_, T, N>,
    ) -> Self {
        map.map.kernel_arg(true)
    }
}

#[cfg(test)]
mod tests;
