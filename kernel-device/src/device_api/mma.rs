//! Tensor cores: warp-level matrix fragments and `mma.sync`, `ldmatrix`, `stmatrix`
//! (compute_80 and later; `stmatrix` compute_90). The guide is `docs/tensor_cores.md`.
//!
//! A fragment is typed by its shape (`M16N8K16`, `M16N8K8`, `M8N8K4`, `M16N8K32`), its
//! element type and its role (`FragA`, `FragB`, `Acc`), so that only the combinations
//! `mma.sync` has can be written: `FragA<M16N8K16, f32>` or an `Acc<M16N8K16, f32>`
//! passed where a `FragB` goes is a rustc error here and a cudajit error at the token.
//! The rules (which combinations exist, which lane holds which element) are
//! `proc::mma`'s table, which the compiler and the simulator read too.
//!
//! These are the host twin's stand-ins. A twin runs one lane at a time, so what needs
//! the other 31 lanes of the warp (`mma_sync`, the per-lane-offset `*_at` forms) panics
//! there, saying to run the kernel on the simulator; what one lane can do alone (fills,
//! element access, the owner map, the (row, col) loads and stores) does it as the GPU
//! does for `lane_id()`.

use std::marker::PhantomData;

use half::{bf16, f16};

use super::warp::lane_id;
use crate::proc::mma::{self as table, MmaElem, MmaRole, MmaShape, TileLayout};

mod sealed {
    pub trait Sealed {}
}

/// An `mma.sync` shape `MxNxK` (a marker type).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `mma.sync` shape",
    note = "the shapes: M16N8K16, M16N8K8, M8N8K4, M16N8K32"
)]
pub trait FragShape: sealed::Sealed + Copy + 'static {
    const SHAPE: MmaShape;
}

macro_rules! shapes {
    ($($name:ident)*) => {$(
        #[doc = concat!("The `mma.sync` shape `", stringify!($name), "` (a marker type).")]
        ///
        /// A type argument only: braced with a private field so that no value (and no
        /// name in the value namespace, which a `let` binding would collide with) exists.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name {
            _type_only: (),
        }
        impl sealed::Sealed for $name {}
        impl FragShape for $name {
            const SHAPE: MmaShape = MmaShape::$name;
        }
    )*};
}
shapes!(M16N8K16 M16N8K8 M8N8K4 M16N8K32);

/// TensorFloat-32, the input type of `M16N8K8`: held as an `f32` (the fragment's
/// elements are `f32`s), of which the tensor core reads the sign, the 8 exponent bits
/// and the top 10 fraction bits. Round an `f32` to it with [`to_tf32`] (PTX
/// `cvt.rna.tf32.f32`); an unrounded value is truncated (its low 13 bits are ignored).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct tf32 {
    // Braced, so that `let tf32 = ..` in a kernel stays a binding, not a pattern.
    _type_only: (),
}

/// A fragment element type: what a lane holds per element (`Storage`) and what
/// `mma.sync` reads it as.
pub trait FragElement: sealed::Sealed + Copy + 'static {
    type Storage: Copy + Default + std::fmt::Debug + 'static;
    const ELEM: MmaElem;
}

macro_rules! elements {
    ($($ty:ident => $storage:ty, $elem:ident;)*) => {$(
        impl sealed::Sealed for $ty {}
        impl FragElement for $ty {
            type Storage = $storage;
            const ELEM: MmaElem = MmaElem::$elem;
        }
    )*};
}
elements! {
    f16 => f16, F16;
    bf16 => bf16, BF16;
    tf32 => f32, Tf32;
    f32 => f32, F32;
    f64 => f64, F64;
    i8 => i8, I8;
    u8 => u8, U8;
    i32 => i32, I32;
}

