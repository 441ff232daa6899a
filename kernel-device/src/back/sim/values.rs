//! A value's scalars in memory: the one walk that loads, stores and by-value struct
//! arguments share, so memory layout and register-slot layout stay paired.

use super::fault::{Fault, R};
use super::plan::{field_offset, field_slot, mem_layout, slots, struct_field};
use super::pointer::{offset_of, ptr, ptr_add};
use super::scalar;
use crate::ir::{ScalarType, Type};

/// Why [`for_each_scalar`] stopped.
pub enum Walk {
    Fault(Box<Fault>),
    /// A type with no memory layout (only scalars, arrays and tuples have one).
    NotInMemory(Type),
}

/// Calls `visit(address, scalar, slot)` for every scalar of a value of type `ty` stored
/// at `p`, in layout order: the one walk that loads and stores share, so memory layout
/// (`mem_layout`, `field_offset`) and slot layout (`slots`, `field_slot`) stay paired.
pub fn for_each_scalar(
    ty: &Type,
    p: u64,
    slot: u32,
    visit: &mut dyn FnMut(u64, ScalarType, u32) -> R<()>,
) -> Result<(), Walk> {
    match ty {
        Type::Scalar(s) => visit(p, *s, slot).map_err(Walk::Fault),
        Type::Array { elem, len } => {
            let (stride, width) = (mem_layout(elem).0, slots(elem));
            (0..*len).try_for_each(|k| {
                for_each_scalar(elem, ptr_add(p, k * stride), slot + k as u32 * width, visit)
            })
        }
        Type::Tuple(items) => items.iter().enumerate().try_for_each(|(k, item)| {
            let (o, s) = (field_offset(items, k as u32), field_slot(items, k as u32));
            for_each_scalar(item, ptr_add(p, o), slot + s, visit)
        }),
        Type::Struct(def) => (0..def.fields.len() as u32).try_for_each(|k| {
            let Some((field, o, s)) = struct_field(def, k) else {
                return Err(Walk::NotInMemory(ty.clone()));
            };
            for_each_scalar(&field, ptr_add(p, o), slot + s, visit)
        }),
        other => Err(Walk::NotInMemory(other.clone())),
    }
}

/// The register slots of a value of type `ty` (a struct passed to a kernel by value)
/// read from its memory form `bytes`, through the walk loads use; `None` if `bytes`
/// is too short or `ty` has no memory form.
pub fn value_slots(ty: &Type, bytes: &[u8]) -> Option<Vec<u64>> {
    if mem_layout(ty).0 > bytes.len() as u64 {
        return None;
    }
    let mut out = vec![0u64; slots(ty) as usize];
    let mut visit = |address: u64, s: ScalarType, slot: u32| -> R<()> {
        let at = offset_of(address) as usize;
        let mut raw = [0u8; 8];
        let size = s.size_bytes() as usize;
        if let (Some(src), Some(dst)) = (bytes.get(at..at + size), raw.get_mut(..size)) {
            dst.copy_from_slice(src);
        }
        let bits = u64::from_le_bytes(raw);
        if let Some(o) = out.get_mut(slot as usize) {
            *o = match s {
                ScalarType::Bool => u64::from(bits & 0xff != 0),
                _ => scalar::truncate(s, bits),
            };
        }
        Ok(())
    };
    for_each_scalar(ty, ptr(0, 0), 0, &mut visit).ok()?;
    Some(out)
}
