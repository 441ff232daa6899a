//! Tensor-map kernel arguments (Hopper's TMA): a `&TensorMap<T, N>` passed for a
//! `map: &TensorMap<T, N>` parameter. Its two argument slots (`proc::abi`) are the
//! map's 128 bytes, which `cuLaunchKernel` copies into the kernel's `.param` space
//! (a grid constant), and the tile word the device checks each copy's tile against; on
//! the simulator, the descriptor and the tensor's buffer.

use std::sync::Arc;

use kernel_device::back::sim::{Arg, Buffer};
use kernel_device::ir::Type;
use kernel_device::proc::tma::DESCRIPTOR_BYTES;

use crate::executor::id::DeviceId;
use crate::memory::allocation::Allocation;

/// What a map argument carries to either backend (`crate::tma` makes it from a
/// `TensorMap`).
pub(crate) struct TensorMapArg<'a> {
    /// `Type::TensorMap` of the map's element type and rank.
    pub(crate) ty: Type,
    pub(crate) bytes: &'a [u8; DESCRIPTOR_BYTES],
    /// The tensor's memory on the simulator (`None` on a GPU).
    pub(crate) sim_buffer: Option<&'a Arc<Buffer>>,
    /// The tensor's GPU memory, whose uses on different streams the launch orders as
    /// a device array's (`None` on the simulator).
    pub(crate) allocation: Option<&'a Arc<Allocation>>,
    /// A `TensorMapMut`'s: the kernel may write the tensor.
    pub(crate) writable: bool,
    /// The device (and context generation) of the array the map was made from: its
    /// descriptor holds that array's address, meaningless on any other device.
    /// (A reference: the argument stays within `KernelArg`'s 96 bytes.)
    pub(crate) device: &'a DeviceId,
}

impl TensorMapArg<'_> {
    /// Where `cuLaunchKernel` reads the map's 128 bytes (it copies them).
    pub(crate) fn slot(&self) -> *mut std::ffi::c_void {
        self.bytes.as_ptr() as *mut std::ffi::c_void
    }

    /// How the argument reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match &self.ty {
            Type::TensorMap {
                elem,
                rank,
                writable,
            } => format!(
                "a `&{}<{elem}, {rank}>`",
                kernel_device::ir::map_type_name(*writable)
            ),
            other => format!("a `{other}`"),
        }
    }

    /// The simulator's argument (a map made on a GPU has no buffer: the simulator
    /// reports its descriptor as not one of its own).
    pub(crate) fn to_sim(&self) -> Arg {
        Arg::TensorMap {
            descriptor: *self.bytes,
            buffer: self
                .sim_buffer
                .cloned()
                .unwrap_or_else(|| Arc::new(Buffer::new(0))),
            writable: self.writable,
        }
    }
}
