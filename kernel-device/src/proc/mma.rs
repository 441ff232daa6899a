//! THE table of tensor-core operations (PTX `mma.sync`, `ldmatrix`, `stmatrix`): which
//! shape / element type / role combinations exist, how many elements of each fragment a
//! lane holds, which matrix element each of them is (the PTX ISA's fragment tables), and
//! which 8x8 matrix and row each lane of an `ldmatrix`/`stmatrix` names. The host twin
//! (`device_api::mma`), and every stage of the compiler, read these rules from here.
//!
//! Notation of the PTX ISA ("Matrix fragments for mma.m16n8k16" and its siblings):
//! `groupID = lane >> 2`, `threadID_in_group = lane % 4`. A is `M x K` (row-major in
//! `mma.sync`'s `.row`), B is `K x N` (column-major, `.col`), the accumulator C/D is
//! `M x N`. Element `i` of a fragment sits in register `i / per_register`, low half (or
//! low byte) first, as `mma.sync` and `ldmatrix` see it.

pub use crate::ir::mma::{MmaCombo, MmaElem, MmaShape};
use crate::ir::ScalarType;

impl MmaShape {
    pub const ALL: [MmaShape; 4] = [
        MmaShape::M16N8K16,
        MmaShape::M16N8K8,
        MmaShape::M8N8K4,
        MmaShape::M16N8K32,
    ];

    /// `(M, N, K)`.
    pub const fn mnk(self) -> (usize, usize, usize) {
        match self {
            MmaShape::M16N8K16 => (16, 8, 16),
            MmaShape::M16N8K8 => (16, 8, 8),
            MmaShape::M8N8K4 => (8, 8, 4),
            MmaShape::M16N8K32 => (16, 8, 32),
        }
    }

    /// The Rust marker type's name (`M16N8K16`) and PTX's (`m16n8k16`).
    pub const fn name(self) -> &'static str {
        match self {
            MmaShape::M16N8K16 => "M16N8K16",
            MmaShape::M16N8K8 => "M16N8K8",
            MmaShape::M8N8K4 => "M8N8K4",
            MmaShape::M16N8K32 => "M16N8K32",
        }
    }

    pub fn ptx(self) -> String {
        self.name().to_ascii_lowercase()
    }

    pub fn from_name(name: &str) -> Option<MmaShape> {
        MmaShape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The rows and columns of a role's matrix: A `M x K`, B `K x N`, C `M x N`.
    pub const fn dims(self, role: MmaRole) -> (usize, usize) {
        let (m, n, k) = self.mnk();
        match role {
            MmaRole::A => (m, k),
            MmaRole::B => (k, n),
            MmaRole::Acc => (m, n),
        }
    }
}

/// Which operand a fragment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaRole {
    /// `FragA`: the `M x K` multiplicand, row-major.
    A,
    /// `FragB`: the `K x N` multiplicand, column-major.
    B,
    /// `Acc`: the `M x N` accumulator (C in, D out).
    Acc,
}

impl MmaRole {
    /// The Rust type's name.
    pub const fn type_name(self) -> &'static str {
        match self {
            MmaRole::A => "FragA",
            MmaRole::B => "FragB",
            MmaRole::Acc => "Acc",
        }
    }

    pub fn from_type_name(name: &str) -> Option<MmaRole> {
        [MmaRole::A, MmaRole::B, MmaRole::Acc]
            .into_iter()
            .find(|r| r.type_name() == name)
    }
}

impl MmaElem {
    /// The scalar a lane holds for one element (`frag[i]`'s type).
    pub const fn storage(self) -> ScalarType {
        match self {
            MmaElem::F16 => ScalarType::F16,
            MmaElem::BF16 => ScalarType::BF16,
            MmaElem::Tf32 | MmaElem::F32 => ScalarType::F32,
            MmaElem::F64 => ScalarType::F64,
            MmaElem::I8 => ScalarType::I8,
            MmaElem::U8 => ScalarType::U8,
            MmaElem::I32 => ScalarType::I32,
            MmaElem::E4M3 => ScalarType::E4M3,
        }
    }

