//! Built-ins: PTX special registers, the barrier, math (libdevice `__nv_*`, `f` suffix
//! for f32) and the saturating float→int conversions.

use super::function::{operand, FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{Axis, Expr, Handle, Intrinsic, MathFn, ScalarType, Type};

fn axis_name(axis: Axis) -> &'static str {
    match axis {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}

/// libdevice's base name for a math function (`sin` → `__nv_sin`, `__nv_sinf`).
fn libdevice_base(f: MathFn) -> Option<&'static str> {
    Some(match f {
        MathFn::Sqrt => "sqrt",
        MathFn::Rsqrt => "rsqrt",
        MathFn::Cbrt => "cbrt",
        MathFn::Sin => "sin",
        MathFn::Cos => "cos",
        MathFn::Tan => "tan",
        MathFn::Asin => "asin",
        MathFn::Acos => "acos",
        MathFn::Atan => "atan",
        MathFn::Atan2 => "atan2",
        MathFn::Sinh => "sinh",
        MathFn::Cosh => "cosh",
        MathFn::Tanh => "tanh",
        MathFn::Exp => "exp",
        MathFn::Exp2 => "exp2",
        MathFn::ExpM1 => "expm1",
        MathFn::Ln => "log",
        MathFn::Log2 => "log2",
        MathFn::Log10 => "log10",
        MathFn::Ln1p => "log1p",
        MathFn::Powf => "pow",
        MathFn::Powi => "powi",
        MathFn::Hypot => "hypot",
        MathFn::Floor => "floor",
        MathFn::Ceil => "ceil",
        // Rust's `round` is half away from zero, which is C's `round`, not `rint`.
        MathFn::Round => "round",
        MathFn::Trunc => "trunc",
        MathFn::Abs => "fabs",
        // fmin/fmax return the other operand when one is NaN, as std's min/max do.
        MathFn::Min => "fmin",
        MathFn::Max => "fmax",
        MathFn::MulAdd => "fma",
        MathFn::Copysign => "copysign",
        MathFn::Signum => return None,
    })
}

/// f32 functions with an approximate `__nv_fast_*f` variant (used under fast math).
fn has_fast_variant(f: MathFn) -> bool {
    matches!(
        f,
        MathFn::Sin
            | MathFn::Cos
            | MathFn::Tan
            | MathFn::Exp
            | MathFn::Ln
            | MathFn::Log2
            | MathFn::Log10
            | MathFn::Powf
    )
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Calls a special register `llvm.nvvm.read.ptx.sreg.<reg>` (an i32).
    pub fn sreg(&mut self, reg: &str) -> String {
        let name = format!("llvm.nvvm.read.ptx.sreg.{reg}");
        self.w.declare(&name, format!("declare i32 @{name}()"));
        self.def(&reg.replace('.', "_"), format!("call i32 @{name}()"))
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
        let _ = site;
        let sreg = |name: &str, axis: Axis| format!("{name}.{}", axis_name(axis));
        Ok(Val::V(match intrinsic {
            Intrinsic::ThreadIdx(a) => self.sreg(&sreg("tid", a)),
            Intrinsic::BlockIdx(a) => self.sreg(&sreg("ctaid", a)),
            Intrinsic::BlockDim(a) => self.sreg(&sreg("ntid", a)),
            Intrinsic::GridDim(a) => self.sreg(&sreg("nctaid", a)),
            Intrinsic::Grid(a) => {
                // In 64 bits, not CUDA C's 32-bit `blockIdx.x * blockDim.x + threadIdx.x`:
                // `grid(1)` is a usize and must be the true index even for grids of more
                // than 2^32 threads on one axis. The widening multiply is one
                // `mul.wide.u32`, so this costs nothing measurable.
                let tid = self.sreg(&sreg("tid", a));
                let ctaid = self.sreg(&sreg("ctaid", a));
                let ntid = self.sreg(&sreg("ntid", a));
                let tid = self.def("grid.tid", format!("zext i32 {tid} to i64"));
                let ctaid = self.def("grid.ctaid", format!("zext i32 {ctaid} to i64"));
                let ntid = self.def("grid.ntid", format!("zext i32 {ntid} to i64"));
                let base = self.def("grid.base", format!("mul nuw i64 {ctaid}, {ntid}"));
                self.def("grid", format!("add nuw i64 {base}, {tid}"))
            }
            Intrinsic::GridSize(a) => {
                let ntid = self.sreg(&sreg("ntid", a));
                let nctaid = self.sreg(&sreg("nctaid", a));
                let ntid = self.def("gridsize.ntid", format!("zext i32 {ntid} to i64"));
                let nctaid = self.def("gridsize.nctaid", format!("zext i32 {nctaid} to i64"));
                self.def("gridsize", format!("mul nuw i64 {ntid}, {nctaid}"))
            }
            Intrinsic::SyncThreads => {
                self.w.declare(
                    "llvm.nvvm.barrier0",
                    "declare void @llvm.nvvm.barrier0()".into(),
                );
                self.inst("call void @llvm.nvvm.barrier0()");
                return Ok(Val::Unit);
            }
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
                return self.math(f, s, &ops).map(Val::V);
            }
        }))
    }

    fn math(
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
        let base = libdevice_base(f).ok_or_else(|| self.error(format!("{f:?} has no lowering")))?;
        let fast =
            (self.func.options.fast_math || self.w.options.fast_math) && s == ScalarType::F32;
        let name = match (s, fast && has_fast_variant(f)) {
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