/// The A/B element types of shape `S`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an A/B element type of `{S}` fragments",
    label = "no `mma.sync` of shape `{S}` multiplies `{Self}`",
    note = "inputs: M16N8K16 bf16 or f16; M16N8K8 tf32; M8N8K4 f64; M16N8K32 i8 or u8"
)]
pub trait MmaInput<S: FragShape>: FragElement {}
/// The accumulator element types of shape `S`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an accumulator type of `{S}` fragments",
    label = "no `mma.sync` of shape `{S}` accumulates in `{Self}`",
    note = "accumulators: M16N8K16 f32 or f16; M16N8K8 f32; M8N8K4 f64; M16N8K32 i32"
)]
pub trait MmaAccumulator<S: FragShape>: FragElement {}
/// `Self` accumulates products of `T` at shape `S` (the `mma.sync` combinations).
#[diagnostic::on_unimplemented(
    message = "`mma.sync` of shape `{S}` has no `{T}` inputs with a `{Self}` accumulator",
    label = "this accumulator does not fit these fragments",
    note = "the combinations: M16N8K16 bf16->f32, f16->f32, f16->f16; M16N8K8 tf32->f32; M8N8K4 f64->f64; M16N8K32 i8->i32, u8->i32"
)]
pub trait Accumulates<S: FragShape, T: MmaInput<S>>: MmaAccumulator<S> {}
/// Inputs `ldmatrix` loads (made of 8x8 matrices of 16-byte rows): all but `f64`.
#[diagnostic::on_unimplemented(
    message = "`ldmatrix` cannot load `{Self}` fragments of shape `{S}`",
    note = "DMMA's f64 fragments hold one element per lane: load them with `load_row` / `load_col`"
)]
pub trait LdmatrixInput<S: FragShape>: MmaInput<S> {}
/// Inputs `ldmatrix.trans` can transpose: the 16-bit types (it moves 16-bit units).
#[diagnostic::on_unimplemented(
    message = "`ldmatrix.trans` transposes 16-bit elements, not `{Self}`",
    note = "keep the tile in the layout that needs no transpose (A row-major: `FragA::ldmatrix_row`; B column-major: `FragB::ldmatrix_col`), or use `load_row` / `load_col`"
)]
pub trait TransposableInput<S: FragShape>: LdmatrixInput<S> {}
/// Accumulators `stmatrix` stores: the 16-bit ones (`Acc<M16N8K16, f16>`).
#[diagnostic::on_unimplemented(
    message = "`stmatrix` stores 16-bit accumulators, not `{Self}`",
    note = "store other accumulators with `store_row` / `store_col`"
)]
pub trait StmatrixAccumulator<S: FragShape>: MmaAccumulator<S> {}

macro_rules! impls {
    ($trait:ident<$shape:ident> for $($ty:ident)*) => {$( impl $trait<$shape> for $ty {} )*};
}
impls!(MmaInput<M16N8K16> for bf16 f16);
impls!(MmaInput<M16N8K8> for tf32);
impls!(MmaInput<M8N8K4> for f64);
impls!(MmaInput<M16N8K32> for i8 u8);
impls!(MmaAccumulator<M16N8K16> for f32 f16);
impls!(MmaAccumulator<M16N8K8> for f32);
impls!(MmaAccumulator<M8N8K4> for f64);
impls!(MmaAccumulator<M16N8K32> for i32);
impl Accumulates<M16N8K16, bf16> for f32 {}
impl Accumulates<M16N8K16, f16> for f32 {}
impl Accumulates<M16N8K16, f16> for f16 {}
impl Accumulates<M16N8K8, tf32> for f32 {}
impl Accumulates<M8N8K4, f64> for f64 {}
impl Accumulates<M16N8K32, i8> for i32 {}
impl Accumulates<M16N8K32, u8> for i32 {}
impls!(LdmatrixInput<M16N8K16> for bf16 f16);
impls!(LdmatrixInput<M16N8K8> for tf32);
impls!(LdmatrixInput<M16N8K32> for i8 u8);
impls!(TransposableInput<M16N8K16> for bf16 f16);
impls!(StmatrixAccumulator<M16N8K16> for f16);

/// The most elements a lane holds of any fragment (`FragA<M16N8K32, i8>`).
const MOST: usize = 16;

/// `cvt.rna.tf32.f32`: `x` rounded to the nearest tf32 (ties away from zero), as an
/// `f32` whose low 13 bits are zero.
pub fn to_tf32(x: f32) -> f32 {
    table::to_tf32(x)
}

