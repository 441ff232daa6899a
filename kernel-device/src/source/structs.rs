//! How a crate's structs reach the run-time compiler. The macro cannot see the struct
//! items a kernel names (`Body`, `Vec3::new`), so for each one it emits a
//! [`StructItem`] whose `def` asks the struct's [`DeviceCopy`] implementation, which
//! `#[derive(DeviceCopy)]` writes from the struct's own fields. A struct without the
//! derive fails that bound at the name in the kernel, with cudajit's message.

use crate::ir::layout::{scalar_layout, Layout};
use crate::ir::{EnumDef, ScalarType, StructDef, Type};

/// One struct type a function's source names.
pub struct StructItem {
    /// The name as written in the source (`Body`, `shapes::Vec3`).
    pub name: &'static str,
    /// The struct's fields (generated code: a closure reading the derive's output).
    /// For an enum, its repr scalar.
    pub def: &'static (dyn Fn() -> Type + Sync),
    /// For a `#[derive(DeviceCopy)]` enum, its variants (`DeviceCopy::device_enum`).
    pub enum_def: &'static (dyn Fn() -> Option<EnumDef> + Sync),
}

impl StructItem {
    /// The struct's definition (`None` only if generated code was written by hand).
    pub fn struct_def(&self) -> Option<std::sync::Arc<StructDef>> {
        match (self.def)() {
            Type::Struct(def) => Some(def),
            _ => None,
        }
    }

    /// The enum's definition, if the name is a `#[derive(DeviceCopy)]` enum.
    pub fn enum_def(&self) -> Option<std::sync::Arc<EnumDef>> {
        (self.enum_def)().map(std::sync::Arc::new)
    }
}

impl std::fmt::Debug for StructItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StructItem")
            .field("name", &self.name)
            .field("def", &(self.def)())
            .field("enum_def", &(self.enum_def)())
            .finish()
    }
}

/// Types that cross to the device as plain bytes, field by field: the scalars, arrays
/// of them and `#[derive(DeviceCopy)] #[repr(C)]` structs.
///
/// # Safety
/// `device_type` must describe `Self` exactly: the runtime copies values of `Self` to
/// and from the device as raw bytes laid out as `ir::layout` says. Implement it with
/// `#[derive(DeviceCopy)]`, which checks the layout at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used in a kernel: it is not a `#[derive(DeviceCopy)]` struct or enum, or a kernel scalar",
    label = "not usable on the device",
    note = "kernels use bool, integers, f32, f64, arrays of them, `#[derive(DeviceCopy)] #[repr(C)]` structs of those and `#[derive(DeviceCopy)] #[repr(u8)]` fieldless enums; add `#[derive(Clone, Copy, DeviceCopy)]` and the `#[repr(..)]` to the type"
)]
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {
    /// `ir::layout`'s size and alignment of `Self`, as a constant so that the derive
    /// compares it with rustc's at compile time.
    const LAYOUT: Layout;
    /// Bytes of `Self` that are padding (the derive refuses structs with any).
    const PADDING: u64;
    /// Whether all-zero bytes are a value of `Self` (`DeviceArray::zeros`): false for
    /// an enum without a variant of discriminant 0, and for what holds one.
    const ZERO_IS_VALID: bool = true;
    /// The kernel's type for `Self` (`Type::Struct` for a derived struct, the repr
    /// scalar for a derived enum).
    fn device_type() -> Type;
    /// A derived fieldless enum's variants and discriminants (`None` for the rest).
    fn device_enum() -> Option<EnumDef> {
        None
    }
}

macro_rules! scalar_device_copy {
    ($($t:ty => $s:ident),* $(,)?) => {$(
        // SAFETY: the scalar type names this exact primitive.
        unsafe impl DeviceCopy for $t {
            const LAYOUT: Layout = scalar_layout(ScalarType::$s);
            const PADDING: u64 = 0;
            fn device_type() -> Type {
                Type::Scalar(ScalarType::$s)
            }
        }
    )*};
}
scalar_device_copy!(
    bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, isize => Isize,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64, usize => Usize, f32 => F32, f64 => F64,
    half::f16 => F16, half::bf16 => BF16, crate::fp8::e4m3 => E4M3,
);

macro_rules! complex_device_copy {
    ($($t:ty => $s:ident),*) => {$(
        // SAFETY: num-complex's `Complex<T>` is `#[repr(C)] { re: T, im: T }`, which is
        // `ir::layout::complex_def` (no padding: two fields of one scalar type).
        unsafe impl DeviceCopy for num_complex::Complex<$t> {
            const LAYOUT: Layout = Layout {
                size: 2 * scalar_layout(ScalarType::$s).size,
                align: scalar_layout(ScalarType::$s).align,
            };
            const PADDING: u64 = 0;
            fn device_type() -> Type {
                Type::Struct(std::sync::Arc::new(crate::ir::layout::complex_def(ScalarType::$s)))
            }
        }
    )*};
}
complex_device_copy!(f32 => F32, f64 => F64);

// SAFETY: an array is its elements back to back, as `ir::layout` lays it out.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {
    const LAYOUT: Layout = Layout {
        size: T::LAYOUT.size * N as u64,
        align: T::LAYOUT.align,
    };
    const PADDING: u64 = T::PADDING * N as u64;
    const ZERO_IS_VALID: bool = T::ZERO_IS_VALID;
    fn device_type() -> Type {
        Type::array(T::device_type(), N as u64)
    }
}

/// The types whose `impl` blocks may hold `#[device]` methods: the
/// `#[derive(DeviceCopy)]` structs and enums. A `#[device]` method's generated source
/// names its type through this trait, so a method of any other type is reported at
/// the method, in these words.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot have `#[device]` methods: it is not a `#[derive(DeviceCopy)]` struct or enum",
    label = "a `#[device]` method of `{Self}`",
    note = "kernels call methods of `#[derive(Clone, Copy, DeviceCopy)] #[repr(C)]` structs (and `#[repr(u8)]` fieldless enums); derive it on the type, or make the method a free `#[device] fn`"
)]
pub trait DeviceMethodOwner {
    /// `DeviceCopy::device_type`.
    fn owner_type() -> Type;
    /// `DeviceCopy::device_enum`.
    fn owner_enum() -> Option<EnumDef>;
}

#[diagnostic::do_not_recommend]
impl<T: DeviceCopy> DeviceMethodOwner for T {
    fn owner_type() -> Type {
        T::device_type()
    }
    fn owner_enum() -> Option<EnumDef> {
        T::device_enum()
    }
}
