//! Tensor-core operations on the simulator: `mma.sync`, `ldmatrix` and `stmatrix` as
//! warp-collective steps over the 32 lanes' register slots, with exactly the hardware's
//! fragment ownership (`proc::mma`'s tables, the same the NVVM writer's registers
//! follow), so an epilogue that writes the wrong element is wrong on both.
//!
//! Arithmetic (documented in `docs/tensor_cores.md`):
//! - integer MMA is bit-exact: `i32` products summed with the accumulator, wrapping
//!   (`mma.sync` without `.satfinite`);
//! - f64 DMMA: a chain of fused multiply-adds in k order, starting from C;
//! - f16/bf16/tf32 products (tf32: the top 19 bits of each f32, as the tensor core
//!   reads them) are exact in f64; their sum over k and C is formed in f64 and rounded
//!   once to the accumulator type. The GPU adds in an unspecified order with at least
//!   f32 precision: per element the two differ by at most about
//!   `K * 2^-23 * sum_k |a_k b_k| + 2^-24 |d|`.
//!
//! Each step needs all 32 lanes: an MMA, `ldmatrix` or `stmatrix` reached by fewer
//! (divergent code, or a partial warp) is reported, as on a GPU it is undefined.

use super::fault::R;
use super::lanes::LANES;
use super::pointer::{offset_of, ptr_add, region_of};
use super::scalar::{f32_of, f64_of, half_of_f64, half_to_f32, of_f32, of_f64};
use super::warp::{Frame, Warp};
use crate::ir::{checks, Expr, Handle, ScalarType, Type};
use crate::proc::mma::{
    element_position, fragment_len, registers_of, tf32_operand, MmaCombo, MmaElem, MmaRole,
};

/// One register (or one fragment element) across the warp: slot bits per lane.
pub type LaneValues = [u64; LANES];

const FULL_WARP: u32 = u32::MAX;

/// Why a warp-collective tensor-core step cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MmaMisuse {
    /// Only the lanes of `active` reached it (divergent code or a partial warp).
    PartialWarp { what: &'static str, active: u32 },
}

impl std::fmt::Display for MmaMisuse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MmaMisuse::PartialWarp { what, active } => write!(
                f,
                "`{what}` was executed by {} of the warp's 32 lanes (active mask {active:#010x}): \
                 it is warp-collective, every lane must reach it together (not in divergent code)",
                active.count_ones()
            ),
        }
    }
}

/// Checks that all 32 lanes take part in `what`.
pub fn require_full_warp(what: &'static str, active: u32) -> Result<(), MmaMisuse> {
    if active == FULL_WARP {
        Ok(())
    } else {
        Err(MmaMisuse::PartialWarp { what, active })
    }
}

/// A fragment element's bits as a number: floats as f64 (tf32 as the tensor core reads
/// it), integers as i64.
enum Number {
    Float(f64),
    Int(i64),
}

fn decode(elem: MmaElem, bits: u64) -> Number {
    match elem {
        MmaElem::F16 => Number::Float(half_to_f32(ScalarType::F16, bits) as f64),
        MmaElem::BF16 => Number::Float(half_to_f32(ScalarType::BF16, bits) as f64),
        MmaElem::E4M3 => Number::Float(half_to_f32(ScalarType::E4M3, bits) as f64),
        MmaElem::Tf32 => Number::Float(tf32_operand(f32_of(bits)) as f64),
        MmaElem::F32 => Number::Float(f32_of(bits) as f64),
        MmaElem::F64 => Number::Float(f64_of(bits)),
        MmaElem::I8 => Number::Int(bits as u8 as i8 as i64),
        MmaElem::U8 => Number::Int(bits as u8 as i64),
        MmaElem::I32 => Number::Int(bits as u32 as i32 as i64),
    }
}

/// The whole matrix of a role from the lanes' fragments, row-major.
fn gather(combo: MmaCombo, role: MmaRole, elem: MmaElem, frag: &[LaneValues]) -> Vec<Number> {
    let (rows, cols) = combo.shape.dims(role);
    let mut matrix: Vec<Number> = (0..rows * cols).map(|_| Number::Int(0)).collect();
    for lane in 0..LANES {
        for (i, values) in frag.iter().enumerate() {
            let (r, c) = element_position(combo.shape, role, lane, i);
            matrix[r * cols + c] = decode(elem, values[lane]);
        }
    }
    matrix
}