    /// The Rust spelling of the type argument (`bf16`, `tf32`).
    pub const fn rust_name(self) -> &'static str {
        match self {
            MmaElem::F16 => "f16",
            MmaElem::BF16 => "bf16",
            MmaElem::Tf32 => "tf32",
            MmaElem::F32 => "f32",
            MmaElem::F64 => "f64",
            MmaElem::I8 => "i8",
            MmaElem::U8 => "u8",
            MmaElem::I32 => "i32",
            MmaElem::E4M3 => "e4m3",
        }
    }

    /// The `mma.sync` fragment element named `name` (`E4M3` is wgmma's only: no
    /// fragment has it).
    pub fn from_rust_name(name: &str) -> Option<MmaElem> {
        use MmaElem::*;
        [F16, BF16, Tf32, F32, F64, I8, U8, I32]
            .into_iter()
            .find(|e| e.rust_name() == name)
    }

    /// PTX's type suffix in `mma.sync`.
    pub const fn ptx(self) -> &'static str {
        match self {
            MmaElem::F16 => "f16",
            MmaElem::BF16 => "bf16",
            MmaElem::Tf32 => "tf32",
            MmaElem::F32 => "f32",
            MmaElem::F64 => "f64",
            MmaElem::I8 => "s8",
            MmaElem::U8 => "u8",
            MmaElem::I32 => "s32",
            MmaElem::E4M3 => "e4m3",
        }
    }

    /// Bytes of one element in memory.
    pub const fn bytes(self) -> usize {
        self.storage().size_bytes() as usize
    }
}

impl MmaCombo {
    /// The PTX instruction (`mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`).
    pub fn instruction(self) -> String {
        let (d, a) = (self.acc.ptx(), self.input.ptx());
        format!(
            "mma.sync.aligned.{}.row.col.{d}.{a}.{a}.{d}",
            self.shape.ptx()
        )
    }
}

const fn combo(shape: MmaShape, input: MmaElem, acc: MmaElem) -> MmaCombo {
    MmaCombo { shape, input, acc }
}

/// Every combination cudajit accepts (all need compute_80 or later).
pub static MMA_COMBOS: &[MmaCombo] = &MMA_COMBOS_ARRAY;

const MMA_COMBOS_ARRAY: [MmaCombo; 7] = [
    combo(MmaShape::M16N8K16, MmaElem::BF16, MmaElem::F32),
    combo(MmaShape::M16N8K16, MmaElem::F16, MmaElem::F32),
    combo(MmaShape::M16N8K16, MmaElem::F16, MmaElem::F16),
    combo(MmaShape::M16N8K8, MmaElem::Tf32, MmaElem::F32),
    combo(MmaShape::M8N8K4, MmaElem::F64, MmaElem::F64),
    combo(MmaShape::M16N8K32, MmaElem::I8, MmaElem::I32),
    combo(MmaShape::M16N8K32, MmaElem::U8, MmaElem::I32),
];

/// The combination of these operand types, if `mma.sync` has it.
pub fn combo_of(shape: MmaShape, input: MmaElem, acc: MmaElem) -> Option<MmaCombo> {
    MMA_COMBOS
        .iter()
        .copied()
        .find(|c| c.shape == shape && c.input == input && c.acc == acc)
}

/// Whether a fragment type `role<shape, elem>` exists (used by some supported `mma`).
pub fn fragment_exists(shape: MmaShape, role: MmaRole, elem: MmaElem) -> bool {
    MMA_COMBOS.iter().any(|c| {
        c.shape == shape
            && match role {
                MmaRole::A | MmaRole::B => c.input == elem,
                MmaRole::Acc => c.acc == elem,
            }
    })
}

/// A hint naming the types that do exist for a shape and role (for error messages).
pub fn supported_for(shape: MmaShape, role: MmaRole) -> String {
    let mut names: Vec<&str> = MMA_COMBOS
        .iter()
        .filter(|c| c.shape == shape)
        .map(|c| match role {
            MmaRole::A | MmaRole::B => c.input.rust_name(),
            MmaRole::Acc => c.acc.rust_name(),
        })
        .collect();
    names.dedup();
    format!(
        "`{}<{}, T>` exists for T in {{{}}}",
        role.type_name(),
        shape.name(),
        names.join(", ")
    )
}

/// Elements of a fragment each lane holds: rows x cols / 32.
pub const fn fragment_len(shape: MmaShape, role: MmaRole) -> usize {
    let (r, c) = shape.dims(role);
    r * c / 32
}

