//! Warpgroup MMA on the simulator (`wgmma_*`, `proc::wgmma`'s rules). Each warp of a
//! warpgroup computes its own 16 rows of D (as the hardware's ownership gives them),
//! reading A's rows and all of B from shared memory where the descriptors say, with
//! the hardware's interpretation of the descriptor (swizzle included), as reads by
//! the warp's first lane at the wgmma's site (so the race detector orders them).
//!
//! The protocol is checked, each misuse a [`Fault::Wgmma`] or a race naming both sites:
//! - every wgmma step needs all 32 lanes of the warp, and a wgmma a full warpgroup
//!   (128 threads of the block from a multiple of 128);
//! - a `wgmma_m64n*` with no `wgmma_fence()` since the warp's last `wgmma_wait_group_*`
//!   (or since the kernel began) names both sites: the accumulator may still be
//!   touched by the instructions before it (CUTLASS fences each batch the same way);
//! - until a wait retires its group, the tiles a wgmma reads are in flight: a write to
//!   them by any thread is a race with the wgmma (the detector's in-flight records),
//!   and a block that ends with a group never waited for is reported at the wgmma.
//!
//! Operands: a shared one is read with its form's layout (K-major or MN-major,
//! `Descriptor::operand_address`); an A from registers (RS forms) is gathered from the
//! warp's 32 lanes by `proc::wgmma::a_position`, as the hardware's fragment says.
//!
//! Arithmetic: bf16/f16/e4m3/tf32 products are exact in f64; their sum over K and C is
//! formed in f64 and rounded once to f32. The GPU adds in an unspecified order with at
//! least f32 precision: per element the two differ by at most about `K * 2^-23 *
//! sum_k |a_k b_k| + 2^-24 |d|` (as `mma.sync`, `docs/tensor_cores.md`). A tf32 operand
//! is an f32 of which the tensor core reads the top 19 bits (`proc::mma::tf32_operand`:
//! the low 13 bits dropped, truncation, not rounding). 8-bit integer products and their
//! sum with C are exact (in i64: `|sum| < 2^31 + K * 2^16`), then wrap to i32.
//!
//! Descriptors: the simulator keeps the tile's region in bits 52..62 of the word, which
//! the hardware reserves; the other fields are the hardware's, so kernels that step a
//! descriptor's start address (`desc + 2` for 32 bytes) work on both.

use super::detect::in_flight::{CopyEnd, InFlightCopy, InFlightKind};
use super::detect::{RegionId, SiteId};
use super::fault::{Fault, R};
use super::lanes::{lanes, LANES};
use super::pointer::{offset_of, ptr, region_of};
use super::scalar::{half_to_f32, of_f32};
use super::warp::{Frame, Warp};
use super::wgmma_state::PendingWgmma;
use crate::ir::{Expr, Handle, Type, WgmmaA, WgmmaCombo, WgmmaMajor, WgmmaOp};
use crate::proc::mma::{tf32_operand, MmaElem};
use crate::proc::wgmma::{
    acc_position, pack_pair, Descriptor, Swizzle, A_REGISTERS, SPACE_MESSAGE, WARPGROUP_THREADS,
};

const FULL_WARP: u32 = u32::MAX;
const REGION_SHIFT: u32 = 52;
const REGION_MASK: u64 = 0x3FF;

