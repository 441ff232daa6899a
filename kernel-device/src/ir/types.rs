//! Value types of the kernel subset.

use std::fmt;
use std::sync::Arc;

use super::layout::StructDef;

/// Scalars a kernel can compute with. `Isize`/`Usize` are 64-bit on the device
/// but stay distinct types, as in Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    Isize,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F32,
    F64,
    /// IEEE binary16 (`half::f16` on the host): stored as 16 bits, computed with the
    /// GPU's native half ops where sm_80+ has them (`+ - *`, comparisons, negation)
    /// and through `f32` elsewhere (division, remainder, math methods), each result
    /// rounded back to half, as the `half` crate computes on the host.
    F16,
    /// bfloat16 (`half::bf16`): 8 exponent bits like `f32`, 8 significant bits.
    BF16,
    /// OCP FP8 E4M3 (`cudajit::e4m3`): a storage type only, read by the tensor cores
    /// (`wgmma_*_e4m3`); kernels copy it and never compute with it, so it is neither a
    /// float nor an integer to the operators and casts.
    E4M3,
}

impl ScalarType {
    pub const ALL: [ScalarType; 16] = [
        ScalarType::Bool,
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::Isize,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::Usize,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::E4M3,
    ];

    /// The Rust spelling (`"f32"`, `"usize"`).
    pub fn rust_name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::Isize => "isize",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::Usize => "usize",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::F16 => "f16",
            ScalarType::BF16 => "bf16",
            ScalarType::E4M3 => "e4m3",
        }
    }

    pub fn from_rust_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.rust_name() == name)
    }

    pub fn is_integer(self) -> bool {
        !matches!(self, ScalarType::Bool | ScalarType::E4M3) && !self.is_float()
    }

    /// A type kernels only store and copy (`e4m3`): no operator, cast or method.
    pub fn is_storage_only(self) -> bool {
        self == ScalarType::E4M3
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            ScalarType::I8
                | ScalarType::I16
                | ScalarType::I32
                | ScalarType::I64
                | ScalarType::Isize
        )
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F32 | ScalarType::F64 | ScalarType::F16 | ScalarType::BF16
        )
    }

    /// `f16` or `bf16`: floats the kernel stores in 16 bits and computes through
    /// `f32` where the GPU has no native operation.
    pub fn is_half(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::BF16)
    }

    /// Width in bits on the device (bool is 1 as a value, 8 in memory).
    pub const fn bits(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::I8 | ScalarType::U8 | ScalarType::E4M3 => 8,
            ScalarType::I16 | ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => 16,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64
            | ScalarType::U64
            | ScalarType::Isize
            | ScalarType::Usize
            | ScalarType::F64 => 64,
        }
    }

    /// Size in bytes in memory (and in a kernel parameter buffer).
    pub const fn size_bytes(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            other => other.bits() / 8,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// Where memory lives on the GPU (NVVM's address spaces). A reference carries its
/// space so the backend can use the specialised loads and stores (`ld.shared`,
/// `ld.const`) and convert to a generic pointer only where one is needed (a slice).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    /// Any memory (what a slice points into, and a local array's stack slot).
    Generic,
    /// Global memory (kernel arguments).
    Global,
    /// Per-block shared memory (`shared_array`).
    Shared,
    /// Read-only constant memory (`static`/`const` tables read by a kernel).
    Constant,
}