/// `mma.sync` for `combo`: D's elements per lane from A's, B's and C's (each a slice
/// of `fragment_len` element registers, in the element's storage encoding).
pub fn mma_sync(
    combo: MmaCombo,
    active: u32,
    a: &[LaneValues],
    b: &[LaneValues],
    c: &[LaneValues],
) -> Result<Vec<LaneValues>, MmaMisuse> {
    require_full_warp("mma_sync", active)?;
    let shape = combo.shape;
    debug_assert_eq!(a.len(), fragment_len(shape, MmaRole::A));
    debug_assert_eq!(b.len(), fragment_len(shape, MmaRole::B));
    debug_assert_eq!(c.len(), fragment_len(shape, MmaRole::Acc));
    let (m_len, n_len, k_len) = shape.mnk();
    let (ma, mb, mc) = (
        gather(combo, MmaRole::A, combo.input, a),
        gather(combo, MmaRole::B, combo.input, b),
        gather(combo, MmaRole::Acc, combo.acc, c),
    );
    let mut d = vec![0u64; m_len * n_len];
    for m in 0..m_len {
        for n in 0..n_len {
            let products = (0..k_len).map(|k| (&ma[m * k_len + k], &mb[k * n_len + n]));
            d[m * n_len + n] = match (combo.acc, &mc[m * n_len + n]) {
                (MmaElem::I32, Number::Int(acc)) => {
                    let mut sum = *acc as i32;
                    for pair in products {
                        if let (Number::Int(x), Number::Int(y)) = pair {
                            sum = sum.wrapping_add((x * y) as i32);
                        }
                    }
                    u64::from(sum as u32)
                }
                (MmaElem::F64, Number::Float(acc)) => {
                    let mut sum = *acc;
                    for pair in products {
                        if let (Number::Float(x), Number::Float(y)) = pair {
                            sum = x.mul_add(*y, sum);
                        }
                    }
                    of_f64(sum)
                }
                (acc_elem, Number::Float(acc)) => {
                    let mut sum = *acc;
                    for pair in products {
                        if let (Number::Float(x), Number::Float(y)) = pair {
                            sum += x * y;
                        }
                    }
                    match acc_elem {
                        MmaElem::F16 => half_of_f64(ScalarType::F16, sum),
                        _ => of_f32(sum as f32),
                    }
                }
                _ => unreachable!("accumulator {:?} decoded as the wrong kind", combo.acc),
            };
        }
    }
    let mut out = vec![[0u64; LANES]; fragment_len(shape, MmaRole::Acc)];
    for lane in 0..LANES {
        for (i, values) in out.iter_mut().enumerate() {
            let (r, c) = element_position(shape, MmaRole::Acc, lane, i);
            values[lane] = d[r * n_len + c];
        }
    }
    Ok(out)
}

impl Warp<'_, '_> {
    /// `mma_<shape>_<input>_<acc>(a.., b.., c..)` over the warp: every lane must be
    /// here (`m` the full warp), else the divergence is reported at the call.
    pub(super) fn mma(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        combo: MmaCombo,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        if m != FULL_WARP {
            let missing = (!m).trailing_zeros();
            return Err(self.inactive(fr, e, "mma_sync", m.trailing_zeros() as usize, missing, m));
        }
        self.warp_sync(m);
        let shape = combo.shape;
        let mut next = 0;
        let mut operand = |role: MmaRole, elem: MmaElem| -> Vec<LaneValues> {
            let count = registers_of(shape, role, elem);
            let regs: Vec<LaneValues> = (next..next + count)
                .map(|k| {
                    let slot = self.slot_of(fr, args[k]);
                    std::array::from_fn(|lane| fr.get(slot, lane))
                })
                .collect();
            next += count;
            if count == fragment_len(shape, role) {
                regs
            } else {
                let packed: Vec<[u32; LANES]> = regs
                    .iter()
                    .map(|r| std::array::from_fn(|lane| r[lane] as u32))
                    .collect();
                unpack(elem, &packed)
            }
        };
        let a = operand(MmaRole::A, combo.input);
        let b = operand(MmaRole::B, combo.input);
        let c = operand(MmaRole::Acc, combo.acc);
        let d = mma_sync(combo, m, &a, &b, &c).expect("the full warp was checked above");
        let regs: Vec<LaneValues> = if registers_of(shape, MmaRole::Acc, combo.acc) == d.len() {
            d
        } else {
            pack(combo.acc, &d)
                .iter()
                .map(|r| std::array::from_fn(|lane| u64::from(r[lane])))
                .collect()
        };
        let out = self.slot_of(fr, e);
        for (k, values) in regs.iter().enumerate() {
            for (lane, &v) in values.iter().enumerate() {
                fr.set(out + k as u32, lane, v);
            }
        }
        Ok(())
    }
}