fn warp_collective(what: &str) -> ! {
    panic!(
        "{what} needs all 32 lanes of the warp; the host twin runs one lane: \
         run the kernel on the simulator (`Device::simulator()`)"
    )
}

/// Each lane's elements of a fragment, read from (or written to) a tile of `layout`
/// with leading dimension `ld` whose element (0, 0) is the fragment's (row, col).
fn lane_offsets(
    shape: MmaShape,
    role: MmaRole,
    layout: TileLayout,
    ld: usize,
    (row, col): (usize, usize),
) -> impl Iterator<Item = usize> {
    let lane = lane_id() as usize;
    (0..table::fragment_len(shape, role)).map(move |i| {
        let (r, c) = table::element_position(shape, role, lane, i);
        table::tile_offset(layout, ld, row + r, col + c)
    })
}

macro_rules! fragment {
    ($(#[$doc:meta])* $name:ident, $bound:ident, $role:ident) => {
        $(#[$doc])*
        pub struct $name<S: FragShape, T: $bound<S>> {
            elems: [T::Storage; MOST],
            marker: PhantomData<(S, T)>,
        }

        impl<S: FragShape, T: $bound<S>> Clone for $name<S, T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<S: FragShape, T: $bound<S>> Copy for $name<S, T> {}

        impl<S: FragShape, T: $bound<S>> std::fmt::Debug for $name<S, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_list().entries(&self.elems[..self.len()]).finish()
            }
        }

        #[allow(clippy::len_without_is_empty)]
        impl<S: FragShape, T: $bound<S>> $name<S, T> {
            const ROLE: MmaRole = MmaRole::$role;

            /// Every element zero.
            pub fn zero() -> Self {
                Self::fill(T::Storage::default())
            }

            /// Every element `value`.
            pub fn fill(value: T::Storage) -> Self {
                $name { elems: [value; MOST], marker: PhantomData }
            }

            /// The elements this lane holds (`M*K/32`, `K*N/32` or `M*N/32`).
            pub fn len(&self) -> usize {
                table::fragment_len(S::SHAPE, Self::ROLE)
            }

            /// The (row, col) in this role's matrix of this lane's element `i` (A:
            /// `(m, k)`, B: `(k, n)`, accumulator `(m, n)`): the PTX ISA's tables, with
            /// `groupID = lane >> 2`, `threadID_in_group = lane % 4`.
            pub fn row_col(&self, i: usize) -> (usize, usize) {
                Self::position(lane_id(), i)
            }

            /// The (row, col) of element `i` of lane `lane` (for host-side references).
            pub fn position(lane: u32, i: usize) -> (usize, usize) {
                assert!(i < table::fragment_len(S::SHAPE, Self::ROLE), "fragment index {i} out of range");
                table::element_position(S::SHAPE, Self::ROLE, lane as usize % 32, i)
            }

            /// The fragment at (row, col) of a row-major matrix in `src` (global or
            /// shared) with leading dimension `ld`: `M[r][c]` at `src[r * ld + c]`.
            /// One bounds check per fragment (its last row's end), not per element.
            pub fn load_row(src: &[T::Storage], ld: usize, row: usize, col: usize) -> Self {
                Self::load(src, TileLayout::Row, ld, (row, col))
            }

            /// The fragment at (row, col) of a column-major matrix in `src`:
            /// `M[r][c]` at `src[c * ld + r]`.
            pub fn load_col(src: &[T::Storage], ld: usize, row: usize, col: usize) -> Self {
                Self::load(src, TileLayout::Col, ld, (row, col))
            }

            fn load(src: &[T::Storage], layout: TileLayout, ld: usize, at: (usize, usize)) -> Self {
                let mut frag = Self::zero();
                for (i, offset) in lane_offsets(S::SHAPE, Self::ROLE, layout, ld, at).enumerate() {
                    frag.elems[i] = src[offset];
                }
                frag
            }
        }

        impl<S: FragShape, T: $bound<S>> std::ops::Index<usize> for $name<S, T> {
            type Output = T::Storage;
            fn index(&self, i: usize) -> &T::Storage {
                &self.elems[..self.len()][i]
            }
        }

        impl<S: FragShape, T: $bound<S>> std::ops::IndexMut<usize> for $name<S, T> {
            fn index_mut(&mut self, i: usize) -> &mut T::Storage {
                let len = self.len();
                &mut self.elems[..len][i]
            }
        }
    };
}