impl Warp<'_, '_> {
    /// `wgmma_*` for the lanes of `m` (operands evaluated).
    pub fn wgmma_intrinsic(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        op: WgmmaOp,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        if op == WgmmaOp::Descriptor {
            return self.wgmma_descriptor(fr, e, args, m);
        }
        if op == WgmmaOp::FenceProxyAsync {
            return Ok(());
        }
        if let WgmmaOp::PackPair(input) = op {
            let slots: Vec<u32> = args.iter().map(|a| self.slot_of(fr, *a)).collect();
            let out = self.slot_of(fr, e);
            for lane in lanes(m) {
                let [lo, hi] = [0, 1].map(|k| f32::from_bits(fr.get(slots[k], lane) as u32));
                fr.set(out, lane, u64::from(pack_pair(input, lo, hi)));
            }
            return Ok(());
        }
        if m != FULL_WARP {
            let what = format!("{op:?}");
            return Err(self.inactive(
                fr,
                e,
                &what,
                m.trailing_zeros() as usize,
                (!m).trailing_zeros(),
                m,
            ));
        }
        self.warp_sync(m);
        let loc = self.func(fr.func).loc_of(e);
        match op {
            WgmmaOp::Fence => self.wgmma.fenced = true,
            WgmmaOp::Commit => {
                let group = self.wgmma.groups;
                self.wgmma.groups += 1;
                for p in &mut self.wgmma.pending {
                    p.group.get_or_insert(group);
                }
            }
            WgmmaOp::Wait { pending } => {
                let limit = self.wgmma.groups.saturating_sub(u64::from(pending));
                let (done, left): (Vec<_>, Vec<_>) = std::mem::take(&mut self.wgmma.pending)
                    .into_iter()
                    .partition(|p| p.group.is_some_and(|g| g < limit));
                self.wgmma.pending = left;
                if let Some(det) = self.det {
                    for p in done {
                        for id in p.reads {
                            det.borrow_mut().copy_landed(id);
                        }
                    }
                }
                self.wgmma.fenced = false;
                self.wgmma.last_wait = Some((fr.func, loc));
            }
            WgmmaOp::Mma(combo) => self.wgmma_mma(fr, e, combo, args)?,
            // The register budget is not modelled; its collective rule is.
            WgmmaOp::SetMaxNreg { .. } => self.whole_warpgroup(fr, e, "setmaxnreg")?,
            WgmmaOp::Descriptor | WgmmaOp::FenceProxyAsync | WgmmaOp::PackPair(_) => {}
        }
        Ok(())
    }

    fn wgmma_misuse(&self, fr: &Frame, e: Handle<Expr>, problem: String) -> Box<Fault> {
        Box::new(Fault::Wgmma {
            site: self.expr_site(fr, e),
            thread: self.thread(0),
            problem,
        })
    }

    /// `wgmma_descriptor(tile, index, swizzle_bytes, leading_bytes, stride_bytes)`.
    fn wgmma_descriptor(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        let func = self.func(fr.func);
        let loc = func.loc_of(e);
        let Type::Slice { elem, .. } = func.exprs[args[0]].ty else {
            return Err(Box::new(Fault::Launch(
                "wgmma_descriptor of a non-slice".into(),
            )));
        };
        let slots: Vec<u32> = args.iter().map(|a| self.slot_of(fr, *a)).collect();
        let out = self.slot_of(fr, e);
        let elem_bytes = u64::from(elem.size_bytes());
        for lane in lanes(m) {
            let tile = (slots[0], slots[1]);
            let Some(at) = self.shared_element(fr, loc, lane, tile, elem_bytes, SPACE_MESSAGE)
            else {
                continue;
            };
            let region = region_of(at);
            let swizzle_bytes = fr.get(slots[2], lane) as u32;
            let Some(swizzle) = Swizzle::from_bytes(swizzle_bytes) else {
                return Err(self.wgmma_misuse(
                    fr,
                    e,
                    format!("swizzle_bytes is {swizzle_bytes}; a descriptor's swizzle is 0 (none), 32, 64 or 128 bytes"),
                ));
            };
            let word = Descriptor {
                start: offset_of(at),
                leading: fr.get(slots[3], lane),
                stride: fr.get(slots[4], lane),
                swizzle,
            }
            .encode();
            fr.set(
                out,
                lane,
                word | ((region as u64 & REGION_MASK) << REGION_SHIFT),
            );
        }
        Ok(())
    }