impl Warp<'_, '_> {
    /// `ldmatrix_x{count}[_trans](tile, offset)` (`store` false) or
    /// `stmatrix_x{count}[_trans](tile, offset, registers..)`: every lane's 16-byte row
    /// must lie inside the tile (bounds-checked, as the GPU code does), start 16-byte
    /// aligned, and be shared memory; the rows of the lanes the instruction reads
    /// (`8 * count` of them) are read or written through the memory model, so a race
    /// with another warp's access is found as for any access.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn matrix_rows(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        count: u8,
        trans: bool,
        store: bool,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        let what = if store { "stmatrix" } else { "ldmatrix" };
        if m != FULL_WARP {
            let missing = (!m).trailing_zeros();
            return Err(self.inactive(fr, e, what, m.trailing_zeros() as usize, missing, m));
        }
        let f = self.func(fr.func);
        let Type::Slice { elem, .. } = f.exprs[args[0]].ty else {
            return Err(Box::new(super::fault::Fault::Launch(format!(
                "{what} on a non-slice"
            ))));
        };
        let loc = f.loc_of(e);
        let checked = f.options.bounds_check;
        let (tile, index) = (self.slot_of(fr, args[0]), self.slot_of(fr, args[1]));
        let size = u64::from(elem.size_bytes());
        let width = 16 / size;
        let mut rows_at = [0u64; LANES];
        let mut failed = 0u32;
        for lane in 0..LANES {
            let (p, len, i) = (
                fr.get(tile, lane),
                fr.get(tile + 1, lane),
                fr.get(index, lane),
            );
            let last = i.saturating_add(width - 1);
            let at = ptr_add(p, i.saturating_mul(size));
            let problem = if checked && last >= len {
                Some(checks::substitute(checks::INDEX_MESSAGE, last, len))
            } else if offset_of(at) % 16 != 0 {
                Some(format!(
                    "{what}: lane {lane}'s row starts at element {i}, byte {} of its memory, which is not 16-byte aligned",
                    offset_of(at)
                ))
            } else if !self
                .launch
                .shared_regions
                .iter()
                .any(|&(r, _)| r == region_of(at))
            {
                Some(format!(
                    "{what} moves shared memory, but lane {lane}'s tile is not in shared memory"
                ))
            } else {
                None
            };
            if let Some(text) = problem {
                self.panic_at(fr, loc, lane, text);
                failed |= 1 << lane;
            }
            rows_at[lane] = at;
        }
        if failed != 0 {
            return Ok(());
        }
        let count = usize::from(count);
        if store {
            let regs: Vec<[u32; LANES]> = (0..count)
                .map(|q| {
                    let slot = self.slot_of(fr, args[2 + q]);
                    std::array::from_fn(|lane| fr.get(slot, lane) as u32)
                })
                .collect();
            let rows = stmatrix(trans, m, &regs).expect("the full warp was checked above");
            for (lane, row) in rows.iter().enumerate() {
                for (u, &unit) in row.iter().enumerate() {
                    let at = ptr_add(rows_at[lane], 2 * u as u64);
                    self.mem_write(fr, loc, lane, at, ScalarType::U16, u64::from(unit))?;
                }
            }
            return Ok(());
        }
        let mut rows = vec![[0u16; 8]; 8 * count];
        for (lane, row) in rows.iter_mut().enumerate() {
            for (u, unit) in row.iter_mut().enumerate() {
                let at = ptr_add(rows_at[lane], 2 * u as u64);
                *unit = self.mem_read(fr, loc, lane, at, ScalarType::U16)? as u16;
            }
        }
        let regs = ldmatrix(count, trans, m, &rows).expect("the full warp was checked above");
        let out = self.slot_of(fr, e);
        for (q, reg) in regs.iter().enumerate() {
            for (lane, &v) in reg.iter().enumerate() {
                fr.set(out + q as u32, lane, u64::from(v));
            }
        }
        Ok(())
    }
}

