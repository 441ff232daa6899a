//! The kernel-side TMA calls in NVVM IR (`proc::tma_intrinsics`): a map parameter's
//! value, and each copy's checks (`proc::tma_intrinsics::check_copy`, in its order)
//! before the inline PTX of [`super::tma`] (no shared-space test where the tile and the
//! barriers are shared memory by construction). A map's value is `{ i64, i64 }`: the
//! parameter's own generic address (what `cp.async.bulk.tensor` reads, kept in
//! parameter space by the `grid_constant` annotation) and its tile word.

use super::state::{operand, FunctionWriter, Val};
use super::types;
use super::Error;
use crate::ir::{Expr, ExprKind, Handle, TmaOp, Type};
use crate::proc::tma::{MULTICAST_TARGET_NEED, TARGET_NEED};
use crate::proc::tma_intrinsics::{
    ALIGN_MESSAGE, BYTES_MESSAGE, INNER_MESSAGE, MASK_MESSAGE, NEGATIVE_MESSAGE, SPACE_MESSAGE,
};

/// A map's value type.
const MAP_VALUE: &str = "{ i64, i64 }";

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// The value of a map parameter `map` (`%cudajit.tensor_map*`) with tile word `tile`.
    pub(super) fn tensor_map_value(&mut self, map: &str, tile: &str) -> String {
        let address = self.def(
            "map.addr",
            format!("ptrtoint {} {map} to i64", super::tma::map_param_type()),
        );
        let first = self.def(
            "map",
            format!("insertvalue {MAP_VALUE} undef, i64 {address}, 0"),
        );
        self.def(
            "map",
            format!("insertvalue {MAP_VALUE} {first}, i64 {tile}, 1"),
        )
    }

    /// `tma_load`, `tma_load_multicast`, `tma_store`, `tma_prefetch`,
    /// `bulk_commit_group`, `bulk_wait_group_read::<N>`.
    pub(super) fn tma(
        &mut self,
        site: Handle<Expr>,
        op: TmaOp,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        if let Some(arch) = self.w.options.arch.filter(|&a| a < TARGET_NEED.min_arch) {
            return Err(self.error(format!(
                "{} needs compute capability {}.{} or later; the target is compute_{arch}",
                TARGET_NEED.feature,
                TARGET_NEED.min_arch / 10,
                TARGET_NEED.min_arch % 10
            )));
        }
        // The multicast is sm_90a's only (the JIT asks for compute_90a through
        // `proc::tma_intrinsics::module_needs`).
        let multicast = op == TmaOp::LoadMulticast;
        let exact = MULTICAST_TARGET_NEED.min_arch;
        if let Some(arch) = self.w.options.arch.filter(|&a| multicast && a != exact) {
            return Err(self.error(format!(
                "{} needs exactly compute capability {}.{} (sm_{exact}a); the target is compute_{arch}",
                MULTICAST_TARGET_NEED.feature,
                exact / 10,
                exact % 10
            )));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        match op {
            TmaOp::CommitGroup => self.inst(super::tma::COMMIT_GROUP),
            TmaOp::WaitGroupRead { pending } => {
                self.inst(super::tma::wait_group(u32::from(pending), true))
            }
            TmaOp::Prefetch => {
                let map = self.def(
                    "map.addr",
                    format!("extractvalue {MAP_VALUE} {}, 0", vals[0]),
                );
                self.inst(super::tma::prefetch(&map));
            }
            TmaOp::Load | TmaOp::LoadMulticast | TmaOp::Store => {
                let load = op != TmaOp::Store;
                let (tile_at, coords_at) = if load { (1, 2) } else { (2, 1) };
                let Type::TensorMap { elem, rank, .. } = *self.ty_of(args[0])? else {
                    return Err(self.error("a TMA copy without a map"));
                };
                let map = self.def(
                    "map.addr",
                    format!("extractvalue {MAP_VALUE} {}, 0", vals[0]),
                );
                let word = self.def(
                    "map.tile",
                    format!("extractvalue {MAP_VALUE} {}, 1", vals[0]),
                );
                let tile = self.checked_tile(
                    site,
                    args[tile_at],
                    &vals[tile_at],
                    &word,
                    elem.size_bytes(),
                )?;
                let coords =
                    self.checked_coords(site, &vals[coords_at], rank, elem.size_bytes(), load)?;
                // PTX takes the innermost coordinate first.
                let innermost_first: Vec<&str> = coords.iter().rev().map(String::as_str).collect();
                if load {
                    let bars_ty = self.ty_of(args[3])?.clone();
                    let bar = self.checked_element_ptr(site, &bars_ty, &vals[3], &vals[4])?;
                    let bar = self.def("tma.bar", format!("ptrtoint i64* {bar} to i64"));
                    if !self.is_visibly_shared(args[3]) {
                        let shared = self.is_in_space("shared", &bar);
                        let sty = types::value(&bars_ty).map_err(|e| self.error(e.0))?;
                        let len =
                            self.def("tma.bars.len", format!("extractvalue {sty} {}, 1", vals[3]));
                        let message = crate::proc::mbarrier::SPACE_MESSAGE;
                        self.panic_unless(&shared, site, message, (&vals[4], &len))?;
                    }
                    let bar = self.shared_address32(&bar);
                    if multicast {
                        let mask = self.checked_mask(site, &vals[5])?;
                        self.inst(super::tma::load_box_multicast(
                            &tile,
                            &map,
                            &innermost_first,
                            &bar,
                            &mask,
                        ));
                    } else {
                        self.inst(super::tma::load_box(&tile, &map, &innermost_first, &bar));
                    }
                } else {
                    self.inst(super::tma::store_box(&map, &innermost_first, &tile));
                }
            }
        }
        Ok(Val::Unit)
    }

    /// A multicast's `u16` mask `mask` after its check (`proc::tma_intrinsics::check_mask`):
    /// not 0, and no bit at or beyond `%cluster_nctarank` (the GPU would copy to no
    /// block there, and the expected bytes would never complete).
    fn checked_mask(&mut self, site: Handle<Expr>, mask: &str) -> Result<String, Error> {
        let size = self.def(
            "tma.cluster.size",
            "call i32 asm \"mov.u32 $0, %cluster_nctarank;\", \"=r\"()".to_string(),
        );
        let wide = self.def("tma.mask32", format!("zext i16 {mask} to i32"));
        let beyond = self.def("tma.mask.beyond", format!("lshr i32 {wide}, {size}"));
        let inside = self.def("tma.mask.inside", format!("icmp eq i32 {beyond}, 0"));
        let named = self.def("tma.mask.some", format!("icmp ne i32 {wide}, 0"));
        let ok = self.def("tma.mask.ok", format!("and i1 {inside}, {named}"));
        let mask64 = self.def("tma.mask64", format!("zext i16 {mask} to i64"));
        let size64 = self.def("tma.cluster.size64", format!("zext i32 {size} to i64"));
        self.panic_unless(&ok, site, MASK_MESSAGE, (&mask64, &size64))?;
        Ok(mask.to_string())
    }

    /// The 32-bit shared address of the generic address `generic` (`i64`).
    fn shared_address32(&mut self, generic: &str) -> String {
        let shared = self.def(
            "tma.shared",
            format!("call i64 asm \"cvta.to.shared.u64 $0, $1;\", \"=l,l\"(i64 {generic})"),
        );
        self.def("tma.shared32", format!("trunc i64 {shared} to i32"))
    }

    /// The copy's tile (the slice value `tile` of expression `h`) after its checks:
    /// in shared memory, aligned as the tile word `word` says, holding its bytes.
    /// Returns its 32-bit shared address.
    fn checked_tile(
        &mut self,
        site: Handle<Expr>,
        h: Handle<Expr>,
        tile: &str,
        word: &str,
        elem_bytes: u32,
    ) -> Result<String, Error> {
        let slice_ty = self.ty_of(h)?;
        let Type::Slice { elem, .. } = slice_ty else {
            return Err(self.error(format!("a TMA tile of type `{slice_ty}`")));
        };
        let ptr_ty = format!("{}*", types::scalar_mem(*elem));
        let sty = types::value(slice_ty).map_err(|e| self.error(e.0))?;
        let ptr = self.def("tile.ptr", format!("extractvalue {sty} {tile}, 0"));
        let len = self.def("tile.len", format!("extractvalue {sty} {tile}, 1"));
        let generic = self.def("tile.addr", format!("ptrtoint {ptr_ty} {ptr} to i64"));
        if !self.is_visibly_shared_view(h) {
            let shared = self.is_in_space("shared", &generic);
            self.panic_unless(&shared, site, SPACE_MESSAGE, (&len, "0"))?;
        }
        let shared = self.shared_address32(&generic);
        let offset = self.def("tile.offset", format!("zext i32 {shared} to i64"));
        let align = self.def("tile.align", format!("lshr i64 {word}, 32"));
        // The alignment is a power of two (`Swizzle::tile_align`): a mask, not a `urem`
        // (a run-time divisor cost ~25 instructions per copy in a producer's loop).
        let mask = self.def("tile.align.mask", format!("add i64 {align}, -1"));
        let rem = self.def("tile.misaligned", format!("and i64 {offset}, {mask}"));
        let aligned = self.def("tile.aligned", format!("icmp eq i64 {rem}, 0"));
        self.panic_unless(&aligned, site, ALIGN_MESSAGE, (&offset, &align))?;
        let bytes = self.def("tile.bytes", format!("mul i64 {len}, {elem_bytes}"));
        let needed = self.def("tile.needed", format!("and i64 {word}, 4294967295"));
        let holds = self.def("tile.holds", format!("icmp uge i64 {bytes}, {needed}"));
        self.panic_unless(&holds, site, BYTES_MESSAGE, (&bytes, &needed))?;
        Ok(shared)
    }

    /// Whether the tile `h` is shared memory by construction: visibly shared
    /// ([`FunctionWriter::is_visibly_shared`]) or a sub-slice of such (`&mut tk[at..at +
    /// n]`, a stage's box of a `dynamic_shared()` take). Its copy then needs no
    /// `isspacep.shared`: in an FA3 producer each test was a `QSPC` whose branch the next
    /// copy waited on, two per box, between the stage's release and its loads.
    fn is_visibly_shared_view(&self, h: Handle<Expr>) -> bool {
        match self.ir_expr(h).map(|e| &e.kind) {
            Ok(ExprKind::SubSlice { slice, .. }) => self.is_visibly_shared_view(*slice),
            _ => self.is_visibly_shared(h),
        }
    }

    /// The coordinates of the `[i32; rank]` value `coords` (row-major) after their
    /// checks: the innermost starts the box a multiple of 16 bytes into the row; for a
    /// store, none is negative.
    fn checked_coords(
        &mut self,
        site: Handle<Expr>,
        coords: &str,
        rank: u8,
        elem_bytes: u32,
        load: bool,
    ) -> Result<Vec<String>, Error> {
        let array = format!("[{rank} x i32]");
        let each: Vec<String> = (0..rank)
            .map(|k| self.def("tma.coord", format!("extractvalue {array} {coords}, {k}")))
            .collect();
        let inner = self.def(
            "tma.inner",
            format!("sext i32 {} to i64", each[rank as usize - 1]),
        );
        let bytes = self.def("tma.inner.bytes", format!("mul i64 {inner}, {elem_bytes}"));
        let low = self.def("tma.inner.low", format!("and i64 {bytes}, 15"));
        let whole = self.def("tma.inner.ok", format!("icmp eq i64 {low}, 0"));
        let eb = elem_bytes.to_string();
        self.panic_unless(&whole, site, INNER_MESSAGE, (&inner, &eb))?;
        if !load {
            for (axis, c) in each.iter().enumerate() {
                let ok = self.def("tma.nonneg", format!("icmp sge i32 {c}, 0"));
                let wide = self.def("tma.coord64", format!("sext i32 {c} to i64"));
                let axis = axis.to_string();
                self.panic_unless(&ok, site, NEGATIVE_MESSAGE, (&axis, &wide))?;
            }
        }
        Ok(each)
    }
}