fragment!(
    /// This lane's part of the `M x K` multiplicand A (row-major in `mma.sync`) of shape
    /// `S` and element type `T`. `frag[i]` is element `frag.row_col(i)` of A.
    FragA, MmaInput, A
);
fragment!(
    /// This lane's part of the `K x N` multiplicand B (column-major in `mma.sync`).
    /// `frag[i]` is element `frag.row_col(i)` = `(k, n)` of B.
    FragB, MmaInput, B
);
fragment!(
    /// This lane's part of the `M x N` accumulator (C in, D out of `mma_sync`).
    /// `acc[i]` is element `acc.row_col(i)` = `(m, n)`.
    Acc, MmaAccumulator, Acc
);

impl<S: FragShape, T: LdmatrixInput<S>> FragA<S, T> {
    /// `ldmatrix` (`.x4`; `.x2`/`.x1` where A has fewer 8x8 matrices) of the A fragment
    /// at (row, col) of a row-major tile in shared memory with leading dimension `ld`.
    /// Each lane's 16-byte row is bounds-checked and must be 16-byte aligned.
    pub fn ldmatrix_row(tile: &[T::Storage], ld: usize, row: usize, col: usize) -> Self {
        Self::load(tile, TileLayout::Row, ld, (row, col))
    }

    /// `ldmatrix` with per-lane addresses: lane `8q + r` names, as an element offset
    /// into `tile`, where row `r` of the fragment's 8x8 matrix `q` starts (the matrices
    /// in register order: rows 0-7 / 8-15 of columns 0.., then of the next 16 bytes of
    /// columns). For swizzled tiles; each lane's row is bounds- and alignment-checked.
    pub fn ldmatrix_at(tile: &[T::Storage], offset: usize) -> Self {
        let _ = (tile, offset);
        warp_collective("`ldmatrix_at`")
    }
}

impl<S: FragShape, T: TransposableInput<S>> FragA<S, T> {
    /// `ldmatrix.trans` of the A fragment at (row, col) of a column-major tile
    /// (`A[m][k]` at `tile[k * ld + m]`): 16-bit types only.
    pub fn ldmatrix_col(tile: &[T::Storage], ld: usize, row: usize, col: usize) -> Self {
        Self::load(tile, TileLayout::Col, ld, (row, col))
    }

    /// `ldmatrix.trans` with per-lane addresses (each lane names a 16-byte row of the
    /// column-major tile: 8 consecutive `m` of one `k`).
    pub fn ldmatrix_trans_at(tile: &[T::Storage], offset: usize) -> Self {
        let _ = (tile, offset);
        warp_collective("`ldmatrix_trans_at`")
    }
}

impl<S: FragShape, T: LdmatrixInput<S>> FragB<S, T> {
    /// `ldmatrix` (`.x2`) of the B fragment at (k, n) of a column-major tile
    /// (`B[k][n]` at `tile[n * ld + k]`, i.e. Bᵀ row-major, the `mma.sync` layout).
    pub fn ldmatrix_col(tile: &[T::Storage], ld: usize, k: usize, n: usize) -> Self {
        Self::load(tile, TileLayout::Col, ld, (k, n))
    }

    /// `ldmatrix.x4`: the B fragments at (k, n) and (k, n + 8) of a column-major tile,
    /// in one instruction (an `n16` slice of B, as GEMM inner loops use).
    pub fn ldmatrix_pair_col(tile: &[T::Storage], ld: usize, k: usize, n: usize) -> (Self, Self) {
        (
            Self::ldmatrix_col(tile, ld, k, n),
            Self::ldmatrix_col(tile, ld, k, n + 8),
        )
    }

