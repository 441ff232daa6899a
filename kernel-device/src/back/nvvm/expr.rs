//! Expressions and assignments with Rust's release semantics: wrapping `+ - *`,
//! masked shifts, panicking `/ %`, saturating float→int casts, bounds-checked indexing.

use super::state::{operand, FunctionWriter, Val};
use super::{types, Error};
use crate::ir::{
    BinaryOp, Expr, ExprKind, Handle, Literal, LogicalOp, Place, ScalarType, Type, UnaryOp,
};

impl<'w, 'a> FunctionWriter<'w, 'a> {
    /// Lowers an expression. A `Never`-typed expression always leaves the current
    /// block closed, so callers can rely on `Val::Never` meaning "nothing follows".
    pub fn expr(&mut self, handle: Handle<Expr>) -> Result<Val, Error> {
        let expr = self.ir_expr(handle)?;
        let previous = self.set_loc(self.func.loc_of(handle)); // debug info
        let value = self.expr_inner(handle, expr);
        self.restore_loc(previous);
        let value = value?;
        if expr.ty == Type::Never || value == Val::Never {
            if self.is_open() {
                self.terminate("unreachable");
            }
            return Ok(Val::Never);
        }
        Ok(value)
    }

    fn expr_inner(&mut self, handle: Handle<Expr>, expr: &'a Expr) -> Result<Val, Error> {
        match &expr.kind {
            ExprKind::Literal(lit) => self.literal(&expr.ty, lit),
            ExprKind::Local(local) => Ok(match self.slot(*local)? {
                Some((addr, ty)) => {
                    let name = self.func.locals[*local].name.clone();
                    Val::V(self.load(&name, &ty, &addr))
                }
                None => Val::Unit,
            }),
            ExprKind::Unary { op, operand } => {
                let s = self.scalar_of(*operand)?;
                let v = operand!(self, *operand);
                self.unary(*op, s, &v).map(Val::V)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let ls = self.scalar_of(*lhs)?;
                let rs = self.scalar_of(*rhs)?;
                let l = operand!(self, *lhs);
                let r = operand!(self, *rhs);
                self.binary(handle, *op, ls, &l, rs, &r).map(Val::V)
            }
            ExprKind::Logical { op, lhs, rhs } => self.logical(*op, *lhs, *rhs),
            ExprKind::Cast { operand, to } => {
                let from = self.scalar_of(*operand)?;
                let v = operand!(self, *operand);
                self.cast(from, *to, &v).map(Val::V)
            }
            ExprKind::Load(place) => match self.place_ptr(place)? {
                Some(p) => self.load_place(&p, "elem").map(Val::V),
                None => Ok(Val::Never),
            },
            ExprKind::AddressOf { place, .. } => self.address_of(place, &expr.ty),
            ExprKind::RefToSlice(reference) => self.ref_to_slice(*reference, &expr.ty),
            ExprKind::Array(items) => self.array_value(&expr.ty, items, None),
            ExprKind::Splat { value, len } => {
                self.array_value(&expr.ty, std::slice::from_ref(value), Some(*len))
            }
            ExprKind::Len(slice) => {
                let ty = types::value(self.ty_of(*slice)?).map_err(|e| self.error(e.0))?;
                let s = operand!(self, *slice);
                Ok(Val::V(self.def("len", format!("extractvalue {ty} {s}, 1"))))
            }
            ExprKind::SubSlice {
                slice,
                start,
                end,
                inclusive,
            } => self.sub_slice(handle, *slice, *start, *end, *inclusive),
            ExprKind::SplitAt { slice, mid } => self.split_at(handle, &expr.ty, *slice, *mid),
            ExprKind::DynamicSharedTake {
                cursor,
                elem,
                count,
            } => self.dynamic_shared_take(handle, *cursor, *elem, *count),
            ExprKind::Tuple(items) => {
                if !types::has_value(&expr.ty) {
                    return Ok(Val::Unit);
                }
                let ty = types::value(&expr.ty).map_err(|e| self.error(e.0))?;
                // A struct literal holds its fields in memory form (`bool` as a byte).
                let is_struct = matches!(expr.ty, Type::Struct(_));
                let mut acc = "undef".to_string();
                for (i, item) in items.iter().enumerate() {
                    let item_ir_ty = self.ty_of(*item)?.clone();
                    let item_ty = if is_struct {
                        types::memory(&item_ir_ty)
                    } else {
                        types::value(&item_ir_ty)
                    }
                    .map_err(|e| self.error(e.0))?;
                    let v = operand!(self, *item);
                    let v = match item_ir_ty {
                        Type::Scalar(s) if is_struct => self.value_to_memory(s, &v),
                        _ => v,
                    };
                    acc = self.def(
                        "tuple",
                        format!("insertvalue {ty} {acc}, {item_ty} {v}, {i}"),
                    );
                }
                Ok(Val::V(acc))
            }
            ExprKind::Field { base, index } => {
                let base_ty = self.ty_of(*base)?;
                if let Type::Struct(def) = base_ty {
                    let field = def
                        .fields
                        .get(*index as usize)
                        .map(|f| f.ty.clone())
                        .ok_or_else(|| self.error(format!("no field {index} on `{base_ty}`")))?;
                    let ty = types::value(base_ty).map_err(|e| self.error(e.0))?;
                    let b = operand!(self, *base);
                    let v = self.def("field", format!("extractvalue {ty} {b}, {index}"));
                    return Ok(Val::V(match field {
                        Type::Scalar(s) => self.value_from_memory(s, &v),
                        _ => v,
                    }));
                }
                let Type::Tuple(fields) = base_ty else {
                    return Err(self.error(format!("field access on `{base_ty}`")));
                };
                if fields.get(*index as usize).is_none() {
                    return Err(self.error(format!("no field {index} on `{base_ty}`")));
                }
                let ty = types::value(base_ty).map_err(|e| self.error(e.0))?;
                let b = operand!(self, *base);
                Ok(Val::V(
                    self.def("field", format!("extractvalue {ty} {b}, {index}")),
                ))
            }
            ExprKind::Call { function, args } => self.call(&expr.ty, *function, args),
            ExprKind::Intrinsic { intrinsic, args } => {
                self.intrinsic(handle, &expr.ty, *intrinsic, args)
            }
            ExprKind::If {
                cond,
                then_block,
                else_block,
            } => self.if_expr(&expr.ty, *cond, then_block, else_block.as_ref()),
            ExprKind::Loop { id, body } => self.loop_expr(&expr.ty, *id, body),
            ExprKind::Break { target, value } => self.break_expr(*target, *value),
            ExprKind::Continue { target } => self.continue_expr(*target),
            ExprKind::Return(value) => {
                let v = match value {
                    Some(v) => self.expr(*v)?,
                    None => Val::Unit,
                };
                match v {
                    Val::Never => {}
                    Val::V(v) if types::has_value(&self.func.ret) => {
                        let ty = types::value(&self.func.ret).map_err(|e| self.error(e.0))?;
                        self.terminate(format!("ret {ty} {v}"));
                    }
                    _ if types::has_value(&self.func.ret) => {
                        return Err(self.error("`return` without a value"))
                    }
                    _ => self.terminate("ret void"),
                }
                Ok(Val::Never)
            }
            ExprKind::Block(block) => self.block(block),
        }
    }

