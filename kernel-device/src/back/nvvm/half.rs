//! `f16` and `bf16`: libnvvm's LLVM dialect has `half` (the GPU's native f16 add, sub,
//! mul and compare on sm_53+) but no `bfloat`, so a `bf16` value is its `i16` bit
//! pattern. Where the target has a `bf16` instruction (`Options::arch`: sm_80's
//! `fma.rn`, `min`, `max`, `neg`, `abs`; sm_90's `add.rn`, `sub.rn`, `mul.rn`, `setp`)
//! the writer emits it as inline PTX on the `i16`, as CUDA's `cuda_bf16.h` does. What
//! the hardware has no instruction for (f16 division and remainder, `bf16` arithmetic
//! before sm_90, `/`, `%` and the math functions) is computed in `f32` and rounded back
//! to nearest-even, which gives the same bits as a native half operation (f32 has more
//! than twice the precision plus two bits, so the double rounding is innocuous for
//! `+ - * /`) and the same bits as the `half` crate on the host, which computes each
//! operation that way. `mul_add` is the exception: through `f32` it would round twice,
//! so without `fma.rn.bf16` it is computed in `f64` and rounded to odd first.
//!
//! Native and `f32` results are bit-identical except in a NaN's payload: the native
//! instructions give the canonical NaN `0x7FFF` where the `half` crate keeps the
//! operand's payload. Rust leaves the payload of a NaN result unspecified (RFC 3514,
//! in the Reference since 1.79), and cudajit's `f32` operations already give the
//! GPU's canonical NaN, so this is within the language's semantics.
//! The frontend widens the math methods to `f32` itself (`front::half`), except
//! `bf16`'s `min`, `max`, `abs` and `mul_add`.