    /// `ldmatrix` with per-lane addresses: lane `8q + r` (q < 2) names where row
    /// `n = r` of 8x8 matrix `q` (k `q * 16 bytes..`) starts in the column-major tile.
    pub fn ldmatrix_at(tile: &[T::Storage], offset: usize) -> Self {
        let _ = (tile, offset);
        warp_collective("`ldmatrix_at`")
    }

    /// `ldmatrix.x4` with per-lane addresses: lanes 0-15 as `ldmatrix_at` for the
    /// first fragment, lanes 16-31 for the second.
    pub fn ldmatrix_pair_at(tile: &[T::Storage], offset: usize) -> (Self, Self) {
        let _ = (tile, offset);
        warp_collective("`ldmatrix_pair_at`")
    }
}

impl<S: FragShape, T: TransposableInput<S>> FragB<S, T> {
    /// `ldmatrix.trans` (`.x2`) of the B fragment at (k, n) of a row-major tile
    /// (`B[k][n]` at `tile[k * ld + n]`): 16-bit types only.
    pub fn ldmatrix_row(tile: &[T::Storage], ld: usize, k: usize, n: usize) -> Self {
        Self::load(tile, TileLayout::Row, ld, (k, n))
    }

    /// `ldmatrix.x4.trans`: the B fragments at (k, n) and (k, n + 8) of a row-major
    /// tile.
    pub fn ldmatrix_pair_row(tile: &[T::Storage], ld: usize, k: usize, n: usize) -> (Self, Self) {
        (
            Self::ldmatrix_row(tile, ld, k, n),
            Self::ldmatrix_row(tile, ld, k, n + 8),
        )
    }

    /// `ldmatrix.trans` with per-lane addresses: lane `8q + r` (q < 2) names where row
    /// `k = 8q + r` starts in the row-major tile.
    pub fn ldmatrix_trans_at(tile: &[T::Storage], offset: usize) -> Self {
        let _ = (tile, offset);
        warp_collective("`ldmatrix_trans_at`")
    }

    /// `ldmatrix.x4.trans` with per-lane addresses: lanes 0-15 for the first
    /// fragment, lanes 16-31 for the second (n + 8).
    pub fn ldmatrix_pair_trans_at(tile: &[T::Storage], offset: usize) -> (Self, Self) {
        let _ = (tile, offset);
        warp_collective("`ldmatrix_pair_trans_at`")
    }
}

impl<S: FragShape, C: MmaAccumulator<S>> Acc<S, C> {
    /// Writes the accumulator to (m, n) of a row-major matrix in `dst` (global or
    /// shared) with leading dimension `ld`; one bounds check per fragment.
    pub fn store_row(&self, dst: &mut [C::Storage], ld: usize, m: usize, n: usize) {
        self.store(dst, TileLayout::Row, ld, (m, n))
    }

    /// Writes the accumulator to (m, n) of a column-major matrix in `dst`.
    pub fn store_col(&self, dst: &mut [C::Storage], ld: usize, m: usize, n: usize) {
        self.store(dst, TileLayout::Col, ld, (m, n))
    }

    fn store(&self, dst: &mut [C::Storage], layout: TileLayout, ld: usize, at: (usize, usize)) {
        for (i, offset) in lane_offsets(S::SHAPE, MmaRole::Acc, layout, ld, at).enumerate() {
            dst[offset] = self.elems[i];
        }
    }
}

impl<S: FragShape, C: StmatrixAccumulator<S>> Acc<S, C> {
    /// `stmatrix` (`.x2`, compute_90+) of the accumulator to (m, n) of a row-major
    /// tile in shared memory.
    pub fn stmatrix_row(&self, tile: &mut [C::Storage], ld: usize, m: usize, n: usize) {
        self.store(tile, TileLayout::Row, ld, (m, n))
    }

    /// `stmatrix.trans` (compute_90+) to (m, n) of a column-major shared tile.
    pub fn stmatrix_col(&self, tile: &mut [C::Storage], ld: usize, m: usize, n: usize) {
        self.store(tile, TileLayout::Col, ld, (m, n))
    }

