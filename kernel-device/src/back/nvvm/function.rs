//! A function: value/label naming, the entry block's allocas, basic-block
//! bookkeeping, locals, loops and the control-flow constructs (its state: `state`).
//!
//! Block discipline: `open` says whether the current basic block still accepts
//! instructions. After a terminator (`br`, `ret`, `unreachable`) it is closed; code
//! that follows a diverging expression is written into a fresh block without
//! predecessors (`dead.N`), which keeps the text valid without tracking reachability.

use std::fmt::Write as _;

use super::prologue::{waits_for_prerequisite_grids, GRID_DEPENDENCY_WAIT};
use super::state::{operand, FunctionWriter, LoopCtx, LoopHint, Val};
use super::{device_function_symbol, types, Error};
use crate::ir::{self, Block, Expr, FunctionKind, Handle, Local, LoopId, Stmt, Type};

impl<'w, 'a> FunctionWriter<'w, 'a> {
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
        let dbg = self.dbg_suffix();
        let _ = writeln!(self.body, "  {}{dbg}", text.as_ref());
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
        let qualifier = self.store_qualifier(ptr); // debug info
        self.inst(format!(
            "store {qualifier}{llvm_ty} {value}, {llvm_ty}* {ptr}"
        ));
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
        for (handle, local) in func.locals.iter() {
            let slot = if types::has_value(&local.ty) {
                let ty = types::value(&local.ty).map_err(|e| self.error(e.0))?;
                let ptr = self.alloca(&format!("{}.addr", local.name), &ty);
                self.describe_local(handle, local, &ptr, &ty); // debug info
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
        if is_kernel && waits_for_prerequisite_grids(self.w.options.arch) {
            self.inst(GRID_DEPENDENCY_WAIT);
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
                // Hopper: TMA: the map by value as a grid constant, then its tile word.
                (Type::TensorMap { .. }, true) => {
                    let map = self.fresh(&param.name);
                    let tile = self.fresh(&format!("{}.tile", param.name));
                    params.push(super::tma::map_param(map.trim_start_matches('%')));
                    params.push(format!("i64 {tile}"));
                    if let Some((addr, ty)) = slot {
                        let value = self.tensor_map_value(&map, &tile);
                        self.store(&ty, &value, &addr);
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

        let value = if is_kernel {
            self.kernel_body(&func.body)?
        } else {
            self.block(&func.body)?
        };
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
            "; {} `{}` ({}:{})\n{header}{} {{\nentry:\n{}{}}}\n",
            if is_kernel { "kernel" } else { "device fn" },
            func.name,
            func.file,
            func.loc.line,
            self.subprogram_suffix(),
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
                        // debug info: the binding is the `let`'s line (where a
                        // debugger's step shows the variable set).
                        let previous = self.set_loc(self.ir_local(*local)?.loc);
                        self.store(&ty, &v, &addr);
                        self.restore_loc(previous);
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
                super::state::RangeSpec {
                    start: *start,
                    end: *end,
                    inclusive: *inclusive,
                    step: *step,
                    reverse: *reverse,
                    unroll: *unroll,
                },
                body,
            ),
            Stmt::Versioned(v) => self.versioned(v),
            // Written by `if_expr`, whose whole block it is.
            Stmt::PredicatedPrefetch(body) => self.block(body).map(|_| ()),
            // print
            Stmt::Print(p) => self.print_stmt(p),
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
        self.loop_body(id, body, [&cond_l, &end_l], None, None)
    }

    /// A loop's body with `break`/`continue` bound to `end_l`/`again_l`, then the jump
    /// back to `again_l` (carrying `hint`); code after the loop continues in `end_l`.
    /// `slot` receives the values of `break value`.
    pub fn loop_body(
        &mut self,
        id: LoopId,
        body: &'a Block,
        [again_l, end_l]: [&str; 2],
        slot: Option<(String, String)>,
        hint: Option<LoopHint>,
    ) -> Result<(), Error> {
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
        if let (None, None, [Stmt::PredicatedPrefetch(body)]) =
            (else_block, then_block.tail, then_block.stmts.as_slice())
        {
            self.predicated_prefetch(cond, body)?;
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
        self.loop_body(id, body, [&body_l, &end_l], slot.clone(), None)?;
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
