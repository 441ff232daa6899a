//! The rules of TMA tensor maps (sm_90's `cuTensorMapEncodeTiled` descriptors and the
//! `cp.async.bulk.tensor` copies that read them), once for every stage: the layout a
//! map describes, the checks the host makes before the driver sees it (each an error
//! naming what is wrong), the hardware's shared-memory swizzle, and which global
//! element lands at which shared byte of a box — the simulator copies by it, the host
//! tests hold it to references, the GPU run holds it to the hardware.
//!
//! Axes here are in the driver's order, innermost (contiguous) first; the user's API
//! (`kernel-host`'s `TensorMap`) takes them in Rust's row-major order and reverses.
//! On the simulator a map is [`TensorMapLayout::to_descriptor`]'s 128 bytes, the size
//! and alignment of the driver's opaque `CUtensorMap`, so a kernel parameter holds
//! either one.

use super::target::TargetNeed;
use crate::ir::ScalarType;

use ScalarType as S;

/// The most axes a tiled tensor map has.
pub const MAX_RANK: usize = 5;
/// A tensor map's size (`CUtensorMap`, the kernel parameter `.b8 name[128]`).
pub const DESCRIPTOR_BYTES: usize = 128;
/// A tensor map's alignment as a kernel parameter (`.param .align 64`).
pub const DESCRIPTOR_ALIGN: usize = 64;
/// The largest extent of a box along one axis.
pub const MAX_BOX_DIM: u32 = 256;
/// Global strides are below this many bytes.
pub const STRIDE_LIMIT: u64 = 1 << 40;
/// Global extents are at most this many elements.
pub const DIM_LIMIT: u64 = 1 << 32;

/// What a tiled bulk tensor copy needs of the target: sm_90's forms, not sm_90a-specific
/// (libnvvm 13 and ptxas accept them for `sm_90`).
pub const TARGET_NEED: TargetNeed = TargetNeed {
    feature: "`cp.async.bulk.tensor`",
    min_arch: 90,
    arch_specific: false,
};

/// What a multicast load within a cluster needs: sm_90a (the PTX ISA advises
/// `.multicast::cluster` for sm_90a only, and CUDA's own `cp_async_bulk_tensor`
/// multicast wrapper moved from SM_90 to SM_90a), as wgmma does.
pub const MULTICAST_TARGET_NEED: TargetNeed = TargetNeed {
    feature: "`cp.async.bulk.tensor` multicast (`.multicast::cluster`)",
    min_arch: 90,
    arch_specific: true,
};

/// How a box's rows are permuted in shared memory (`CU_TENSOR_MAP_SWIZZLE_*`): the
/// 16-byte chunks of each span are XORed with the row's index, so that a column of a
/// tile spreads over the shared-memory banks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Swizzle {
    #[default]
    None,
    B32,
    B64,
    B128,
}

impl Swizzle {
    /// The bytes a swizzled row spans (the inner box extent's limit); `None` unswizzled.
    pub const fn span_bytes(self) -> Option<u32> {
        match self {
            Swizzle::None => None,
            Swizzle::B32 => Some(32),
            Swizzle::B64 => Some(64),
            Swizzle::B128 => Some(128),
        }
    }

    /// The byte address of the chunk the hardware writes for the byte at `offset` of the
    /// unswizzled box: CUTLASS's `Swizzle<B, 4, 3>` (B = 1, 2, 3 for 32, 64, 128 bytes):
    /// address bits 4.. (the 16-byte chunk in a span) XOR bits 7.. (the 128-byte row).
    /// The pattern repeats every [`Self::repeat_bytes`], and the hardware reads the
    /// address bits, so a shared tile must be aligned to that repeat for the pattern
    /// to start at its first byte.
    pub const fn apply(self, offset: u64) -> u64 {
        let bits: u32 = match self {
            Swizzle::None => return offset,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        };
        let row_bits = ((1u64 << bits) - 1) << 7;
        offset ^ ((offset & row_bits) >> 3)
    }

    /// The period of the pattern (and the alignment a swizzled shared tile needs).
    pub const fn repeat_bytes(self) -> u64 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 256,
            Swizzle::B64 => 512,
            Swizzle::B128 => 1024,
        }
    }
}

