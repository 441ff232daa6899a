//! Hopper TMA on the simulator: the copies (a map argument's binding is
//! `super::tma_args`').
//!
//! A `tma_load` checks what the GPU would fault on (`proc::tma_intrinsics::check_copy`),
//! reads the box through the map exactly as `proc::tma`'s model says the hardware
//! does (`TensorMapLayout::box_elements`: strides, the fill outside the tensor, the
//! swizzle), writes it into the tile as the issuing thread's writes, then completes
//! the box's bytes on the mbarrier (a release, as PTX's `complete_tx` is). So the
//! tile's new bytes are ordered before a thread's reads only when that thread waited
//! for the barrier's phase: a consumer reading the stage before its phase completes,
//! and a producer refilling a stage that a consumer still reads (it did not wait for
//! the consumer's release), are data races on the tile, reported with both sites; an
//! `expect_tx` that says more bytes than the copies bring is the mbarrier's deadlock
//! report. A `tma_load_multicast` lands in every block of its mask, its own
//! included, as `super::tma_multicast` says. A `tma_store` reads the tile and writes the box's elements inside the tensor
//! (the innermost axis to its next 16-byte boundary, as the H200 does:
//! `TensorMapLayout::stored_elements`) when issued, but its read of the tile stays in
//! flight (`detect::async_copies`) until a `bulk_wait_group_read` of the issuing thread
//! retires its bulk group (`super::tma_state`): a write to the tile before then, by
//! any thread, is a race naming the store, and at the wait the tile is read again as
//! the issuing thread's, so that another thread's later write must be ordered after
//! the wait (a `sync_threads()`). A block that ends with such a read in flight is
//! [`Fault::UnwaitedBulkStore`].

use super::detect::in_flight::{CopyEnd, InFlightCopy, InFlightKind};
use super::detect::{SiteId, Space};
use super::fault::{AccessKind, Fault, R};
use super::lanes::lanes;
use super::pointer::{offset_of, ptr_add, region_of, LOCAL_REGION};
use super::tma_state::PendingStore;
use super::warp::{Frame, Warp};
use crate::ir::{
    checks, Expr, Handle, MbarrierOp, MemoryScope, ScalarType, SourceLoc, TmaOp, Type,
};
use crate::proc::tma::{TensorMapLayout, DESCRIPTOR_BYTES};
use crate::proc::tma_intrinsics::{check_copy, SPACE_MESSAGE};

impl Warp<'_, '_> {
    /// `tma_*` and the bulk groups for the lanes of `m` (operands evaluated).
    pub fn tma_intrinsic(
        &mut self,
        fr: &mut Frame,
        e: Handle<Expr>,
        op: TmaOp,
        args: &[Handle<Expr>],
        m: u32,
    ) -> R<()> {
        let loc = self.func(fr.func).loc_of(e);
        let load = match op {
            TmaOp::CommitGroup => {
                for lane in lanes(m) {
                    self.bulk_stores.commit(lane);
                }
                return Ok(());
            }
            TmaOp::WaitGroupRead { pending } => return self.retire_stores(m, pending),
            TmaOp::Prefetch => {
                for lane in lanes(m) {
                    self.map_of(fr, loc, lane, args[0])?;
                }
                return Ok(());
            }
            TmaOp::Load | TmaOp::LoadMulticast => true,
            TmaOp::Store => false,
        };
        let (tile_arg, coords_arg) = if load { (1, 2) } else { (2, 1) };
        let rank = match self.func(fr.func).exprs[args[0]].ty {
            Type::TensorMap { rank, .. } => usize::from(rank),
            _ => return Err(Box::new(Fault::Launch("a TMA copy without a map".into()))),
        };
        let (tile_s, coords_s) = (
            self.slot_of(fr, args[tile_arg]),
            self.slot_of(fr, args[coords_arg]),
        );
        let word_s = self.slot_of(fr, args[0]) + 1;
        for lane in lanes(m) {
            let (layout, tensor) = self.map_of(fr, loc, lane, args[0])?;
            let elem_bytes = layout.elem_bytes();
            let (tile, tile_len) = (fr.get(tile_s, lane), fr.get(tile_s + 1, lane));
            let region = region_of(tile);
            let space = (region != LOCAL_REGION as usize)
                .then(|| self.launch.regions.get(region))
                .flatten();
            let Some(info) = space.filter(|r| r.space == Space::Shared) else {
                self.panic_at(
                    fr,
                    loc,
                    lane,
                    checks::substitute(SPACE_MESSAGE, tile_len, 0),
                );
                continue;
            };
            let tile_offset = offset_of(tile) - info.base;
            // Row-major as written; the model takes the innermost first.
            let coords: Vec<i64> = (0..rank as u32)
                .map(|k| i64::from(fr.get(coords_s + k, lane) as u32 as i32))
                .collect();
            let word = fr.get(word_s, lane);
            let tile_bytes = tile_len.saturating_mul(elem_bytes);
            if let Some((text, a, b)) =
                check_copy(tile_offset, tile_bytes, word, elem_bytes, &coords, !load)
            {
                self.panic_at(fr, loc, lane, checks::substitute(text, a, b));
                continue;
            }
            let innermost_first: Vec<i64> = coords.iter().rev().copied().collect();
            if load {
                let elements = layout.box_elements(&innermost_first);
                let Some(bar) = self.shared_element(
                    fr,
                    loc,
                    lane,
                    (self.slot_of(fr, args[3]), self.slot_of(fr, args[4])),
                    8,
                    crate::proc::mbarrier::SPACE_MESSAGE,
                ) else {
                    continue;
                };
                // Hopper: TMA multicast: the blocks of the cluster the box lands in.
                let destinations = match op {
                    TmaOp::LoadMulticast => {
                        let mask = fr.get(self.slot_of(fr, args[5]), lane) as u16;
                        match self.multicast_destinations(mask) {
                            Ok(blocks) => Some(blocks),
                            Err(message) => {
                                self.panic_at(fr, loc, lane, message);
                                continue;
                            }
                        }
                    }
                    _ => None,
                };
                let mut landed = Vec::with_capacity(elements.len());
                for (global, shared) in elements {
                    let value = match global {
                        Some(g) => self.mem_read(fr, loc, lane, ptr_add(tensor, g), layout.elem)?,
                        None => layout.fill_bytes(),
                    };
                    landed.push((shared, value));
                }
                let bytes = layout.box_bytes() as u32;
                let Some(blocks) = destinations else {
                    for &(shared, value) in &landed {
                        self.mem_write(fr, loc, lane, ptr_add(tile, shared), layout.elem, value)?;
                    }
                    self.mbarrier_lane(fr, loc, lane, MbarrierOp::CompleteTx, bar, bytes, 0)?;
                    continue;
                };
                let copy = super::tma_multicast::Landing {
                    tile,
                    bar,
                    elements: &landed,
                    elem: layout.elem,
                    bytes,
                };
                for block in blocks {
                    self.land_in_block(fr.func, loc, lane, block, &copy)?;
                }
            } else {
                let mut reads = Vec::new();
                for (global, shared) in layout.stored_elements(&innermost_first) {
                    let Some(g) = global else { continue };
                    let at = ptr_add(tile, shared);
                    let value = self.mem_read(fr, loc, lane, at, layout.elem)?;
                    self.mem_write(fr, loc, lane, ptr_add(tensor, g), layout.elem, value)?;
                    reads.push(at);
                }
                self.store_in_flight(fr.func, loc, lane, reads, layout.elem);
            }
        }
        Ok(())
    }