    /// A warpgroup-collective step (`what`) in a block whose last warpgroup is partial.
    fn whole_warpgroup(&self, fr: &Frame, e: Handle<Expr>, what: &str) -> R<()> {
        let block_threads: u32 = self.launch.shape.block.iter().product();
        let group_end = (self.warp_index / 4 + 1) * WARPGROUP_THREADS as u32;
        if block_threads < group_end {
            return Err(self.wgmma_misuse(
                fr,
                e,
                format!(
                    "{what} needs a whole warpgroup of 128 threads, and this block of {block_threads} threads has threads {} to {} of its warpgroup only",
                    group_end - WARPGROUP_THREADS as u32,
                    block_threads - 1
                ),
            ));
        }
        Ok(())
    }

    fn wgmma_mma(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        combo: WgmmaCombo,
        args: &[Handle<Expr>],
    ) -> R<()> {
        let loc = self.func(fr.func).loc_of(e);
        self.whole_warpgroup(fr, e, "a wgmma")?;
        if !self.wgmma.fenced {
            let since = match self.wgmma.last_wait {
                Some((func, at)) => format!("the wgmma_wait_group at {}", self.site(func, at)),
                None => "the kernel began".to_string(),
            };
            return Err(self.wgmma_misuse(
                fr,
                e,
                format!("a wgmma issued with no wgmma_fence() since {since}: call wgmma_fence() before each batch of wgmmas"),
            ));
        }
        let slots: Vec<u32> = args.iter().map(|a| self.slot_of(fr, *a)).collect();
        let uniform = |k: usize| -> Option<u64> {
            let v = fr.get(slots[k], 0);
            (0..LANES).all(|l| fr.get(slots[k], l) == v).then_some(v)
        };
        // `desc_b` and `scale_d` follow A's one descriptor or four registers.
        let b_at = combo.a_operands();
        let desc_a = match combo.a {
            WgmmaA::Shared(_) => uniform(0),
            WgmmaA::Registers => Some(0),
        };
        let (Some(desc_a), Some(desc_b), Some(scale_d)) =
            (desc_a, uniform(b_at), uniform(b_at + 1))
        else {
            return Err(self.wgmma_misuse(fr, e, "the descriptors and scale_d of a wgmma differ between the warp's lanes: they must be the warpgroup's".into()));
        };
        let (_, n, k) = combo.mnk();
        let (n, k) = (n as u64, k as u64);
        let warp_rows = 16 * u64::from(self.warp_index % 4);
        let (a, a_read) = match combo.a {
            WgmmaA::Shared(major) => {
                let rows = warp_rows..warp_rows + 16;
                self.read_operand(fr, loc, desc_a, major, rows, k, combo.input)?
            }
            WgmmaA::Registers => (self.gather_a(fr, &slots[..A_REGISTERS], combo), None),
        };
        let (b, b_read) = self.read_operand(fr, loc, desc_b, combo.b, 0..n, k, combo.input_b)?;
        let out = self.slot_of(fr, e);
        let c_at = b_at + 2;
        let integer = combo.acc() == MmaElem::I32;
        for lane in 0..LANES {
            let thread = 32 * (self.warp_index as usize % 4) + lane;
            for i in 0..combo.acc_len() {
                let (r, c) = acc_position(thread, i);
                let row = &a[(r - warp_rows as usize) * k as usize..][..k as usize];
                let col = &b[c * k as usize..][..k as usize];
                // Exact in f64 for every input type (integer sums stay below 2^53).
                let products: f64 = row.iter().zip(col).map(|(x, y)| x * y).sum();
                let c_bits = fr.get(slots[c_at + i], lane) as u32;
                let d = if integer {
                    let c_in = if scale_d != 0 {
                        i64::from(c_bits as i32)
                    } else {
                        0
                    };
                    u64::from((c_in + products as i64) as i32 as u32)
                } else {
                    let c_in = if scale_d != 0 {
                        f64::from(f32::from_bits(c_bits))
                    } else {
                        0.0
                    };
                    of_f32((c_in + products) as f32)
                };
                fr.set(out + i as u32, lane, d);
            }
        }
        // The tiles stay in flight until the wait that retires this wgmma's group.
        let mut reads = Vec::new();
        if let Some(det) = self.det {
            for (n, end) in [a_read, b_read].into_iter().flatten().enumerate() {
                self.wgmma.issued += 1;
                let id = (1 << 63)
                    | (u64::from(self.warp_index) << 32)
                    | (self.wgmma.issued << 1)
                    | n as u64;
                det.borrow_mut().copy_started(InFlightCopy {
                    id,
                    tid: self.warp_index * LANES as u32,
                    dst: CopyEnd { bytes: 0, ..end },
                    src: Some(end),
                    site: SiteId::new(fr.func, loc),
                    kind: InFlightKind::WgmmaRead,
                });
                reads.push(id);
            }
        }
        self.wgmma.pending.push(PendingWgmma { group: None, reads });
        Ok(())
    }

