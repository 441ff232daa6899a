//! The tensor-core operation an `Intrinsic::Mma` names: its shape and element types.
//! Only the types live here, so that the IR names no rule; what each combination
//! means (PTX, fragment lengths, ownership) is `crate::proc::mma`'s.

/// An `mma.sync` shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    M16N8K16,
    M16N8K8,
    M8N8K4,
    M16N8K32,
}

/// The element type of a fragment as `mma.sync` reads it. `Tf32` is held as an `f32`
/// (its storage), of which the tensor core reads the top 19 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaElem {
    F16,
    BF16,
    Tf32,
    F32,
    F64,
    I8,
    U8,
    I32,
    /// OCP FP8 E4M3 (`e4m3`): a `wgmma` input only (`mma.sync` has no fp8 on sm_90).
    E4M3,
}

/// One supported `mma.sync`: `D = A * B + C` with A and B of `input`, C and D of `acc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaCombo {
    pub shape: MmaShape,
    pub input: MmaElem,
    pub acc: MmaElem,
}
