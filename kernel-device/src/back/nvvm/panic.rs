//! Device-side panics (the contract's protocol).
//!
//! A failed check branches (marked cold) to a call of the module's
//! `@__cudajit_panic(record, site, operand0, operand1)`, where `record` is the launch's
//! hidden panic-record parameter (0: no record, just exit). The helper claims the
//! record with a `cmpxchg` of its flag 0→1 so only the first panicking thread writes;
//! stores site, operands, block and thread linear ids and the module's tag; fences
//! (`membar.sys`, CUDA's `__threadfence_system`) so the host sees those writes first;
//! then publishes the record with an atomic exchange of the flag to 2. The host reads a
//! record only once its flag is 2, so it never sees a half-written one. The thread ends
//! with PTX `exit` (never `trap`, which would poison the context).
//!
//! The helper is `noinline`: one copy per module, called from every failed check, not
//! twenty-odd instructions of cold code at each of them between the hot blocks (with
//! it inlined, checked kernels needed more registers and longer code: the stencil's
//! SASS went 512 -> 400 instructions, fast_matmul's registers 30 -> 32 = unchecked).
//!
//! Record layout (bytes): flag u32 @0, site u32 @4, operand0 i64 @8, operand1 i64 @16,
//! block u32 @24, thread u32 @28, module tag u64 @32.

use super::panic_call::HELPER; // the helper's body: `panic_call`
use super::state::{FunctionWriter, LIKELY_TRUE_BRANCH_WEIGHTS};
use super::{types, Error, PanicSite, PANIC_RECORD_PARAM};
use crate::ir::{BinaryOp, Expr, Handle, ScalarType};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Continues only if `cond` holds; otherwise panics at `site` with `message`
    /// (which may name the operands as `{0}` and `{1}`; they are i64 values, which the
    /// host prints as `usize`, as Rust prints indices and lengths).
    pub fn panic_unless(
        &mut self,
        cond: &str,
        site: Handle<Expr>,
        message: &str,
        operands: (&str, &str),
    ) -> Result<(), Error> {
        let loc = self.func.loc_of(site);
        self.panic_unless_at(cond, loc, message, operands)
    }

    /// [`Self::panic_unless`] blamed on a source location rather than an expression.
    pub fn panic_unless_at(
        &mut self,
        cond: &str,
        loc: crate::ir::SourceLoc,
        message: &str,
        operands: (&str, &str),
    ) -> Result<(), Error> {
        let ok_l = self.label("ok");
        let panic_l = self.label("panic");
        self.terminate(format!(
            "br i1 {cond}, label %{ok_l}, label %{panic_l}, !prof {LIKELY_TRUE_BRANCH_WEIGHTS}"
        ));
        self.start_block(&panic_l);
        self.panic_now_at(loc, message, operands);
        self.start_block(&ok_l);
        Ok(())
    }

    /// Panics at `site` with `message` here, unconditionally (the current block ends).
    pub fn panic_now(&mut self, site: Handle<Expr>, message: &str, operands: (&str, &str)) {
        let loc = self.func.loc_of(site);
        self.panic_now_at(loc, message, operands)
    }

    /// [`Self::panic_now`] blamed on a source location.
    pub fn panic_now_at(
        &mut self,
        loc: crate::ir::SourceLoc,
        message: &str,
        operands: (&str, &str),
    ) {
        let id = self.w.add_panic_site(PanicSite {
            id: 0,
            function: self.func.name.clone(),
            file: self.func.file.clone(),
            line: loc.line,
            column: loc.column,
            message: message.to_string(),
        });
        self.inst(format!(
            "call void @{HELPER}(i64 {PANIC_RECORD_PARAM}, i32 {id}, i64 {}, i64 {})",
            operands.0, operands.1
        ));
        self.terminate("unreachable");
    }

    /// Rust's checks before an integer `/` or `%`: a zero divisor, and `MIN / -1` for
    /// signed types (which overflows; LLVM's `sdiv` would be undefined).
    pub fn division_checks(
        &mut self,
        site: Handle<Expr>,
        op: BinaryOp,
        s: ScalarType,
        l: &str,
        r: &str,
    ) -> Result<(), Error> {
        let ty = types::scalar(s);
        let is_div = op == BinaryOp::Div;
        // A literal divisor (`k % 3`) needs no check that cannot fail; skipping it also
        // keeps dead sites out of the panic table.
        let constant: Option<i64> = r.parse().ok();
        if let Some(c) = constant {
            if c != 0 && (c != -1 || !s.is_signed_integer()) {
                return Ok(());
            }
        }
        let nonzero = self.def("nonzero", format!("icmp ne {ty} {r}, 0"));
        let (zero_message, overflow_message) = crate::ir::checks::division_messages(is_div);
        self.panic_unless(&nonzero, site, zero_message, ("0", "0"))?;
        if s.is_signed_integer() {
            let min = types::int_const(s, 1u64 << (s.bits() - 1));
            let is_min = self.def("ismin", format!("icmp eq {ty} {l}, {min}"));
            let is_neg1 = self.def("isneg1", format!("icmp eq {ty} {r}, -1"));
            let both = self.def("overflow", format!("and i1 {is_min}, {is_neg1}"));
            let fine = self.def("nooverflow", format!("xor i1 {both}, true"));
            self.panic_unless(&fine, site, overflow_message, ("0", "0"))?;
        }
        Ok(())
    }
}
