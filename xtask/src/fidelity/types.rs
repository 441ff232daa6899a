//! The scalar types of the subset as the generator sees them, with the literals and
//! constants it may write for each.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
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
    Bool,
}

pub const ALL: [Ty; 13] = [
    Ty::I8,
    Ty::I16,
    Ty::I32,
    Ty::I64,
    Ty::Isize,
    Ty::U8,
    Ty::U16,
    Ty::U32,
    Ty::U64,
    Ty::Usize,
    Ty::F32,
    Ty::F64,
    Ty::Bool,
];

pub const INTEGERS: [Ty; 10] = [
    Ty::I8,
    Ty::I16,
    Ty::I32,
    Ty::I64,
    Ty::Isize,
    Ty::U8,
    Ty::U16,
    Ty::U32,
    Ty::U64,
    Ty::Usize,
];

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::Isize => "isize",
            Ty::U8 => "u8",
            Ty::U16 => "u16",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::Usize => "usize",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != Ty::Bool
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::Isize)
    }

    pub fn bits(self) -> u32 {
        match self {
            Ty::I8 | Ty::U8 => 8,
            Ty::I16 | Ty::U16 => 16,
            Ty::I32 | Ty::U32 | Ty::F32 => 32,
            Ty::Bool => 1,
            _ => 64,
        }
    }

    /// Smallest and largest value of an integer type, as i128.
    pub fn range(self) -> (i128, i128) {
        let b = self.bits();
        if self.is_signed() {
            (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
        } else {
            (0, (1i128 << b) - 1)
        }
    }
}

/// Interesting magnitudes for float literals and inputs: saturation edges of every
/// integer type, rounding boundaries, tiny and huge values.
pub const FLOAT_MAGNITUDES: &[f64] = &[
    0.0,
    0.5,
    1.0,
    1.5,
    2.0,
    2.5,
    3.0,
    0.1,
    0.3,
    0.75,
    7.0,
    10.0,
    100.0,
    127.0,
    127.5,
    128.0,
    128.5,
    255.0,
    255.5,
    256.0,
    32767.5,
    32768.0,
    65535.0,
    65535.9,
    65536.0,
    16777216.0,
    16777217.0,
    2147483520.0,
    2147483647.0,
    2147483648.0,
    4294967295.0,
    4294967296.0,
    9007199254740993.0,
    9.2233720368547758e18,
    1.8446744073709552e19,
    1e-3,
    1e-7,
    1e-20,
    1e-38,
    1e20,
    1e30,
    3e38,
    1e100,
    1e300,
    1e-300,
    1e-310,
];
