//! The scalar methods a kernel can call (`x.sqrt()`, `f32::max(a, b)`, `n.wrapping_mul(k)`),
//! what each lowers to, the types it exists on, and the math functions' signatures and
//! libdevice names.

use super::intrinsics::{Param, Ret, Signature};
use crate::ir::{BinaryOp, MathFn, ScalarType};
use ScalarType as S;

/// The float types a math method exists on; `f16`/`bf16` compute it in `f32`
/// (`front::half`).
pub const FLOATS: &[ScalarType] = &FLOAT_TYPES;
pub const INTEGERS: &[ScalarType] = &INTEGER_TYPES;
/// Integers and floats: [`INTEGERS`], then [`FLOATS`].
pub const NUMBERS: &[ScalarType] = &{
    let mut all = [S::Bool; INTEGER_TYPES.len() + FLOAT_TYPES.len()];
    let mut k = 0;
    while k < all.len() {
        all[k] = if k < INTEGER_TYPES.len() {
            INTEGER_TYPES[k]
        } else {
            FLOAT_TYPES[k - INTEGER_TYPES.len()]
        };
        k += 1;
    }
    all
};
const FLOAT_TYPES: [ScalarType; 4] = [S::F32, S::F64, S::F16, S::BF16];
const INTEGER_TYPES: [ScalarType; 10] = [
    S::I8,
    S::I16,
    S::I32,
    S::I64,
    S::Isize,
    S::U8,
    S::U16,
    S::U32,
    S::U64,
    S::Usize,
];
/// Signed integers and floats (`abs`).
pub const SIGNED: &[ScalarType] = &[
    S::I8,
    S::I16,
    S::I32,
    S::I64,
    S::Isize,
    S::F32,
    S::F64,
    S::F16,
    S::BF16,
];

/// What a supported scalar method lowers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// A math intrinsic (`Intrinsic::Math`), typed by [`math_signature`].
    Math(MathFn),
    /// `wrapping_add/sub/mul`: plain (wrapping) integer arithmetic.
    Wrapping(BinaryOp),
    /// `recip`: `1.0 / x`.
    Recip,
    /// `to_degrees` / `to_radians`: a multiplication by a constant.
    Scale { degrees: bool },
}

const T1: &[Param] = &[Param::T];
const T2: &[Param] = &[Param::T, Param::T];
const T3: &[Param] = &[Param::T, Param::T, Param::T];

impl Method {
    /// Operands including the receiver, and their types for a receiver of type `T`.
    pub fn signature(self) -> Signature {
        let (types, params) = match self {
            Method::Math(f) => return math_signature(f),
            Method::Wrapping(_) => (INTEGERS, T2),
            Method::Recip | Method::Scale { .. } => (FLOATS, T1),
        };
        Signature {
            types,
            params,
            ret: Ret::T,
        }
    }

    /// Operands including the receiver.
    pub fn arity(self) -> usize {
        self.signature().params.len()
    }

    /// Whether the method exists on receivers of type `s`.
    pub fn allows(self, s: ScalarType) -> bool {
        self.signature().types.contains(&s)
    }
}

/// The 32- and 64-bit integers (`mul_hi`).
pub const WORD_INTEGERS: &[ScalarType] = &[S::I32, S::U32, S::I64, S::U64];
pub const F32_ONLY: &[ScalarType] = &[S::F32];
/// `usize` (the N-d per-axis check, which only `front::nd` writes).
pub const USIZE_ONLY: &[ScalarType] = &[S::Usize];

/// The types a math function exists on.
pub const fn math_types(f: MathFn) -> &'static [ScalarType] {
    match f {
        MathFn::Abs => SIGNED,
        MathFn::Min | MathFn::Max | MathFn::Clamp => NUMBERS,
        MathFn::CountOnes
        | MathFn::LeadingZeros
        | MathFn::TrailingZeros
        | MathFn::RotateLeft
        | MathFn::RotateRight
        | MathFn::SwapBytes
        | MathFn::ReverseBits
        | MathFn::Pow
        | MathFn::SaturatingAdd
        | MathFn::SaturatingSub => INTEGERS,
        MathFn::MulHi => WORD_INTEGERS,
        MathFn::NdAxis(_) => USIZE_ONLY,
        MathFn::FastSin
        | MathFn::FastCos
        | MathFn::FastExp
        | MathFn::FastLog
        | MathFn::FastPowf
        | MathFn::FastDiv => F32_ONLY,
        _ => FLOATS,
    }
}

