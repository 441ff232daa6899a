//! Lowering of `setmaxnreg_inc::<N>()` and `setmaxnreg_dec::<N>()` (warp specialisation,
//! sm_90a): the count is the generic argument, a constant the instruction encodes, checked
//! against `proc::setmaxnreg`'s range here, at its span.

use super::infer::Ty;
use super::lower_fn::FnLowerer;
use crate::ir::{self, Handle, Intrinsic, WgmmaOp};
use crate::proc::setmaxnreg::count_error;
use syn::spanned::Spanned;

/// Whether `name` is one of the calls this module lowers.
pub fn is_setmaxnreg_call(name: &str) -> bool {
    matches!(name, "setmaxnreg_inc" | "setmaxnreg_dec")
}

impl FnLowerer<'_> {
    /// `setmaxnreg_{inc,dec}::<N>()`.
    pub fn lower_setmaxnreg_call(&mut self, name: &str, call: &syn::ExprCall) -> Handle<ir::Expr> {
        let span = call.span();
        let typical = if name == "setmaxnreg_inc" { 232 } else { 40 };
        let example = format!("{name}::<{typical}>()");
        let turbofish = match &*call.func {
            syn::Expr::Path(p) => match &p.path.segments.last().map(|s| &s.arguments) {
                Some(syn::PathArguments::AngleBracketed(a)) => Some(a.clone()),
                _ => None,
            },
            _ => None,
        };
        if !call.args.is_empty() {
            for a in &call.args {
                self.lower_expr(a);
            }
            self.error_hint(
                call.paren_token.span.join(),
                format!("`{name}` takes no arguments: the register count is its generic argument"),
                format!("write `{example}`"),
            );
            return self.error_expr(span);
        }
        let Ok(count) = self.const_of(
            name,
            turbofish.as_ref(),
            "the register count",
            &example,
            span,
        ) else {
            return self.error_expr(span);
        };
        // `None`: a constant only rustc knows at macro time; the JIT checks it again.
        let count = count.unwrap_or(crate::proc::setmaxnreg::MIN_REGISTERS);
        if let Some(problem) = count_error(count) {
            self.error_hint(
                turbofish.as_ref().map_or(span, |t| t.span()),
                problem,
                "warp specialisation: e.g. `setmaxnreg_dec::<40>()` in the producer, `setmaxnreg_inc::<232>()` in the consumers",
            );
            return self.error_expr(span);
        }
        let intrinsic = Intrinsic::Wgmma(WgmmaOp::SetMaxNreg {
            increase: name == "setmaxnreg_inc",
            count: count as u16,
        });
        self.push_expr(
            ir::ExprKind::Intrinsic {
                intrinsic,
                args: Vec::new(),
            },
            Ty::Unit,
            span,
        )
    }
}