use super::state::FunctionWriter;
use super::{types, Error};
use crate::ir::{BinaryOp, Expr, Handle, MathFn, ScalarType};

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
        if self.bf16_arch() >= 80 {
            // sm_80's conversion: the same bits but a NaN's payload (see the top).
            return self.def(
                "f2bf",
                format!("call i16 asm \"cvt.rn.bf16.f32 $0, $1;\", \"=h,f\"(float {v})"),
            );
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
            if self.bf16_arch() >= 80 {
                return self.bf16_asm("neg", "neg.bf16", &[v]);
            }
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
        if s == ScalarType::BF16 {
            if let Some(v) = self.bf16_native_binary(op, l, r) {
                return Ok(v);
            }
        }
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

    /// The target's compute capability (0 when unknown: no `bf16` instruction).
    fn bf16_arch(&self) -> u32 {
        self.w.options.arch.unwrap_or(0)
    }

    /// `inst` on `bf16` bit patterns through inline PTX (`h`: a 16-bit register).
    fn bf16_asm(&mut self, base: &str, inst: &str, args: &[&str]) -> String {
        let operands: Vec<String> = (1..=args.len()).map(|k| format!("${k}")).collect();
        let constraints: Vec<&str> = std::iter::once("=h")
            .chain(args.iter().map(|_| "h"))
            .collect();
        let values: Vec<String> = args.iter().map(|a| format!("i16 {a}")).collect();
        self.def(
            base,
            format!(
                "call i16 asm \"{inst} $0, {};\", \"{}\"({})",
                operands.join(", "),
                constraints.join(","),
                values.join(", ")
            ),
        )
    }

    /// `l op r` on `bf16` with sm_90's instructions, `None` before sm_90 or for an
    /// operator without one. A comparison's predicate comes back as a 0/1 `i16`
    /// (inline PTX has no predicate operands); `!=` is unordered, as Rust's is.
    fn bf16_native_binary(&mut self, op: BinaryOp, l: &str, r: &str) -> Option<String> {
        if self.bf16_arch() < 90 {
            return None;
        }
        let inst = match op {
            BinaryOp::Add => "add.rn.bf16",
            BinaryOp::Sub => "sub.rn.bf16",
            BinaryOp::Mul => "mul.rn.bf16",
            BinaryOp::Eq => "eq",
            BinaryOp::Ne => "neu",
            BinaryOp::Lt => "lt",
            BinaryOp::Le => "le",
            BinaryOp::Gt => "gt",
            BinaryOp::Ge => "ge",
            _ => return None,
        };
        if !op.is_comparison() {
            return Some(self.bf16_asm("bf16", inst, &[l, r]));
        }
        let flag = self.def(
            "bf16.cmp",
            format!(
                "call i16 asm \"{{ .reg .pred %bf16_p; setp.{inst}.bf16 %bf16_p, $1, $2; \
                 selp.u16 $0, 1, 0, %bf16_p; }}\", \"=h,h,h\"(i16 {l}, i16 {r})"
            ),
        );
        Some(self.def("cmp", format!("icmp ne i16 {flag}, 0")))
    }

    /// `min`, `max`, `abs`, `mul_add` on `bf16` (the methods the frontend leaves in
    /// `bf16`): sm_80's instructions, else `min`/`max`/`abs` through `f32` (exact) and
    /// `mul_add` rounded once through `f64`.
    pub fn bf16_math(&mut self, f: MathFn, ops: &[(ScalarType, String)]) -> Result<String, Error> {
        let x: Vec<&str> = ops.iter().map(|(_, v)| v.as_str()).collect();
        let inst = match f {
            MathFn::Min => "min.bf16",
            MathFn::Max => "max.bf16",
            MathFn::Abs => "abs.bf16",
            MathFn::MulAdd => "fma.rn.bf16",
            _ => return Err(self.error(format!("{f:?} on `bf16` (widened by the frontend)"))),
        };
        if self.bf16_arch() >= 80 {
            return Ok(self.bf16_asm("bf16", inst, &x));
        }
        if f == MathFn::MulAdd {
            return Ok(self.bf16_fma_through_f64(x[0], x[1], x[2]));
        }
        let wide: Vec<(ScalarType, String)> = x
            .iter()
            .map(|v| (ScalarType::F32, self.half_to_f32(ScalarType::BF16, v)))
            .collect();
        let r = self.math(f, ScalarType::F32, &wide)?;
        Ok(self.f32_to_half(ScalarType::BF16, &r))
    }

    /// `a * b + c` rounded once to `bf16` without `fma.rn.bf16`: the product is exact
    /// in `f64`, the sum's error is recovered by two-sum, the sum is rounded to odd and
    /// then, through `f32` rounded to odd, to nearest-even (`device_api::bf16_fma` is
    /// the same algorithm on the host).
    fn bf16_fma_through_f64(&mut self, a: &str, b: &str, c: &str) -> String {
        let [a, b, c] = [a, b, c].map(|v| {
            let w = self.half_to_f32(ScalarType::BF16, v);
            self.def("fma.d", format!("fpext float {w} to double"))
        });
        let p = self.def("fma.p", format!("fmul double {a}, {b}"));
        let sum = self.def("fma.s", format!("fadd double {p}, {c}"));
        let p_part = self.def("fma.pp", format!("fsub double {sum}, {c}"));
        let c_part = self.def("fma.cp", format!("fsub double {sum}, {p_part}"));
        let p_err = self.def("fma.pe", format!("fsub double {p}, {p_part}"));
        let c_err = self.def("fma.ce", format!("fsub double {c}, {c_part}"));
        let err = self.def("fma.e", format!("fadd double {p_err}, {c_err}"));
        let bits = self.def("fma.bits", format!("bitcast double {sum} to i64"));
        let low = self.def("fma.low", format!("and i64 {bits}, 1"));
        let even = self.def("fma.even", format!("icmp eq i64 {low}, 0"));
        // `one`: ordered, so an infinite sum (NaN error) stays as it is.
        let inexact = self.def("fma.inexact", format!("fcmp one double {err}, 0.0"));
        let adjust = self.def("fma.adjust", format!("and i1 {inexact}, {even}"));
        let up = self.def("fma.up", format!("fcmp ogt double {err}, 0.0"));
        let negative = self.def("fma.neg", format!("fcmp olt double {sum}, 0.0"));
        let away = self.def("fma.away", format!("xor i1 {up}, {negative}"));
        let step = self.def("fma.step", format!("select i1 {away}, i64 1, i64 -1"));
        let step = self.def("fma.step", format!("select i1 {adjust}, i64 {step}, i64 0"));
        let odd = self.def("fma.odd", format!("add i64 {bits}, {step}"));
        let odd = self.def("fma.odd", format!("bitcast i64 {odd} to double"));
        self.f64_to_bf16(&odd)
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
