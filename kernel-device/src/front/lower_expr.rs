//! Expressions: literals, paths, operators, casts, indexing, fields, tuples, `if`,
//! blocks. Calls and methods are in `calls.rs`, intrinsics in `intrinsics.rs`.

use super::check;
use super::first_span::FirstSpan;
use super::infer::{Ty, VarKind};
use super::intrinsics;
use super::lower_fn::{Deferred, FnLowerer, OperandClass, OperandMsg};
use super::types::{lower_type, TypeSite};
use crate::ir::{self, BinaryOp, Handle, Literal, ScalarType};
use proc_macro2::Span;
use syn::spanned::Spanned;

impl FnLowerer<'_> {
    pub fn lower_expr(&mut self, expr: &syn::Expr) -> Handle<ir::Expr> {
        match expr {
            syn::Expr::Paren(p) => self.lower_expr(&p.expr),
            syn::Expr::Group(g) => self.lower_expr(&g.expr),
            syn::Expr::Lit(l) => self.lower_lit(&l.lit),
            syn::Expr::Path(p) => self.lower_path_expr(p),
            syn::Expr::Binary(b) => self.lower_binary(b),
            syn::Expr::Unary(u) => self.lower_unary(u),
            syn::Expr::Cast(c) => self.lower_cast(c),
            syn::Expr::Index(ix) => self.lower_index(ix),
            syn::Expr::Array(a) => self.lower_array_literal(a),
            syn::Expr::Repeat(r) => self.lower_repeat(r),
            syn::Expr::Reference(r) => self.lower_reference(r),
            syn::Expr::Field(f) => self.lower_field(f),
            syn::Expr::Struct(s) => self.lower_struct_literal(s),
            syn::Expr::Tuple(t) => {
                let items: Vec<Handle<ir::Expr>> =
                    t.elems.iter().map(|e| self.lower_expr(e)).collect();
                let ty = if items.is_empty() {
                    Ty::Unit
                } else {
                    Ty::Tuple(items.iter().map(|h| self.ty_of(*h)).collect())
                };
                self.push_expr(ir::ExprKind::Tuple(items), ty, t.span())
            }
            syn::Expr::If(i) => self.lower_if(i),
            syn::Expr::Match(m) => self.lower_match(m),
            syn::Expr::Macro(m) if super::lower_match::is_matches_macro(&m.mac) => {
                self.lower_matches(m)
            }
            // print
            syn::Expr::Macro(m) if super::print::DebugMacro::of(&m.mac).is_some() => {
                self.lower_debug_macro(&m.mac)
            }
            syn::Expr::Block(b) => {
                if let Some(label) = &b.label {
                    self.error_hint(
                        label.span(),
                        "labelled blocks are not supported in kernels",
                        "use a labelled `loop` with `break 'label value`",
                    );
                }
                let (block, ty) = self.lower_block(&b.block);
                self.push_expr(ir::ExprKind::Block(block), ty, b.span())
            }
            syn::Expr::Loop(l) => self.lower_loop(l),
            syn::Expr::Break(b) => self.lower_break(b),
            syn::Expr::Continue(c) => self.lower_continue(c),
            syn::Expr::Return(r) => self.lower_return(r),
            syn::Expr::Call(c) => self.lower_call(c),
            syn::Expr::MethodCall(m) => self.lower_method_call(m),
            syn::Expr::Assign(_) | syn::Expr::While(_) | syn::Expr::ForLoop(_) => {
                self.diags.push(check::unsupported_expr(expr));
                self.error_expr(expr.span())
            }
            other => {
                // Still look inside for more errors (a closure body, an unsafe block's
                // contents are not lowered: one error for the construct is enough).
                self.diags.push(check::unsupported_expr(other));
                self.error_expr(other.span())
            }
        }
    }

    fn lower_lit(&mut self, lit: &syn::Lit) -> Handle<ir::Expr> {
        let span = lit.span();
        match lit {
            syn::Lit::Bool(b) => self.push_expr(
                ir::ExprKind::Literal(Literal::Bool(b.value)),
                Ty::BOOL,
                span,
            ),
            syn::Lit::Int(i) => {
                let suffix = i.suffix();
                if suffix == "f32" || suffix == "f64" {
                    // `1f32` is a float literal in Rust even though syn lexes it as an integer.
                    let Ok(v) = i.base10_parse::<f64>() else {
                        self.error(span, "invalid float literal");
                        return self.error_expr(span);
                    };
                    let ty = Ty::Scalar(if suffix == "f32" {
                        ScalarType::F32
                    } else {
                        ScalarType::F64
                    });
                    let h = self.push_expr(ir::ExprKind::Literal(Literal::Float(v)), ty, span);
                    self.float_literals.push((h, i.base10_digits().to_string()));
                    return h;
                }
                let ty = match suffix {
                    "" => self.fresh(VarKind::Int),
                    "i128" | "u128" => {
                        self.diags.push(super::types::wide_int_diag(suffix, span));
                        return self.error_expr(span);
                    }
                    s => match ScalarType::from_rust_name(s).filter(|s| s.is_integer()) {
                        Some(s) => Ty::Scalar(s),
                        None => {
                            self.error(span, format!("invalid suffix `{s}` for number literal"));
                            return self.error_expr(span);
                        }
                    },
                };
                let Ok(v) = i.base10_parse::<u64>() else {
                    self.error_hint(
                        span,
                        "integer literal is too large",
                        "the largest supported integer literal is `u64::MAX`",
                    );
                    return self.error_expr(span);
                };
                let h = self.push_expr(ir::ExprKind::Literal(Literal::Int(v)), ty, span);
                self.int_literals.push((h, v, false, span));
                h
            }
            syn::Lit::Float(f) => {
                let ty = match f.suffix() {
                    "" => self.fresh(VarKind::Float),
                    "f32" => Ty::Scalar(ScalarType::F32),
                    "f64" => Ty::Scalar(ScalarType::F64),
                    s => {
                        self.error(span, format!("invalid suffix `{s}` for float literal"));
                        return self.error_expr(span);
                    }
                };
                let Ok(v) = f.base10_parse::<f64>() else {
                    self.error(span, "invalid float literal");
                    return self.error_expr(span);
                };
                let h = self.push_expr(ir::ExprKind::Literal(Literal::Float(v)), ty, span);
                self.float_literals.push((h, f.base10_digits().to_string()));
                h
            }
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => {
                self.error_hint(
                    span,
                    "string literals are not supported in kernels: device code has no strings",
                    "pass data as slices of numbers",
                );
                self.error_expr(span)
            }
            syn::Lit::Char(_) | syn::Lit::Byte(_) => {
                self.error_hint(
                    span,
                    "character literals are not supported in kernels",
                    "use the integer value, e.g. `65u8`",
                );
                self.error_expr(span)
            }
            _ => {
                self.error(span, "this literal is not supported in kernels");
                self.error_expr(span)
            }
        }
    }

    fn lower_path_expr(&mut self, p: &syn::ExprPath) -> Handle<ir::Expr> {
        let span = p.first_span();
        if p.qself.is_some() {
            self.error(span, "qualified paths are not supported in kernels");
            return self.error_expr(span);
        }
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            if let Some(local) = self.lookup(&name) {
                let ty = self.local_ty(local);
                return self.push_expr(ir::ExprKind::Local(local), ty, span);
            }
            if let Some(h) = self.lower_const(&name, span) {
                return h;
            }
            if intrinsics::is_intrinsic_name(&name) || self.is_known_function(&name) {
                self.error_hint(
                    span,
                    format!("function `{name}` cannot be used as a value in kernels"),
                    format!("call it: `{name}(..)`"),
                );
                return self.error_expr(span);
            }
            self.error_hint(
                ident.span(),
                format!("cannot find value `{name}` in this scope"),
                format!("if `{name}` is a function, call it (`{name}(..)`): functions are not values in kernels"),
            );
            return self.error_expr(span);
        }
        if let Some((lit, scalar)) = intrinsics::constant(&p.path) {
            return self.push_expr(ir::ExprKind::Literal(lit), Ty::Scalar(scalar), span);
        }
        if let Some(key) = super::consts::const_path_key(&p.path) {
            if let Some(h) = self.lower_const(&key, span) {
                return h;
            }
        }
        if let Some(h) = self.lower_enum_variant(&p.path, span) {
            return h;
        }
        let text = quote::ToTokens::to_token_stream(&p.path)
            .to_string()
            .replace(' ', "");
        let last = p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if last == "None" {
            self.error_hint(
                span,
                "`Option` is not supported in kernels",
                "use a flag or a sentinel value",
            );
        } else {
            self.error_hint(
                span,
                format!("cannot find value `{text}` in kernels"),
                "supported constants are the scalar ones such as `f32::MAX`, `u32::MAX` and `std::f32::consts::PI`",
            );
        }
        self.error_expr(span)
    }

    /// Type rules for `l op r` (also `l op= r`); reports and returns the result type.
    pub fn check_binary_operands(
        &mut self,
        op: BinaryOp,
        lt: &Ty,
        rt: &Ty,
        op_span: Span,
        rhs_span: Span,
        compound: bool,
    ) -> Ty {
        use BinaryOp::*;
        let msg = |lt: &Ty, rt: &Ty| OperandMsg::Binary {
            op,
            lhs: lt.clone(),
            rhs: rt.clone(),
            compound,
        };
        match op {
            Shl | Shr => {
                for ty in [lt, rt] {
                    self.deferred.push(Deferred::Operand {
                        ty: ty.clone(),
                        span: op_span,
                        class: OperandClass::Integer,
                        msg: msg(lt, rt),
                    });
                }
                lt.clone()
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                if self.table.unify(lt, rt).is_err() {
                    self.mismatch(rhs_span, lt, rt);
                } else {
                    self.deferred.push(Deferred::Operand {
                        ty: lt.clone(),
                        span: op_span,
                        class: OperandClass::Scalar,
                        msg: msg(lt, rt),
                    });
                }
                Ty::BOOL
            }
            _ => {
                let class = crate::proc::operators::binary_operand_class(op);
                if self.table.unify(lt, rt).is_err() {
                    if self.table.is_unknown_named(lt) || self.table.is_unknown_named(rt) {
                        let l = self.table.describe(lt);
                        let r = self.table.describe(rt);
                        let message = super::lower_fn::binop_message(op, &l, &r, compound);
                        self.error_hint(
                            op_span,
                            message,
                            "structs and enums have no arithmetic in kernels: an enum converts to its integer with `as` (`op as u8`), compute with a struct's fields one by one",
                        );
                        return Ty::Error;
                    }
                    if !self.table.is_suppressed(lt) && !self.table.is_suppressed(rt) {
                        let l = self.table.describe(lt);
                        let r = self.table.describe(rt);
                        let message = super::lower_fn::binop_message(op, &l, &r, compound);
                        // The half types have no `as` and no literals of their own.
                        let half = [&l, &r]
                            .into_iter()
                            .find(|t| matches!(t.as_str(), "f16" | "bf16"));
                        let hint = match half {
                            Some(h) => format!("both operands must have the same type; make a `{h}` with `{h}::from_f32(..)` (for a constant too: `{h}::from_f32(2.0)`)"),
                            None => format!("both operands must have the same type; convert one with `as`, e.g. `(..) as {l}`"),
                        };
                        self.error_hint(op_span, message, hint);
                    }
                } else {
                    self.deferred.push(Deferred::Operand {
                        ty: lt.clone(),
                        span: op_span,
                        class,
                        msg: msg(lt, rt),
                    });
                }
                if self.table.is_never(lt) {
                    rt.clone()
                } else {
                    lt.clone()
                }
            }
        }
    }

    fn lower_binary(&mut self, b: &syn::ExprBinary) -> Handle<ir::Expr> {
        let span = b.first_span();
        let op_span = b.op.span();
        let logical = match b.op {
            syn::BinOp::And(_) => Some(ir::LogicalOp::And),
            syn::BinOp::Or(_) => Some(ir::LogicalOp::Or),
            _ => None,
        };
        if let Some(op) = logical {
            let lhs = self.lower_expr(&b.left);
            let rhs = self.lower_expr(&b.right);
            let (lt, rt) = (self.ty_of(lhs), self.ty_of(rhs));
            self.expect_ty(&lt, &Ty::BOOL, b.left.first_span());
            self.expect_ty(&rt, &Ty::BOOL, b.right.first_span());
            return self.push_expr(ir::ExprKind::Logical { op, lhs, rhs }, Ty::BOOL, span);
        }
        let op = match binary_op(&b.op) {
            Some(op) => op,
            None => {
                // Compound assignment in value position (`let y = (x += 1);`).
                self.error_hint(
                    op_span,
                    "an assignment cannot be used as a value in kernels",
                    "assign in a statement of its own",
                );
                return self.error_expr(span);
            }
        };
        let lhs = self.lower_expr(&b.left);
        let rhs = self.lower_expr(&b.right);
        if let Some(h) = self.try_complex_binary(op, lhs, rhs, span, op_span) {
            return h;
        }
        let (lt, rt) = (self.ty_of(lhs), self.ty_of(rhs));
        let ty = self.check_binary_operands(op, &lt, &rt, op_span, b.right.first_span(), false);
        self.push_expr(ir::ExprKind::Binary { op, lhs, rhs }, ty, span)
    }

    /// Whether `e` names a local whose type was already reported (a parameter `x: &f32`):
    /// dereferencing it is part of that mistake.
    pub fn is_reported_local(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = e else { return false };
        let Some(local) = p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) else {
            return false;
        };
        matches!(self.local_ty(local), Ty::Error)
    }

    fn lower_unary(&mut self, u: &syn::ExprUnary) -> Handle<ir::Expr> {
        let span = u.span();
        match u.op {
            syn::UnOp::Deref(t) => {
                if !self.is_reported_local(&u.expr) {
                    self.diags.push(check::deref_diag(t.span));
                }
                self.error_expr(span)
            }
            syn::UnOp::Neg(t) => {
                let operand = self.lower_expr(&u.expr);
                let ty = self.ty_of(operand);
                self.deferred.push(Deferred::Operand {
                    ty: ty.clone(),
                    span: t.span,
                    class: OperandClass::Negatable,
                    msg: OperandMsg::Unary {
                        op: "-",
                        ty: ty.clone(),
                    },
                });
                // Fold `-literal` so `i32::MIN`-style literals (`-2147483648`) stay in range.
                if let Some(folded) = self.fold_negated_literal(operand) {
                    return folded;
                }
                self.push_expr(
                    ir::ExprKind::Unary {
                        op: ir::UnaryOp::Neg,
                        operand,
                    },
                    ty,
                    span,
                )
            }
            syn::UnOp::Not(t) => {
                let operand = self.lower_expr(&u.expr);
                let ty = self.ty_of(operand);
                self.deferred.push(Deferred::Operand {
                    ty: ty.clone(),
                    span: t.span,
                    class: OperandClass::IntOrBool,
                    msg: OperandMsg::Unary {
                        op: "!",
                        ty: ty.clone(),
                    },
                });
                self.push_expr(
                    ir::ExprKind::Unary {
                        op: ir::UnaryOp::Not,
                        operand,
                    },
                    ty,
                    span,
                )
            }
            _ => {
                self.error(span, "this unary operator is not supported in kernels");
                self.error_expr(span)
            }
        }
    }

    fn fold_negated_literal(&mut self, operand: Handle<ir::Expr>) -> Option<Handle<ir::Expr>> {
        let expr = self.f.exprs.get(operand)?;
        let folded = match &expr.kind {
            ir::ExprKind::Literal(Literal::Int(v)) => {
                let entry = self.int_literals.iter_mut().find(|(h, ..)| *h == operand)?;
                if entry.2 {
                    return None; // `--1`: keep the inner fold only.
                }
                entry.2 = true;
                Literal::Int(v.wrapping_neg())
            }
            ir::ExprKind::Literal(Literal::Float(v)) => Literal::Float(-v),
            _ => return None,
        };
        self.f.exprs[operand].kind = ir::ExprKind::Literal(folded);
        Some(operand)
    }

    fn lower_cast(&mut self, c: &syn::ExprCast) -> Handle<ir::Expr> {
        let span = c.first_span();
        // `thread_idx() as usize`: a `Dim3` is three numbers; name it and its fields.
        if let Some(name) = dim3_call(&c.expr) {
            let to = text_of_type(&c.ty);
            self.error_hint(
                c.expr.span(),
                format!("`{name}()` is a `Dim3` (its `.x`, `.y` and `.z`), not a number: it cannot be cast as `{to}`"),
                format!("cast one of its fields: `{name}().x as {to}`; `grid(1)` is the global index `thread_idx().x + block_idx().x * block_dim().x` as a `usize`"),
            );
            return self.error_expr(span);
        }
        let operand = self.lower_expr(&c.expr);
        let from = self.ty_of(operand);
        let to = match lower_type(&c.ty, TypeSite::Let, &self.consts, &mut || Ty::Error) {
            Ok(Ty::Scalar(s)) => s,
            Ok(Ty::Error) if matches!(&*c.ty, syn::Type::Infer(_)) => {
                self.error_hint(
                    c.ty.span(),
                    "`as _` is not supported in kernels",
                    "name the target type: `x as f32`",
                );
                return self.error_expr(span);
            }
            Ok(other) => {
                let named = matches!(other, Ty::Struct(_));
                let t = self.table.describe(&other);
                self.error_hint(
                    c.ty.span(),
                    format!("non-primitive cast to `{t}`"),
                    if named {
                        format!("`as` converts between scalar types only; an enum's values are its variants: `match code {{ 0 => {t}::.., _ => {t}::.. }}`")
                    } else {
                        "`as` converts between scalar types only".to_string()
                    },
                );
                return self.error_expr(span);
            }
            Err(d) => {
                self.diags.push(d);
                return self.error_expr(span);
            }
        };
        self.deferred.push(Deferred::Cast {
            from,
            to,
            span: c.as_token.span,
        });
        self.push_expr(ir::ExprKind::Cast { operand, to }, Ty::Scalar(to), span)
    }

    fn lower_field(&mut self, f: &syn::ExprField) -> Handle<ir::Expr> {
        let span = f.span();
        if let Some(h) = self.lower_dim_field(f) {
            return h;
        }
        // `bodies[i].pos.x`: a field of a place is read in place.
        if let syn::Member::Named(_) = &f.member {
            if super::lower_place::is_place_expr(&f.base) {
                let expr = syn::Expr::Field(f.clone());
                return match self.lower_place(&expr) {
                    Some(info) => self.read_place(info, span),
                    None => self.error_expr(span),
                };
            }
        }
        let base = self.lower_expr(&f.base);
        if let syn::Member::Named(name) = &f.member {
            if let Some(h) = self.struct_value_field(base, name, span) {
                return h;
            }
        }
        let bt = self.ty_of(base);
        let named_index = |n: &syn::Ident| match n.to_string().as_str() {
            "x" => Some(0u32),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        let index = match &f.member {
            syn::Member::Unnamed(i) => Some(i.index),
            syn::Member::Named(n) => named_index(n),
        };
        let member = match &f.member {
            syn::Member::Unnamed(i) => i.index.to_string(),
            syn::Member::Named(n) => n.to_string(),
        };
        let shallow = self.table.shallow(&bt);
        let ty = match (&shallow, index) {
            (Ty::Error, _) => return self.error_expr(span),
            // `.x/.y/.z` only on the `(u32, u32, u32)` values of `thread_idx()` & co.
            (Ty::Tuple(items), Some(i))
                if matches!(f.member, syn::Member::Unnamed(_))
                    || (items.len() == 3 && items.iter().all(|t| *t == Ty::U32)) =>
            {
                items.get(i as usize).cloned()
            }
            (Ty::Var(_), Some(i)) if self.table.var_kind(&bt) == Some(VarKind::Opaque) => {
                let _ = i;
                Some(self.fresh(VarKind::Opaque))
            }
            _ => None,
        };
        match (ty, index) {
            (Some(ty), Some(index)) => {
                self.push_expr(ir::ExprKind::Field { base, index }, ty, span)
            }
            _ => {
                let d = self.table.describe(&bt);
                let hint = if matches!(shallow, Ty::Var(_)) {
                    "type annotations needed: annotate the variable's type"
                } else {
                    "tuples have fields `.0`, `.1`, ...; `thread_idx()` and friends have `.x`, `.y`, `.z`"
                };
                self.error_hint(
                    f.member.span(),
                    format!("no field `{member}` on type `{d}`"),
                    hint,
                );
                self.error_expr(span)
            }
        }
    }

    fn lower_if(&mut self, i: &syn::ExprIf) -> Handle<ir::Expr> {
        if let syn::Expr::Let(l) = &*i.cond {
            return self.lower_if_let(i, l);
        }
        let span = i.first_span();
        let cond = self.lower_expr(&i.cond);
        let ct = self.ty_of(cond);
        self.expect_ty(&ct, &Ty::BOOL, i.cond.first_span());
        let (then_block, then_ty) = self.lower_block(&i.then_branch);
        self.finish_if(cond, then_block, then_ty, i, span)
    }

    /// The `else` part of `if`/`if let` and the type of the whole (shared by both).
    pub fn finish_if(
        &mut self,
        cond: Handle<ir::Expr>,
        then_block: ir::Block,
        then_ty: Ty,
        i: &syn::ExprIf,
        span: Span,
    ) -> Handle<ir::Expr> {
        let Some((_, else_expr)) = &i.else_branch else {
            if self.table.coerce(&then_ty, &Ty::Unit).is_err()
                && !self.table.is_suppressed(&then_ty)
            {
                let t = self.table.describe_found(&then_ty);
                let at = match i.then_branch.stmts.last() {
                    Some(syn::Stmt::Expr(e, None)) => e.span(),
                    _ => span,
                };
                self.error_hint(
                    at,
                    format!("`if` may be missing an `else` clause: expected `()`, found {t}"),
                    "add an `else` branch with a value of the same type",
                );
                // Reported: where the `if` is used as a value, nothing more is.
                return self.error_expr(span);
            }
            return self.push_expr(
                ir::ExprKind::If {
                    cond,
                    then_block,
                    else_block: None,
                },
                Ty::Unit,
                span,
            );
        };
        let (else_block, else_ty) = match &**else_expr {
            syn::Expr::Block(b) if b.label.is_none() => self.lower_block(&b.block),
            other => {
                let h = self.lower_expr(other);
                let t = self.ty_of(h);
                let mut block = ir::Block::default();
                match self.table.shallow(&t) {
                    Ty::Unit | Ty::Never => block.stmts.push(ir::Stmt::Expr(h)),
                    _ => block.tail = Some(h),
                }
                (block, t)
            }
        };
        let ty = if self.table.is_never(&then_ty) {
            else_ty
        } else if self.table.is_never(&else_ty) {
            then_ty
        } else {
            if self.table.unify(&then_ty, &else_ty).is_err()
                && !self.table.is_suppressed(&then_ty)
                && !self.table.is_suppressed(&else_ty)
            {
                let t = self.table.describe(&then_ty);
                let e = self.table.describe_found(&else_ty);
                self.error(
                    else_expr.span(),
                    format!("`if` and `else` have incompatible types: expected `{t}`, found {e}"),
                );
            }
            then_ty
        };
        self.push_expr(
            ir::ExprKind::If {
                cond,
                then_block,
                else_block: Some(else_block),
            },
            ty,
            span,
        )
    }
}

