//! LLVM spellings of IR types and constants.
//!
//! Values and memory differ only for `bool`: an `i1` as a value (and in locals, which
//! NVVM promotes to registers), an `i8` in slices and kernel parameters, as Rust's
//! layout and the kernel ABI require.

use super::Error;
use crate::device_api::half_rounding::{bf16_of_f64, f16_of_f64};
use crate::ir::{AddressSpace, ConstValue, Literal, ScalarType, Type};

/// The LLVM type of a scalar held as a value.
pub fn scalar(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "i1",
        // e4m3 is held as its bits (kernels only copy it).
        ScalarType::I8 | ScalarType::U8 | ScalarType::E4M3 => "i8",
        ScalarType::I16 | ScalarType::U16 => "i16",
        ScalarType::I32 | ScalarType::U32 => "i32",
        ScalarType::I64 | ScalarType::U64 | ScalarType::Isize | ScalarType::Usize => "i64",
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
        ScalarType::F16 => "half",
        // libnvvm's LLVM has no `bfloat`: the value is its bit pattern (`back::nvvm::half`).
        ScalarType::BF16 => "i16",
    }
}

/// The LLVM type of a scalar stored in device memory (slice elements, kernel params).
pub fn scalar_mem(s: ScalarType) -> &'static str {
    match s {
        ScalarType::Bool => "i8",
        other => scalar(other),
    }
}

/// The LLVM type of a value of type `ty`. Slices are `{T*, i64}` aggregates inside
/// functions; tuples are literal structs; a dynamic shared memory cursor is its byte
/// offset. Unit and never have no value type.
pub fn value(ty: &Type) -> Result<String, Error> {
    match ty {
        Type::Scalar(s) => Ok(scalar(*s).to_string()),
        Type::Slice { elem, .. } => Ok(format!("{{ {}*, i64 }}", scalar_mem(*elem))),
        Type::StructSlice { elem, .. } => Ok(format!(
            "{{ {}*, i64 }}",
            memory(&Type::Struct(elem.clone()))?
        )),
        Type::Tuple(items) => {
            let fields = items.iter().map(value).collect::<Result<Vec<_>, _>>()?;
            Ok(format!("{{ {} }}", fields.join(", ")))
        }
        Type::DynamicShared => Ok("i64".to_string()),
        // Arrays are always in their memory form (`bool` elements as `i8`), so a whole
        // array loads and stores as one aggregate wherever it lives.
        Type::Array { elem, len } => Ok(format!("[{len} x {}]", memory(elem)?)),
        Type::Ref { pointee, space, .. } => Ok(pointer(&memory(pointee)?, *space)),
        // Like arrays, structs are always in their memory form: LLVM lays a literal
        // struct of these fields out as `#[repr(C)]` does (`ir::layout`).
        Type::Struct(def) => {
            let fields = def
                .fields
                .iter()
                .map(|f| memory(&f.ty))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(format!("{{ {} }}", fields.join(", ")))
        }
        Type::Unit | Type::Never => Err(Error(format!(
            "a value of type `{ty}` cannot be stored or passed here"
        ))),
        // Hopper: TMA: the map's generic address and its tile word (`proc::abi`).
        Type::TensorMap { .. } => Ok("{ i64, i64 }".to_string()),
    }
}

/// The LLVM type of `ty` as an element of an array or slice (`bool` is a byte).
pub fn memory(ty: &Type) -> Result<String, Error> {
    match ty {
        Type::Scalar(s) => Ok(scalar_mem(*s).to_string()),
        other => value(other),
    }
}

/// `T*` / `T addrspace(N)*`.
pub fn pointer(pointee: &str, space: AddressSpace) -> String {
    match space {
        AddressSpace::Generic => format!("{pointee}*"),
        other => format!("{pointee} addrspace({})*", other.nvvm_number()),
    }
}

/// A constant's initialiser text in memory form: `float 0x..`, `[2 x i32] [i32 1, i32 2]`.
pub fn const_init(value: &ConstValue) -> Result<String, Error> {
    match value {
        ConstValue::Scalar { ty, value } => {
            let text = match (value, ty) {
                (Literal::Bool(b), ScalarType::Bool) => (*b as u8).to_string(),
                (Literal::Int(bits), s) if s.is_integer() => int_const(*s, *bits),
                (Literal::Float(f), s) if s.is_float() => float_const(*s, *f),
                (Literal::Int(bits), s) if s.is_float() => float_const(*s, *bits as i64 as f64),
                _ => return Err(Error(format!("constant {value:?} of type `{ty}`"))),
            };
            Ok(format!("{} {text}", scalar_mem(*ty)))
        }
        ConstValue::Array { items, .. } => {
            let ty = memory(&value.ty())?;
            if items.is_empty() {
                return Ok(format!("{ty} zeroinitializer"));
            }
            let parts = items
                .iter()
                .map(const_init)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(format!("{ty} [{}]", parts.join(", ")))
        }
    }
}

/// Whether values of `ty` exist at run time (unit and never have none).
pub fn has_value(ty: &Type) -> bool {
    !matches!(ty, Type::Unit | Type::Never)
}

/// The return type of a function returning `ty`.
pub fn ret(ty: &Type) -> Result<String, Error> {
    if has_value(ty) {
        value(ty)
    } else {
        Ok("void".to_string())
    }
}

/// An integer constant of type `s` from its 64-bit two's-complement pattern, printed as
/// the signed value of the type's width (LLVM's parser wants it in range).
pub fn int_const(s: ScalarType, bits: u64) -> String {
    if s == ScalarType::Bool {
        return if bits & 1 == 1 { "true" } else { "false" }.to_string();
    }
    let width = s.bits();
    let shift = 64 - width;
    (((bits << shift) as i64) >> shift).to_string()
}

/// A float constant in LLVM's exact hexadecimal form. f32 constants are written as the
/// double holding the same value, which is what LLVM requires.
pub fn float_const(s: ScalarType, v: f64) -> String {
    match s {
        ScalarType::F16 => return format!("0xH{:04X}", f16_of_f64(v).to_bits()),
        ScalarType::BF16 => return (bf16_of_f64(v).to_bits() as i16).to_string(),
        _ => {}
    }
    let v = if s == ScalarType::F32 {
        (v as f32) as f64
    } else {
        v
    };
    format!("0x{:016X}", v.to_bits())
}

/// `-0.0`, the identity of `fsub` used to negate (LLVM 7 has no `fneg`).
pub fn neg_zero(s: ScalarType) -> String {
    float_const(s, -0.0)
}

/// A symbol name (`@name`, `%name`) quoted when it is not a plain LLVM identifier.
pub fn ident(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-'))
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        name.to_string()
    } else {
        let mut out = String::from("\"");
        for b in name.bytes() {
            if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
                out.push_str(&format!("\\{b:02X}"));
            } else {
                out.push(b as char);
            }
        }
        out.push('"');
        out
    }
}