/// Eight 16-bit units: one 16-byte row as `ldmatrix` reads it.
pub type MatrixRow = [u16; 8];

/// `ldmatrix.x{count}[.trans]`: `rows[8q + r]` is the row lane `8q + r` addressed
/// (row `r` of matrix `q`); the result is register `q` of every lane.
pub fn ldmatrix(
    count: usize,
    trans: bool,
    active: u32,
    rows: &[MatrixRow],
) -> Result<Vec<[u32; LANES]>, MmaMisuse> {
    require_full_warp("ldmatrix", active)?;
    assert!(rows.len() >= 8 * count);
    let mut regs = vec![[0u32; LANES]; count];
    for (q, reg) in regs.iter_mut().enumerate() {
        for (lane, value) in reg.iter_mut().enumerate() {
            let (lo, hi) = if trans {
                let column = lane / 4;
                let row = 8 * q + 2 * (lane % 4);
                (rows[row][column], rows[row + 1][column])
            } else {
                let row = &rows[8 * q + lane / 4];
                (row[2 * (lane % 4)], row[2 * (lane % 4) + 1])
            };
            *value = u32::from(lo) | u32::from(hi) << 16;
        }
    }
    Ok(regs)
}

/// `stmatrix.x{count}[.trans]`: the inverse of [`ldmatrix`]: the 16-byte row each
/// lane `8q + r` addresses, from register `q` of every lane.
pub fn stmatrix(
    trans: bool,
    active: u32,
    regs: &[[u32; LANES]],
) -> Result<Vec<MatrixRow>, MmaMisuse> {
    require_full_warp("stmatrix", active)?;
    let mut rows = vec![[0u16; 8]; 8 * regs.len()];
    for (q, reg) in regs.iter().enumerate() {
        for (lane, &value) in reg.iter().enumerate() {
            let (lo, hi) = (value as u16, (value >> 16) as u16);
            if trans {
                let (column, row) = (lane / 4, 8 * q + 2 * (lane % 4));
                rows[row][column] = lo;
                rows[row + 1][column] = hi;
            } else {
                let row = &mut rows[8 * q + lane / 4];
                row[2 * (lane % 4)] = lo;
                row[2 * (lane % 4) + 1] = hi;
            }
        }
    }
    Ok(rows)
}

/// A fragment's element registers from its 32-bit registers (element `i` in register
/// `i / per_register`, low bits first), in each element's storage encoding.
pub fn unpack(elem: MmaElem, regs: &[[u32; LANES]]) -> Vec<LaneValues> {
    let bytes = elem.bytes();
    let per_register = 4 / bytes;
    let mask = if bytes == 4 {
        u32::MAX
    } else {
        (1u32 << (8 * bytes)) - 1
    };
    (0..regs.len() * per_register)
        .map(|i| {
            let reg = &regs[i / per_register];
            let shift = 8 * bytes * (i % per_register);
            std::array::from_fn(|lane| u64::from((reg[lane] >> shift) & mask))
        })
        .collect()
}

/// The inverse of [`unpack`].
pub fn pack(elem: MmaElem, elements: &[LaneValues]) -> Vec<[u32; LANES]> {
    let bytes = elem.bytes();
    let per_register = 4 / bytes;
    let mut regs = vec![[0u32; LANES]; elements.len() / per_register];
    for (i, values) in elements.iter().enumerate() {
        let shift = 8 * bytes * (i % per_register);
        for lane in 0..LANES {
            regs[i / per_register][lane] |= (values[lane] as u32) << shift;
        }
    }
    regs
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_typed;