    /// The warp's `16 x K` A (row-major values, rows from the warp's first) from the
    /// lanes' A registers (`slots`): each 32-bit register two 16-bit elements, low
    /// first, or one tf32 (`WgmmaCombo::a_element` says where each goes).
    fn gather_a(&self, fr: &Frame, slots: &[u32], combo: WgmmaCombo) -> Vec<f64> {
        let k = combo.mnk().2 as usize;
        let per_register = combo.a_elements() / slots.len();
        let bits_each = 32 / per_register;
        let mask = (1u64 << bits_each) - 1;
        let mut a = vec![0.0; 16 * k];
        for lane in 0..LANES {
            for e in 0..combo.a_elements() {
                let (r, c) = combo.a_element(lane, e);
                let reg = fr.get(slots[e / per_register], lane);
                let bits = (reg >> (bits_each * (e % per_register))) & mask;
                a[r * k + c] = operand_value(combo.input, bits);
            }
        }
        a
    }

    /// The `rows x k` operand of `input`s a descriptor names (row-major values), laid
    /// out `major`, read at `loc`, and the bytes it spans (for the detector, where it
    /// watches the region).
    #[allow(clippy::too_many_arguments)]
    fn read_operand(
        &mut self,
        fr: &Frame,
        loc: crate::ir::SourceLoc,
        word: u64,
        major: WgmmaMajor,
        rows: std::ops::Range<u64>,
        k: u64,
        input: MmaElem,
    ) -> R<(Vec<f64>, Option<CopyEnd>)> {
        let elem = input.storage();
        let region = ((word >> REGION_SHIFT) & REGION_MASK) as u64;
        let d = Descriptor::decode(word);
        let eb = u64::from(elem.size_bytes());
        let (mut lo, mut hi) = (u64::MAX, 0);
        let mut values = Vec::with_capacity(((rows.end - rows.start) * k) as usize);
        for r in rows.clone() {
            for kk in 0..k {
                let offset = d.operand_address(major, r, kk, eb);
                lo = lo.min(offset);
                hi = hi.max(offset + eb);
                let bits = self.mem_read(fr, loc, 0, ptr(region, offset), elem)?;
                values.push(operand_value(input, bits));
            }
        }
        let watched = self.det.is_some()
            && self
                .launch
                .observed
                .get(region as usize)
                .copied()
                .unwrap_or(false);
        let base = self
            .launch
            .regions
            .get(region as usize)
            .map_or(0, |r| r.base);
        let end = watched.then(|| CopyEnd {
            region: RegionId(region as u32),
            offset: lo.saturating_sub(base),
            bytes: (hi - lo) as u32,
        });
        Ok((values, end))
    }
}

/// The value the tensor core reads from an element of `input` with bits `bits`: a
/// 16-bit float or e4m3 exactly, the top 19 bits of a tf32's f32, an 8-bit integer.
fn operand_value(input: MmaElem, bits: u64) -> f64 {
    match input {
        MmaElem::Tf32 => f64::from(tf32_operand(f32::from_bits(bits as u32))),
        MmaElem::I8 => f64::from(bits as u8 as i8),
        MmaElem::U8 => f64::from(bits as u8),
        other => f64::from(half_to_f32(other.storage(), bits)),
    }
}

#[cfg(test)]
#[path = "wgmma_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "wgmma_forms_tests.rs"]
mod forms_tests;

#[cfg(test)]
#[path = "wgmma_types_tests.rs"]
mod types_tests;
