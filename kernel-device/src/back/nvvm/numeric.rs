//! The numeric methods with std's semantics that libdevice does not give directly:
//! bit counts and permutations (LLVM's `ctpop`/`ctlz`/`cttz`/`bswap`/`bitreverse`),
//! rotations, wrapping `pow`, saturating arithmetic, `clamp` (with std's panics, from
//! `ir::checks`), `mul_hi`, and the float `fract`, `is_nan`, `is_finite`, `to_bits`,
//! `from_bits`.

use super::state::FunctionWriter;
use super::{types, Error};
use crate::ir::checks::{
    CLAMP_F32_MESSAGE, CLAMP_F64_MESSAGE, CLAMP_SIGNED_MESSAGE, CLAMP_UNSIGNED_MESSAGE,
    ND_AXIS_MESSAGES,
};
use crate::ir::{Expr, Handle, MathFn, ScalarType, Type};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Lowers `f` if it is one of this file's; `None` leaves it to the libdevice path.
    pub fn numeric(
        &mut self,
        site: Handle<Expr>,
        f: MathFn,
        ret: &Type,
        ops: &[(ScalarType, String)],
    ) -> Result<Option<String>, Error> {
        let Some((t, x)) = ops.first().cloned() else {
            return Ok(None);
        };
        let ty = types::scalar(t);
        let bits = t.bits();
        let op = |k: usize| ops.get(k).map(|(_, v)| v.clone()).unwrap_or_default();
        Ok(Some(match f {
            MathFn::CountOnes | MathFn::LeadingZeros | MathFn::TrailingZeros => {
                let (name, extra) = match f {
                    MathFn::CountOnes => ("ctpop", ""),
                    MathFn::LeadingZeros => ("ctlz", ", i1 false"),
                    _ => ("cttz", ", i1 false"),
                };
                let func = format!("llvm.{name}.{ty}");
                let decl = if extra.is_empty() {
                    format!("declare {ty} @{func}({ty})")
                } else {
                    format!("declare {ty} @{func}({ty}, i1)")
                };
                self.w.declare(&func, decl);
                let n = self.def(name, format!("call {ty} @{func}({ty} {x}{extra})"));
                self.resize(&n, bits, 32)
            }
            MathFn::RotateLeft | MathFn::RotateRight => {
                // By `n % BITS`, as two shifts that stay below the width.
                let r32 = self.def("rot.n", format!("and i32 {}, {}", op(1), bits - 1));
                let r = self.resize(&r32, 32, bits);
                let back = self.def("rot.back", format!("sub {ty} {bits}, {r}"));
                let back = self.def("rot.back", format!("and {ty} {back}, {}", bits - 1));
                let (first, second) = if f == MathFn::RotateLeft {
                    ("shl", "lshr")
                } else {
                    ("lshr", "shl")
                };
                let a = self.def("rot", format!("{first} {ty} {x}, {r}"));
                let b = self.def("rot", format!("{second} {ty} {x}, {back}"));
                self.def("rot", format!("or {ty} {a}, {b}"))
            }
            MathFn::SwapBytes if bits == 8 => x,
            MathFn::SwapBytes | MathFn::ReverseBits => {
                let name = if f == MathFn::SwapBytes {
                    "bswap"
                } else {
                    "bitreverse"
                };
                let func = format!("llvm.{name}.{ty}");
                self.w.declare(&func, format!("declare {ty} @{func}({ty})"));
                self.def(name, format!("call {ty} @{func}({ty} {x})"))
            }
            MathFn::Pow => self.wrapping_pow(ty, &x, &op(1)),
            MathFn::SaturatingAdd | MathFn::SaturatingSub => {
                self.saturating(f == MathFn::SaturatingAdd, t, &x, &op(1))
            }
            MathFn::NdAxis(axis) => {
                // usize is i64: the index itself once it is below the axis's length.
                let len = op(1);
                let ok = self.def("nd.in", format!("icmp ult {ty} {x}, {len}"));
                let message = ND_AXIS_MESSAGES[usize::from(axis).min(2)];
                self.panic_unless(&ok, site, message, (&x, &len))?;
                x
            }
            MathFn::Clamp if t.is_integer() => {
                let (min, max) = (op(1), op(2));
                let signed = t.is_signed_integer();
                let le = if signed { "sle" } else { "ule" };
                let ok = self.def("clamp.ok", format!("icmp {le} {ty} {min}, {max}"));
                let (message, widen) = if signed {
                    (CLAMP_SIGNED_MESSAGE, "sext")
                } else {
                    (CLAMP_UNSIGNED_MESSAGE, "zext")
                };
                let ops64 = [&min, &max].map(|v| {
                    if bits == 64 {
                        v.to_string()
                    } else {
                        self.def("clamp.op", format!("{widen} {ty} {v} to i64"))
                    }
                });
                self.panic_unless(&ok, site, message, (&ops64[0], &ops64[1]))?;
                let (lt, gt) = if t.is_signed_integer() {
                    ("slt", "sgt")
                } else {
                    ("ult", "ugt")
                };
                let below = self.def("clamp.below", format!("icmp {lt} {ty} {x}, {min}"));
                let lo = self.def("clamp", format!("select i1 {below}, {ty} {min}, {ty} {x}"));
                let above = self.def("clamp.above", format!("icmp {gt} {ty} {lo}, {max}"));
                self.def("clamp", format!("select i1 {above}, {ty} {max}, {ty} {lo}"))
            }
            MathFn::Clamp => {
                // std: `assert!(min <= max)` (false with a NaN), then `if x < min { min }`
                // and `if x > max { max }`, so a NaN `x` stays NaN.
                let (min, max) = (op(1), op(2));
                let ok = self.def("clamp.ok", format!("fcmp ole {ty} {min}, {max}"));
                let (message, it) = if t == ScalarType::F32 {
                    (CLAMP_F32_MESSAGE, "i32")
                } else {
                    (CLAMP_F64_MESSAGE, "i64")
                };
                let ops64 = [&min, &max].map(|v| {
                    let b = self.def("clamp.bits", format!("bitcast {ty} {v} to {it}"));
                    self.resize(&b, bits, 64)
                });
                self.panic_unless(&ok, site, message, (&ops64[0], &ops64[1]))?;
                let below = self.def("clamp.below", format!("fcmp olt {ty} {x}, {min}"));
                let lo = self.def("clamp", format!("select i1 {below}, {ty} {min}, {ty} {x}"));
                let above = self.def("clamp.above", format!("fcmp ogt {ty} {lo}, {max}"));
                self.def("clamp", format!("select i1 {above}, {ty} {max}, {ty} {lo}"))
            }
            MathFn::MulHi => {
                let name = match t {
                    ScalarType::I32 => "__nv_mulhi",
                    ScalarType::U32 => "__nv_umulhi",
                    ScalarType::I64 => "__nv_mul64hi",
                    ScalarType::U64 => "__nv_umul64hi",
                    other => return Err(self.error(format!("mul_hi on `{other}`"))),
                };
                self.call_extern("mulhi", ty, name, &[(ty, &x), (ty, &op(1))])
            }
            MathFn::Fract => {
                let name = if t == ScalarType::F32 {
                    "__nv_truncf"
                } else {
                    "__nv_trunc"
                };
                let whole = self.call_extern("trunc", ty, name, &[(ty, &x)]);
                self.def("fract", format!("fsub {ty} {x}, {whole}"))
            }
            MathFn::IsNan => self.def("isnan", format!("fcmp uno {ty} {x}, {x}")),
            MathFn::IsFinite => {
                let name = if t == ScalarType::F32 {
                    "__nv_fabsf"
                } else {
                    "__nv_fabs"
                };
                let abs = self.call_extern("abs", ty, name, &[(ty, &x)]);
                let inf = types::float_const(t, f64::INFINITY);
                self.def("isfinite", format!("fcmp olt {ty} {abs}, {inf}"))
            }
            MathFn::ToBits if t == ScalarType::BF16 => x,
            MathFn::ToBits => {
                let it = format!("i{bits}");
                self.def("tobits", format!("bitcast {ty} {x} to {it}"))
            }
            MathFn::FromBits => {
                let Some(to) = ret.scalar() else {
                    return Err(self.error(format!("from_bits typed `{ret}`")));
                };
                let ft = types::scalar(to);
                if ft == ty {
                    return Ok(Some(x));
                }
                self.def("frombits", format!("bitcast {ty} {x} to {ft}"))
            }
            _ => return Ok(None),
        }))
    }

    /// An integer of `from` bits as `to` bits (zero-extended or truncated).
    fn resize(&mut self, v: &str, from: u32, to: u32) -> String {
        match from.cmp(&to) {
            std::cmp::Ordering::Equal => v.to_string(),
            std::cmp::Ordering::Less => self.def("zext", format!("zext i{from} {v} to i{to}")),
            std::cmp::Ordering::Greater => self.def("trunc", format!("trunc i{from} {v} to i{to}")),
        }
    }

    /// `x.pow(e)` wrapping: square-and-multiply over the bits of `e` (u32), in stack
    /// slots that NVVM promotes to registers.
    fn wrapping_pow(&mut self, ty: &str, x: &str, e: &str) -> String {
        let acc = self.alloca("pow.acc", ty);
        let base = self.alloca("pow.base", ty);
        let exp = self.alloca("pow.exp", "i32");
        self.store(ty, "1", &acc);
        self.store(ty, x, &base);
        self.store("i32", e, &exp);
        let head = self.label("pow.head");
        let body = self.label("pow.body");
        let done = self.label("pow.done");
        self.start_block(&head);
        let e = self.load("pow.e", "i32", &exp);
        let finished = self.def("pow.finished", format!("icmp eq i32 {e}, 0"));
        self.terminate(format!("br i1 {finished}, label %{done}, label %{body}"));
        self.start_block(&body);
        let a = self.load("pow.a", ty, &acc);
        let b = self.load("pow.b", ty, &base);
        let bit = self.def("pow.bit", format!("and i32 {e}, 1"));
        let odd = self.def("pow.odd", format!("icmp ne i32 {bit}, 0"));
        let times = self.def("pow.times", format!("mul {ty} {a}, {b}"));
        let a = self.def("pow.a", format!("select i1 {odd}, {ty} {times}, {ty} {a}"));
        self.store(ty, &a, &acc);
        let b = self.def("pow.b", format!("mul {ty} {b}, {b}"));
        self.store(ty, &b, &base);
        let e = self.def("pow.e", format!("lshr i32 {e}, 1"));
        self.store("i32", &e, &exp);
        self.terminate(format!("br label %{head}"));
        self.start_block(&done);
        self.load("pow", ty, &acc)
    }

    fn saturating(&mut self, add: bool, t: ScalarType, a: &str, b: &str) -> String {
        let ty = types::scalar(t);
        let op = if add { "add" } else { "sub" };
        let r = self.def("sat", format!("{op} {ty} {a}, {b}"));
        if !t.is_signed_integer() {
            return if add {
                let over = self.def("sat.over", format!("icmp ult {ty} {r}, {a}"));
                self.def("sat", format!("select i1 {over}, {ty} -1, {ty} {r}"))
            } else {
                let under = self.def("sat.under", format!("icmp ult {ty} {a}, {b}"));
                self.def("sat", format!("select i1 {under}, {ty} 0, {ty} {r}"))
            };
        }
        // Overflow iff the operands' signs make it possible and the result's sign
        // differs: add: (a ^ r) & (b ^ r) < 0; sub: (a ^ b) & (a ^ r) < 0. The
        // saturated value then has the sign of `a`.
        let ar = self.def("sat.ar", format!("xor {ty} {a}, {r}"));
        let other = if add {
            self.def("sat.br", format!("xor {ty} {b}, {r}"))
        } else {
            self.def("sat.ab", format!("xor {ty} {a}, {b}"))
        };
        let both = self.def("sat.both", format!("and {ty} {ar}, {other}"));
        let over = self.def("sat.over", format!("icmp slt {ty} {both}, 0"));
        let bits = t.bits();
        let max = (1i128 << (bits - 1)) - 1;
        let min = -(1i128 << (bits - 1));
        let neg = self.def("sat.neg", format!("icmp slt {ty} {a}, 0"));
        let limit = self.def(
            "sat.limit",
            format!("select i1 {neg}, {ty} {min}, {ty} {max}"),
        );
        self.def("sat", format!("select i1 {over}, {ty} {limit}, {ty} {r}"))
    }
}
