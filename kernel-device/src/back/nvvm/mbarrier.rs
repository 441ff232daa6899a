//! Shared-memory mbarriers (`mbarrier.*.shared::cta.b64`, `fence.mbarrier_init`) as
//! inline PTX: libnvvm's LLVM 7 has no intrinsics for the sm_90 forms. Each operation
//! on `bars[index]` has the index's bounds check (unless `opt::elide` proved it) and,
//! unless `bars` is visibly shared memory (a shared array, or an immutable local bound
//! to a `dynamic_shared()` take: [`FunctionWriter::is_visibly_shared`]), a shared-space
//! check (`proc::mbarrier::SPACE_MESSAGE`): an mbarrier instruction on another space
//! faults the context.

use super::state::{operand, FunctionWriter, Val};
use super::Error;
use crate::ir::{visit, Expr, ExprKind, Handle, MbarrierOp, Stmt};
use crate::proc::mbarrier::{target_need, SPACE_MESSAGE};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Whether the slice `h` is shared memory by construction, so an mbarrier or wgmma
    /// descriptor on it needs no `isspacep.shared`: a shared array, or a read of an
    /// immutable local whose `let` takes it from `dynamic_shared()` (the tiles and
    /// barriers of a pipelined kernel; the check's branch sat inside every mbarrier wait
    /// loop of the Hopper GEMM).
    pub(super) fn is_visibly_shared(&self, h: Handle<Expr>) -> bool {
        if self.is_shared_array(h) {
            return true;
        }
        let func = self.func;
        let Ok(ExprKind::Local(local)) = self.ir_expr(h).map(|e| &e.kind) else {
            return false;
        };
        if func.locals[*local].mutable {
            return false;
        }
        let mut taken = false;
        visit::stmts_in_function(func, &mut |stmt| {
            if let Stmt::Let {
                local: l,
                init: Some(init),
            } = stmt
            {
                taken |= l == local
                    && matches!(func.exprs[*init].kind, ExprKind::DynamicSharedTake { .. });
            }
        });
        taken
    }

    /// `mbarrier_*` and `fence_mbarrier_init`.
    pub fn mbarrier(
        &mut self,
        site: Handle<Expr>,
        op: MbarrierOp,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        let need = target_need(op);
        if let Some(arch) = self.w.options.arch.filter(|&a| a < need.min_arch) {
            return Err(self.error(format!(
                "{} needs compute capability {}.{} or later; the target is compute_{arch}",
                need.feature,
                need.min_arch / 10,
                need.min_arch % 10
            )));
        }
        if op == MbarrierOp::FenceInit {
            // The inits' release to the cluster (what a later `sync_threads` publishes).
            self.inst("call void asm sideeffect \"fence.mbarrier_init.release.cluster;\", \"~{memory}\"()");
            return Ok(Val::Unit);
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(operand!(self, *a));
        }
        let slice_ty = self.ty_of(args[0])?.clone();
        let ptr = self.indexed_element_ptr(site, &slice_ty, (&vals[0], &vals[1]), args[1])?;
        let addr = self.def("mbar.addr", format!("ptrtoint i64* {ptr} to i64"));
        if !self.is_visibly_shared(args[0]) {
            let shared = self.is_in_space("shared", &addr);
            let sty = super::types::value(&slice_ty).map_err(|e| self.error(e.0))?;
            let len = self.def("mbar.len", format!("extractvalue {sty} {}, 1", vals[0]));
            self.panic_unless(&shared, site, SPACE_MESSAGE, (&vals[1], &len))?;
        }
        // Every form names the barrier by its 64-bit shared address `s`.
        let to_shared = ".reg .u64 s; cvta.to.shared.u64 s";
        Ok(match op {
            MbarrierOp::Init => {
                let count = &vals[2];
                self.inst(format!(
                    "call void asm sideeffect \"{{ {to_shared}, $0; mbarrier.init.shared::cta.b64 [s], $1; }}\", \"l,r,~{{memory}}\"(i64 {addr}, i32 {count})"
                ));
                Val::Unit
            }
            MbarrierOp::Arrive => Val::V(self.def(
                "mbar.token",
                format!(
                    "call i64 asm sideeffect \"{{ {to_shared}, $1; mbarrier.arrive.shared::cta.b64 $0, [s]; }}\", \"=l,l,~{{memory}}\"(i64 {addr})"
                ),
            )),
            MbarrierOp::ArriveExpectTx => {
                let bytes = &vals[2];
                Val::V(self.def(
                    "mbar.token",
                    format!(
                        "call i64 asm sideeffect \"{{ {to_shared}, $1; mbarrier.arrive.expect_tx.shared::cta.b64 $0, [s], $2; }}\", \"=l,l,r,~{{memory}}\"(i64 {addr}, i32 {bytes})"
                    ),
                ))
            }
            MbarrierOp::CompleteTx => {
                let bytes = &vals[2];
                self.inst(format!(
                    "call void asm sideeffect \"{{ {to_shared}, $0; mbarrier.complete_tx.shared::cta.b64 [s], $1; }}\", \"l,r,~{{memory}}\"(i64 {addr}, i32 {bytes})"
                ));
                Val::Unit
            }
            MbarrierOp::TryWaitParity => {
                let parity = &vals[2];
                let done = self.def(
                    "mbar.done",
                    format!(
                        "call i32 asm sideeffect \"{{ .reg .pred p; {to_shared}, $1; mbarrier.try_wait.parity.shared::cta.b64 p, [s], $2; selp.u32 $0, 1, 0, p; }}\", \"=r,l,r,~{{memory}}\"(i64 {addr}, i32 {parity})"
                    ),
                );
                Val::V(self.def("mbar.phase.done", format!("icmp ne i32 {done}, 0")))
            }
            MbarrierOp::FenceInit => Val::Unit,
        })
    }
}
