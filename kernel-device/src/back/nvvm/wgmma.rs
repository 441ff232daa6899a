//! Warpgroup MMA (`wgmma.*`, sm_90a) as NVVM IR inline PTX, as nvcc and CUTLASS write
//! it: libnvvm's LLVM 7 has no intrinsics for it. What exists, the descriptor's bits
//! and the accumulator's registers are `proc::wgmma`'s; this module only prints.
//!
//! `wgmma.mma_async` is `sideeffect` with a `memory` clobber: it reads shared memory
//! that ordinary stores wrote, so it must not move across them, a barrier or the
//! fence; its accumulator inputs are tied to its outputs ("0", "1", ..) so that C and
//! D are the same registers (N / 2 `f32` of them per thread: 128 for N = 256; `i32`
//! for the 8-bit integer forms). The "RS" forms take A as four `i32` registers ("r")
//! in the descriptor's place (16-bit pairs, or a tf32's f32 bits).

use super::state::{operand, FunctionWriter, Val};
use super::Error;
use crate::ir::{Expr, Handle, Type, WgmmaA, WgmmaCombo, WgmmaOp};
use crate::proc::wgmma::{pack_instruction, Swizzle, PACK_MIN_ARCH, SPACE_MESSAGE, TARGET_NEED};

/// The call of `wgmma.mma_async` for `combo` on A (`a`: one `i64` descriptor, or
/// the four `i32` registers of the RS forms), descriptor `desc_b` (`i64`), `scale_d`
/// (`i32`: 0 computes `D = A B`, else `D = A B + C`) and accumulator registers `c`
/// (`float`, or `i32` for integer inputs): an expression of a struct of `N / 2` of
/// them, D.
pub fn wgmma_call(
    combo: WgmmaCombo,
    a: &[String],
    desc_b: &str,
    scale_d: &str,
    c: &[String],
) -> String {
    let d = combo.acc_len();
    assert_eq!(c.len(), d, "{combo:?}");
    assert_eq!(a.len(), combo.a_operands(), "{combo:?}");
    let outputs: Vec<String> = (0..d).map(|i| format!("${i}")).collect();
    let a_operand = match combo.a {
        WgmmaA::Shared(_) => format!("${d}"),
        WgmmaA::Registers => {
            let regs: Vec<String> = (0..a.len()).map(|i| format!("${}", d + i)).collect();
            format!("{{{}}}", regs.join(", "))
        }
    };
    let b_at = d + a.len();
    // Scale A and B by 1; the transposes are the form's (none for the integers).
    let immediates = match combo.immediates() {
        "" => String::new(),
        list => format!(", {list}"),
    };
    let text = format!(
        "{{ .reg .pred p; setp.ne.b32 p, ${}, 0; {} {{{}}}, {a_operand}, ${b_at}, p{immediates}; }}",
        b_at + 1,
        combo.instruction(),
        outputs.join(", "),
    );
    let (acc_constraint, acc_type) = match combo.acc() {
        crate::proc::mma::MmaElem::I32 => ("=r", "i32"),
        _ => ("=f", "float"),
    };
    let (a_constraint, a_type) = match combo.a {
        WgmmaA::Shared(_) => ("l", "i64"),
        WgmmaA::Registers => ("r", "i32"),
    };
    let mut constraints: Vec<String> = (0..d).map(|_| acc_constraint.to_string()).collect();
    constraints.extend(a.iter().map(|_| a_constraint.to_string()));
    constraints.extend(["l", "r"].map(String::from));
    constraints.extend((0..d).map(|i| i.to_string()));
    constraints.push("~{memory}".into());
    let mut args: Vec<String> = a.iter().map(|v| format!("{a_type} {v}")).collect();
    args.extend([format!("i64 {desc_b}"), format!("i32 {scale_d}")]);
    args.extend(c.iter().map(|v| format!("{acc_type} {v}")));
    format!(
        "call {} asm sideeffect \"{text}\", \"{}\"({})",
        super::mma::struct_type(acc_type, d),
        constraints.join(","),
        args.join(", ")
    )
}

/// The instruction of a fence, commit or wait (`None` for the other operations).
pub fn protocol_instruction(op: WgmmaOp) -> Option<String> {
    match op {
        WgmmaOp::Fence => Some("wgmma.fence.sync.aligned;".into()),
        WgmmaOp::Commit => Some("wgmma.commit_group.sync.aligned;".into()),
        WgmmaOp::Wait { pending } => Some(format!("wgmma.wait_group.sync.aligned {pending};")),
        WgmmaOp::FenceProxyAsync => Some("fence.proxy.async.shared::cta;".into()),
        WgmmaOp::SetMaxNreg { increase, count } => {
            Some(crate::proc::setmaxnreg::instruction(increase, count))
        }
        WgmmaOp::Descriptor | WgmmaOp::Mma(_) | WgmmaOp::PackPair(_) => None,
    }
}