const T_U32: &[Param] = &[Param::T, Param::Scalar(S::U32)];

impl MathFn {
    /// Number of operands, including the receiver of the method form. An inherent
    /// method of the IR's type defined here, beside [`math_signature`], so that `ir`
    /// needs no import of the rules.
    pub fn arity(self) -> usize {
        math_signature(self).params.len()
    }
}

/// Operands (the receiver first) and result of a math function on `T`.
pub const fn math_signature(f: MathFn) -> Signature {
    let (params, ret) = match f {
        MathFn::Powi => (&[Param::T, Param::Scalar(S::I32)] as &[Param], Ret::T),
        MathFn::Atan2
        | MathFn::Powf
        | MathFn::Hypot
        | MathFn::Min
        | MathFn::Max
        | MathFn::Copysign
        | MathFn::SaturatingAdd
        | MathFn::SaturatingSub
        | MathFn::MulHi
        | MathFn::NdAxis(_)
        | MathFn::FastPowf
        | MathFn::FastDiv => (T2, Ret::T),
        MathFn::MulAdd | MathFn::Clamp => (T3, Ret::T),
        MathFn::RotateLeft | MathFn::RotateRight | MathFn::Pow => (T_U32, Ret::T),
        MathFn::CountOnes | MathFn::LeadingZeros | MathFn::TrailingZeros => {
            (T1, Ret::Scalar(S::U32))
        }
        MathFn::IsNan | MathFn::IsFinite => (T1, Ret::Scalar(S::Bool)),
        MathFn::ToBits => (T1, Ret::Bits),
        MathFn::FromBits => (&[Param::Bits] as &[Param], Ret::T),
        _ => (T1, Ret::T),
    };
    Signature {
        types: math_types(f),
        params,
        ret,
    }
}

/// The libdevice function of a float math function: `__nv_<base>` for f64,
/// `__nv_<base>f` for f32, and `__nv_fast_<base>f` under fast math where `fast`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Libdevice {
    pub base: &'static str,
    pub fast: bool,
}

/// `None` where the writer lowers the function itself (`signum`, the integer
/// functions, `fract`, `is_nan`, ...). The `fast_*` functions are f32 only.
pub fn libdevice(f: MathFn) -> Option<Libdevice> {
    let (base, fast) = match f {
        MathFn::Sqrt => ("sqrt", false),
        MathFn::Rsqrt => ("rsqrt", false),
        MathFn::Cbrt => ("cbrt", false),
        MathFn::Sin => ("sin", true),
        MathFn::Cos => ("cos", true),
        MathFn::Tan => ("tan", true),
        MathFn::Asin => ("asin", false),
        MathFn::Acos => ("acos", false),
        MathFn::Atan => ("atan", false),
        MathFn::Atan2 => ("atan2", false),
        MathFn::Sinh => ("sinh", false),
        MathFn::Cosh => ("cosh", false),
        MathFn::Tanh => ("tanh", false),
        MathFn::Exp => ("exp", true),
        MathFn::Exp2 => ("exp2", false),
        MathFn::ExpM1 => ("expm1", false),
        MathFn::Ln => ("log", true),
        MathFn::Log2 => ("log2", true),
        MathFn::Log10 => ("log10", true),
        MathFn::Ln1p => ("log1p", false),
        MathFn::Powf => ("pow", true),
        MathFn::Powi => ("powi", false),
        MathFn::Hypot => ("hypot", false),
        MathFn::Floor => ("floor", false),
        MathFn::Ceil => ("ceil", false),
        // Rust's `round` is half away from zero, which is C's `round`, not `rint`.
        MathFn::Round => ("round", false),
        MathFn::Trunc => ("trunc", false),
        MathFn::Abs => ("fabs", false),
        // fmin/fmax return the other operand when one is NaN, as std's min/max do.
        MathFn::Min => ("fmin", false),
        MathFn::Max => ("fmax", false),
        MathFn::MulAdd => ("fma", false),
        MathFn::Copysign => ("copysign", false),
        MathFn::FastSin => ("fast_sin", false),
        MathFn::FastCos => ("fast_cos", false),
        MathFn::FastExp => ("fast_exp", false),
        MathFn::FastLog => ("fast_log", false),
        MathFn::FastPowf => ("fast_pow", false),
        MathFn::FastDiv => ("fast_fdivide", false),
        _ => return None,
    };
    Some(Libdevice { base, fast })
}