impl AddressSpace {
    /// NVVM's number for the space (0 generic, 1 global, 3 shared, 4 constant).
    pub fn nvvm_number(self) -> u32 {
        match self {
            AddressSpace::Generic => 0,
            AddressSpace::Global => 1,
            AddressSpace::Shared => 3,
            AddressSpace::Constant => 4,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `()`.
    Unit,
    /// The type of `return`, `break`, `continue` and endless loops: coerces to anything.
    Never,
    Scalar(ScalarType),
    /// `&[T]` / `&mut [T]` over device memory: a pointer and a length.
    Slice {
        elem: ScalarType,
        mutable: bool,
    },
    /// A tuple of values, e.g. `grid(2)`'s `(usize, usize)` or `thread_idx()`'s
    /// `(x, y, z)` (fields named `x y z` in the source map to 0 1 2).
    Tuple(Vec<Type>),
    /// `dynamic_shared()`'s cursor over the launch's dynamic shared memory: the byte
    /// offset of the next `take` (cudajit's `DynamicShared`).
    DynamicShared,
    /// `[elem; len]` by value (`[[T; N]; M]` nests): a local array, a device function's
    /// array parameter or result, or the type of a global's memory.
    Array {
        elem: Box<Type>,
        len: u64,
    },
    /// `&[T; N]` / `&mut [T; N]` (nested arrays too): a pointer into `space`. What
    /// `shared_array()` returns and what `&arr` / `&mut tile[r]` make.
    Ref {
        pointee: Box<Type>,
        mutable: bool,
        space: AddressSpace,
    },
    /// A `#[derive(DeviceCopy)] #[repr(C)]` struct by value (see `layout.rs`). Like an
    /// array it is always held in its memory form (`bool` fields as bytes).
    Struct(Arc<StructDef>),
    /// `&[S]` / `&mut [S]` of a struct `S`: a pointer and a length, as `Slice`.
    StructSlice {
        elem: Arc<StructDef>,
        mutable: bool,
    },
    // Hopper: TMA
    /// `&TensorMap<T, N>`: a kernel parameter holding a TMA tensor map (`proc::tma`);
    /// its value is the map's address and its tile word ([`crate::proc::abi::ArgSlot`]).
    /// `writable` for `&TensorMapMut<T, N>`, a map the host built from a `&mut` array:
    /// the only kind `tma_store` writes through.
    TensorMap {
        elem: ScalarType,
        rank: u8,
        writable: bool,
    },
}

impl Type {
    /// A slice's element type and mutability (scalar or struct elements).
    pub fn slice_elem(&self) -> Option<(Type, bool)> {
        match self {
            Type::Slice { elem, mutable } => Some((Type::Scalar(*elem), *mutable)),
            Type::StructSlice { elem, mutable } => Some((Type::Struct(elem.clone()), *mutable)),
            _ => None,
        }
    }

    pub fn scalar(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    pub fn array(elem: Type, len: u64) -> Type {
        Type::Array {
            elem: Box::new(elem),
            len,
        }
    }

    /// The scalar at the bottom of a (possibly nested) array, and the total number of
    /// scalars: `[[f32; 4]; 3]` → `(f32, 12)`.
    pub fn array_scalar(&self) -> Option<(ScalarType, u64)> {
        match self {
            Type::Scalar(s) => Some((*s, 1)),
            Type::Array { elem, len } => {
                let (s, n) = elem.array_scalar()?;
                Some((s, n.checked_mul(*len)?))
            }
            _ => None,
        }
    }

    /// The type `place[i]` has when `self` is the indexed type (arrays and slices).
    pub fn index_result(&self) -> Option<Type> {
        match self {
            Type::Array { elem, .. } => Some((**elem).clone()),
            Type::Slice { elem, .. } => Some(Type::Scalar(*elem)),
            Type::StructSlice { elem, .. } => Some(Type::Struct(elem.clone())),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unit => f.write_str("()"),
            Type::Never => f.write_str("!"),
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Slice { elem, mutable } => {
                write!(f, "&{}[{elem}]", if *mutable { "mut " } else { "" })
            }
            Type::Tuple(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            Type::DynamicShared => f.write_str("DynamicShared"),
            Type::Array { elem, len } => write!(f, "[{elem}; {len}]"),
            Type::Ref {
                pointee, mutable, ..
            } => write!(f, "&{}{pointee}", if *mutable { "mut " } else { "" }),
            Type::Struct(def) => f.write_str(&def.name),
            Type::StructSlice { elem, mutable } => {
                write!(f, "&{}[{}]", if *mutable { "mut " } else { "" }, elem.name)
            }
            // Hopper: TMA
            Type::TensorMap {
                elem,
                rank,
                writable,
            } => write!(f, "&{}<{elem}, {rank}>", map_type_name(*writable)),
        }
    }
}

// Hopper: TMA
/// How a kernel names a tensor map's type: `TensorMapMut` for one stores write through.
pub fn map_type_name(writable: bool) -> &'static str {
    if writable {
        "TensorMapMut"
    } else {
        "TensorMap"
    }
}
