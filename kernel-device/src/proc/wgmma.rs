//! THE rules of Hopper's warpgroup MMA (PTX `wgmma.mma_async`, sm_90a): which
//! shapes and element types exist, which accumulator element each of a warpgroup's
//! 128 threads holds (the PTX ISA's "WGMMA .m64nNk16 register fragment layout for
//! accumulator matrix D"), the 64-bit shared-memory matrix descriptor (its fields, and
//! the byte address the hardware reads for an element under each swizzle mode), the
//! register-level intrinsics' rows and the target need. The NVVM writer prints from
//! these rules and the simulator executes them, so both read one definition.
//!
//! Operands: A is `64 x K`, B is `K x N`; each is read from shared memory through a
//! descriptor, K-major (A row-major, B given as `N x K` row-major: PTX's default) or,
//! for 16-bit inputs, MN-major (A column-major, B `K x N` row-major: PTX's transpose
//! immediates). A 16-bit or tf32 A may instead come from registers ("RS" form,
//! [`a_position`], [`tf32_a_position`]), which is how attention feeds its softmax P to
//! `P V` without shared memory. The accumulator D is `64 x N`, f32 (i32 for 8-bit
//! integer inputs): warp `w` of the warpgroup holds rows `16w..16w+15`.
//!
//! Input types: bf16, f16 (k16), tf32 (k8: f32 elements of which the tensor core reads
//! the top 19 bits), e4m3 (k32) and the 8-bit integers (k32, `i8`/`u8` for A and B
//! independently, exact i32 accumulation that wraps). tf32 and 8-bit operands are
//! K-major only (the PTX ISA has transposes for 16-bit types only).

use super::target::TargetNeed;
use crate::ir::{Intrinsic, WgmmaCombo, WgmmaOp};
pub use crate::ir::{WgmmaA, WgmmaMajor};
pub use crate::proc::mma::MmaElem;

/// Threads in a warpgroup: four consecutive warps, the first a multiple of four.
pub const WARPGROUP_THREADS: usize = 128;

/// The N a `wgmma.m64nNk*` of `input` may have: multiples of 8 from 8 to 256 for the
/// floating-point types; for the 8-bit integers (PTX ISA, "Matrix shape") 8, 16, 24,
/// 32 and then multiples of 16 up to 256 (no n40, n56, ..).
pub fn n_allowed(input: MmaElem, n: u32) -> bool {
    if input.is_int8() {
        return matches!(n, 8 | 16 | 24 | 32) || ((48..=256).contains(&n) && n % 16 == 0);
    }
    (8..=256).contains(&n) && n % 8 == 0
}

/// The K of one instruction for an input type: 32 bytes of it (k16 for 16-bit
/// types, k8 for tf32, k32 for 8-bit integers and e4m3).
pub const fn k_of(input: MmaElem) -> u32 {
    32 / input.bytes() as u32
}

/// 32-bit registers of an A fragment per thread: `64 x 16` 16-bit elements over 128
/// threads, two to a register, or `64 x 8` tf32 elements, one to a register.
pub const A_REGISTERS: usize = 4;

/// The K-major forms of tf32, with their suffixes (ptxas has no tf32 transposes).
pub const TF32_FORMS: [(WgmmaA, &str); 2] = [
    (WgmmaA::Shared(WgmmaMajor::K), ""),
    (WgmmaA::Registers, "_rs"),
];

/// The 8-bit integer `(A, B)` type pairs: each signedness for each operand.
pub const INT8_PAIRS: [(MmaElem, MmaElem); 4] = [
    (MmaElem::I8, MmaElem::I8),
    (MmaElem::I8, MmaElem::U8),
    (MmaElem::U8, MmaElem::I8),
    (MmaElem::U8, MmaElem::U8),
];

/// The forms of one shape and 16-bit input, with the name suffix of each (the fp8
/// wgmmas have the first only: ptxas rejects transposes of 8-bit operands, and cudajit
/// gives no fp8 A from registers).
pub const FORMS: [(WgmmaA, WgmmaMajor, &str); 6] = [
    (WgmmaA::Shared(WgmmaMajor::K), WgmmaMajor::K, ""),
    (WgmmaA::Shared(WgmmaMajor::MN), WgmmaMajor::K, "_trans_a"),
    (WgmmaA::Shared(WgmmaMajor::K), WgmmaMajor::MN, "_trans_b"),
    (WgmmaA::Shared(WgmmaMajor::MN), WgmmaMajor::MN, "_trans_ab"),
    (WgmmaA::Registers, WgmmaMajor::K, "_rs"),
    (WgmmaA::Registers, WgmmaMajor::MN, "_rs_trans_b"),
];