    /// `stmatrix` with per-lane addresses (lane `8q + r`, q < 2: row `8q + r` of the
    /// accumulator), for swizzled tiles.
    pub fn stmatrix_at(&self, tile: &mut [C::Storage], offset: usize) {
        let _ = (tile, offset);
        warp_collective("`stmatrix_at`")
    }

    /// `stmatrix.trans` with per-lane addresses (lane `8q + r`: column `r` of matrix
    /// `q`, 8 consecutive rows).
    pub fn stmatrix_trans_at(&self, tile: &mut [C::Storage], offset: usize) {
        let _ = (tile, offset);
        warp_collective("`stmatrix_trans_at`")
    }
}

/// `mma.sync.aligned.{shape}.row.col`: `acc = a * b + acc` over the warp. All 32 lanes
/// must execute it together (not in divergent code). Only the combinations `mma.sync`
/// has type-check: `T` must be an input of `S` and `C` an accumulator of `T` at `S`.
pub fn mma_sync<S, T, C>(a: &FragA<S, T>, b: &FragB<S, T>, acc: &mut Acc<S, C>)
where
    S: FragShape,
    T: MmaInput<S>,
    C: Accumulates<S, T>,
{
    let _ = (a, b, acc);
    warp_collective("`mma_sync`")
}

// tensor cores, register level: the intrinsics the fragment API lowers to, one per
// `mma.sync` combination. Each operand is one register of a fragment in `proc::mma`'s
// order (A's, B's, then C's; 16-bit elements packed two to a `u32`, 8-bit four, low
// first; tf32 as its `f32` bits); the result is D's registers.