/// The (row, col) of element `i` of `lane`'s fragment in its role's matrix (A: `(m, k)`,
/// B: `(k, n)`, accumulator: `(m, n)`): exactly the PTX ISA's fragment tables.
pub const fn element_position(
    shape: MmaShape,
    role: MmaRole,
    lane: usize,
    i: usize,
) -> (usize, usize) {
    let (group, thread) = (lane >> 2, lane % 4);
    match (shape, role) {
        // 8 x 16-bit: a0 a1 (g, 2t..), a2 a3 (g+8, 2t..), a4 a5 (g, 2t+8..), a6 a7 (g+8, 2t+8..).
        (MmaShape::M16N8K16, MmaRole::A) => (
            group + 8 * ((i >> 1) & 1),
            thread * 2 + (i & 1) + 8 * (i >> 2),
        ),
        // b0 b1 (k = 2t.., n = g), b2 b3 (k = 2t+8.., n = g).
        (MmaShape::M16N8K16, MmaRole::B) => (thread * 2 + (i & 1) + 8 * (i >> 1), group),
        // tf32: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4).
        (MmaShape::M16N8K8, MmaRole::A) => (group + 8 * (i & 1), thread + 4 * (i >> 1)),
        // b0 (k = t, n = g), b1 (k = t+4, n = g).
        (MmaShape::M16N8K8, MmaRole::B) => (thread + 4 * i, group),
        // 8-bit: a0..a3 (g, 4t..), a4..a7 (g+8, 4t..), a8..a11 (g, 4t+16..), a12..a15 (g+8, 4t+16..).
        (MmaShape::M16N8K32, MmaRole::A) => (
            group + 8 * ((i >> 2) & 1),
            thread * 4 + (i & 3) + 16 * (i >> 3),
        ),
        // b0..b3 (k = 4t.., n = g), b4..b7 (k = 4t+16.., n = g).
        (MmaShape::M16N8K32, MmaRole::B) => (thread * 4 + (i & 3) + 16 * (i >> 2), group),
        // Every m16n8 accumulator: c0 c1 (g, 2t..), c2 c3 (g+8, 2t..).
        (MmaShape::M16N8K16 | MmaShape::M16N8K8 | MmaShape::M16N8K32, MmaRole::Acc) => {
            (group + 8 * (i >> 1), thread * 2 + (i & 1))
        }
        // DMMA: a0 (g, t); b0 (k = t, n = g); c0 c1 (g, 2t..).
        (MmaShape::M8N8K4, MmaRole::A) => (group, thread),
        (MmaShape::M8N8K4, MmaRole::B) => (thread, group),
        (MmaShape::M8N8K4, MmaRole::Acc) => (group, thread * 2 + i),
    }
}

/// The 32-bit (f64: 64-bit) registers a fragment occupies: one per element for 32-
/// and 64-bit types (tf32 included), elements packed 2 (16-bit) or 4 (8-bit) per
/// register, low bits first.
pub const fn registers_of(shape: MmaShape, role: MmaRole, elem: MmaElem) -> usize {
    let len = fragment_len(shape, role);
    match elem {
        MmaElem::F16 | MmaElem::BF16 => len / 2,
        MmaElem::I8 | MmaElem::U8 | MmaElem::E4M3 => len / 4,
        _ => len,
    }
}

/// The scalar type of one register of a fragment in the register-level intrinsics
/// (`u32` for packed and tf32 registers, else the element's own type).
pub const fn register_scalar(role: MmaRole, elem: MmaElem) -> ScalarType {
    match (role, elem) {
        (_, MmaElem::F64) => ScalarType::F64,
        (MmaRole::Acc, MmaElem::F32) => ScalarType::F32,
        (MmaRole::Acc, MmaElem::I32) => ScalarType::I32,
        _ => ScalarType::U32,
    }
}

// tensor cores: the register-level intrinsics `mma_<shape>_<input>_<acc>(a.., b.., c..)
// -> (d..)`, one row per combination, each operand one register (as `registers_of`
// and `register_scalar` say). The fragment API (`FragA`, `mma_sync`) lowers to them.
use super::intrinsics::{Effect, Form, IntrinsicDef, Param, Ret, Signature};
use crate::ir::Intrinsic;