impl WgmmaCombo {
    /// Both operands K-major from shared memory (the only form of fp8 and the 8-bit
    /// integers), both of `input`.
    pub const fn ss(n: u16, input: MmaElem) -> WgmmaCombo {
        WgmmaCombo {
            n,
            input,
            input_b: input,
            a: WgmmaA::Shared(WgmmaMajor::K),
            b: WgmmaMajor::K,
        }
    }

    /// The accumulator's type: i32 for 8-bit integer inputs, else f32.
    pub const fn acc(self) -> MmaElem {
        if self.input.is_int8() {
            MmaElem::I32
        } else {
            MmaElem::F32
        }
    }

    /// Operands before `desc_b`: one descriptor, or A's registers.
    pub const fn a_operands(self) -> usize {
        match self.a {
            WgmmaA::Shared(_) => 1,
            WgmmaA::Registers => A_REGISTERS,
        }
    }

    /// Every operand of the intrinsic: A's, `desc_b`, `scale_d`, the accumulators.
    pub const fn operands(self) -> usize {
        self.a_operands() + 2 + self.acc_len()
    }

    /// The name suffix of this form (`_rs_trans_b`; empty for K-major descriptors).
    pub const fn suffix(self) -> &'static str {
        let mut i = 0;
        while i < FORMS.len() {
            let (a, b, suffix) = FORMS[i];
            if same_a(a, self.a) && b as u8 == self.b as u8 {
                return suffix;
            }
            i += 1;
        }
        ""
    }

    /// `(M, N, K)`.
    pub const fn mnk(self) -> (u32, u32, u32) {
        (64, self.n as u32, k_of(self.input))
    }

    /// Accumulator registers per thread (`N / 2` f32 or i32).
    pub const fn acc_len(self) -> usize {
        self.n as usize / 2
    }

    /// `wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16`,
    /// `wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.u8`.
    pub fn instruction(self) -> String {
        let (m, n, k) = self.mnk();
        let (d, a, b) = (self.acc().ptx(), self.input.ptx(), self.input_b.ptx());
        format!("wgmma.mma_async.sync.aligned.m{m}n{n}k{k}.{d}.{a}.{b}")
    }

    /// The immediate operands after `scale_d`: for floating-point inputs the scales of
    /// A and B (1) and, for the 16-bit inputs, the transpose flags (1: MN-major) of A
    /// (from shared memory only) and B. tf32 and fp8 wgmmas read K-major operands only
    /// and take no transpose operands (ptxas rejects them); the integer wgmmas take
    /// neither scales nor transposes (an empty list).
    pub const fn immediates(self) -> &'static str {
        let b = matches!(self.b, WgmmaMajor::MN);
        match (self.input, self.a) {
            (MmaElem::I8 | MmaElem::U8, _) => "",
            (MmaElem::E4M3 | MmaElem::Tf32, _) => "1, 1",
            (_, WgmmaA::Registers) if b => "1, 1, 1",
            (_, WgmmaA::Registers) => "1, 1, 0",
            (_, WgmmaA::Shared(WgmmaMajor::K)) if b => "1, 1, 0, 1",
            (_, WgmmaA::Shared(WgmmaMajor::K)) => "1, 1, 0, 0",
            (_, WgmmaA::Shared(WgmmaMajor::MN)) if b => "1, 1, 1, 1",
            (_, WgmmaA::Shared(WgmmaMajor::MN)) => "1, 1, 1, 0",
        }
    }

    /// The user-facing name of the register-level intrinsic: `wgmma_m64n64k16_f32_bf16_rs`,
    /// and for the integers both input types after the accumulator's,
    /// `wgmma_m64n64k32_i32_i8_u8` (Rust's names, as `mma_m16n8k32_i8_i32`).
    pub fn intrinsic_name(self) -> String {
        let (m, n, k) = self.mnk();
        let inputs = if self.input.is_int8() {
            format!("{}_{}", self.input.rust_name(), self.input_b.rust_name())
        } else {
            self.input.rust_name().to_string()
        };
        format!(
            "wgmma_m{m}n{n}k{k}_{}_{inputs}{}",
            self.acc().rust_name(),
            self.suffix()
        )
    }

    /// The element `(row, col)` of the warpgroup's `64 x K` A that element `e` of
    /// thread `thread`'s A registers holds (RS forms).
    pub const fn a_element(self, thread: usize, e: usize) -> (usize, usize) {
        match self.input {
            MmaElem::Tf32 => tf32_a_position(thread, e),
            _ => a_position(thread, e),
        }
    }

    /// A's elements per thread in its registers: 8 16-bit halves or 4 tf32s.
    pub const fn a_elements(self) -> usize {
        A_REGISTERS * 4 / self.input.bytes()
    }
}