/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` on registers (warp-collective).
#[allow(clippy::too_many_arguments)]
pub fn mma_m16n8k16_bf16_f32(
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    c0: f32,
    c1: f32,
    c2: f32,
    c3: f32,
) -> (f32, f32, f32, f32) {
    let _ = (a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    warp_collective("`mma_m16n8k16_bf16_f32`")
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` on registers (warp-collective).
#[allow(clippy::too_many_arguments)]
pub fn mma_m16n8k16_f16_f32(
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    c0: f32,
    c1: f32,
    c2: f32,
    c3: f32,
) -> (f32, f32, f32, f32) {
    let _ = (a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    warp_collective("`mma_m16n8k16_f16_f32`")
}

/// `mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16` on registers (C and D: two
/// `u32`s of packed f16 pairs).
#[allow(clippy::too_many_arguments)]
pub fn mma_m16n8k16_f16_f16(
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    c0: u32,
    c1: u32,
) -> (u32, u32) {
    let _ = (a0, a1, a2, a3, b0, b1, c0, c1);
    warp_collective("`mma_m16n8k16_f16_f16`")
}

/// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` on registers (A and B: the
/// bits of tf32 values held as `f32`).
#[allow(clippy::too_many_arguments)]
pub fn mma_m16n8k8_tf32_f32(
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    c0: f32,
    c1: f32,
    c2: f32,
    c3: f32,
) -> (f32, f32, f32, f32) {
    let _ = (a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    warp_collective("`mma_m16n8k8_tf32_f32`")
}

/// `mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64` (DMMA) on registers.
pub fn mma_m8n8k4_f64_f64(a0: f64, b0: f64, c0: f64, c1: f64) -> (f64, f64) {
    let _ = (a0, b0, c0, c1);
    warp_collective("`mma_m8n8k4_f64_f64`")
}

/// `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32` on registers (four i8 per `u32`).
#[allow(clippy::too_many_arguments)]
pub fn mma_m16n8k32_i8_i32(
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    c0: i32,
    c1: i32,
    c2: i32,
    c3: i32,
) -> (i32, i32, i32, i32) {
    let _ = (a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    warp_collective("`mma_m16n8k32_i8_i32`")
}

/// `mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32` on registers (four u8 per `u32`).
#[allow(clippy::too_many_arguments)]
pub fn mma_m16n8k32_u8_i32(
    a0: u32,
    a1: u32,
    a2: u32,
    a3: u32,
    b0: u32,
    b1: u32,
    c0: i32,
    c1: i32,
    c2: i32,
    c3: i32,
) -> (i32, i32, i32, i32) {
    let _ = (a0, a1, a2, a3, b0, b1, c0, c1, c2, c3);
    warp_collective("`mma_m16n8k32_u8_i32`")
}

/// Elements of the tiles the register-level `ldmatrix_*`/`stmatrix_*` move: any 8-,
/// 16- or 32-bit scalar (the instructions move 16-byte rows of 16-bit units).
pub trait MatrixTileElement: Copy + 'static {}
macro_rules! matrix_tile_elements {
    ($($t:ty)*) => { $(impl MatrixTileElement for $t {})* };
}
matrix_tile_elements!(bf16 f16 u16 i16 f32 u32 i32 u8 i8);

/// `ldmatrix.sync.aligned.m8n8.x1.shared.b16` (warp-collective): lane `r < 8` names,
/// as an element offset into the shared `tile`, row `r` of the 8x8 matrix; every
/// lane's 16-byte row is bounds-checked and must be 16-byte aligned.
pub fn ldmatrix_x1<T: MatrixTileElement>(tile: &mut [T], offset: usize) -> u32 {
    let _ = (tile, offset);
    warp_collective("`ldmatrix_x1`")
}

/// `ldmatrix...x2` (lane `8q + r`, q < 2, names row `r` of matrix `q`).
pub fn ldmatrix_x2<T: MatrixTileElement>(tile: &mut [T], offset: usize) -> (u32, u32) {
    let _ = (tile, offset);
    warp_collective("`ldmatrix_x2`")
}

/// `ldmatrix...x4` (lane `8q + r` names row `r` of matrix `q`).
pub fn ldmatrix_x4<T: MatrixTileElement>(tile: &mut [T], offset: usize) -> (u32, u32, u32, u32) {
    let _ = (tile, offset);
    warp_collective("`ldmatrix_x4`")
}

/// `ldmatrix...x1.trans`.
pub fn ldmatrix_x1_trans<T: MatrixTileElement>(tile: &mut [T], offset: usize) -> u32 {
    let _ = (tile, offset);
    warp_collective("`ldmatrix_x1_trans`")
}

/// `ldmatrix...x2.trans`.
pub fn ldmatrix_x2_trans<T: MatrixTileElement>(tile: &mut [T], offset: usize) -> (u32, u32) {
    let _ = (tile, offset);
    warp_collective("`ldmatrix_x2_trans`")
}

/// `ldmatrix...x4.trans`.
pub fn ldmatrix_x4_trans<T: MatrixTileElement>(
    tile: &mut [T],
    offset: usize,
) -> (u32, u32, u32, u32) {
    let _ = (tile, offset);
    warp_collective("`ldmatrix_x4_trans`")
}

/// `stmatrix.sync.aligned.m8n8.x1.shared.b16` (compute_90+, warp-collective): the
/// inverse of `ldmatrix_x1`.
pub fn stmatrix_x1<T: MatrixTileElement>(tile: &mut [T], offset: usize, r0: u32) {
    let _ = (tile, offset, r0);
    warp_collective("`stmatrix_x1`")
}

/// `stmatrix...x2` (compute_90+).
pub fn stmatrix_x2<T: MatrixTileElement>(tile: &mut [T], offset: usize, r0: u32, r1: u32) {
    let _ = (tile, offset, r0, r1);
    warp_collective("`stmatrix_x2`")
}

/// `stmatrix...x4` (compute_90+).
pub fn stmatrix_x4<T: MatrixTileElement>(
    tile: &mut [T],
    offset: usize,
    r0: u32,
    r1: u32,
    r2: u32,
    r3: u32,
) {
    let _ = (tile, offset, r0, r1, r2, r3);
    warp_collective("`stmatrix_x4`")
}

/// `stmatrix...x1.trans` (compute_90+).
pub fn stmatrix_x1_trans<T: MatrixTileElement>(tile: &mut [T], offset: usize, r0: u32) {
    let _ = (tile, offset, r0);
    warp_collective("`stmatrix_x1_trans`")
}

/// `stmatrix...x2.trans` (compute_90+).
pub fn stmatrix_x2_trans<T: MatrixTileElement>(tile: &mut [T], offset: usize, r0: u32, r1: u32) {
    let _ = (tile, offset, r0, r1);
    warp_collective("`stmatrix_x2_trans`")
}

/// `stmatrix...x4.trans` (compute_90+).
pub fn stmatrix_x4_trans<T: MatrixTileElement>(
    tile: &mut [T],
    offset: usize,
    r0: u32,
    r1: u32,
    r2: u32,
    r3: u32,
) {
    let _ = (tile, offset, r0, r1, r2, r3);
    warp_collective("`stmatrix_x4_trans`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device_api::{__set_thread, Dim3};

    fn as_lane(lane: u32) {
        let one = Dim3::new(1, 1, 1);
        __set_thread(
            Dim3::new(lane, 0, 0),
            Dim3::new(0, 0, 0),
            Dim3::new(32, 1, 1),
            one,
        );
    }

    #[test]
    fn lanes_load_and_store_the_elements_the_isa_gives_them() {
        // A 16x16 row-major A with A[r][c] = 100 r + c, as f32 bit patterns in bf16's place
        // would lose digits: use an i8-free check on tf32 (f32 storage) and bf16 small ints.
        let a: Vec<bf16> = (0..256).map(|v| bf16::from_f32((v % 251) as f32)).collect();
        as_lane(5);
        let frag = FragA::<M16N8K16, bf16>::load_row(&a, 16, 0, 0);
        assert_eq!(frag.len(), 8);
        // Lane 5: a6 is (9, 10).
        assert_eq!(frag.row_col(6), (9, 10));
        assert_eq!(frag[6], a[9 * 16 + 10]);
        let b = FragB::<M16N8K16, bf16>::ldmatrix_row(&a, 16, 0, 0);
        assert_eq!(b.row_col(3), (11, 1));
        assert_eq!(b[3], a[11 * 16 + 1]);
        let mut acc = Acc::<M16N8K16, f32>::fill(2.5);
        acc[3] = 7.0;
        let mut out = vec![0.0f32; 16 * 8];
        acc.store_row(&mut out, 8, 0, 0);
        assert_eq!(out[9 * 8 + 3], 7.0);
        assert_eq!(out[8 + 2], 2.5);
        assert_eq!(out.iter().filter(|&&x| x != 0.0).count(), 4);
    }

    #[test]
    fn warp_collectives_panic_in_the_twin_with_a_way_out() {
        let a = FragA::<M8N8K4, f64>::zero();
        let b = FragB::<M8N8K4, f64>::zero();
        let mut c = Acc::<M8N8K4, f64>::zero();
        let message = std::panic::catch_unwind(move || mma_sync(&a, &b, &mut c))
            .unwrap_err()
            .downcast::<String>()
            .unwrap();
        assert!(message.contains("simulator"), "{message}");
    }
}

#[cfg(test)]
mod table_tests {
    use crate::proc::mma::{MmaElem, MmaShape, MMA_COMBOS};

    /// The `Accumulates` impls rustc checks kernels against are exactly `proc::mma`'s
    /// combinations.
    #[test]
    fn the_twin_s_combinations_are_the_table_s() {
        let source = include_str!("mma.rs");
        let mut listed: Vec<(MmaShape, MmaElem, MmaElem)> = source
            .lines()
            .filter_map(|l| l.strip_prefix("impl Accumulates<"))
            .map(|rest| {
                let (shape, rest) = rest.split_once(", ").expect("shape");
                let (input, rest) = rest.split_once("> for ").expect("input");
                let acc = rest.trim_end_matches(" {}");
                (
                    MmaShape::from_name(shape).expect("a shape"),
                    MmaElem::from_rust_name(input).expect("an input"),
                    MmaElem::from_rust_name(acc).expect("an accumulator"),
                )
            })
            .collect();
        let mut table: Vec<_> = MMA_COMBOS
            .iter()
            .map(|c| (c.shape, c.input, c.acc))
            .collect();
        let key = |t: &(MmaShape, MmaElem, MmaElem)| format!("{t:?}");
        listed.sort_by_key(key);
        table.sort_by_key(key);
        assert_eq!(listed, table);
    }
}