fn binary_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::Add(_) => BinaryOp::Add,
        syn::BinOp::Sub(_) => BinaryOp::Sub,
        syn::BinOp::Mul(_) => BinaryOp::Mul,
        syn::BinOp::Div(_) => BinaryOp::Div,
        syn::BinOp::Rem(_) => BinaryOp::Rem,
        syn::BinOp::BitAnd(_) => BinaryOp::BitAnd,
        syn::BinOp::BitOr(_) => BinaryOp::BitOr,
        syn::BinOp::BitXor(_) => BinaryOp::BitXor,
        syn::BinOp::Shl(_) => BinaryOp::Shl,
        syn::BinOp::Shr(_) => BinaryOp::Shr,
        syn::BinOp::Eq(_) => BinaryOp::Eq,
        syn::BinOp::Ne(_) => BinaryOp::Ne,
        syn::BinOp::Lt(_) => BinaryOp::Lt,
        syn::BinOp::Le(_) => BinaryOp::Le,
        syn::BinOp::Gt(_) => BinaryOp::Gt,
        syn::BinOp::Ge(_) => BinaryOp::Ge,
        _ => return None,
    })
}

/// The name of a `thread_idx()`/`block_idx()`/`block_dim()`/`grid_dim()` call (each a
/// `Dim3`), if `expr` is one.
fn dim3_call(expr: &syn::Expr) -> Option<String> {
    let mut expr = expr;
    while let syn::Expr::Paren(p) = expr {
        expr = &p.expr;
    }
    let syn::Expr::Call(call) = expr else {
        return None;
    };
    let syn::Expr::Path(p) = &*call.func else {
        return None;
    };
    let name = p.path.get_ident()?.to_string();
    let dim3 = ["thread_idx", "block_idx", "block_dim", "grid_dim"].contains(&name.as_str());
    (dim3 && call.args.is_empty()).then_some(name)
}

/// A type as written, for messages (`usize`, `f32`).
fn text_of_type(ty: &syn::Type) -> String {
    quote::quote!(#ty).to_string()
}
