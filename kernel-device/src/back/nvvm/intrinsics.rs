//! Built-ins: PTX special registers, the barrier, math (libdevice `__nv_*`, `f` suffix
//! for f32) and the saturating float→int conversions.

use super::state::{operand, FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{Axis, Expr, Handle, Intrinsic, MathFn, ScalarType, Type};
use crate::proc::intrinsics as table;
use crate::proc::methods::{libdevice, Libdevice};

/// The NVVM symbol of an intrinsic's row in the table.
fn symbol(i: Intrinsic) -> &'static str {
    table::def_of(i).map_or("", |d| d.nvvm)
}

pub(super) fn axis_name(axis: Axis) -> &'static str {
    match axis {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Calls a special register `llvm.nvvm.read.ptx.sreg.<reg>` (an i32).
    pub fn sreg(&mut self, reg: &str) -> String {
        // The block's size is a constant when the module is compiled for one block.
        if reg.starts_with("ntid.") {
            if let Some((size, end)) = crate::opt::ranges::sreg_bounds(reg, self.w.block_dim) {
                if end == size + 1 {
                    return self.def(&reg.replace('.', "_"), format!("add i32 {size}, 0"));
                }
            }
        }
        let name = format!("llvm.nvvm.read.ptx.sreg.{reg}");
        self.w.declare(&name, format!("declare i32 @{name}()"));
        let range = super::writer::sreg_range(reg)
            .map(|node| format!(", !range {node}"))
            .unwrap_or_default();
        self.def(&reg.replace('.', "_"), format!("call i32 @{name}(){range}"))
    }

    /// Calls the void function `name` (declaring it) with typed operands.
    pub fn call_void(&mut self, name: &str, args: &[(&str, &str)]) {
        let params: Vec<&str> = args.iter().map(|(t, _)| *t).collect();
        self.w
            .declare(name, format!("declare void @{name}({})", params.join(", ")));
        let operands: Vec<String> = args.iter().map(|(t, v)| format!("{t} {v}")).collect();
        self.inst(&format!("call void @{name}({})", operands.join(", ")));
    }

    /// Whether `pred` holds on every thread of the block (`__syncthreads_and`, a
    /// barrier every thread of the block must reach).
    pub fn all_threads_of_block(&mut self, pred: &str) -> String {
        let pred = self.def("barrier.pred", format!("zext i1 {pred} to i32"));
        let r = self.call_extern(
            "barrier",
            "i32",
            symbol(Intrinsic::SyncThreadsAnd),
            &[("i32", &pred)],
        );
        self.def("barrier.all", format!("icmp ne i32 {r}, 0"))
    }

    /// `pred`, already the same on every lane of the warp, through `vote.sync.all`
    /// over the whole warp: the same value, which ptxas then knows is warp-uniform (it
    /// does not know that of a `bar.red` predicate). Every non-exited lane must reach it.
    pub fn warp_uniform(&mut self, pred: &str) -> String {
        self.call_extern(
            "uniform",
            "i1",
            symbol(Intrinsic::Vote(crate::ir::VoteMode::All)),
            &[("i32", "-1"), ("i1", pred)],
        )
    }

    /// Calls `name` (declaring it) with typed operands.
    pub fn call_extern(
        &mut self,
        base: &str,
        ret: &str,
        name: &str,
        args: &[(&str, &str)],
    ) -> String {
        let params: Vec<&str> = args.iter().map(|(t, _)| *t).collect();
        self.w.declare(
            name,
            format!("declare {ret} @{name}({})", params.join(", ")),
        );
        let operands: Vec<String> = args.iter().map(|(t, v)| format!("{t} {v}")).collect();
        self.def(base, format!("call {ret} @{name}({})", operands.join(", ")))
    }

    pub fn intrinsic(
        &mut self,
        site: Handle<Expr>,
        ty: &Type,
        intrinsic: Intrinsic,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        // The register of a per-axis intrinsic, named in the table: `tid.x`.
        let sreg = |i: Intrinsic, axis: Axis| format!("{}.{}", symbol(i), axis_name(axis));
        use Intrinsic::{BlockDim, BlockIdx, GridDim, ThreadIdx};
        Ok(Val::V(match intrinsic {
            Intrinsic::ThreadIdx(a)
            | Intrinsic::BlockIdx(a)
            | Intrinsic::BlockDim(a)
            | Intrinsic::GridDim(a) => self.sreg(&sreg(intrinsic, a)),
            Intrinsic::Grid(a) => {
                // In 64 bits, not CUDA C's 32-bit `blockIdx.x * blockDim.x + threadIdx.x`:
                // `grid(1)` is a usize and must be the true index even for grids of more
                // than 2^32 threads on one axis. The widening multiply is one
                // `mul.wide.u32`, so this costs nothing measurable.
                let tid = self.sreg(&sreg(ThreadIdx(a), a));
                let ctaid = self.sreg(&sreg(BlockIdx(a), a));
                let ntid = self.sreg(&sreg(BlockDim(a), a));
                let tid = self.def("grid.tid", format!("zext i32 {tid} to i64"));
                let ctaid = self.def("grid.ctaid", format!("zext i32 {ctaid} to i64"));
                let ntid = self.def("grid.ntid", format!("zext i32 {ntid} to i64"));
                let base = self.def("grid.base", format!("mul nuw i64 {ctaid}, {ntid}"));
                self.def("grid", format!("add nuw i64 {base}, {tid}"))
            }
            Intrinsic::GridSize(a) => {
                let ntid = self.sreg(&sreg(BlockDim(a), a));
                let nctaid = self.sreg(&sreg(GridDim(a), a));
                let ntid = self.def("gridsize.ntid", format!("zext i32 {ntid} to i64"));
                let nctaid = self.def("gridsize.nctaid", format!("zext i32 {nctaid} to i64"));
                self.def("gridsize", format!("mul nuw i64 {ntid}, {nctaid}"))
            }
            // The cursor is the byte offset of the next `take`.
            Intrinsic::DynamicShared => "0".to_string(),
            Intrinsic::SyncThreads | Intrinsic::Fence(_) => {
                self.call_void(symbol(intrinsic), &[]);
                return Ok(Val::Unit);
            }
            Intrinsic::GridSync => {
                self.grid_sync(site)?;
                return Ok(Val::Unit);
            }
            Intrinsic::SyncWarp => {
                let [mask] = args else {
                    return Err(self.error("SyncWarp takes a mask"));
                };
                let mask = operand!(self, *mask);
                self.call_void(symbol(intrinsic), &[("i32", &mask)]);
                return Ok(Val::Unit);
            }
            Intrinsic::SyncThreadsCount | Intrinsic::SyncThreadsAnd | Intrinsic::SyncThreadsOr => {
                let [pred] = args else {
                    return Err(self.error(format!("{intrinsic:?} takes a predicate")));
                };
                let pred = operand!(self, *pred);
                let pred = self.def("barrier.pred", format!("zext i1 {pred} to i32"));
                let r = self.call_extern("barrier", "i32", symbol(intrinsic), &[("i32", &pred)]);
                if intrinsic == Intrinsic::SyncThreadsCount {
                    r
                } else {
                    self.def("barrier.all", format!("icmp ne i32 {r}, 0"))
                }
            }
            Intrinsic::Atomic { op, scope } => return self.atomic(site, op, scope, args),
            // async copies
            Intrinsic::CpAsync { .. }
            | Intrinsic::CpAsyncCommit
            | Intrinsic::CpAsyncWait { .. }
            | Intrinsic::CpAsyncWaitAll
            | Intrinsic::LoadVec { .. }
            | Intrinsic::StoreVec { .. } => {
                return self.async_copy_intrinsic(site, ty, intrinsic, args)
            }
            Intrinsic::LaneId
            | Intrinsic::WarpSize
            | Intrinsic::LanemaskLt
            | Intrinsic::ActiveMask
            | Intrinsic::Shuffle(_)
            | Intrinsic::Vote(_)
            | Intrinsic::MatchAny
            | Intrinsic::MatchAll
            | Intrinsic::WarpReduce(_) => return self.warp_op(intrinsic, args),
            // tensor cores
            Intrinsic::Mma(combo) => return self.mma(combo, args),
            Intrinsic::Ldmatrix { count, trans } => return self.ldmatrix(site, count, trans, args),
            Intrinsic::Stmatrix { count, trans } => return self.stmatrix(site, count, trans, args),
            // Hopper
            Intrinsic::Mbarrier(op) => return self.mbarrier(site, op, args),
            // Hopper: wgmma
            Intrinsic::Wgmma(op) => return self.wgmma(site, op, args),
            // Hopper: TMA
            Intrinsic::Tma(op) => return self.tma(site, op, args),
            // Hopper: clusters
            Intrinsic::Cluster(op) => return self.cluster(site, ty, op, args),
            Intrinsic::Math(f) => {
                let s = ty
                    .scalar()
                    .ok_or_else(|| self.error(format!("{f:?} returning `{ty}`")))?;
                if args.len() != f.arity() {
                    return Err(self.error(format!(
                        "{f:?} takes {} operands, {} given",
                        f.arity(),
                        args.len()
                    )));
                }
                let mut ops = Vec::new();
                for arg in args {
                    ops.push((self.scalar_of(*arg)?, operand!(self, *arg)));
                }
                if let Some(v) = self.numeric(site, f, ty, &ops)? {
                    return Ok(Val::V(v));
                }
                return self.math(f, s, &ops).map(Val::V);
            }
        }))
    }

    pub(super) fn math(
        &mut self,
        f: MathFn,
        s: ScalarType,
        ops: &[(ScalarType, String)],
    ) -> Result<String, Error> {
        let ty = types::scalar(s);
        if s.is_integer() {
            return self.integer_math(f, s, ops);
        }
        if !s.is_float() {
            return Err(self.error(format!("{f:?} on `{s}`")));
        }
        for (i, (os, _)) in ops.iter().enumerate() {
            let expected = if f == MathFn::Powi && i == 1 {
                ScalarType::I32
            } else {
                s
            };
            if *os != expected {
                return Err(self.error(format!(
                    "{f:?}: operand {i} is `{os}`, expected `{expected}`"
                )));
            }
        }
        if s == ScalarType::BF16 {
            return self.bf16_math(f, ops);
        }
        if f == MathFn::Signum {
            // std: NaN stays NaN, otherwise ±1.0 with the sign of the input (also for ±0).
            let one = types::float_const(s, 1.0);
            let x = &ops[0].1;
            let name = if s == ScalarType::F32 {
                "__nv_copysignf"
            } else {
                "__nv_copysign"
            };
            let signed_one = self.call_extern("signum", ty, name, &[(ty, &one), (ty, x)]);
            let nan = self.def("isnan", format!("fcmp uno {ty} {x}, {x}"));
            return Ok(self.def(
                "signum",
                format!("select i1 {nan}, {ty} {x}, {ty} {signed_one}"),
            ));
        }
        let Libdevice {
            base,
            fast: has_fast,
        } = libdevice(f).ok_or_else(|| self.error(format!("{f:?} has no lowering")))?;
        let fast =
            (self.func.options.fast_math || self.w.options.fast_math) && s == ScalarType::F32;
        let name = match (s, fast && has_fast) {
            (ScalarType::F32, true) => format!("__nv_fast_{base}f"),
            (ScalarType::F32, false) => format!("__nv_{base}f"),
            _ => format!("__nv_{base}"),
        };
        let args: Vec<(&str, &str)> = ops
            .iter()
            .map(|(os, v)| (types::scalar(*os), v.as_str()))
            .collect();
        Ok(self.call_extern(base, ty, &name, &args))
    }

    /// `abs`/`min`/`max` on integers: compare and select. `abs` wraps (`i32::MIN.abs()`
    /// is `i32::MIN` in release builds).
    fn integer_math(
        &mut self,
        f: MathFn,
        s: ScalarType,
        ops: &[(ScalarType, String)],
    ) -> Result<String, Error> {
        let ty = types::scalar(s);
        let signed = s.is_signed_integer();
        if ops.iter().any(|(os, _)| *os != s) {
            return Err(self.error(format!("{f:?}: operands of mixed types")));
        }
        match f {
            MathFn::Abs if signed => {
                let x = &ops[0].1;
                let neg = self.def("abs.neg", format!("sub {ty} 0, {x}"));
                let lt = self.def("abs.isneg", format!("icmp slt {ty} {x}, 0"));
                Ok(self.def("abs", format!("select i1 {lt}, {ty} {neg}, {ty} {x}")))
            }
            MathFn::Min | MathFn::Max => {
                let (a, b) = (&ops[0].1, &ops[1].1);
                let pred = match (f, signed) {
                    (MathFn::Min, true) => "slt",
                    (MathFn::Min, false) => "ult",
                    (_, true) => "sgt",
                    (_, false) => "ugt",
                };
                Ok(self.select_cmp(pred, ty, a, b))
            }
            _ => Err(self.error(format!("{f:?} on integer type `{s}`"))),
        }
    }

    /// `a pred b ? a : b` (min/max on integers).
    pub fn select_cmp(&mut self, pred: &str, ty: &str, a: &str, b: &str) -> String {
        let c = self.def("cmp", format!("icmp {pred} {ty} {a}, {b}"));
        self.def("sel", format!("select i1 {c}, {ty} {a}, {ty} {b}"))
    }

    /// Float → integer `as`: saturating, NaN → 0. libdevice's `__nv_*2*_rz` lower to PTX
    /// `cvt.rzi`, which clamps to the destination range; NaN, however, comes out as 0
    /// only for f32 → 32-bit (measured on an H100: f64 → any and f32 → 64-bit give
    /// MIN/MAX-like patterns), so those get an explicit NaN test. 8- and 16-bit targets
    /// convert to 32 bits (already saturated) and clamp the integer, which gives the
    /// same result as saturating directly.
    pub fn float_to_int(
        &mut self,
        from: ScalarType,
        to: ScalarType,
        v: &str,
    ) -> Result<String, Error> {
        let ft = types::scalar(from);
        let src = if from == ScalarType::F32 {
            "float"
        } else {
            "double"
        };
        let signed = to.is_signed_integer();
        let (dst, wide_ty) = match (to.bits(), signed) {
            (64, true) => ("ll", "i64"),
            (64, false) => ("ull", "i64"),
            (_, true) => ("int", "i32"),
            (_, false) => ("uint", "i32"),
        };
        let name = format!("__nv_{src}2{dst}_rz");
        let mut wide = self.call_extern("toint", wide_ty, &name, &[(ft, v)]);
        if from == ScalarType::F64 || to.bits() == 64 {
            let nan = self.def("isnan", format!("fcmp uno {ft} {v}, {v}"));
            wide = self.def(
                "toint",
                format!("select i1 {nan}, {wide_ty} 0, {wide_ty} {wide}"),
            );
        }
        if to.bits() >= 32 {
            return Ok(wide);
        }
        let tt = types::scalar(to);
        let bits = to.bits();
        let clamped = if signed {
            let max = (1i64 << (bits - 1)) - 1;
            let min = -(1i64 << (bits - 1));
            let lo = self.select_cmp("sgt", "i32", &wide, &min.to_string());
            self.select_cmp("slt", "i32", &lo, &max.to_string())
        } else {
            let max = (1i64 << bits) - 1;
            self.select_cmp("ult", "i32", &wide, &max.to_string())
        };
        Ok(self.def("toint", format!("trunc i32 {clamped} to {tt}")))
    }
}