/// The alignments `shared_array_aligned::<A, ALIGN>()` accepts: powers of two from 16
/// (every shared array's) to 1024 (the 128-byte swizzle's repeat).
pub fn check_shared_align(align: u64) -> Result<(), String> {
    if align.is_power_of_two() && (16..=1024).contains(&align) {
        Ok(())
    } else {
        Err(format!(
            "a shared array's alignment is a power of two from 16 to 1024 bytes, not {align}"
        ))
    }
}

impl Swizzle {
    /// The alignment a shared tile that a copy of this swizzle lands in needs: the
    /// pattern's repeat, and 128 bytes unswizzled (the CUDA guide's rule for every
    /// bulk tensor copy's shared address).
    pub const fn tile_align(self) -> u64 {
        match self {
            Swizzle::None => 128,
            other => other.repeat_bytes(),
        }
    }

    /// The panic of a copy or descriptor whose shared tile is at `address` (its byte
    /// offset in shared memory), when that is not aligned for the swizzle.
    pub fn check_tile_address(self, address: u64) -> Result<(), String> {
        let align = self.tile_align();
        if address % align == 0 {
            Ok(())
        } else {
            Err(format!(
                "a shared tile at byte {address} is not {align}-byte aligned, as {} needs: declare it with `shared_array_aligned::<A, {align}>()`",
                self.describe()
            ))
        }
    }

    /// The swizzle as a message names it.
    pub const fn describe(self) -> &'static str {
        match self {
            Swizzle::None => "an unswizzled copy",
            Swizzle::B32 => "the 32-byte swizzle",
            Swizzle::B64 => "the 64-byte swizzle",
            Swizzle::B128 => "the 128-byte swizzle",
        }
    }
}

/// What an element of a box outside the tensor reads as (`CU_TENSOR_MAP_FLOAT_OOB_FILL_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OobFill {
    #[default]
    Zeros,
    /// A NaN that FMA instructions read as zero (`NAN_REQUEST_ZERO_FMA`): float maps only.
    NanRequestZeroFma,
}

/// How far the hardware widens its L2 requests (`CU_TENSOR_MAP_L2_PROMOTION_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum L2Promotion {
    #[default]
    None,
    B64,
    B128,
    B256,
}

/// A tiled tensor map's layout: the tensor in global memory and the box one copy moves.
/// Axes innermost first; `rank` of each array are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorMapLayout {
    pub elem: ScalarType,
    pub rank: usize,
    /// Elements along each axis.
    pub global_dims: [u64; MAX_RANK],
    /// Bytes between consecutive indices of axis `i + 1` (the innermost axis is dense:
    /// its stride is the element size, and the driver takes none).
    pub global_strides: [u64; MAX_RANK - 1],
    pub box_dims: [u32; MAX_RANK],
    pub swizzle: Swizzle,
    pub oob_fill: OobFill,
    pub l2_promotion: L2Promotion,
}

/// The element types a map can have, and whether each is a float (`OobFill::NanRequestZeroFma`).
pub const fn supported(elem: ScalarType) -> Option<bool> {
    match elem {
        // e4m3 moves as bytes: out-of-bounds elements fill with zero bits.
        S::I8 | S::U8 | S::E4M3 | S::I16 | S::U16 | S::I32 | S::U32 | S::I64 | S::U64 => {
            Some(false)
        }
        S::Isize | S::Usize => Some(false),
        S::F16 | S::BF16 | S::F32 | S::F64 => Some(true),
        S::Bool => None,
    }
}

impl TensorMapLayout {
    pub fn elem_bytes(&self) -> u64 {
        u64::from(self.elem.size_bytes())
    }

    /// The bytes one copy of a box moves (and completes on its mbarrier), elements
    /// outside the tensor included.
    pub fn box_bytes(&self) -> u64 {
        self.box_dims[..self.rank]
            .iter()
            .map(|&b| u64::from(b))
            .product::<u64>()
            * self.elem_bytes()
    }