#[derive(Clone, Copy, Debug)]
pub struct MethodDef {
    pub name: &'static str,
    pub method: Method,
}

const fn m(name: &'static str, f: MathFn) -> MethodDef {
    MethodDef {
        name,
        method: Method::Math(f),
    }
}

pub static METHODS: &[MethodDef] = &[
    m("sqrt", MathFn::Sqrt),
    m("cbrt", MathFn::Cbrt),
    m("sin", MathFn::Sin),
    m("cos", MathFn::Cos),
    m("tan", MathFn::Tan),
    m("asin", MathFn::Asin),
    m("acos", MathFn::Acos),
    m("atan", MathFn::Atan),
    m("atan2", MathFn::Atan2),
    m("sinh", MathFn::Sinh),
    m("cosh", MathFn::Cosh),
    m("tanh", MathFn::Tanh),
    m("exp", MathFn::Exp),
    m("exp2", MathFn::Exp2),
    m("exp_m1", MathFn::ExpM1),
    m("ln", MathFn::Ln),
    m("log2", MathFn::Log2),
    m("log10", MathFn::Log10),
    m("ln_1p", MathFn::Ln1p),
    m("powf", MathFn::Powf),
    m("powi", MathFn::Powi),
    m("hypot", MathFn::Hypot),
    m("floor", MathFn::Floor),
    m("ceil", MathFn::Ceil),
    m("round", MathFn::Round),
    m("trunc", MathFn::Trunc),
    m("mul_add", MathFn::MulAdd),
    m("copysign", MathFn::Copysign),
    m("signum", MathFn::Signum),
    m("abs", MathFn::Abs),
    m("min", MathFn::Min),
    m("max", MathFn::Max),
    m("count_ones", MathFn::CountOnes),
    m("leading_zeros", MathFn::LeadingZeros),
    m("trailing_zeros", MathFn::TrailingZeros),
    m("rotate_left", MathFn::RotateLeft),
    m("rotate_right", MathFn::RotateRight),
    m("swap_bytes", MathFn::SwapBytes),
    m("reverse_bits", MathFn::ReverseBits),
    // `pow` wraps on the device, as in release builds; `wrapping_pow` says so.
    m("pow", MathFn::Pow),
    m("wrapping_pow", MathFn::Pow),
    m("saturating_add", MathFn::SaturatingAdd),
    m("saturating_sub", MathFn::SaturatingSub),
    m("clamp", MathFn::Clamp),
    // The N-d per-axis checks `front::nd` writes (the `__` names keep users out).
    m("__cudajit_nd_axis0", MathFn::NdAxis(0)),
    m("__cudajit_nd_axis1", MathFn::NdAxis(1)),
    m("__cudajit_nd_axis2", MathFn::NdAxis(2)),
    m("fract", MathFn::Fract),
    m("is_nan", MathFn::IsNan),
    m("is_finite", MathFn::IsFinite),
    m("to_bits", MathFn::ToBits),
    // `f32::from_bits(u)`: an associated function; its operand is `T`'s bits.
    m("from_bits", MathFn::FromBits),
    MethodDef {
        name: "wrapping_add",
        method: Method::Wrapping(BinaryOp::Add),
    },
    MethodDef {
        name: "wrapping_sub",
        method: Method::Wrapping(BinaryOp::Sub),
    },
    MethodDef {
        name: "wrapping_mul",
        method: Method::Wrapping(BinaryOp::Mul),
    },
    MethodDef {
        name: "recip",
        method: Method::Recip,
    },
    MethodDef {
        name: "to_degrees",
        method: Method::Scale { degrees: true },
    },
    MethodDef {
        name: "to_radians",
        method: Method::Scale { degrees: false },
    },
];

/// The method a name refers to.
pub fn method(name: &str) -> Option<Method> {
    METHODS.iter().find(|d| d.name == name).map(|d| d.method)
}