    /// Keeps a store's read of its tile (the elements at `reads`) in flight until a
    /// wait retires its group; nothing with detection off.
    fn store_in_flight(
        &mut self,
        func: usize,
        loc: SourceLoc,
        lane: usize,
        reads: Vec<u64>,
        elem: ScalarType,
    ) {
        let (Some(det), Some(&first)) = (self.det, reads.iter().min()) else {
            return;
        };
        let Some((region, offset)) = self.watched(first) else {
            return;
        };
        // The span from the first element read to the end of the last (a swizzled
        // box's rows may leave gaps: a write there is reported too).
        let last = reads.iter().max().copied().unwrap_or(first);
        let bytes = offset_of(last) - offset_of(first) + u64::from(elem.size_bytes());
        self.bulk_stores.issued += 1;
        let id = (1 << 62) | (u64::from(self.warp_index) << 32) | self.bulk_stores.issued;
        let end = CopyEnd {
            region,
            offset,
            bytes: bytes as u32,
        };
        det.borrow_mut().copy_started(InFlightCopy {
            id,
            tid: self.warp_index * super::lanes::LANES as u32 + lane as u32,
            dst: CopyEnd { bytes: 0, ..end },
            src: Some(end),
            site: SiteId::new(func, loc),
            kind: InFlightKind::TmaStoreRead,
        });
        self.bulk_stores.pending.push(PendingStore {
            id,
            lane,
            group: None,
            reads,
            elem,
            func,
            loc,
        });
    }

    /// `bulk_wait_group_read::<pending>` by the lanes of `m`: the stores of every
    /// committed group but the `pending` newest stop reading their tiles. Each tile is
    /// read again as its issuing thread's read at the store's site, now: the hardware
    /// may read it at any point up to the wait.
    fn retire_stores(&mut self, m: u32, pending: u8) -> R<()> {
        let Some(det) = self.det else {
            return Ok(());
        };
        for store in self.bulk_stores.retire(m, pending) {
            det.borrow_mut().copy_landed(store.id);
            let bytes = store.elem.size_bytes();
            for &at in &store.reads {
                self.observe(
                    region_of(at),
                    offset_of(at),
                    bytes,
                    AccessKind::Read,
                    MemoryScope::Block,
                    store.lane,
                    store.func,
                    store.loc,
                )?;
            }
        }
        Ok(())
    }

    /// The layout and tensor address of the map operand `map` for `lane`.
    fn map_of(
        &mut self,
        fr: &Frame,
        loc: crate::ir::SourceLoc,
        lane: usize,
        map: Handle<Expr>,
    ) -> R<(TensorMapLayout, u64)> {
        let at = fr.get(self.slot_of(fr, map), lane);
        let mut bytes = [0u8; DESCRIPTOR_BYTES];
        for (k, chunk) in bytes.chunks_exact_mut(8).enumerate() {
            let word = self.mem_read(fr, loc, lane, ptr_add(at, 8 * k as u64), ScalarType::U64)?;
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        TensorMapLayout::from_descriptor(&bytes)
            .ok_or_else(|| Box::new(Fault::Launch("a kernel's tensor map is not one".into())))
    }
}
