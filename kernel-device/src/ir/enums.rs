//! Fieldless `#[repr(int)]` enums marked `#[derive(DeviceCopy)]`: what the frontend
//! needs to read `Op::Add` as a constant. A value of such an enum IS its repr integer
//! everywhere below the frontend (in the IR, both backends and the kernel ABI), so
//! no backend knows enums; rustc's check of the kernel's twin keeps the integer
//! from being used as anything but the enum (no arithmetic, no `u8 as Op`).

use super::types::ScalarType;

/// One enum a kernel names, as the derive (or offline discovery) describes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnumDef {
    pub name: String,
    /// The `#[repr(..)]` integer: the type of the enum's values on the device.
    pub repr: ScalarType,
    pub variants: Vec<EnumVariant>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnumVariant {
    pub name: String,
    /// rustc's discriminant (`Op::Max as i128`).
    pub discriminant: i128,
}

impl EnumDef {
    /// The discriminant of variant `name`, as the repr's two's-complement bit pattern
    /// (what `ir::Literal::Int` holds).
    pub fn variant_bits(&self, name: &str) -> Option<u64> {
        let v = self.variants.iter().find(|v| v.name == name)?;
        Some(v.discriminant as u64)
    }

    /// "`Add`, `Mul`": the variants, for a hint.
    pub fn variant_names(&self) -> String {
        self.variants
            .iter()
            .map(|v| format!("`{}`", v.name))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