    /// The bytes one row of the box (its innermost axis) takes in shared memory. A
    /// swizzled box pads each row to the swizzle span: the H200 writes a 128-byte-swizzle
    /// box whose rows are 64 bytes at a 128-byte pitch (`proc/tma_h200_tiles.txt`'s
    /// `u16_sw128_half_span`), the row's 16-byte chunks XORed with the row's index.
    pub fn smem_row_pitch(&self) -> u64 {
        let inner = u64::from(self.box_dims[0]) * self.elem_bytes();
        match self.swizzle.span_bytes() {
            Some(span) => inner.max(u64::from(span)),
            None => inner,
        }
    }

    /// The bytes of shared memory a box lands in (a tile must hold this many): the
    /// box's bytes where its rows fill the swizzle span, more where they are narrower.
    pub fn smem_bytes(&self) -> u64 {
        let rows: u64 = self.box_dims[1..self.rank]
            .iter()
            .map(|&b| u64::from(b))
            .product();
        rows * self.smem_row_pitch()
    }

    /// What a kernel's device code knows of the map besides the driver's opaque bytes
    /// (the tensor-map parameter's second slot, `proc::abi`): the bytes a tile must
    /// hold ([`Self::smem_bytes`], low 32 bits) and the alignment it needs
    /// ([`Swizzle::tile_align`], high 32 bits).
    pub fn tile_word(&self) -> u64 {
        self.smem_bytes() | self.swizzle.tile_align() << 32
    }

    /// The host's checks before the driver call, in the driver's terms; `global_address`
    /// is the tensor's first byte. The message names the axis in the caller's row-major
    /// order (axis 0 outermost), as the user wrote it.
    pub fn check(&self, global_address: u64) -> Result<(), String> {
        let rank = self.rank;
        if !(1..=MAX_RANK).contains(&rank) {
            return Err(format!("a tensor map has 1 to 5 axes, not {rank}"));
        }
        let user_axis = |i: usize| rank - 1 - i;
        let Some(is_float) = supported(self.elem) else {
            return Err(format!(
                "a tensor map cannot hold {:?} elements (integers of 8 to 64 bits, f16, bf16, f32, f64)",
                self.elem
            ));
        };
        if global_address % 16 != 0 {
            return Err(format!(
                "the tensor's address {global_address:#x} is not 16-byte aligned"
            ));
        }
        let elem = self.elem_bytes();
        for i in 0..rank {
            let dim = self.global_dims[i];
            if dim == 0 || dim > DIM_LIMIT {
                return Err(format!(
                    "axis {} has {dim} elements; a tensor map's axes have 1 to 2^32",
                    user_axis(i)
                ));
            }
            let b = self.box_dims[i];
            if b == 0 || b > MAX_BOX_DIM {
                return Err(format!(
                    "the box's extent along axis {} is {b}; it must be 1 to {MAX_BOX_DIM}",
                    user_axis(i)
                ));
            }
        }
        for (i, &stride) in self.global_strides[..rank - 1].iter().enumerate() {
            if stride % 16 != 0 || stride >= STRIDE_LIMIT {
                return Err(format!(
                    "the stride of axis {} is {stride} bytes; it must be a multiple of 16 below 2^40",
                    user_axis(i + 1)
                ));
            }
        }
        let inner = u64::from(self.box_dims[0]) * elem;
        if inner % 16 != 0 {
            return Err(format!(
                "the box's inner extent is {inner} bytes ({} elements of {elem}); it must be a multiple of 16",
                self.box_dims[0]
            ));
        }
        if let Some(span) = self.swizzle.span_bytes() {
            if inner > u64::from(span) {
                return Err(format!(
                    "the box's inner extent is {inner} bytes, more than the {span}-byte swizzle span"
                ));
            }
        }
        if self.oob_fill == OobFill::NanRequestZeroFma && !is_float {
            return Err(format!(
                "a NaN out-of-bounds fill needs a float map, not {:?}",
                self.elem
            ));
        }
        Ok(())
    }

    /// The H200's rule for a load's box coordinates (innermost first): the innermost
    /// one must start the box a multiple of 16 bytes from the row's start. A load at
    /// 10 `u16`s (20 bytes) stops the kernel with `CUDA_ERROR_ILLEGAL_INSTRUCTION` at
    /// the load (`UTMALDG`); negative coordinates load (the outside is filled).
    pub fn check_load_coords(&self, coords: &[i64]) -> Result<(), String> {
        let inner = coords[0] * self.elem_bytes() as i64;
        if inner % 16 != 0 {
            return Err(format!(
                "a box's innermost coordinate must start it a multiple of 16 bytes into the row: {} elements of {} bytes is {inner}",
                coords[0],
                self.elem_bytes()
            ));
        }
        Ok(())
    }