impl MmaElem {
    /// `i8` or `u8` (wgmma's integer inputs).
    pub const fn is_int8(self) -> bool {
        matches!(self, MmaElem::I8 | MmaElem::U8)
    }
}

const fn same_a(x: WgmmaA, y: WgmmaA) -> bool {
    match (x, y) {
        (WgmmaA::Registers, WgmmaA::Registers) => true,
        (WgmmaA::Shared(p), WgmmaA::Shared(q)) => p as u8 == q as u8,
        _ => false,
    }
}

/// The accumulator element `(row, col)` of the `64 x N` D that register `i` of thread
/// `thread` (0..128, its index in the warpgroup) holds. Per the PTX ISA: each warp owns
/// 16 rows; within a warp, registers come in fours covering 8 columns: `{0, 1}` on row
/// `lane / 4`, `{2, 3}` on row `lane / 4 + 8`, columns `2 (lane % 4) + i % 2`.
pub const fn acc_position(thread: usize, i: usize) -> (usize, usize) {
    let (warp, lane) = (thread / 32, thread % 32);
    let row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    let col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    (row, col)
}

/// The element `(row, col)` of the `64 x 16` A (one k16 step) that element `e` (0..8)
/// of thread `thread`'s A registers holds: register `e / 2`, its low 16 bits for even
/// `e`. Per the PTX ISA ("Register fragment: matrix A" of `.m64nNk16`) this is the
/// accumulator's pattern restricted to its first 16 columns: element `e` is where
/// accumulator register `e` sits. So the f32 accumulator of `S = Q Kᵀ`, converted to
/// 16 bits, is the A of `P V` without any exchange between threads: for the K step of
/// columns `16 j..16 j + 15` of S, A register `r` packs S's accumulator registers
/// `8 j + 2 r` (low half) and `8 j + 2 r + 1` (high half).
pub const fn a_position(thread: usize, e: usize) -> (usize, usize) {
    acc_position(thread, e)
}

/// The element `(row, col)` of the `64 x 8` A (one k8 step) of a tf32 RS wgmma that
/// register `e` (0..4) of thread `thread` holds. Per the PTX ISA ("Register fragment:
/// matrix A" of `.m64nNk8`; CUTLASS's `ALayout_64x8`): rows `16 w + lane / 4` (`+ 8`
/// for odd `e`), column `lane % 4` (`+ 4` for `e >= 2`), as `mma.m16n8k8`'s tf32 A
/// per warp. Unlike the 16-bit A this is not the accumulator's pattern (that holds
/// two adjacent columns per row): an f32 D becomes a tf32 A only through shuffles.
pub const fn tf32_a_position(thread: usize, e: usize) -> (usize, usize) {
    let (warp, lane) = (thread / 32, thread % 32);
    (16 * warp + lane / 4 + 8 * (e % 2), lane % 4 + 4 * (e / 2))
}

/// The accumulator register of an m64nN D that A element `e` of K step `step` (columns
/// `16 step..`) comes from when D becomes the A of the next wgmma.
pub const fn acc_register_of_a(step: usize, e: usize) -> usize {
    8 * step + e
}