    fn literal(&mut self, ty: &Type, lit: &Literal) -> Result<Val, Error> {
        let s = ty
            .scalar()
            .ok_or_else(|| self.error(format!("literal of type `{ty}`")))?;
        Ok(Val::V(match (lit, s.is_float()) {
            (Literal::Bool(b), _) if s == ScalarType::Bool => b.to_string(),
            (Literal::Int(bits), false) if s != ScalarType::Bool => types::int_const(s, *bits),
            (Literal::Float(f), true) => types::float_const(s, *f),
            // An integer literal the frontend typed as a float (`let x: f32 = 1` is not
            // Rust, but be lenient rather than wrong).
            (Literal::Int(bits), true) => types::float_const(s, *bits as i64 as f64),
            _ => return Err(self.error(format!("literal {lit:?} of type `{s}`"))),
        }))
    }

    fn unary(&mut self, op: UnaryOp, s: ScalarType, v: &str) -> Result<String, Error> {
        let ty = types::scalar(s);
        Ok(match (op, s) {
            (UnaryOp::Neg, s) if s.is_half() => self.half_neg(s, v),
            (UnaryOp::Neg, s) if s.is_float() => {
                let z = types::neg_zero(s);
                self.def("neg", format!("fsub {ty} {z}, {v}"))
            }
            (UnaryOp::Neg, s) if s.is_integer() => self.def("neg", format!("sub {ty} 0, {v}")),
            (UnaryOp::Not, ScalarType::Bool) => self.def("not", format!("xor i1 {v}, true")),
            (UnaryOp::Not, s) if s.is_integer() => self.def("not", format!("xor {ty} {v}, -1")),
            _ => return Err(self.error(format!("unary {op:?} on `{s}`"))),
        })
    }