const U: Param = Param::Scalar(ScalarType::U32);
const F: Param = Param::Scalar(ScalarType::F32);
const D: Param = Param::Scalar(ScalarType::F64);
const I: Param = Param::Scalar(ScalarType::I32);

const fn mma_row(
    name: &'static str,
    combo: MmaCombo,
    params: &'static [Param],
    ret: &'static [ScalarType],
) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic: Intrinsic::Mma(combo),
        sig: Signature {
            types: &[],
            params,
            ret: Ret::Tuple(ret),
        },
        effect: Effect::Warp,
        nvvm: "",
    }
}

const F32X4: &[ScalarType] = &[ScalarType::F32; 4];
const U32X2: &[ScalarType] = &[ScalarType::U32; 2];
const F64X2: &[ScalarType] = &[ScalarType::F64; 2];
const I32X4: &[ScalarType] = &[ScalarType::I32; 4];

/// The rows of the register-level MMA intrinsics (chained into `intrinsics::all`).
pub static MMA_INTRINSICS: &[IntrinsicDef] = &[
    mma_row(
        "mma_m16n8k16_bf16_f32",
        MMA_COMBOS_ARRAY[0],
        &[U, U, U, U, U, U, F, F, F, F],
        F32X4,
    ),
    mma_row(
        "mma_m16n8k16_f16_f32",
        MMA_COMBOS_ARRAY[1],
        &[U, U, U, U, U, U, F, F, F, F],
        F32X4,
    ),
    mma_row(
        "mma_m16n8k16_f16_f16",
        MMA_COMBOS_ARRAY[2],
        &[U, U, U, U, U, U, U, U],
        U32X2,
    ),
    mma_row(
        "mma_m16n8k8_tf32_f32",
        MMA_COMBOS_ARRAY[3],
        &[U, U, U, U, U, U, F, F, F, F],
        F32X4,
    ),
    mma_row(
        "mma_m8n8k4_f64_f64",
        MMA_COMBOS_ARRAY[4],
        &[D, D, D, D],
        F64X2,
    ),
    mma_row(
        "mma_m16n8k32_i8_i32",
        MMA_COMBOS_ARRAY[5],
        &[U, U, U, U, U, U, I, I, I, I],
        I32X4,
    ),
    mma_row(
        "mma_m16n8k32_u8_i32",
        MMA_COMBOS_ARRAY[6],
        &[U, U, U, U, U, U, I, I, I, I],
        I32X4,
    ),
];

/// Element types of the tiles the register-level `ldmatrix_*`/`stmatrix_*` move (8x8
/// matrices of 16-byte rows, whatever the elements).
pub const MATRIX_TILE_TYPES: &[ScalarType] = &[
    ScalarType::BF16,
    ScalarType::F16,
    ScalarType::U16,
    ScalarType::I16,
    ScalarType::F32,
    ScalarType::U32,
    ScalarType::I32,
    ScalarType::U8,
    ScalarType::I8,
];

const TILE_AT: &[Param] = &[Param::MutSliceOfT, Param::Scalar(ScalarType::Usize)];
const U32X4: &[ScalarType] = &[ScalarType::U32; 4];

const fn ldmatrix_row(name: &'static str, count: u8, trans: bool, ret: Ret) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic: Intrinsic::Ldmatrix { count, trans },
        sig: Signature {
            types: MATRIX_TILE_TYPES,
            params: TILE_AT,
            ret,
        },
        effect: Effect::Warp,
        nvvm: "",
    }
}

const fn stmatrix_row(
    name: &'static str,
    count: u8,
    trans: bool,
    params: &'static [Param],
) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic: Intrinsic::Stmatrix { count, trans },
        sig: Signature {
            types: MATRIX_TILE_TYPES,
            params,
            ret: Ret::Unit,
        },
        effect: Effect::Warp,
        nvvm: "",
    }
}

const TILE_AT_1: &[Param] = &[Param::MutSliceOfT, Param::Scalar(ScalarType::Usize), U];
const TILE_AT_2: &[Param] = &[Param::MutSliceOfT, Param::Scalar(ScalarType::Usize), U, U];
const TILE_AT_4: &[Param] = &[
    Param::MutSliceOfT,
    Param::Scalar(ScalarType::Usize),
    U,
    U,
    U,
    U,
];