/// How a shared tile's rows are swizzled, as a descriptor's bits 62–63 say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// Core matrices of 8 rows x 16 bytes, each contiguous (128 bytes).
    None,
    /// Rows of 32, 64 or 128 bytes in atoms of 8 rows, the 16-byte chunks of row `r`
    /// XORed with `r % 8` (masked to the chunks a row has).
    B32,
    B64,
    B128,
}

impl Swizzle {
    pub const ALL: [Swizzle; 4] = [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128];

    /// The descriptor's mode field.
    pub const fn mode(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B128 => 1,
            Swizzle::B64 => 2,
            Swizzle::B32 => 3,
        }
    }

    pub const fn from_mode(mode: u64) -> Swizzle {
        match mode & 3 {
            0 => Swizzle::None,
            1 => Swizzle::B128,
            2 => Swizzle::B64,
            _ => Swizzle::B32,
        }
    }

    /// Bytes of one swizzled row (16 for no swizzle: one core-matrix row).
    pub const fn row_bytes(self) -> u64 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// The `swizzle_bytes` a kernel passes (0, 32, 64, 128).
    pub const fn from_bytes(bytes: u32) -> Option<Swizzle> {
        match bytes {
            0 => Some(Swizzle::None),
            32 => Some(Swizzle::B32),
            64 => Some(Swizzle::B64),
            128 => Some(Swizzle::B128),
            _ => None,
        }
    }

    /// The address the hardware reads for logical byte address `addr` (CUTLASS's
    /// `Swizzle<B, 4, 3>`: address bits 4.. XORed with bits 7.., B = 1, 2, 3 bits).
    /// The pattern repeats every 8 rows, so a swizzled tile starts at a multiple of
    /// `8 * row_bytes` bytes.
    pub const fn apply(self, addr: u64) -> u64 {
        let bits = match self {
            Swizzle::None => return addr,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        };
        let mask = (1u64 << bits) - 1;
        addr ^ (((addr >> 7) & mask) << 4)
    }
}

/// A shared-memory matrix descriptor's fields, in bytes (the hardware keeps each
/// address field as `(bytes & 0x3FFFF) >> 4`, 14 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// Shared-window byte address of the operand's first element.
    pub start: u64,
    /// Leading byte offset. K-major: between core matrices adjacent in K (no swizzle;
    /// unused when swizzled). MN-major: no swizzle, between core matrices adjacent in K;
    /// swizzled, between swizzle atoms adjacent in M/N (`row_bytes` of M/N each).
    pub leading: u64,
    /// Stride byte offset. K-major: between 8-row groups adjacent in M/N. MN-major: no
    /// swizzle, between core matrices adjacent in M/N; swizzled, between groups of 8
    /// K rows.
    pub stride: u64,
    pub swizzle: Swizzle,
}

const FIELD: u64 = 0x3FFF;

/// A byte address or offset as a descriptor field keeps it.
pub const fn field(bytes: u64) -> u64 {
    (bytes & 0x3FFFF) >> 4
}

impl Descriptor {
    pub const fn encode(self) -> u64 {
        field(self.start)
            | (field(self.leading) << 16)
            | (field(self.stride) << 32)
            | (self.swizzle.mode() << 62)
    }

    pub const fn decode(word: u64) -> Descriptor {
        Descriptor {
            start: (word & FIELD) << 4,
            leading: ((word >> 16) & FIELD) << 4,
            stride: ((word >> 32) & FIELD) << 4,
            swizzle: Swizzle::from_mode(word >> 62),
        }
    }

    /// The shared byte address the hardware reads for element `(row, k)` (`row` in M or
    /// N, `k` within the instruction's K) of an operand of `elem_bytes`-byte elements,
    /// K-major. No swizzle: core matrix `(row / 8, k / per16)` at `stride * (row / 8) +
    /// leading * (k / per16)`, 16 bytes a row. Swizzled: row `row` at `stride * (row /
    /// 8) + row_bytes * (row % 8)`, then [`Swizzle::apply`] on the whole address.
    pub const fn element_address(self, row: u64, k: u64, elem_bytes: u64) -> u64 {
        let byte_in_k = k * elem_bytes;
        match self.swizzle {
            Swizzle::None => {
                self.start
                    + self.stride * (row / 8)
                    + self.leading * (byte_in_k / 16)
                    + 16 * (row % 8)
                    + byte_in_k % 16
            }
            s => s.apply(
                self.start + self.stride * (row / 8) + s.row_bytes() * (row % 8) + byte_in_k,
            ),
        }
    }