    /// `lhs op rhs`. `site` is the expression a panic (division by zero) is blamed on.
    pub fn binary(
        &mut self,
        site: Handle<Expr>,
        op: BinaryOp,
        ls: ScalarType,
        l: &str,
        rs: ScalarType,
        r: &str,
    ) -> Result<String, Error> {
        let ty = types::scalar(ls);
        let float = ls.is_float();
        let signed = ls.is_signed_integer();
        if !matches!(op, BinaryOp::Shl | BinaryOp::Shr) && ls != rs && ty != types::scalar(rs) {
            return Err(self.error(format!("`{ls} {op:?} {rs}`: operand types differ")));
        }
        if ls.is_half() {
            return self.half_binary(site, op, ls, l, r);
        }
        let arith = |int: &'static str, fl: &'static str| if float { fl } else { int };
        let inst = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul if ls == ScalarType::Bool => {
                return Err(self.error(format!("arithmetic {op:?} on bool")))
            }
            BinaryOp::Add => arith("add", "fadd"),
            BinaryOp::Sub => arith("sub", "fsub"),
            BinaryOp::Mul => arith("mul", "fmul"),
            BinaryOp::Div if float => return Ok(self.def("div", format!("fdiv {ty} {l}, {r}"))),
            BinaryOp::Rem if float => {
                // Rust's float `%` is C's `fmod` (exact: the result is representable).
                // LLVM's `frem` is lowered by NVPTX as `a - trunc(a / b) * b`, which
                // rounds twice and is wrong for large quotients; libdevice's fmod is exact.
                let name = if ls == ScalarType::F32 {
                    "__nv_fmodf"
                } else {
                    "__nv_fmod"
                };
                return Ok(self.call_extern("rem", ty, name, &[(ty, l), (ty, r)]));
            }
            BinaryOp::Div | BinaryOp::Rem => {
                if ls == ScalarType::Bool {
                    return Err(self.error(format!("{op:?} on bool")));
                }
                self.division_checks(site, op, ls, l, r)?;
                match (op, signed) {
                    (BinaryOp::Div, true) => "sdiv",
                    (BinaryOp::Div, false) => "udiv",
                    (_, true) => "srem",
                    (_, false) => "urem",
                }
            }
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor if float => {
                return Err(self.error(format!("bitwise {op:?} on `{ls}`")))
            }
            BinaryOp::BitAnd => "and",
            BinaryOp::BitOr => "or",
            BinaryOp::BitXor => "xor",
            BinaryOp::Shl | BinaryOp::Shr => return self.shift(op, ls, l, rs, r),
            cmp => {
                let pred = comparison(cmp, ls);
                let inst = if float { "fcmp" } else { "icmp" };
                return Ok(self.def("cmp", format!("{inst} {pred} {ty} {l}, {r}")));
            }
        };
        let base = match op {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::BitAnd => "and",
            BinaryOp::BitOr => "or",
            _ => "xor",
        };
        Ok(self.def(base, format!("{inst} {ty} {l}, {r}")))
    }

    /// Shifts mask the amount to the lhs width (`x << 33` on u32 shifts by 1) after
    /// converting it to the lhs type; only the low bits matter, so zext/trunc suffice.
    fn shift(
        &mut self,
        op: BinaryOp,
        ls: ScalarType,
        l: &str,
        rs: ScalarType,
        r: &str,
    ) -> Result<String, Error> {
        if !ls.is_integer() || !rs.is_integer() {
            return Err(self.error(format!("shift of `{ls}` by `{rs}`")));
        }
        let ty = types::scalar(ls);
        let rty = types::scalar(rs);
        let amount = match rs.bits().cmp(&ls.bits()) {
            std::cmp::Ordering::Equal => r.to_string(),
            std::cmp::Ordering::Greater => self.def("shamt", format!("trunc {rty} {r} to {ty}")),
            std::cmp::Ordering::Less => self.def("shamt", format!("zext {rty} {r} to {ty}")),
        };
        let masked = self.def("shamt", format!("and {ty} {amount}, {}", ls.bits() - 1));
        let inst = match (op, ls.is_signed_integer()) {
            (BinaryOp::Shl, _) => "shl",
            (_, true) => "ashr",
            (_, false) => "lshr",
        };
        Ok(self.def(inst, format!("{inst} {ty} {l}, {masked}")))
    }

    fn logical(
        &mut self,
        op: LogicalOp,
        lhs: Handle<Expr>,
        rhs: Handle<Expr>,
    ) -> Result<Val, Error> {
        let l = operand!(self, lhs);
        let slot = self.alloca("logical", "i1");
        self.store("i1", &l, &slot);
        let rhs_l = self.label(if op == LogicalOp::And {
            "and.rhs"
        } else {
            "or.rhs"
        });
        let end_l = self.label(if op == LogicalOp::And {
            "and.end"
        } else {
            "or.end"
        });
        let (on_true, on_false) = match op {
            LogicalOp::And => (&rhs_l, &end_l),
            LogicalOp::Or => (&end_l, &rhs_l),
        };
        self.terminate(format!("br i1 {l}, label %{on_true}, label %{on_false}"));
        self.start_block(&rhs_l);
        if let Val::V(r) = self.expr(rhs)? {
            self.store("i1", &r, &slot);
        }
        self.branch_to(&end_l);
        self.start_block(&end_l);
        Ok(Val::V(self.load("logical", "i1", &slot)))
    }

    /// `as` between scalars with Rust's rules.
    pub fn cast(&mut self, from: ScalarType, to: ScalarType, v: &str) -> Result<String, Error> {
        use ScalarType::*;
        let (ft, tt) = (types::scalar(from), types::scalar(to));
        if from == to || (from.is_integer() && to.is_integer() && ft == tt) {
            return Ok(v.to_string());
        }
        if from.is_half() || to.is_half() {
            return self.half_cast(from, to, v);
        }
        Ok(match (from, to) {
            (Bool, t) if t.is_integer() => self.def("cast", format!("zext i1 {v} to {tt}")),
            (f, t) if f.is_integer() && t.is_integer() => {
                let inst = if f.bits() > t.bits() {
                    "trunc"
                } else if f.is_signed_integer() {
                    "sext"
                } else {
                    "zext"
                };
                self.def("cast", format!("{inst} {ft} {v} to {tt}"))
            }
            (f, t) if f.is_integer() && t.is_float() => {
                let inst = if f.is_signed_integer() {
                    "sitofp"
                } else {
                    "uitofp"
                };
                self.def("cast", format!("{inst} {ft} {v} to {tt}"))
            }
            (F32, F64) => self.def("cast", format!("fpext float {v} to double")),
            (F64, F32) => self.def("cast", format!("fptrunc double {v} to float")),
            (f, t) if f.is_float() && t.is_integer() => self.float_to_int(f, t, v)?,
            _ => return Err(self.error(format!("cast from `{from}` to `{to}`"))),
        })
    }

    /// Reads memory of element type `elem` as a value (`bool` is a byte in memory).
    pub fn value_from_memory(&mut self, elem: ScalarType, v: &str) -> String {
        if elem == ScalarType::Bool {
            self.def("tobool", format!("icmp ne i8 {v}, 0"))
        } else {
            v.to_string()
        }
    }

    pub fn value_to_memory(&mut self, elem: ScalarType, v: &str) -> String {
        if elem == ScalarType::Bool {
            self.def("frombool", format!("zext i1 {v} to i8"))
        } else {
            v.to_string()
        }
    }

    /// Pointer to element `i` of the slice value `s` of type `slice_ty`, after the bounds
    /// check (unless the function opted out).
    pub fn checked_element_ptr(
        &mut self,
        site: Handle<Expr>,
        slice_ty: &Type,
        s: &str,
        i: &str,
    ) -> Result<String, Error> {
        self.element_ptr(Some(site), slice_ty, s, i)
    }

    /// `&s[i]` for an intrinsic's index operand `index` (`bars[index]`, a descriptor's
    /// `tile[index]`): checked at `site` unless the optimiser proved the index in
    /// bounds (`opt::elide`, recorded in `unchecked_indices`).
    pub fn indexed_element_ptr(
        &mut self,
        site: Handle<Expr>,
        slice_ty: &Type,
        (s, i): (&str, &str),
        index: Handle<Expr>,
    ) -> Result<String, Error> {
        let site = (!self.func.unchecked_indices.contains(&index)).then_some(site);
        self.element_ptr(site, slice_ty, s, i)
    }

    /// `&s[i]`, checked against the length at `site` when there is one.
    fn element_ptr(
        &mut self,
        site: Option<Handle<Expr>>,
        slice_ty: &Type,
        s: &str,
        i: &str,
    ) -> Result<String, Error> {
        let Type::Slice { elem, .. } = slice_ty else {
            return Err(self.error(format!("indexing a `{slice_ty}`")));
        };
        let sty = types::value(slice_ty).map_err(|e| self.error(e.0))?;
        let mem = types::scalar_mem(*elem);
        let base = self.def("ptr", format!("extractvalue {sty} {s}, 0"));
        if let Some(site) = site.filter(|_| self.func.options.bounds_check) {
            let len = self.def("len", format!("extractvalue {sty} {s}, 1"));
            let ok = self.def("inbounds", format!("icmp ult i64 {i}, {len}"));
            self.panic_unless(&ok, site, crate::ir::checks::INDEX_MESSAGE, (&i, &len))?;
        }
        Ok(self.def(
            "elem.ptr",
            format!("getelementptr {mem}, {mem}* {base}, i64 {i}"),
        ))
    }

    /// `place = value` / `place op= value`. As in Rust for primitive types, the value is
    /// evaluated before the place (and so before its bounds check).
    pub fn assign(
        &mut self,
        place: &'a Place,
        op: Option<BinaryOp>,
        value: Handle<Expr>,
    ) -> Result<(), Error> {
        if let (None, Some(&condition)) = (op, self.func.predicated_loads.get(&value)) {
            return self.predicated_assign(place, value, condition);
        }
        let value_scalar = self.ty_of(value)?.scalar();
        let v = match self.expr(value)? {
            Val::V(v) => v,
            Val::Never => return Ok(()),
            Val::Unit => return Ok(()),
        };
        // The place's address, its bounds check and the store are the statement's
        // line (what compute-sanitizer names for a bad store), not the function's.
        let previous = self.set_loc(place.loc); // debug info
        let stored = self.store_assigned(place, op, value, value_scalar, v);
        self.restore_loc(previous);
        stored
    }

    /// The place part of [`Self::assign`]: address, bounds check, `op`, store.
    fn store_assigned(
        &mut self,
        place: &'a Place,
        op: Option<BinaryOp>,
        value: Handle<Expr>,
        value_scalar: Option<crate::ir::ScalarType>,
        v: String,
    ) -> Result<(), Error> {
        let Some(p) = self.place_ptr(place)? else {
            return Ok(());
        };
        let new = match op {
            None => v,
            Some(op) => {
                let place_scalar =
                    p.ty.scalar()
                        .ok_or_else(|| self.error(format!("compound assignment to `{}`", p.ty)))?;
                let rs = value_scalar
                    .ok_or_else(|| self.error("compound assignment of a non-scalar"))?;
                let old = self.load_place(&p, "old")?;
                self.binary(value, op, place_scalar, &old, rs, &v)?
            }
        };
        self.store_place(&p, &new)
    }

    fn call(
        &mut self,
        ty: &Type,
        function: Handle<crate::ir::Function>,
        args: &[Handle<Expr>],
    ) -> Result<Val, Error> {
        let callee = self
            .w
            .module
            .functions
            .get(function)
            .ok_or_else(|| self.error("call of a function not in the module"))?;
        if callee.kind == crate::ir::FunctionKind::Kernel {
            return Err(self.error(format!("kernel `{}` called from device code", callee.name)));
        }
        if callee.params.len() != args.len() {
            return Err(self.error(format!(
                "`{}` takes {} arguments, {} given",
                callee.name,
                callee.params.len(),
                args.len()
            )));
        }
        let mut operands = Vec::new();
        for (param, arg) in callee.params.iter().zip(args) {
            if !types::has_value(&param.ty) {
                self.expr(*arg)?;
                continue;
            }
            let pty = types::value(&param.ty).map_err(|e| self.error(e.0))?;
            let v = operand!(self, *arg);
            // A shared array passed to a generic-pointer parameter (`&mut [[T; N]; M]`).
            let at = self.ty_of(*arg)?;
            let v = match (at, &param.ty) {
                (
                    Type::Ref { space, .. },
                    Type::Ref {
                        space: crate::ir::AddressSpace::Generic,
                        ..
                    },
                ) if *space != crate::ir::AddressSpace::Generic => {
                    let aty = types::value(at).map_err(|e| self.error(e.0))?;
                    self.def("generic", format!("addrspacecast {aty} {v} to {pty}"))
                }
                _ => v,
            };
            operands.push(format!("{pty} {v}"));
        }
        // The callee panics into the same record as its caller.
        operands.push(format!("i64 {}", super::PANIC_RECORD_PARAM));
        let ret = types::ret(&callee.ret).map_err(|e| self.error(e.0))?;
        let symbol = types::ident(&super::device_function_symbol(&callee.name));
        let call = format!("call {ret} @{symbol}({})", operands.join(", "));
        if ret == "void" {
            self.inst(call);
            Ok(if *ty == Type::Never {
                Val::Never
            } else {
                Val::Unit
            })
        } else {
            Ok(Val::V(self.def("call", call)))
        }
    }
}

/// The `icmp`/`fcmp` predicate. Float `!=` is unordered (`NaN != NaN` is true), the
/// others ordered, as in Rust; bool compares as unsigned (`false < true`).
pub(super) fn comparison(op: BinaryOp, s: ScalarType) -> &'static str {
    let signed = s.is_signed_integer();
    match (op, s.is_float(), signed) {
        (BinaryOp::Eq, true, _) => "oeq",
        (BinaryOp::Ne, true, _) => "une",
        (BinaryOp::Lt, true, _) => "olt",
        (BinaryOp::Le, true, _) => "ole",
        (BinaryOp::Gt, true, _) => "ogt",
        (BinaryOp::Ge, true, _) => "oge",
        (BinaryOp::Eq, false, _) => "eq",
        (BinaryOp::Ne, false, _) => "ne",
        (BinaryOp::Lt, false, true) => "slt",
        (BinaryOp::Le, false, true) => "sle",
        (BinaryOp::Gt, false, true) => "sgt",
        (BinaryOp::Ge, false, true) => "sge",
        (BinaryOp::Lt, false, false) => "ult",
        (BinaryOp::Le, false, false) => "ule",
        (BinaryOp::Gt, false, false) => "ugt",
        _ => "uge",
    }
}
