//! `f16` and `bf16`: libnvvm's LLVM dialect has `half` (the GPU's native f16 add, sub,
//! mul and compare on sm_53+) but no `bfloat`, so a `bf16` value is its `i16` bit
//! pattern. What the hardware has no instruction for (f16 division and remainder,
//! every bf16 operation) is computed in `f32` and rounded back to nearest-even, which
//! gives the same bits as a native half operation (f32 has more than twice the
//! precision plus two bits, so the double rounding is innocuous for `+ - * /`) and the
//! same bits as the `half` crate on the host, which computes each operation that way.
//! The frontend widens the math methods to `f32` itself (`front::half`).

use super::function::FunctionWriter;
use super::{types, Error};
use crate::ir::{BinaryOp, Expr, Handle, ScalarType};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// A half value as the `f32` holding it exactly.
    pub fn half_to_f32(&mut self, s: ScalarType, v: &str) -> String {
        match s {
            ScalarType::F16 => self.def("h2f", format!("fpext half {v} to float")),
            _ => {
                let wide = self.def("bf2f", format!("zext i16 {v} to i32"));
                let bits = self.def("bf2f", format!("shl i32 {wide}, 16"));
                self.def("bf2f", format!("bitcast i32 {bits} to float"))
            }
        }
    }

    /// An `f32` rounded to nearest-even into half `s`. For `bf16`, the `half` crate's
    /// own algorithm (a NaN keeps its high bits and is made quiet).
    pub fn f32_to_half(&mut self, s: ScalarType, v: &str) -> String {
        if s == ScalarType::F16 {
            return self.def("f2h", format!("fptrunc float {v} to half"));
        }
        let x = self.def("f2bf", format!("bitcast float {v} to i32"));
        let abs = self.def("f2bf", format!("and i32 {x}, 2147483647"));
        let nan = self.def("f2bf.nan", format!("icmp ugt i32 {abs}, 2139095040"));
        let hi = self.def("f2bf", format!("lshr i32 {x}, 16"));
        let quiet = self.def("f2bf", format!("or i32 {hi}, 64"));
        let round = self.def("f2bf", format!("and i32 {x}, 32768"));
        let round = self.def("f2bf", format!("icmp ne i32 {round}, 0"));
        // The last kept bit or any bit below the rounding bit: not a tie to even.
        let sticky = self.def("f2bf", format!("and i32 {x}, 98303"));
        let sticky = self.def("f2bf", format!("icmp ne i32 {sticky}, 0"));
        let up = self.def("f2bf", format!("and i1 {round}, {sticky}"));
        let up = self.def("f2bf", format!("zext i1 {up} to i32"));
        let rounded = self.def("f2bf", format!("add i32 {hi}, {up}"));
        let bits = self.def(
            "f2bf",
            format!("select i1 {nan}, i32 {quiet}, i32 {rounded}"),
        );
        self.def("f2bf", format!("trunc i32 {bits} to i16"))
    }

    /// An `f64` rounded once to `bf16`: rounded to `f32` towards odd first (so the
    /// second rounding cannot meet a false tie), then to nearest-even.
    fn f64_to_bf16(&mut self, v: &str) -> String {
        let r = self.def("d2bf", format!("fptrunc double {v} to float"));
        let back = self.def("d2bf", format!("fpext float {r} to double"));
        let inexact = self.def("d2bf", format!("fcmp one double {back}, {v}"));
        let rb = self.def("d2bf", format!("bitcast float {r} to i32"));
        let low = self.def("d2bf", format!("and i32 {rb}, 1"));
        let even = self.def("d2bf", format!("icmp eq i32 {low}, 0"));
        let adjust = self.def("d2bf", format!("and i1 {inexact}, {even}"));
        let above = self.def("d2bf", format!("fcmp ogt double {back}, {v}"));
        let negative = self.def("d2bf", format!("fcmp olt double {v}, 0.0"));
        let larger = self.def("d2bf", format!("xor i1 {above}, {negative}"));
        let step = self.def("d2bf", format!("select i1 {larger}, i32 -1, i32 1"));
        let step = self.def("d2bf", format!("select i1 {adjust}, i32 {step}, i32 0"));
        let odd = self.def("d2bf", format!("add i32 {rb}, {step}"));
        let odd = self.def("d2bf", format!("bitcast i32 {odd} to float"));
        self.f32_to_half(ScalarType::BF16, &odd)
    }

    /// `-x`: the sign bit flipped, as the `half` crate negates.
    pub fn half_neg(&mut self, s: ScalarType, v: &str) -> String {
        if s == ScalarType::BF16 {
            return self.def("neg", format!("xor i16 {v}, -32768"));
        }
        let bits = self.def("neg", format!("bitcast half {v} to i16"));
        let flipped = self.def("neg", format!("xor i16 {bits}, -32768"));
        self.def("neg", format!("bitcast i16 {flipped} to half"))
    }

    /// `l op r` on halves: native for f16 `+ - *` and comparisons, through `f32`
    /// otherwise.
    pub fn half_binary(
        &mut self,
        site: Handle<Expr>,
        op: BinaryOp,
        s: ScalarType,
        l: &str,
        r: &str,
    ) -> Result<String, Error> {
        let native = s == ScalarType::F16
            && !matches!(op, BinaryOp::Div | BinaryOp::Rem)
            && !matches!(
                op,
                BinaryOp::BitAnd
                    | BinaryOp::BitOr
                    | BinaryOp::BitXor
                    | BinaryOp::Shl
                    | BinaryOp::Shr
            );
        if native {
            let inst = match op {
                BinaryOp::Add => "fadd",
                BinaryOp::Sub => "fsub",
                BinaryOp::Mul => "fmul",
                _ => {
                    let pred = super::expr::comparison(op, s);
                    return Ok(self.def("cmp", format!("fcmp {pred} half {l}, {r}")));
                }
            };
            return Ok(self.def("h", format!("{inst} half {l}, {r}")));
        }
        let (lw, rw) = (self.half_to_f32(s, l), self.half_to_f32(s, r));
        let wide = self.binary(site, op, ScalarType::F32, &lw, ScalarType::F32, &rw)?;
        if op.is_comparison() {
            return Ok(wide);
        }
        Ok(self.f32_to_half(s, &wide))
    }

    /// `v as to` where `from` or `to` is a half type.
    pub fn half_cast(
        &mut self,
        from: ScalarType,
        to: ScalarType,
        v: &str,
    ) -> Result<String, Error> {
        use ScalarType::*;
        Ok(match (from, to) {
            (F16, F32) | (F16, F64) => {
                self.def("cast", format!("fpext half {v} to {}", types::scalar(to)))
            }
            (F32, F16) | (F64, F16) => self.def(
                "cast",
                format!("fptrunc {} {v} to half", types::scalar(from)),
            ),
            (f, F16) if f.is_integer() => {
                let inst = if f.is_signed_integer() {
                    "sitofp"
                } else {
                    "uitofp"
                };
                self.def("cast", format!("{inst} {} {v} to half", types::scalar(f)))
            }
            (F32, BF16) => self.f32_to_half(BF16, v),
            (F64, BF16) => self.f64_to_bf16(v),
            (f, BF16) if f.is_integer() => {
                let d = self.cast(f, F64, v)?;
                self.f64_to_bf16(&d)
            }
            (F16, BF16) | (BF16, F16) => {
                let w = self.half_to_f32(from, v);
                self.f32_to_half(to, &w)
            }
            (f, t) if f.is_half() => {
                let w = self.half_to_f32(f, v);
                self.cast(F32, t, &w)?
            }
            (f, t) if f.is_integer() || f == Bool => {
                let w = self.cast(f, F64, v)?;
                self.half_cast(F64, t, &w)?
            }
            _ => return Err(self.error(format!("cast from `{from}` to `{to}`"))),
        })
    }
}
