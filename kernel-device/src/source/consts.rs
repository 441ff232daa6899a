//! How a crate's `const` and `static` items reach the run-time compiler. The macro
//! cannot see other items, so for every constant a kernel body names (`TILE`,
//! `TAPS`) it emits a [`ConstItem`] whose `value` asks rustc's own evaluation of the
//! item ([`ToConstValue`]): the compiler receives the value rustc computed, whatever
//! constant expression defined it.

use crate::ir::{ConstValue, Literal, ScalarType, Type};

/// One named constant a function's body uses.
pub struct ConstItem {
    /// The name as written in the body.
    pub name: &'static str,
    /// The item's value (generated code: a closure reading the item).
    pub value: &'static (dyn Fn() -> ConstValue + Sync),
}

impl std::fmt::Debug for ConstItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConstItem")
            .field("name", &self.name)
            .field("value", &(self.value)())
            .finish()
    }
}

/// Values a kernel may read from a crate `const` or `static`: scalars and arrays of
/// them (nested too). Implemented for exactly the types the kernel subset has.
#[diagnostic::on_unimplemented(
    message = "a kernel cannot read a constant of type `{Self}`",
    label = "named in a `#[kernel]` or `#[device]` body",
    note = "kernels read crate `const`/`static` items of scalar types (`f32`, `u32`, ...) and arrays of them (`[f32; 5]`, `[[u8; 4]; 4]`)"
)]
pub trait ToConstValue {
    /// The type every value of `Self` has (also for empty arrays).
    fn const_type() -> Type;
    fn to_const_value(&self) -> ConstValue;
}

macro_rules! scalar_const {
    ($($t:ty => $s:ident, $lit:ident);* $(;)?) => {$(
        impl ToConstValue for $t {
            fn const_type() -> Type {
                Type::Scalar(ScalarType::$s)
            }
            fn to_const_value(&self) -> ConstValue {
                ConstValue::Scalar { ty: ScalarType::$s, value: scalar_const!(@lit $lit, *self) }
            }
        }
    )*};
    (@lit int, $v:expr) => { Literal::Int($v as i128 as u64) };
    (@lit float, $v:expr) => { Literal::Float($v as f64) };
    (@lit bool, $v:expr) => { Literal::Bool($v) };
}

scalar_const! {
    bool => Bool, bool;
    i8 => I8, int; i16 => I16, int; i32 => I32, int; i64 => I64, int; isize => Isize, int;
    u8 => U8, int; u16 => U16, int; u32 => U32, int; u64 => U64, int; usize => Usize, int;
    f32 => F32, float; f64 => F64, float;
}

impl<T: ToConstValue, const N: usize> ToConstValue for [T; N] {
    fn const_type() -> Type {
        Type::array(T::const_type(), N as u64)
    }
    fn to_const_value(&self) -> ConstValue {
        ConstValue::Array {
            elem: T::const_type(),
            items: self.iter().map(ToConstValue::to_const_value).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustc_values_become_const_values() {
        assert_eq!(
            (-1i8).to_const_value(),
            ConstValue::Scalar {
                ty: ScalarType::I8,
                value: Literal::Int(u64::MAX)
            }
        );
        assert_eq!((-1i8).to_const_value().as_u64(), None);
        assert_eq!(7usize.to_const_value().as_u64(), Some(7));
        let table = [[1.5f32, 2.0], [3.0, 4.0]];
        assert_eq!(
            table.to_const_value().ty(),
            Type::array(Type::array(Type::Scalar(ScalarType::F32), 2), 2)
        );
        let empty: [u32; 0] = [];
        assert_eq!(
            empty.to_const_value().ty(),
            Type::array(Type::Scalar(ScalarType::U32), 0)
        );
    }
}