/// The register-level `ldmatrix_x{1,2,4}[_trans](tile, offset) -> registers` and
/// `stmatrix_x{1,2,4}[_trans](tile, offset, registers..)`: each lane names, as an
/// element offset into the shared `tile`, the 16-byte row it supplies (lane `8q + r`:
/// row `r` of matrix `q`); every lane's row is bounds-checked (so lanes whose row the
/// instruction ignores must still name a row inside the tile).
pub static MATRIX_INTRINSICS: &[IntrinsicDef] = &[
    ldmatrix_row("ldmatrix_x1", 1, false, Ret::Scalar(ScalarType::U32)),
    ldmatrix_row("ldmatrix_x2", 2, false, Ret::Tuple(U32X2)),
    ldmatrix_row("ldmatrix_x4", 4, false, Ret::Tuple(U32X4)),
    ldmatrix_row("ldmatrix_x1_trans", 1, true, Ret::Scalar(ScalarType::U32)),
    ldmatrix_row("ldmatrix_x2_trans", 2, true, Ret::Tuple(U32X2)),
    ldmatrix_row("ldmatrix_x4_trans", 4, true, Ret::Tuple(U32X4)),
    stmatrix_row("stmatrix_x1", 1, false, TILE_AT_1),
    stmatrix_row("stmatrix_x2", 2, false, TILE_AT_2),
    stmatrix_row("stmatrix_x4", 4, false, TILE_AT_4),
    stmatrix_row("stmatrix_x1_trans", 1, true, TILE_AT_1),
    stmatrix_row("stmatrix_x2_trans", 2, true, TILE_AT_2),
    stmatrix_row("stmatrix_x4_trans", 4, true, TILE_AT_4),
];

/// How an `ldmatrix`/`stmatrix` tile holds its operand: the fragment's matrix row-major
/// (`A[r][c]` at `r * ld + c`) or column-major (`A[r][c]` at `c * ld + r`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileLayout {
    Row,
    Col,
}

/// Whether `ldmatrix` moves a fragment of this role from a tile of this layout without
/// `.trans` (A row-major, B column-major, accumulator row-major), with `.trans`
/// (16-bit elements only: the transpose works on 16-bit units), or not at all.
pub fn needs_trans(role: MmaRole, layout: TileLayout) -> bool {
    matches!(
        (role, layout),
        (MmaRole::A, TileLayout::Col)
            | (MmaRole::B, TileLayout::Row)
            | (MmaRole::Acc, TileLayout::Col)
    )
}

/// How many 8x8 (16-byte-row) matrices one `ldmatrix`/`stmatrix` of a fragment moves
/// (`.x1/.x2/.x4`), or `None` where the fragment is not made of them (DMMA's f64).
pub fn matrices_of(shape: MmaShape, role: MmaRole, elem: MmaElem) -> Option<usize> {
    if elem == MmaElem::F64 || (role == MmaRole::Acc && elem.bytes() != 2) {
        return None;
    }
    let (rows, cols) = shape.dims(role);
    Some(rows * cols * elem.bytes() / 128)
}

/// The element (row, col) of the fragment's matrix (relative to its top-left) at which
/// the 16-byte row that `lane` names to `ldmatrix`/`stmatrix` starts, for a fragment of
/// `matrices` 8x8 matrices read from a tile of `layout`. Lanes `8q..8q+8` name the rows
/// of matrix `q`; matrix `q` is register `q` of every lane. `None` for lanes whose
/// address the instruction does not read (lanes 8.. of `.x1`, 16.. of `.x2`).
pub fn ldmatrix_row_start(
    shape: MmaShape,
    role: MmaRole,
    elem: MmaElem,
    layout: TileLayout,
    lane: usize,
) -> Option<(usize, usize)> {
    let matrices = matrices_of(shape, role, elem)?;
    let (q, r) = (lane / 8, lane % 8);
    if q >= matrices {
        return None;
    }
    // A 16-byte row holds `width` elements; matrix q covers 8 fragment rows (or, for a
    // transposed tile, 8 fragment columns) by `width` columns.
    let width = 16 / elem.bytes();
    let (rows, _) = shape.dims(role);
    // Registers run down the fragment's rows first where it has 16 of them (A and the
    // accumulator), then along its columns; B's registers run along K.
    let (row_block, col_block) = match role {
        MmaRole::A | MmaRole::Acc if rows == 16 => (q & 1, q >> 1),
        _ => (0, q),
    };
    let (row, col) = (8 * row_block, width * col_block);
    Some(match (role, needs_trans(role, layout)) {
        // Non-transposed A / accumulator: the lane names fragment row `row + r`.
        (MmaRole::A | MmaRole::Acc, false) => (row + r, col),
        // Transposed A: the tile's rows are fragment columns (k), 8 of them per matrix.
        (MmaRole::A | MmaRole::Acc, true) => (row, col + r),
        // Column-major B (non-transposed): the lane names fragment column `n = r`;
        // `row` here runs along K.
        (MmaRole::B, false) => (col, r),
        // Row-major B (transposed): the lane names fragment row `k = col + r`.
        (MmaRole::B, true) => (col + r, 0),
    })
}

