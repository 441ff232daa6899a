//! Warp operations: lane registers, `activemask`, shuffles (64-bit values as two 32-bit
//! halves, floats as their bits), votes, matches, and the warp reductions as a
//! butterfly of five xor-shuffles (every lane ends with the same value: each step
//! combines the same two operands in both lanes, and the combinations commute).

use super::state::{operand, FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{Expr, Handle, Intrinsic, ReduceOp, ScalarType, ShuffleMode, VoteMode};
use crate::proc::intrinsics as table;

/// Every lane of the warp.
const FULL_MASK: &str = "-1";

fn symbol(i: Intrinsic) -> &'static str {
    table::def_of(i).map_or("", |d| d.nvvm)
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    pub fn warp_op(&mut self, intrinsic: Intrinsic, args: &[Handle<Expr>]) -> Result<Val, Error> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        let arity = table::signature(intrinsic).params.len();
        if vals.len() != arity {
            return Err(self.error(format!("{intrinsic:?} takes {arity} operands")));
        }
        Ok(Val::V(match intrinsic {
            Intrinsic::LaneId | Intrinsic::WarpSize | Intrinsic::LanemaskLt => {
                self.sreg(symbol(intrinsic))
            }
            Intrinsic::ActiveMask => self.def(
                "activemask",
                format!(
                    "call i32 asm sideeffect \"{} $0;\", \"=r\"()",
                    symbol(intrinsic)
                ),
            ),
            Intrinsic::Shuffle(mode) => {
                let s = self.scalar_of(args[1])?;
                self.shuffle(mode, s, &vals[0], &vals[1], &vals[2])
            }
            Intrinsic::Vote(mode) => {
                let (mask, pred) = (&vals[0], &vals[1]);
                let ret = if mode == VoteMode::Ballot {
                    "i32"
                } else {
                    "i1"
                };
                self.call_extern(
                    "vote",
                    ret,
                    symbol(intrinsic),
                    &[("i32", mask), ("i1", pred)],
                )
            }
            Intrinsic::MatchAny | Intrinsic::MatchAll => {
                let s = self.scalar_of(args[1])?;
                let (it, bits) = self.to_bits(s, &vals[1]);
                let name = format!("{}.{it}", symbol(intrinsic));
                let args = [("i32", vals[0].as_str()), (it, bits.as_str())];
                if intrinsic == Intrinsic::MatchAny {
                    self.call_extern("match", "i32", &name, &args)
                } else {
                    // NVVM's {i32, i1} is also the IR's (u32, bool) tuple value.
                    self.call_extern("match", "{ i32, i1 }", &name, &args)
                }
            }
            Intrinsic::WarpReduce(op) => {
                let s = self.scalar_of(args[0])?;
                let mut acc = vals[0].clone();
                for lane_mask in [16, 8, 4, 2, 1] {
                    let other =
                        self.shuffle(ShuffleMode::Xor, s, FULL_MASK, &acc, &lane_mask.to_string());
                    acc = self.combine(op, s, &acc, &other);
                }
                acc
            }
            other => return Err(self.error(format!("{other:?} is not a warp operation"))),
        }))
    }

    /// The bits of a 32- or 64-bit scalar as `i32`/`i64`.
    fn to_bits(&mut self, s: ScalarType, v: &str) -> (&'static str, String) {
        let it = if s.bits() == 64 { "i64" } else { "i32" };
        if s.is_float() {
            let ty = types::scalar(s);
            (it, self.def("bits", format!("bitcast {ty} {v} to {it}")))
        } else {
            (it, v.to_string())
        }
    }

    fn from_bits(&mut self, s: ScalarType, bits: String) -> String {
        if s.is_float() {
            let ty = types::scalar(s);
            let it = if s.bits() == 64 { "i64" } else { "i32" };
            self.def("unbits", format!("bitcast {it} {bits} to {ty}"))
        } else {
            bits
        }
    }

    /// `value` of another lane; 64-bit values as two 32-bit shuffles.
    fn shuffle(
        &mut self,
        mode: ShuffleMode,
        s: ScalarType,
        mask: &str,
        value: &str,
        lane: &str,
    ) -> String {
        let func = symbol(Intrinsic::Shuffle(mode));
        // The clamp operand: the highest lane (31) except for `up`, whose bound is the
        // lowest lane (0) of the segment.
        let clamp = if mode == ShuffleMode::Up { "0" } else { "31" };
        let shfl = |w: &mut Self, v: &str| {
            w.call_extern(
                "shfl",
                "i32",
                func,
                &[("i32", mask), ("i32", v), ("i32", lane), ("i32", clamp)],
            )
        };
        let (it, bits) = self.to_bits(s, value);
        let out = if it == "i32" {
            shfl(self, &bits)
        } else {
            let lo = self.def("shfl.lo", format!("trunc i64 {bits} to i32"));
            let hi64 = self.def("shfl.hi64", format!("lshr i64 {bits}, 32"));
            let hi = self.def("shfl.hi", format!("trunc i64 {hi64} to i32"));
            let lo = shfl(self, &lo);
            let hi = shfl(self, &hi);
            let lo = self.def("shfl.lo64", format!("zext i32 {lo} to i64"));
            let hi = self.def("shfl.hi64", format!("zext i32 {hi} to i64"));
            let hi = self.def("shfl.hi.shl", format!("shl i64 {hi}, 32"));
            self.def("shfl.joined", format!("or i64 {hi}, {lo}"))
        };
        self.from_bits(s, out)
    }

    fn combine(&mut self, op: ReduceOp, s: ScalarType, a: &str, b: &str) -> String {
        let ty = types::scalar(s);
        match (op, s.is_float()) {
            (ReduceOp::Sum, false) => self.def("reduce", format!("add {ty} {a}, {b}")),
            (ReduceOp::Sum, true) => self.def("reduce", format!("fadd {ty} {a}, {b}")),
            (ReduceOp::Min | ReduceOp::Max, false) => {
                let pred = match (op == ReduceOp::Max, s.is_signed_integer()) {
                    (true, true) => "sgt",
                    (true, false) => "ugt",
                    (false, true) => "slt",
                    (false, false) => "ult",
                };
                self.select_cmp(pred, ty, a, b)
            }
            (_, true) => {
                // std's min/max: a NaN operand loses (libdevice's fmin/fmax).
                let base = if op == ReduceOp::Max { "fmax" } else { "fmin" };
                let name = if s == ScalarType::F32 {
                    format!("__nv_{base}f")
                } else {
                    format!("__nv_{base}")
                };
                self.call_extern("reduce", ty, &name, &[(ty, a), (ty, b)])
            }
        }
    }
}