    /// The same for an MN-major operand (element `(row, k)` with `row` in M or N
    /// contiguous), per the PTX ISA's MN-major canonical layouts (CUTLASS's
    /// `make_gmma_desc<Major::MN>`). No swizzle: core matrices of 8 K rows x 16 bytes
    /// of M/N, `stride` apart along M/N and `leading` apart along K. Swizzled: K row
    /// `k` of an atom of `row_bytes` of M/N at `leading * atom + stride * (k / 8) +
    /// row_bytes * (k % 8)`, then [`Swizzle::apply`].
    pub const fn mn_major_element_address(self, row: u64, k: u64, elem_bytes: u64) -> u64 {
        let byte_in_row = row * elem_bytes;
        match self.swizzle {
            Swizzle::None => {
                self.start
                    + self.stride * (byte_in_row / 16)
                    + self.leading * (k / 8)
                    + 16 * (k % 8)
                    + byte_in_row % 16
            }
            s => {
                let atom = s.row_bytes();
                s.apply(
                    self.start
                        + self.leading * (byte_in_row / atom)
                        + self.stride * (k / 8)
                        + atom * (k % 8)
                        + byte_in_row % atom,
                )
            }
        }
    }

    /// The address of element `(row, k)` of an operand laid out `major`.
    pub const fn operand_address(
        self,
        major: WgmmaMajor,
        row: u64,
        k: u64,
        elem_bytes: u64,
    ) -> u64 {
        match major {
            WgmmaMajor::K => self.element_address(row, k, elem_bytes),
            WgmmaMajor::MN => self.mn_major_element_address(row, k, elem_bytes),
        }
    }
}

/// How a kernel lays out a `rows x cols` operand tile (`rows` along M or N, `cols`
/// along K) of `elem_bytes`-byte elements so that descriptors can read it: the byte
/// offset of element `(r, c)`, and the descriptor of the block at `(row0, k0)` (row0 a
/// multiple of 8, k0 of the instruction's K) for a tile at shared address `base`.
///
/// K-major, no swizzle: core matrices `[r / 8][c / per16][r % 8][c % per16]`.
/// K-major, swizzled: column blocks of `row_bytes` (`[c / per_row][r][c % per_row]`),
/// swizzled in atoms of 8 rows.
/// MN-major (16-bit inputs), no swizzle: `[r / per16][c / 8][c % 8][r % per16]`.
/// MN-major, swizzled: blocks of `row_bytes` of M/N (`[r / per_row][c][r % per_row]`):
/// a `K x N` row-major matrix of `row_bytes` per row (V of attention, `[seq][64]`
/// bf16 under 128-byte swizzle) is exactly one block. Leading and stride offsets come
/// from the tile's shape, never by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileLayout {
    pub rows: u64,
    pub cols: u64,
    pub elem_bytes: u64,
    pub swizzle: Swizzle,
    pub major: WgmmaMajor,
}

impl TileLayout {
    /// Elements of one swizzled row (or of a core-matrix row).
    const fn per_row(self) -> u64 {
        self.swizzle.row_bytes() / self.elem_bytes
    }

    /// The byte offset of element `(r, c)` from the tile's start (the tile starts at a
    /// multiple of 1024 bytes, so the swizzle of the offset is the swizzle of the
    /// address).
    pub const fn offset(self, r: u64, c: u64) -> u64 {
        let per = self.per_row();
        if let WgmmaMajor::MN = self.major {
            return match self.swizzle {
                Swizzle::None => {
                    (r / per) * (self.cols / 8) * 128
                        + (c / 8) * 128
                        + (c % 8) * 16
                        + (r % per) * self.elem_bytes
                }
                s => s.apply(
                    (r / per) * self.cols * s.row_bytes()
                        + c * s.row_bytes()
                        + (r % per) * self.elem_bytes,
                ),
            };
        }
        match self.swizzle {
            Swizzle::None => {
                (r / 8) * (self.cols / per) * 128
                    + (c / per) * 128
                    + (r % 8) * 16
                    + (c % per) * self.elem_bytes
            }
            s => s.apply(
                (c / per) * self.rows * s.row_bytes()
                    + r * s.row_bytes()
                    + (c % per) * self.elem_bytes,
            ),
        }
    }