/// The offset of fragment element (row, col) in a tile of `layout` and leading
/// dimension `ld`.
pub const fn tile_offset(layout: TileLayout, ld: usize, row: usize, col: usize) -> usize {
    match layout {
        TileLayout::Row => row * ld + col,
        TileLayout::Col => col * ld + row,
    }
}

/// `cvt.rna.tf32.f32`: `x` rounded to tf32 (10 fraction bits), to nearest with ties
/// away from zero; the low 13 bits of the result are zero. NaN and infinities pass.
pub fn to_tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let bits = x.to_bits();
    // Adding half of the dropped unit rounds ties away from zero on the magnitude; a
    // carry into the exponent is the correct rounding up to the next binade.
    f32::from_bits((bits.wrapping_add(0x1000)) & !0x1fff)
}

/// What the tensor core reads of an f32 given as tf32: its top 19 bits.
pub fn tf32_operand(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    f32::from_bits(x.to_bits() & !0x1fff)
}

// typed fragments: the lane-dependent parts of the tables, as the frontend's
// expansion of `FragA`/`FragB`/`Acc` writes them (a lane's element `i` is a constant
// position plus a lane term; an `ldmatrix` lane's row start is, per matrix `q`, a
// constant plus a multiple of `r = lane % 8`). The tests below hold them to the tables.

/// The coefficients `((row_g, row_t), (col_g, col_t))` with which a lane's fragment
/// elements move: element `i` of lane `(g, t)` is at `element_position(.., 0, i)` plus
/// `(row_g * g + row_t * t, col_g * g + col_t * t)`.
pub const fn lane_terms(shape: MmaShape, role: MmaRole) -> ((usize, usize), (usize, usize)) {
    // Lane 4 is (g 1, t 0), lane 1 is (g 0, t 1); lane 0 holds element 0 at (0, 0).
    let by_group = element_position(shape, role, 4, 0);
    let by_thread = element_position(shape, role, 1, 0);
    ((by_group.0, by_thread.0), (by_group.1, by_thread.1))
}

/// For matrix `q` of an `ldmatrix`/`stmatrix` of a fragment: the row start lane `8q`
/// names and its step per `r` (lane `8q + r` names `start + r * step`).
pub fn ldmatrix_start_terms(
    shape: MmaShape,
    role: MmaRole,
    elem: MmaElem,
    layout: TileLayout,
    q: usize,
) -> Option<((usize, usize), (usize, usize))> {
    let first = ldmatrix_row_start(shape, role, elem, layout, 8 * q)?;
    let next = ldmatrix_row_start(shape, role, elem, layout, 8 * q + 1)?;
    Some((first, (next.0 - first.0, next.1 - first.1)))
}

/// The panic of a fragment element index past `len()` (`row_col`, `position`).
pub const FRAGMENT_INDEX_MESSAGE: &str = "fragment index {} out of range";

#[cfg(test)]
mod tests {
    use super::*;

