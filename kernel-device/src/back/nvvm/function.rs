//! Per-function state and statements: value/label naming, the entry block's allocas,
//! basic-block bookkeeping, locals, loops and the control-flow constructs.
//!
//! Block discipline: `open` says whether the current basic block still accepts
//! instructions. After a terminator (`br`, `ret`, `unreachable`) it is closed; code
//! that follows a diverging expression is written into a fresh block without
//! predecessors (`dead.N`), which keeps the text valid without tracking reachability.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::writer::{LoopHint, Writer};
use super::{device_function_symbol, types, Error};
use crate::ir::{self, Block, Expr, FunctionKind, Handle, Local, LoopId, Stmt, Type};
use crate::opt::ranges::Ranges;
use crate::opt::Optimised;

/// The result of lowering an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// `()`: no run-time value.
    Unit,
    /// The expression diverged; the current block is closed (or dead).
    Never,
    /// An LLVM operand (`%x`, `42`, `true`, `0x3FF0000000000000`).
    V(String),
}

/// Unwraps an operand or propagates divergence out of the calling function.
macro_rules! operand {
    ($self:ident, $handle:expr) => {
        match $self.expr($handle)? {
            Val::V(v) => v,
            Val::Never => return Ok(Val::Never),
            Val::Unit => {
                return Err($self.error(format!(
                    "expression {:?} has no value but one is needed",
                    $handle
                )))
            }
        }
    };
}
pub(super) use operand;

pub struct LoopCtx {
    pub id: LoopId,
    pub break_label: String,
    pub continue_label: String,
    /// Where `break value` stores the loop's value.
    pub slot: Option<(String, String)>,
}

pub struct FunctionWriter<'w, 'a> {
    pub w: &'w mut Writer<'a>,
    pub func: &'a ir::Function,
    names: HashSet<String>,
    allocas: String,
    body: String,
    open: bool,
    /// Stack slot (pointer operand, LLVM value type) of each local; `None` for locals
    /// without a run-time value (unit).
    slots: Vec<Option<(String, String)>>,
    pub loops: Vec<LoopCtx>,
    /// Index expressions whose bounds checks the enclosing versioned run's guard has
    /// decided (see `versioning`): indexing with them is written without a check.
    pub proven: HashSet<Handle<Expr>>,
    /// Inside a versioned run's copies, nested blocks are written as they are.
    pub plain_depth: u32,
    /// Inside a versioned run's checked copy, which runs only when its guard fails.
    pub cold_depth: u32,
    /// Inside a copy of a versioned loop (see `loop_versioning`): loops in it are not
    /// versioned again, so no code is written more than twice.
    pub loop_versions: u32,
    /// The `#[unroll]` hint and variable of the `for` loop whose body is written next.
    pub pending_for: Option<(ir::Unroll, Handle<Local>)>,
    /// Value ranges of the function's unsigned expressions: indices into arrays that
    /// are always in bounds get no check.
    pub ranges: Ranges<'a>,
    /// Inside a predicated prefetch (see `predicated`): the condition (an `i1`) under
    /// which its loads, checks and stores take effect.
    pub predicate: Option<String>,
    /// The current value of the local a predicated load is about to replace: the
    /// load's result when the condition fails.
    pub prefetch_into: Option<String>,
    /// The kernel's symbol when it is not its name: its copy without the checks its
    /// launches prove (see `launch_proof`).
    pub symbol: Option<String>,
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    pub fn new(
        w: &'w mut Writer<'a>,
        handle: Handle<ir::Function>,
        func: &'a ir::Function,
    ) -> Result<Self, Error> {
        let opt: &'a Optimised = w.opt;
        let ranges = opt.ranges(handle);
        Ok(FunctionWriter {
            w,
            func,
            names: HashSet::new(),
            allocas: String::new(),
            body: String::new(),
            open: true,
            slots: Vec::new(),
            loops: Vec::new(),
            proven: HashSet::new(),
            plain_depth: 0,
            cold_depth: 0,
            loop_versions: 0,
            pending_for: None,
            ranges,
            predicate: None,
            prefetch_into: None,
            symbol: None,
        })
    }

