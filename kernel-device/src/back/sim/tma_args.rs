//! A `&TensorMap<T, N>` argument on the simulator: the layout its descriptor says
//! (checked against the parameter's type), the descriptor with the tensor's simulated
//! address patched in (the launch places it in a region of its own, and the tensor's
//! buffer as a slice's), and its tile word (`proc::abi`'s second slot).

use std::sync::{Arc, LazyLock};

use super::config::Arg;
use super::memory::Buffer;
use crate::ir::{ScalarType, Type};
use crate::proc::tma::{TensorMapLayout, DESCRIPTOR_BYTES};

/// The layout and tensor buffer of map argument `arg` for a parameter of type `ty`, or
/// what the argument is instead.
pub(super) fn map_layout<'a>(
    ty: &Type,
    arg: &'a Arg,
) -> Result<(TensorMapLayout, &'a Arc<Buffer>), String> {
    let Arg::TensorMap {
        descriptor,
        buffer,
        writable,
    } = arg
    else {
        return Err("not a tensor map".into());
    };
    let Some((layout, _)) = TensorMapLayout::from_descriptor(descriptor) else {
        return Err("a tensor map made for a GPU, not the simulator".into());
    };
    let own = Type::TensorMap {
        elem: layout.elem,
        rank: layout.rank as u8,
        writable: *writable,
    };
    if *ty != own {
        return Err(format!("a `{own}`"));
    }
    Ok((layout, buffer))
}

/// The type of a map's tensor region (its buffer's elements).
pub(super) fn tensor_type(layout: &TensorMapLayout, buffer: &Buffer) -> Type {
    let elems = buffer.len() as u64 / layout.elem_bytes();
    Type::array(Type::Scalar(layout.elem), elems)
}

/// The type of a descriptor's region.
pub(super) static DESCRIPTOR_TYPE: LazyLock<Type> =
    LazyLock::new(|| Type::array(Type::Scalar(ScalarType::U8), DESCRIPTOR_BYTES as u64));

/// The descriptor of `layout` for a tensor at simulated address `tensor`.
pub(super) fn descriptor(layout: &TensorMapLayout, tensor: u64) -> Buffer {
    let bytes = Buffer::new(DESCRIPTOR_BYTES);
    bytes.write(0, &layout.to_descriptor(tensor));
    bytes
}

/// A map argument's tile word.
pub(super) fn tile_word_of(arg: &Arg) -> Option<u64> {
    match arg {
        Arg::TensorMap { descriptor, .. } => {
            TensorMapLayout::from_descriptor(descriptor).map(|(layout, _)| layout.tile_word())
        }
        _ => None,
    }
}