    /// The H200's rule for a store's box coordinates: a load's, and none negative (a
    /// store at (0, -3) or (-8, 0) stops the kernel at the store, `UTMASTG`; one past
    /// the tensor's end writes the part inside).
    pub fn check_store_coords(&self, coords: &[i64]) -> Result<(), String> {
        self.check_load_coords(coords)?;
        match coords.iter().position(|&c| c < 0) {
            Some(axis) => Err(format!(
                "a store's box must not start before the tensor: axis {} starts at {}",
                self.rank - 1 - axis,
                coords[axis]
            )),
            None => Ok(()),
        }
    }

    /// The bytes an element outside the tensor reads as. The NaN fill is the 16-bit
    /// pattern `0x7ff7` in every half-word (a NaN in f16, bf16, f32 and f64 alike):
    /// what the H200 wrote into an f32 box (`0x7ff77ff7`, `proc/tma_h200_tiles.txt`).
    pub fn fill_bytes(&self) -> u64 {
        match self.oob_fill {
            OobFill::Zeros => 0,
            OobFill::NanRequestZeroFma => 0x7ff7_7ff7_7ff7_7ff7 >> (64 - 8 * self.elem_bytes()),
        }
    }

    /// Each element of the box whose first element is at `coords` (innermost first,
    /// signed: a box may start before the tensor): the byte offset in global memory
    /// from the tensor's first byte (`None` outside the tensor), and the byte offset in
    /// the shared tile, swizzled. In the box the innermost axis is dense, each row at
    /// [`Self::smem_row_pitch`], and the other axes follow in order, as the hardware
    /// lays it out.
    pub fn box_elements(&self, coords: &[i64]) -> Vec<(Option<u64>, u64)> {
        let rank = self.rank;
        let count: usize = self.box_dims[..rank].iter().map(|&b| b as usize).product();
        let elem = self.elem_bytes();
        let pitch = self.smem_row_pitch();
        let inner = u64::from(self.box_dims[0]);
        let mut out = Vec::with_capacity(count);
        let mut index = [0u32; MAX_RANK];
        for linear in 0..count as u64 {
            let mut global = Some(0u64);
            for axis in 0..rank {
                let at = coords[axis] + i64::from(index[axis]);
                let stride = if axis == 0 {
                    elem
                } else {
                    self.global_strides[axis - 1]
                };
                global = match global {
                    Some(g) if at >= 0 && (at as u64) < self.global_dims[axis] => {
                        Some(g + at as u64 * stride)
                    }
                    _ => None,
                };
            }
            let unswizzled = linear / inner * pitch + linear % inner * elem;
            out.push((global, self.swizzle.apply(unswizzled)));
            for axis in 0..rank {
                index[axis] += 1;
                if index[axis] < self.box_dims[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
        out
    }

    /// What a store of the box at `coords` writes: [`Self::box_elements`] with the
    /// innermost axis running on to the next 16-byte boundary past the tensor's end.
    /// On the H200 a store of a box over the end of 100-element bf16 rows (200 bytes,
    /// at a 208-byte pitch) also wrote elements 100 to 103 of each row, from the tile
    /// (`tests/gpu/tma.rs`'s round trip, 2026-11-29; the harness's stored bytes of
    /// `bench/results/2026-11-29-h200-s36tmak-tma-cases.txt` show the same). A
    /// load fills those elements: it reads the tensor's extent exactly.
    pub fn stored_elements(&self, coords: &[i64]) -> Vec<(Option<u64>, u64)> {
        let elem = self.elem_bytes();
        let mut widened = *self;
        widened.global_dims[0] = (self.global_dims[0] * elem).div_ceil(16) * 16 / elem;
        widened.box_elements(coords)
    }

    /// The rule for a map stores write through: its rows (the innermost axis) span a
    /// multiple of 16 bytes, so that [`Self::stored_elements`] is
    /// [`Self::box_elements`]. A store writes each row on to its next 16-byte boundary:
    /// past a view's row, elements the map does not own (a padded row's padding, the
    /// next columns of a sub-tensor, the bytes after a flat array's end).
    pub fn check_store_rows(&self) -> Result<(), String> {
        let elem = self.elem_bytes();
        let row = self.global_dims[0] * elem;
        if row % 16 == 0 {
            return Ok(());
        }
        let widened = row.div_ceil(16) * 16;
        Err(format!(
            "a map that stores write through needs rows (axis {}) of a multiple of 16 bytes: a store writes each row of its box on to the next 16-byte boundary, so rows of {} elements ({row} bytes) would also write {} bytes after each row, outside the view; view {} elements per row (the padding included), or read through a `TensorMap`",
            self.rank - 1,
            self.global_dims[0],
            widened - row,
            widened / elem
        ))
    }

    /// The simulator's form of the map for a tensor at `global_address`: the 128 bytes a
    /// kernel parameter holds (the driver's encoding is opaque; this one is cudajit's).
    pub fn to_descriptor(&self, global_address: u64) -> [u8; DESCRIPTOR_BYTES] {
        let mut words = [0u64; DESCRIPTOR_BYTES / 8];
        words[0] = global_address;
        words[1] = u64::from(self.elem.size_bytes()) | (SIM_MAGIC << 32);
        words[2] = scalar_code(self.elem)
            | (self.rank as u64) << 8
            | (self.swizzle as u64) << 16
            | (self.oob_fill as u64) << 24
            | (self.l2_promotion as u64) << 32;
        words[3..8].copy_from_slice(&self.global_dims);
        words[8..12].copy_from_slice(&self.global_strides);
        for (i, &b) in self.box_dims.iter().enumerate() {
            words[12 + i / 2] |= u64::from(b) << (32 * (i % 2));
        }
        let mut bytes = [0u8; DESCRIPTOR_BYTES];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    /// The layout and tensor address of a simulator descriptor; `None` for bytes that
    /// are not one (the simulator reports a kernel handed something else).
    pub fn from_descriptor(bytes: &[u8; DESCRIPTOR_BYTES]) -> Option<(TensorMapLayout, u64)> {
        let word = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap());
        if word(1) >> 32 != SIM_MAGIC {
            return None;
        }
        let w2 = word(2);
        let elem = *S::ALL.iter().find(|&&s| scalar_code(s) == w2 & 0xff)?;
        let pick = |shift: u32| (w2 >> shift) & 0xff;
        let layout = TensorMapLayout {
            elem,
            rank: pick(8) as usize,
            global_dims: std::array::from_fn(|i| word(3 + i)),
            global_strides: std::array::from_fn(|i| word(8 + i)),
            box_dims: std::array::from_fn(|i| (word(12 + i / 2) >> (32 * (i % 2))) as u32),
            swizzle: [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128]
                .get(pick(16) as usize)
                .copied()?,
            oob_fill: [OobFill::Zeros, OobFill::NanRequestZeroFma]
                .get(pick(24) as usize)
                .copied()?,
            l2_promotion: [
                L2Promotion::None,
                L2Promotion::B64,
                L2Promotion::B128,
                L2Promotion::B256,
            ]
            .get(pick(32) as usize)
            .copied()?,
        };
        Some((layout, word(0)))
    }
}

/// The panic of a copy whose tile holds fewer bytes than the map's box lands in.
pub fn check_tile_bytes(tile_bytes: u64, smem_bytes: u64) -> Result<(), String> {
    if tile_bytes >= smem_bytes {
        Ok(())
    } else {
        Err(format!(
            "a shared tile of {tile_bytes} bytes is too small for the map's box, which lands in {smem_bytes} bytes"
        ))
    }
}

/// Marks a simulator descriptor ("TMAP").
const SIM_MAGIC: u64 = 0x544d_4150;

fn scalar_code(s: ScalarType) -> u64 {
    S::ALL.iter().position(|&t| t == s).unwrap() as u64 + 1
}

#[cfg(test)]
#[path = "tma_tests.rs"]
mod tests;