    pub fn error(&self, message: impl std::fmt::Display) -> Error {
        Error(format!("in `{}`: {message}", self.func.name))
    }

    // ---- names and emission ---------------------------------------------------------

    /// A fresh local symbol derived from `base` (without `%`), unique in the function.
    fn fresh_symbol(&mut self, base: &str) -> String {
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
            format!("v{base}")
        } else {
            base
        };
        let mut name = base.clone();
        let mut n = 1;
        while !self.names.insert(name.clone()) {
            name = format!("{base}.{n}");
            n += 1;
        }
        name
    }

    /// A fresh value name, `%base` or `%base.N`.
    pub fn fresh(&mut self, base: &str) -> String {
        format!("%{}", self.fresh_symbol(base))
    }

    /// A fresh basic-block label (without `%`).
    pub fn label(&mut self, base: &str) -> String {
        self.fresh_symbol(base)
    }

    /// Appends an instruction to the current block (opening a dead one if needed).
    pub fn inst(&mut self, text: impl AsRef<str>) {
        if !self.open {
            let label = self.label("dead");
            let _ = writeln!(self.body, "{label}:");
            self.open = true;
        }
        let _ = writeln!(self.body, "  {}", text.as_ref());
    }

    /// Emits `%name = rhs` and returns `%name`.
    pub fn def(&mut self, base: &str, rhs: impl AsRef<str>) -> String {
        let name = self.fresh(base);
        self.inst(format!("{name} = {}", rhs.as_ref()));
        name
    }

    /// Emits a terminator and closes the current block.
    pub fn terminate(&mut self, text: impl AsRef<str>) {
        self.inst(text);
        self.open = false;
    }

    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Starts block `label`, falling through into it from an open current block.
    pub fn start_block(&mut self, label: &str) {
        if self.open {
            self.terminate(format!("br label %{label}"));
        }
        let _ = writeln!(self.body, "{label}:");
        self.open = true;
    }

    /// Closes the current block with `br label %target` if it is still open.
    pub fn branch_to(&mut self, target: &str) {
        if self.open {
            self.terminate(format!("br label %{target}"));
        }
    }

    /// A stack slot in the entry block.
    pub fn alloca(&mut self, base: &str, llvm_ty: &str) -> String {
        let name = self.fresh(base);
        let _ = writeln!(self.allocas, "  {name} = alloca {llvm_ty}");
        name
    }

    pub fn load(&mut self, base: &str, llvm_ty: &str, ptr: &str) -> String {
        self.def(base, format!("load {llvm_ty}, {llvm_ty}* {ptr}"))
    }

    pub fn store(&mut self, llvm_ty: &str, value: &str, ptr: &str) {
        self.inst(format!("store {llvm_ty} {value}, {llvm_ty}* {ptr}"));
    }

    // ---- IR access --------------------------------------------------------------------

    pub fn ir_expr(&self, handle: Handle<Expr>) -> Result<&'a Expr, Error> {
        self.func
            .exprs
            .get(handle)
            .ok_or_else(|| self.error(format!("dangling expression handle {handle:?}")))
    }

    pub fn ty_of(&self, handle: Handle<Expr>) -> Result<&'a Type, Error> {
        Ok(&self.ir_expr(handle)?.ty)
    }

    pub fn scalar_of(&self, handle: Handle<Expr>) -> Result<ir::ScalarType, Error> {
        let ty = self.ty_of(handle)?;
        ty.scalar()
            .ok_or_else(|| self.error(format!("expected a scalar operand, found `{ty}`")))
    }

    pub fn ir_local(&self, local: Handle<Local>) -> Result<&'a Local, Error> {
        self.func
            .locals
            .get(local)
            .ok_or_else(|| self.error(format!("dangling local handle {local:?}")))
    }

    /// The slot of a local: `Ok(None)` for a unit local.
    pub fn slot(&self, local: Handle<Local>) -> Result<Option<(String, String)>, Error> {
        self.slots
            .get(local.index())
            .cloned()
            .ok_or_else(|| self.error(format!("dangling local handle {local:?}")))
    }

    // ---- the function -----------------------------------------------------------------

    pub fn write(mut self) -> Result<String, Error> {
        let func = self.func;
        // One slot per local, in arena order, so names are stable.
        for (_, local) in func.locals.iter() {
            let slot = if types::has_value(&local.ty) {
                let ty = types::value(&local.ty).map_err(|e| self.error(e.0))?;
                let ptr = self.alloca(&format!("{}.addr", local.name), &ty);
                Some((ptr, ty))
            } else {
                None
            };
            self.slots.push(slot);
        }

        let is_kernel = func.kind == FunctionKind::Kernel;
        if is_kernel && func.ret != Type::Unit && func.ret != Type::Never {
            return Err(self.error("a kernel must not return a value"));
        }
        let mut params = Vec::new();
        for param in &func.params {
            let slot = self.slot(param.local)?;
            match (&param.ty, is_kernel) {
                // A slice: its address and length slots (`proc::abi`).
                (slice, true)
                    if crate::proc::abi::param_slots(slice)
                        .is_some_and(|s| s == crate::proc::abi::SLICE_SLOTS) =>
                {
                    let [ptr_ty, len_ty] = crate::proc::abi::SLICE_SLOTS
                        .map(|s| super::writer::abi_slot_type(s, slice));
                    let (ptr_ty, len_ty) = (
                        ptr_ty.map_err(|e| self.error(e.0))?,
                        len_ty.map_err(|e| self.error(e.0))?,
                    );
                    let ptr = self.fresh(&param.name);
                    let len = self.fresh(&format!("{}.len", param.name));
                    params.push(format!("{ptr_ty} noalias {ptr}"));
                    params.push(format!("{len_ty} {len}"));
                    if let Some((addr, ty)) = slot {
                        let s0 = self.def(
                            &format!("{}.s", param.name),
                            format!("insertvalue {ty} undef, {ptr_ty} {ptr}, 0"),
                        );
                        let s1 = self.def(
                            &format!("{}.s", param.name),
                            format!("insertvalue {ty} {s0}, {len_ty} {len}, 1"),
                        );
                        self.store(&ty, &s1, &addr);
                    }
                }
                (Type::Scalar(ir::ScalarType::Bool), true) => {
                    let arg = self.fresh(&param.name);
                    params.push(format!("i8 {arg}"));
                    let v = self.def(&param.name, format!("icmp ne i8 {arg}, 0"));
                    if let Some((addr, ty)) = slot {
                        self.store(&ty, &v, &addr);
                    }
                }
                (ty, _) => {
                    if !types::has_value(ty) {
                        continue;
                    }
                    let llvm_ty = types::value(ty).map_err(|e| self.error(e.0))?;
                    if is_kernel && !matches!(ty, Type::Scalar(_) | Type::Struct(_)) {
                        return Err(self.error(format!(
                            "kernel parameter `{}` has type `{ty}`, which cannot be passed to a kernel",
                            param.name
                        )));
                    }
                    let arg = self.fresh(&param.name);
                    params.push(format!("{llvm_ty} {arg}"));
                    if let Some((addr, ty)) = slot {
                        self.store(&ty, &arg, &addr);
                    }
                }
            }
        }

        // The launch's panic record (see `PANIC_RECORD_PARAM`), after the Rust parameters.
        let record_ty =
            super::writer::abi_slot_type(crate::proc::abi::ArgSlot::PanicRecord, &Type::Unit)
                .map_err(|e| self.error(e.0))?;
        params.push(format!("{record_ty} {}", super::PANIC_RECORD_PARAM));

        let value = self.block(&func.body)?;
        if self.open {
            if types::has_value(&func.ret) {
                match value {
                    Val::V(v) => {
                        let ty = types::value(&func.ret).map_err(|e| self.error(e.0))?;
                        self.terminate(format!("ret {ty} {v}"));
                    }
                    _ => self.terminate("unreachable"),
                }
            } else {
                self.terminate("ret void");
            }
        }

        let header = if is_kernel {
            format!(
                "define void @{}({})",
                types::ident(self.symbol.as_deref().unwrap_or(&func.name)),
                params.join(", ")
            )
        } else {
            format!(
                "define internal {} @{}({}) alwaysinline",
                types::ret(&func.ret).map_err(|e| self.error(e.0))?,
                types::ident(&device_function_symbol(&func.name)),
                params.join(", ")
            )
        };
        Ok(format!(
            "; {} `{}` ({}:{})\n{header} {{\nentry:\n{}{}}}\n",
            if is_kernel { "kernel" } else { "device fn" },
            func.name,
            func.file,
            func.loc.line,
            self.allocas,
            self.body
        ))
    }

    // ---- statements -------------------------------------------------------------------

    pub(super) fn stmt(&mut self, stmt: &'a Stmt) -> Result<(), Error> {
        match stmt {
            Stmt::Let { local, init } => {
                self.ir_local(*local)?;
                if let Some(init) = init {
                    let value = self.expr(*init)?;
                    if let (Val::V(v), Some((addr, ty))) = (value, self.slot(*local)?) {
                        self.store(&ty, &v, &addr);
                    }
                }
                Ok(())
            }
            Stmt::Assign { place, op, value } => self.assign(place, *op, *value),
            Stmt::Expr(e) => self.expr(*e).map(|_| ()),
            Stmt::While { id, cond, body } => self.while_loop(*id, *cond, body),
            Stmt::ForRange {
                id,
                var,
                start,
                end,
                inclusive,
                step,
                reverse,
                unroll,
                body,
            } => self.for_range(
                *id,
                *var,
                super::loops::RangeSpec {
                    start: *start,
                    end: *end,
                    inclusive: *inclusive,
                    step: *step,
                    reverse: *reverse,
                    unroll: *unroll,
                },
                body,
            ),
        }
    }

    fn while_loop(&mut self, id: LoopId, cond: Handle<Expr>, body: &'a Block) -> Result<(), Error> {
        let cond_l = self.label("while.cond");
        let body_l = self.label("while.body");
        let end_l = self.label("while.end");
        self.start_block(&cond_l);
        if let Val::V(c) = self.expr(cond)? {
            self.terminate(format!("br i1 {c}, label %{body_l}, label %{end_l}"));
        }
        self.start_block(&body_l);
        self.loop_body(id, body, &cond_l, &end_l, None)
    }

    /// A loop's body with `break`/`continue` bound to `end_l`/`again_l`, then the jump
    /// back to `again_l`; code after the loop continues in `end_l`. `slot` receives
    /// the values of `break value`.
    pub fn loop_body(
        &mut self,
        id: LoopId,
        body: &'a Block,
        again_l: &str,
        end_l: &str,
        slot: Option<(String, String)>,
    ) -> Result<(), Error> {
        let pending = self.pending_for.take();
        let hint = match pending {
            Some((ir::Unroll::Auto, var))
                if self.cold_depth > 0
                    && super::versioning::may_stay_rolled(self.func, var, body) =>
            {
                Some(LoopHint::Rolled)
            }
            Some((ir::Unroll::Full, _)) => Some(LoopHint::Full),
            Some((ir::Unroll::Times(n), _)) => Some(LoopHint::Times(n)),
            _ => None,
        };
        self.loops.push(LoopCtx {
            id,
            break_label: end_l.to_string(),
            continue_label: again_l.to_string(),
            slot,
        });
        let result = self.block(body);
        self.loops.pop();
        result?;
        match hint {
            Some(hint) if self.open => {
                let node = self.w.loop_hint(hint);
                self.terminate(format!("br label %{again_l}, !llvm.loop {node}"));
            }
            _ => self.branch_to(again_l),
        }
        self.start_block(end_l);
        Ok(())
    }

    /// `if` as a statement or expression; a value-producing `if` writes each branch's
    /// value to a stack slot that is read after the join.
    pub fn if_expr(
        &mut self,
        ty: &Type,
        cond: Handle<Expr>,
        then_block: &'a Block,
        else_block: Option<&'a Block>,
    ) -> Result<Val, Error> {
        if else_block.is_none()
            && matches!(ty, Type::Unit)
            && self.predicated_prefetch(cond, then_block)?
        {
            return Ok(Val::Unit);
        }
        let c = operand!(self, cond);
        let slot = self.result_slot("if.result", ty)?;
        let then_l = self.label("if.then");
        let else_l = else_block.map(|_| self.label("if.else"));
        let end_l = self.label("if.end");
        self.terminate(format!(
            "br i1 {c}, label %{then_l}, label %{}",
            else_l.as_ref().unwrap_or(&end_l)
        ));
        self.start_block(&then_l);
        let v = self.block(then_block)?;
        self.store_result(&slot, v);
        self.branch_to(&end_l);
        if let (Some(else_l), Some(else_block)) = (else_l, else_block) {
            self.start_block(&else_l);
            let v = self.block(else_block)?;
            self.store_result(&slot, v);
            self.branch_to(&end_l);
        }
        self.start_block(&end_l);
        self.read_result(slot)
    }

    /// `loop { .. }`; `break value` stores into the loop's result slot.
    pub fn loop_expr(&mut self, ty: &Type, id: LoopId, body: &'a Block) -> Result<Val, Error> {
        let slot = self.result_slot("loop.result", ty)?;
        let body_l = self.label("loop.body");
        let end_l = self.label("loop.end");
        self.start_block(&body_l);
        self.loop_body(id, body, &body_l, &end_l, slot.clone())?;
        self.read_result(slot)
    }

    pub fn break_expr(
        &mut self,
        target: LoopId,
        value: Option<Handle<Expr>>,
    ) -> Result<Val, Error> {
        let value = match value {
            Some(v) => self.expr(v)?,
            None => Val::Unit,
        };
        if value == Val::Never {
            return Ok(Val::Never);
        }
        let ctx = self.find_loop(target)?;
        let (label, slot) = (ctx.break_label.clone(), ctx.slot.clone());
        self.store_result(&slot, value);
        self.terminate(format!("br label %{label}"));
        Ok(Val::Never)
    }

    pub fn continue_expr(&mut self, target: LoopId) -> Result<Val, Error> {
        let label = self.find_loop(target)?.continue_label.clone();
        self.terminate(format!("br label %{label}"));
        Ok(Val::Never)
    }

    fn find_loop(&self, target: LoopId) -> Result<&LoopCtx, Error> {
        self.loops
            .iter()
            .rev()
            .find(|l| l.id == target)
            .ok_or_else(|| self.error(format!("`break`/`continue` outside loop {target:?}")))
    }

    fn result_slot(&mut self, base: &str, ty: &Type) -> Result<Option<(String, String)>, Error> {
        if !types::has_value(ty) {
            return Ok(None);
        }
        let llvm_ty = types::value(ty).map_err(|e| self.error(e.0))?;
        Ok(Some((self.alloca(base, &llvm_ty), llvm_ty)))
    }

    fn store_result(&mut self, slot: &Option<(String, String)>, value: Val) {
        if let (Some((addr, ty)), Val::V(v)) = (slot, value) {
            if self.open {
                self.store(ty, &v, addr);
            }
        }
    }

    fn read_result(&mut self, slot: Option<(String, String)>) -> Result<Val, Error> {
        Ok(match slot {
            Some((addr, ty)) => Val::V(self.load("result", &ty, &addr)),
            None => Val::Unit,
        })
    }
}
