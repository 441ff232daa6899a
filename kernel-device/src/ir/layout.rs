//! Plain structs (`#[derive(DeviceCopy)] #[repr(C)]`) and the one memory layout every
//! stage agrees on: the NVVM writer (whose literal struct types LLVM lays out the same
//! way), the simulator (byte offsets into its buffers) and the derive, which asserts
//! at compile time that these numbers equal rustc's `size_of`/`align_of`/`offset_of!`.
//! The layout is `#[repr(C)]`'s: fields in order, each at the next multiple of its
//! alignment; the size rounded up to the largest alignment.

use super::types::{ScalarType, Type};

/// A struct a kernel may use: its Rust name and its fields in declaration order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<StructField>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructField {
    pub name: String,
    pub ty: Type,
}

impl StructDef {
    /// The index of the field called `name`.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// Byte offset of each field (`#[repr(C)]`), or `None` if a field has no memory
    /// layout (a type the derive never produces).
    pub fn offsets(&self) -> Option<Vec<u64>> {
        let fields = self.field_layouts()?;
        Some(
            (0..fields.len())
                .map(|i| field_offset(&fields, i))
                .collect(),
        )
    }

    fn field_layouts(&self) -> Option<Vec<Layout>> {
        self.fields.iter().map(|f| layout(&f.ty)).collect()
    }
}

/// Size and alignment in bytes of a type in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub size: u64,
    pub align: u64,
}

/// A scalar's layout: `bool` is a byte; every other scalar is aligned to its size.
pub const fn scalar_layout(s: ScalarType) -> Layout {
    let size = s.size_bytes() as u64;
    Layout { size, align: size }
}

/// `#[repr(C)]`'s offset of field `index` among fields of layouts `fields`. A `const
/// fn` so that the derive's compile-time check runs this very code.
pub const fn field_offset(fields: &[Layout], index: usize) -> u64 {
    let mut offset = 0u64;
    let mut i = 0;
    while i < fields.len() {
        offset = offset.next_multiple_of(fields[i].align);
        if i == index {
            return offset;
        }
        offset += fields[i].size;
        i += 1;
    }
    offset
}

/// `#[repr(C)]`'s layout of a struct of fields of layouts `fields`.
pub const fn struct_layout(fields: &[Layout]) -> Layout {
    let mut align = 1u64;
    let mut end = 0u64;
    let mut i = 0;
    while i < fields.len() {
        if fields[i].align > align {
            align = fields[i].align;
        }
        end = field_offset(fields, i) + fields[i].size;
        i += 1;
    }
    Layout {
        size: end.next_multiple_of(align),
        align,
    }
}

/// Padding bytes of a struct whose fields have `fields` layouts and hold
/// `field_padding` padding bytes themselves.
pub const fn struct_padding(fields: &[Layout], field_padding: &[u64]) -> u64 {
    let mut data = 0u64;
    let mut i = 0;
    while i < fields.len() {
        data += fields[i].size - field_padding[i];
        i += 1;
    }
    struct_layout(fields).size - data
}

/// The memory layout of `ty`: scalars, arrays and structs have one; `None` for values
/// that never live in memory as such (slices, tuples, references).
pub fn layout(ty: &Type) -> Option<Layout> {
    match ty {
        Type::Scalar(s) => Some(scalar_layout(*s)),
        Type::Array { elem, len } => {
            let elem = layout(elem)?;
            Some(Layout {
                size: elem.size.checked_mul(*len)?,
                align: elem.align,
            })
        }
        Type::Struct(def) => Some(struct_layout(&def.field_layouts()?)),
        _ => None,
    }
}

/// Bytes of `ty` that are padding (between fields or at the end), nested structs and
/// arrays of structs included. The host copies arrays of structs as raw bytes, so
/// the derive accepts only structs without padding (padding bytes are uninitialised).
pub fn padding_bytes(ty: &Type) -> Option<u64> {
    match ty {
        Type::Scalar(_) => Some(0),
        Type::Array { elem, len } => padding_bytes(elem)?.checked_mul(*len),
        Type::Struct(def) => {
            let padding = def
                .fields
                .iter()
                .map(|f| padding_bytes(&f.ty))
                .collect::<Option<Vec<u64>>>()?;
            Some(struct_padding(&def.field_layouts()?, &padding))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn def(name: &str, fields: &[(&str, Type)]) -> Type {
        Type::Struct(Arc::new(StructDef {
            name: name.to_string(),
            fields: fields
                .iter()
                .map(|(n, t)| StructField {
                    name: n.to_string(),
                    ty: t.clone(),
                })
                .collect(),
        }))
    }

    #[test]
    fn repr_c_offsets_size_and_alignment() {
        let f32 = Type::Scalar(ScalarType::F32);
        let vec3 = def(
            "Vec3",
            &[("x", f32.clone()), ("y", f32.clone()), ("z", f32.clone())],
        );
        let mixed = def(
            "Mixed",
            &[
                ("flag", Type::Scalar(ScalarType::Bool)),
                ("v", vec3.clone()),
                ("n", Type::Scalar(ScalarType::U64)),
                ("tag", Type::Scalar(ScalarType::U8)),
            ],
        );
        let Type::Struct(m) = &mixed else {
            unreachable!()
        };
        assert_eq!(m.offsets(), Some(vec![0, 4, 16, 24]));
        assert_eq!(layout(&mixed), Some(Layout { size: 32, align: 8 }));
        assert_eq!(padding_bytes(&mixed), Some(3 + 7));
        assert_eq!(layout(&vec3), Some(Layout { size: 12, align: 4 }));
        assert_eq!(padding_bytes(&vec3), Some(0));
        let arr = Type::array(vec3, 2);
        assert_eq!(layout(&arr), Some(Layout { size: 24, align: 4 }));
    }
}

/// `num_complex::Complex<T>` (`#[repr(C)] { re: T, im: T }`) for `T` = f32 or f64: a
/// struct every stage knows without a derive (the frontend expands its arithmetic
/// and methods to scalar math, `front::complex`). Its name is how it is written.
pub fn complex_def(elem: ScalarType) -> StructDef {
    StructDef {
        name: format!("Complex<{elem}>"),
        fields: ["re", "im"]
            .map(|name| StructField {
                name: name.to_string(),
                ty: Type::Scalar(elem),
            })
            .to_vec(),
    }
}

/// The element type of a `Complex<T>` struct (`None` for any other struct).
pub fn complex_elem(def: &StructDef) -> Option<ScalarType> {
    [ScalarType::F32, ScalarType::F64]
        .into_iter()
        .find(|&s| *def == complex_def(s))
}
