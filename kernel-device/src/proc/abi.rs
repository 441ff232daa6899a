//! The kernel ABI, in one place: how a kernel's Rust parameters become the argument
//! slots of a launch (`cuLaunchKernel`'s parameter list, the simulator's `arg_slots`).
//!
//! - a slice (`&[T]`, `&mut [T]`, a slice of structs) is two slots: the device address
//!   of its first element (`u64`), then its length in elements (`i64`);
//! - a scalar is one slot by value (`bool` as one byte, `usize`/`isize` as 64 bits), a
//!   `#[derive(DeviceCopy)]` struct one slot by value in its `ir::layout`;
//! - an N-d array (`&Nd<T, D>` / `&mut Nd<T, D>`) is the parts of [`nd_parts`]: the
//!   slice over the span of memory it covers, the element offset of index `(0, ..)` in
//!   that span (`usize`), its `D` lengths (`usize`), its `D` strides in elements
//!   (`isize`). `front::nd` turns the parameter into exactly these parameters, and the
//!   macro's launcher passes exactly these arguments;
//! - a tensor map (`&TensorMap<T, N>`, Hopper's TMA) is two slots: the 128-byte map
//!   itself by value (`.param .align 64 .b8 [128]`, a grid constant), then the tile word
//!   (`u64`, [`crate::proc::tma::TensorMapLayout::tile_word`]: what the device checks a
//!   copy's shared tile against, since the driver's map is opaque);
//! - after the Rust parameters, every kernel takes one hidden slot, the device address
//!   of the launch's panic record ([`ArgSlot::PanicRecord`]; 0: none).
//!
//! The frontend, the macro's launcher, the host's marshalling, the NVVM writer and the
//! simulator all read the layout from here.

use crate::ir::{ScalarType, Type};

/// One argument slot of a launch, in the order the kernel declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgSlot {
    /// A slice's device address (`u64`).
    Pointer,
    /// A slice's length in elements (`i64`).
    Length,
    /// A scalar, by value.
    Scalar(ScalarType),
    /// A `#[derive(DeviceCopy)]` struct, by value.
    Struct,
    /// The hidden last parameter: the address of the launch's panic record.
    PanicRecord,
    // Hopper: TMA
    /// A tensor map's 128 bytes, by value.
    TensorMap,
    /// A tensor map's tile word (`u64`).
    TensorMapTile,
}

// Hopper: TMA
/// The slots a tensor map argument takes: the map, then its tile word.
pub const TENSOR_MAP_SLOTS: [ArgSlot; 2] = [ArgSlot::TensorMap, ArgSlot::TensorMapTile];

/// The slots a slice argument takes: its address, then its length.
pub const SLICE_SLOTS: [ArgSlot; 2] = [ArgSlot::Pointer, ArgSlot::Length];

/// The slots of a kernel parameter of type `ty` (after `front::nd` has split N-d arrays
/// into their parts), or `None` for a type no kernel can take.
pub fn param_slots(ty: &Type) -> Option<Vec<ArgSlot>> {
    match ty {
        Type::Slice { .. } | Type::StructSlice { .. } => Some(SLICE_SLOTS.to_vec()),
        Type::Scalar(s) => Some(vec![ArgSlot::Scalar(*s)]),
        Type::Struct(_) => Some(vec![ArgSlot::Struct]),
        // Hopper: TMA
        Type::TensorMap { .. } => Some(TENSOR_MAP_SLOTS.to_vec()),
        _ => None,
    }
}

/// Every slot of a kernel with these parameter types, the panic record last; `None`
/// if some parameter cannot be passed to a kernel.
pub fn kernel_slots<'a>(params: impl IntoIterator<Item = &'a Type>) -> Option<Vec<ArgSlot>> {
    let mut slots = Vec::new();
    for ty in params {
        slots.extend(param_slots(ty)?);
    }
    slots.push(ArgSlot::PanicRecord);
    Some(slots)
}

/// One part of an N-d array argument, in the order of [`nd_parts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NdPart {
    /// The slice over the span of memory the array covers ([`SLICE_SLOTS`]).
    Data,
    /// The element offset of index `(0, ..)` in that span (`usize`).
    Origin,
    /// The length of one axis (`usize`).
    Shape(usize),
    /// The stride of one axis, in elements (`isize`: any order and sign).
    Stride(usize),
}

/// The parts of a `D`-dimensional array argument, in the order they are passed.
pub fn nd_parts(dims: usize) -> impl Iterator<Item = NdPart> {
    [NdPart::Data, NdPart::Origin]
        .into_iter()
        .chain((0..dims).map(NdPart::Shape))
        .chain((0..dims).map(NdPart::Stride))
}

/// The slots a `D`-dimensional array argument takes: `3 + 2 * D` (its `2 + 2 * D`
/// parts, the slice taking two).
pub fn nd_slot_count(dims: usize) -> usize {
    nd_parts(dims)
        .map(|part| match part {
            NdPart::Data => SLICE_SLOTS.len(),
            NdPart::Origin | NdPart::Shape(_) | NdPart::Stride(_) => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernels_slots_are_its_parameters_then_the_panic_record() {
        let slice = Type::Slice {
            elem: ScalarType::F32,
            mutable: true,
        };
        let slots = kernel_slots([&slice, &Type::Scalar(ScalarType::U32)]).unwrap();
        assert_eq!(
            slots,
            [
                ArgSlot::Pointer,
                ArgSlot::Length,
                ArgSlot::Scalar(ScalarType::U32),
                ArgSlot::PanicRecord
            ]
        );
        assert_eq!(kernel_slots([&Type::Unit]), None);
    }

    #[test]
    fn an_nd_array_is_its_span_origin_shape_and_strides() {
        assert_eq!(
            nd_parts(2).collect::<Vec<_>>(),
            [
                NdPart::Data,
                NdPart::Origin,
                NdPart::Shape(0),
                NdPart::Shape(1),
                NdPart::Stride(0),
                NdPart::Stride(1)
            ]
        );
        for dims in 1..=3 {
            assert_eq!(nd_parts(dims).count(), 2 + 2 * dims);
            assert_eq!(nd_slot_count(dims), 3 + 2 * dims);
        }
    }
}