    /// `lane_terms` and `ldmatrix_start_terms` reproduce the full tables on every lane.
    #[test]
    fn lane_terms_rebuild_the_tables() {
        for shape in MmaShape::ALL {
            for role in [MmaRole::A, MmaRole::B, MmaRole::Acc] {
                let ((rg, rt), (cg, ct)) = lane_terms(shape, role);
                for lane in 0..32 {
                    let (g, t) = (lane >> 2, lane % 4);
                    for i in 0..fragment_len(shape, role) {
                        let (r0, c0) = element_position(shape, role, 0, i);
                        assert_eq!(
                            element_position(shape, role, lane, i),
                            (r0 + rg * g + rt * t, c0 + cg * g + ct * t),
                            "{shape:?} {role:?} lane {lane} i {i}"
                        );
                    }
                }
            }
        }
        for c in MMA_COMBOS {
            for (role, elem) in [
                (MmaRole::A, c.input),
                (MmaRole::B, c.input),
                (MmaRole::Acc, c.acc),
            ] {
                for layout in [TileLayout::Row, TileLayout::Col] {
                    for lane in 0..32 {
                        let Some(want) = ldmatrix_row_start(c.shape, role, elem, layout, lane)
                        else {
                            continue;
                        };
                        let ((r0, c0), (dr, dc)) =
                            ldmatrix_start_terms(c.shape, role, elem, layout, lane / 8).unwrap();
                        let r = lane % 8;
                        assert_eq!(
                            want,
                            (r0 + dr * r, c0 + dc * r),
                            "{c:?} {role:?} {layout:?} {lane}"
                        );
                    }
                }
            }
        }
    }