    /// The descriptor of the operand block whose first element is `(row0, k0)`.
    pub const fn descriptor(self, base: u64, row0: u64, k0: u64) -> Descriptor {
        let per = self.per_row();
        if let WgmmaMajor::MN = self.major {
            return match self.swizzle {
                Swizzle::None => Descriptor {
                    start: base + self.offset(row0, k0),
                    leading: 128,
                    stride: (self.cols / 8) * 128,
                    swizzle: Swizzle::None,
                },
                s => Descriptor {
                    start: base
                        + (row0 / per) * self.cols * s.row_bytes()
                        + k0 * s.row_bytes()
                        + (row0 % per) * self.elem_bytes,
                    leading: self.cols * s.row_bytes(),
                    stride: 8 * s.row_bytes(),
                    swizzle: s,
                },
            };
        }
        match self.swizzle {
            Swizzle::None => Descriptor {
                start: base + self.offset(row0, k0),
                leading: 128,
                stride: (self.cols / per) * 128,
                swizzle: Swizzle::None,
            },
            s => Descriptor {
                // Unswizzled: the hardware swizzles the whole address itself.
                start: base
                    + (k0 / per) * self.rows * s.row_bytes()
                    + row0 * s.row_bytes()
                    + (k0 % per) * self.elem_bytes,
                leading: 0,
                stride: 8 * s.row_bytes(),
                swizzle: s,
            },
        }
    }

    /// Why this tile cannot be read by wgmma descriptors, if it cannot: rows a multiple
    /// of 8, columns a multiple of one swizzled row (or of a core matrix's 16 bytes);
    /// MN-major, the other way round, and 16-bit elements.
    pub fn check(self) -> Result<(), String> {
        let per = self.per_row();
        if let WgmmaMajor::MN = self.major {
            if self.elem_bytes != 2 {
                return Err(format!(
                    "an MN-major wgmma tile holds 16-bit elements (bf16, f16), not {}-byte ones",
                    self.elem_bytes
                ));
            }
            if self.cols == 0 || self.cols % 8 != 0 {
                return Err(format!(
                    "an MN-major wgmma tile has a multiple of 8 K rows, not {}",
                    self.cols
                ));
            }
            if per == 0 || self.rows == 0 || self.rows % per != 0 {
                return Err(format!(
                    "an MN-major {:?}-swizzled tile of {}-byte elements spans a multiple of {per} along M/N, not {}",
                    self.swizzle, self.elem_bytes, self.rows
                ));
            }
            return Ok(());
        }
        if self.rows == 0 || self.rows % 8 != 0 {
            return Err(format!(
                "a wgmma tile has a multiple of 8 rows, not {}",
                self.rows
            ));
        }
        if per == 0 || self.cols == 0 || self.cols % per != 0 {
            return Err(format!(
                "a {:?}-swizzled tile of {}-byte elements has a multiple of {per} columns, not {}",
                self.swizzle, self.elem_bytes, self.cols
            ));
        }
        Ok(())
    }
}

/// What `wgmma` needs of the target: sm_90a exactly (the instructions exist on no other
/// architecture).
pub const TARGET_NEED: TargetNeed = TargetNeed {
    feature: "`wgmma.mma_async`",
    min_arch: 90,
    arch_specific: true,
};

/// What the wgmma intrinsics of `module` need of the target (one need, or none).
pub fn module_needs(module: &crate::ir::Module) -> Vec<TargetNeed> {
    super::target::need_if_used(
        module,
        TARGET_NEED,
        |i| matches!(i, Intrinsic::Wgmma(op) if !matches!(op, WgmmaOp::FenceProxyAsync | WgmmaOp::PackPair(_))),
    )
}

/// The panic of a descriptor made from memory outside shared memory.
pub const SPACE_MESSAGE: &str =
    "a wgmma descriptor must name shared memory: element {0} of a slice of {1} is not";

// The register-level intrinsics' rows, the packs and the hints for missing forms.
#[path = "wgmma_rows.rs"]
mod rows;
pub use rows::*;

#[cfg(test)]
#[path = "wgmma_tests.rs"]
mod tests;