impl FunctionWriter<'_, '_> {
    /// `wgmma_*`.
    pub(super) fn wgmma(
        &mut self,
        site: Handle<Expr>,
        op: WgmmaOp,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        // `wgmma` is sm_90a's only: a known target of another architecture is an error
        // naming the feature (the JIT asks for compute_90a through `TARGET_NEED`).
        // `fence.proxy.async` is any sm_90's (and later).
        let wrong = |a: u32| match op {
            WgmmaOp::FenceProxyAsync => a < TARGET_NEED.min_arch,
            WgmmaOp::PackPair(_) => a < PACK_MIN_ARCH,
            _ => a != TARGET_NEED.min_arch,
        };
        if let Some(arch) = self.w.options.arch.filter(|&a| wrong(a)) {
            if let WgmmaOp::PackPair(input) = op {
                return Err(self.error(format!(
                    "`cvt.rn.{}x2.f32` needs compute capability 8.0 or later; the target is compute_{arch}",
                    input.ptx()
                )));
            }
            return Err(self.error(format!(
                "{} needs exactly compute capability 9.0 (sm_90a); the target is compute_{arch}",
                TARGET_NEED.feature
            )));
        }
        if let Some(text) = protocol_instruction(op) {
            self.inst(format!(
                "call void asm sideeffect \"{text}\", \"~{{memory}}\"()"
            ));
            return Ok(Val::Unit);
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        match op {
            WgmmaOp::PackPair(input) => {
                let call = format!(
                    "call i32 asm \"{}\", \"=r,f,f\"(float {}, float {})",
                    pack_instruction(input),
                    vals[0],
                    vals[1]
                );
                Ok(Val::V(self.def("wgmma.pack", call)))
            }
            WgmmaOp::Mma(combo) => {
                if vals.len() != combo.operands() {
                    return Err(
                        self.error(format!("{combo:?} takes {} operands", combo.operands()))
                    );
                }
                let (a, rest) = vals.split_at(combo.a_operands());
                let call = wgmma_call(combo, a, &rest[0], &rest[1], &rest[2..]);
                Ok(Val::V(self.def("wgmma", call)))
            }
            _ => self.wgmma_descriptor(site, args, &vals),
        }
    }

    /// `wgmma_descriptor(tile, index, swizzle_bytes, leading_bytes, stride_bytes)`: the
    /// bounds-checked (unless `opt::elide` proved it), shared-checked address of
    /// `tile[index]` in the descriptor's fields (`proc::wgmma::Descriptor::encode`).
    fn wgmma_descriptor(
        &mut self,
        site: Handle<Expr>,
        args: &[Handle<Expr>],
        vals: &[String],
    ) -> Result<Val, Error> {
        let slice_ty: Type = self.ty_of(args[0])?.clone();
        let Type::Slice { elem, .. } = slice_ty else {
            return Err(self.error(format!("wgmma_descriptor of a `{slice_ty}`")));
        };
        let ptr = self.indexed_element_ptr(site, &slice_ty, (&vals[0], &vals[1]), args[1])?;
        let mem = super::types::scalar_mem(elem);
        if !self.is_visibly_shared(args[0]) {
            let generic = self.def("wgmma.generic", format!("ptrtoint {mem}* {ptr} to i64"));
            let shared = self.is_in_space("shared", &generic);
            let sty = super::types::value(&slice_ty).map_err(|e| self.error(e.0))?;
            let len = self.def("wgmma.len", format!("extractvalue {sty} {}, 1", vals[0]));
            self.panic_unless(&shared, site, SPACE_MESSAGE, (&vals[1], &len))?;
        }
        let address = self.shared_window_address(mem, &ptr);
        let start = self.def("wgmma.start", format!("zext i32 {address} to i64"));
        let mut word = self.descriptor_field(&start, 0);
        for (k, shift) in [(3, 16), (4, 32)] {
            let wide = self.def("wgmma.offset", format!("zext i32 {} to i64", vals[k]));
            let f = self.descriptor_field(&wide, shift);
            word = self.def("wgmma.desc", format!("or i64 {word}, {f}"));
        }
        // The swizzle mode from the row bytes (0 for none or an unknown width).
        let mut mode = "0".to_string();
        for s in [Swizzle::B32, Swizzle::B64, Swizzle::B128] {
            let is = self.def(
                "wgmma.is",
                format!("icmp eq i32 {}, {}", vals[2], s.row_bytes()),
            );
            mode = self.def(
                "wgmma.mode",
                format!(
                    "select i1 {is}, i64 {}, i64 {mode}",
                    (s.mode() << 62) as i64
                ),
            );
        }
        let desc = self.def("wgmma.desc", format!("or i64 {word}, {mode}"));
        // The result through an opaque `mov` (as `dynamic_shared_take`'s window): a
        // descriptor made before a loop and used in it is otherwise rematerialised by
        // libnvvm next to each wgmma under register pressure, its whole computation
        // (ten instructions and the moves to uniform registers) on every iteration,
        // where nvcc keeps it in a register.
        Ok(Val::V(self.def(
            "wgmma.kept",
            format!("call i64 asm \"mov.b64 $0, $1;\", \"=l,l\"(i64 {desc})"),
        )))
    }

    /// `((bytes & 0x3FFFF) >> 4) << shift`.
    fn descriptor_field(&mut self, bytes: &str, shift: u32) -> String {
        let masked = self.def("wgmma.masked", format!("and i64 {bytes}, {}", 0x3FFFF));
        let units = self.def("wgmma.units", format!("lshr i64 {masked}, 4"));
        self.def("wgmma.field", format!("shl i64 {units}, {shift}"))
    }
}

#[cfg(test)]
#[path = "wgmma_tests.rs"]
mod tests;