    /// Every element of every role's matrix is held by exactly one (lane, i).
    #[test]
    fn fragments_cover_each_matrix_element_once() {
        for shape in MmaShape::ALL {
            for role in [MmaRole::A, MmaRole::B, MmaRole::Acc] {
                let (rows, cols) = shape.dims(role);
                let mut seen = vec![0u32; rows * cols];
                for lane in 0..32 {
                    for i in 0..fragment_len(shape, role) {
                        let (r, c) = element_position(shape, role, lane, i);
                        assert!(r < rows && c < cols, "{shape:?} {role:?} lane {lane} i {i}");
                        seen[r * cols + c] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{shape:?} {role:?}");
            }
        }
    }

    /// The ISA's tables at a few points, written out from the PTX ISA's figures.
    #[test]
    fn positions_match_the_isa_figures() {
        // m16n8k16 A, lane 5 (group 1, thread 1): a0 = (1, 2), a3 = (9, 3), a6 = (9, 10).
        assert_eq!(
            element_position(MmaShape::M16N8K16, MmaRole::A, 5, 0),
            (1, 2)
        );
        assert_eq!(
            element_position(MmaShape::M16N8K16, MmaRole::A, 5, 3),
            (9, 3)
        );
        assert_eq!(
            element_position(MmaShape::M16N8K16, MmaRole::A, 5, 6),
            (9, 10)
        );
        // m16n8k16 B, lane 30 (group 7, thread 2): b3 = (k 13, n 7).
        assert_eq!(
            element_position(MmaShape::M16N8K16, MmaRole::B, 30, 3),
            (13, 7)
        );
        // m16n8k8 tf32 A, lane 6: a1 = (9, 2), a2 = (1, 6).
        assert_eq!(
            element_position(MmaShape::M16N8K8, MmaRole::A, 6, 1),
            (9, 2)
        );
        assert_eq!(
            element_position(MmaShape::M16N8K8, MmaRole::A, 6, 2),
            (1, 6)
        );
        // m16n8k32 A, lane 3: a13 = (8, 12 + 1 + 16).
        assert_eq!(
            element_position(MmaShape::M16N8K32, MmaRole::A, 3, 13),
            (8, 29)
        );
        // accumulators: lane 31, c3 = (15, 7); DMMA c1 of lane 31 = (7, 7).
        assert_eq!(
            element_position(MmaShape::M16N8K16, MmaRole::Acc, 31, 3),
            (15, 7)
        );
        assert_eq!(
            element_position(MmaShape::M8N8K4, MmaRole::Acc, 31, 1),
            (7, 7)
        );
    }

    /// `ldmatrix` semantics applied to the lanes' row starts give each lane exactly the
    /// elements the fragment tables say it holds: non-transposed, lane l's register q
    /// holds 16-byte-row `l / 4` of matrix q, bytes `4 (l % 4)..`; transposed, 16-bit
    /// units (row 2 (l % 4) + h, column l / 4) of matrix q.
    #[test]
    fn ldmatrix_row_starts_deliver_the_fragment_tables() {
        for c in MMA_COMBOS {
            for role in [MmaRole::A, MmaRole::B, MmaRole::Acc] {
                let elem = if role == MmaRole::Acc { c.acc } else { c.input };
                let Some(matrices) = matrices_of(c.shape, role, elem) else {
                    continue;
                };
                let per_reg = 4 / elem.bytes();
                for layout in [TileLayout::Row, TileLayout::Col] {
                    let trans = needs_trans(role, layout);
                    if trans && elem.bytes() != 2 {
                        continue;
                    }
                    // A tile big enough, ld 64: the element each tile offset holds.
                    let ld = 64;
                    let starts: Vec<_> = (0..32)
                        .map(|l| ldmatrix_row_start(c.shape, role, elem, layout, l))
                        .collect();
                    for lane in 0..32 {
                        for q in 0..matrices {
                            for h in 0..per_reg {
                                // The tile offset hardware reads for (lane, register q, part h).
                                let offset = if !trans {
                                    let (r0, c0) = starts[8 * q + lane / 4].unwrap();
                                    let along = (lane % 4) * per_reg + h;
                                    match layout {
                                        TileLayout::Row => tile_offset(layout, ld, r0, c0 + along),
                                        TileLayout::Col => tile_offset(layout, ld, r0 + along, c0),
                                    }
                                } else {
                                    let (r0, c0) = starts[8 * q + 2 * (lane % 4) + h].unwrap();
                                    let along = lane / 4;
                                    match layout {
                                        TileLayout::Row => tile_offset(layout, ld, r0, c0 + along),
                                        TileLayout::Col => tile_offset(layout, ld, r0 + along, c0),
                                    }
                                };
                                let i = q * per_reg + h;
                                let (r, col) = element_position(c.shape, role, lane, i);
                                assert_eq!(
                                    offset,
                                    tile_offset(layout, ld, r, col),
                                    "{c:?} {role:?} {layout:?} lane {lane} element {i}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Each register-level row is named after its combination and takes exactly the
    /// registers `registers_of` / `register_scalar` give its fragments.
    #[test]
    fn register_level_rows_match_their_combinations() {
        assert_eq!(MMA_INTRINSICS.len(), MMA_COMBOS.len());
        for row in MMA_INTRINSICS {
            let Intrinsic::Mma(c) = row.intrinsic else {
                panic!("{}", row.name)
            };
            assert_eq!(
                row.name,
                format!(
                    "mma_{}_{}_{}",
                    c.shape.ptx(),
                    c.input.rust_name(),
                    c.acc.rust_name()
                )
            );
            let mut want = Vec::new();
            for (role, elem) in [
                (MmaRole::A, c.input),
                (MmaRole::B, c.input),
                (MmaRole::Acc, c.acc),
            ] {
                for _ in 0..registers_of(c.shape, role, elem) {
                    want.push(Param::Scalar(register_scalar(role, elem)));
                }
            }
            assert_eq!(row.sig.params, want.as_slice(), "{}", row.name);
            let acc = vec![
                register_scalar(MmaRole::Acc, c.acc);
                registers_of(c.shape, MmaRole::Acc, c.acc)
            ];
            assert_eq!(
                row.sig.ret,
                Ret::Tuple(Box::leak(acc.into_boxed_slice())),
                "{}",
                row.name
            );
        }
    }

    #[test]
    fn tf32_rounds_to_nearest_ties_away() {
        // 1 + 2^-11 is half of tf32's last place above 1: a tie, away from zero.
        let tie = f32::from_bits(1.0f32.to_bits() | 0x1000);
        assert_eq!(to_tf32(tie), f32::from_bits(1.0f32.to_bits() + 0x2000));
        assert_eq!(to_tf32(-tie), -f32::from_bits(1.0f32.to_bits() + 0x2000));
        let below = f32::from_bits(1.0f32.to_bits() | 0x0fff);
        assert_eq!(to_tf32(below), 1.0);
        assert_eq!(tf32_operand(f32::from_bits(0x3f80_1fff)), 1.0);
        assert_eq!(
            MmaCombo {
                shape: MmaShape::M16N8K16,
                input: MmaElem::BF16,
                acc: MmaElem::F32
            }
            .instruction(),
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
        );
    }
}
