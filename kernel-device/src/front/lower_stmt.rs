//! Blocks, `let` with patterns, assignments and places, loops, `break`/`continue`/`return`.

use super::check;
use super::first_span::FirstSpan;
use super::infer::{Ty, VarKind};
use super::lower_fn::{FnLowerer, LoopFrame};
use super::types::{lower_type, TypeSite};
use crate::ir::{self, Handle};
use proc_macro2::Span;
use syn::spanned::Spanned;

impl FnLowerer<'_> {
    /// Lowers a block in a new scope; returns it with its type (`!` if it diverges).
    pub fn lower_block(&mut self, block: &syn::Block) -> (ir::Block, Ty) {
        self.scopes.push(Vec::new());
        // A block's `const` items are in scope in the whole block, as in Rust.
        let consts_before = self.consts.values.len();
        for stmt in &block.stmts {
            if let syn::Stmt::Item(syn::Item::Const(c)) = stmt {
                self.body_const(c);
            }
        }
        let mut out = ir::Block::default();
        let mut diverges = false;
        let mut ty = Ty::Unit;
        let count = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == count;
            match stmt {
                syn::Stmt::Local(local) => {
                    diverges |= self.lower_let(local, &mut out.stmts);
                }
                syn::Stmt::Item(syn::Item::Const(_)) => {}
                syn::Stmt::Item(item) => self.diags.push(check::item_in_body(item)),
                // print
                syn::Stmt::Macro(m) if super::print::DebugMacro::of(&m.mac).is_some() => {
                    let h = self.lower_debug_macro(&m.mac);
                    let t = self.ty_of(h);
                    diverges |= self.table.is_never(&t);
                    out.stmts.push(ir::Stmt::Expr(h));
                }
                syn::Stmt::Macro(m) => self.diags.push(check::macro_diag(&m.mac)),
                // A stray `;` (syn keeps it as an empty verbatim expression): valid Rust.
                syn::Stmt::Expr(syn::Expr::Verbatim(tokens), Some(_)) if tokens.is_empty() => {}
                syn::Stmt::Expr(expr, semi) => {
                    if last && semi.is_none() {
                        if let Some(h) = self.lower_stmt_expr(expr, &mut out.stmts) {
                            let t = self.ty_of(h);
                            match self.table.shallow(&t) {
                                // Unit and diverging tails become statements so a block's
                                // `tail` is always a value (see `ir::Block::tail`).
                                Ty::Unit => out.stmts.push(ir::Stmt::Expr(h)),
                                Ty::Never => {
                                    out.stmts.push(ir::Stmt::Expr(h));
                                    diverges = true;
                                }
                                _ => {
                                    out.tail = Some(h);
                                    ty = t;
                                }
                            }
                        }
                    } else if let Some(h) = self.lower_stmt_expr(expr, &mut out.stmts) {
                        let t = self.ty_of(h);
                        if semi.is_none() {
                            // `if c { 1 } foo();`: a block-like expression statement
                            // must be `()`, as in rustc.
                            self.expect_ty(&t, &Ty::Unit, expr.span());
                        }
                        diverges |= self.table.is_never(&t);
                        out.stmts.push(ir::Stmt::Expr(h));
                    }
                }
            }
        }
        self.consts.values.truncate(consts_before);
        self.scopes.pop();
        if out.tail.is_none() {
            ty = if diverges { Ty::Never } else { Ty::Unit };
        }
        (out, ty)
    }

    /// Lowers an expression in statement position. Statement-only forms (assignment,
    /// `while`, `for`) are pushed to `stmts` and give `None`.
    pub fn lower_stmt_expr(
        &mut self,
        expr: &syn::Expr,
        stmts: &mut Vec<ir::Stmt>,
    ) -> Option<Handle<ir::Expr>> {
        match expr {
            syn::Expr::Assign(a) => {
                self.lower_assign(&a.left, None, &a.right, a.eq_token.span, stmts);
                None
            }
            syn::Expr::Binary(b) if check::compound_op(&b.op).is_some() => {
                let op = check::compound_op(&b.op);
                self.lower_assign(&b.left, op, &b.right, b.op.span(), stmts);
                None
            }
            syn::Expr::While(w) => {
                self.lower_while(w, stmts);
                None
            }
            syn::Expr::ForLoop(f) => {
                self.lower_for(f, stmts);
                None
            }
            other => Some(self.lower_expr(other)),
        }
    }

    /// Returns whether the initialiser diverges.
    fn lower_let(&mut self, local: &syn::Local, stmts: &mut Vec<ir::Stmt>) -> bool {
        let (pat, annot) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            other => (other, None),
        };
        let annot_ty = annot.map(|t| {
            let table = &mut self.table;
            let env = &self.consts;
            match lower_type(t, TypeSite::Let, env, &mut || {
                table.new_var(VarKind::General)
            }) {
                Ok(ty) => ty,
                Err(d) => {
                    self.diags.push(d);
                    Ty::Error
                }
            }
        });
        let mut diverges = false;
        let init = match &local.init {
            Some(init) => {
                if let Some((else_token, _)) = &init.diverge {
                    self.error_hint(
                        else_token.span,
                        "`let ... else` is not supported in kernels",
                        "use `if`/`else` with plain `let` bindings",
                    );
                    // The refutable pattern is part of that one mistake.
                    self.lower_expr(&init.expr);
                    self.bind_names_unchecked(pat);
                    return false;
                }
                let mut h = self.lower_expr(&init.expr);
                if let Some(annot_ty) = &annot_ty {
                    h = self.coerce_value(h, annot_ty, init.expr.span());
                }
                let t = self.ty_of(h);
                diverges = self.table.is_never(&t);
                Some(h)
            }
            None => None,
        };
        let ty = match (&annot_ty, init) {
            // A written `&mut [T; N]` says nothing of the address space; the value does.
            (Some(Ty::Ref { .. }), Some(h)) => self.ty_of(h),
            (Some(t), _) => t.clone(),
            (None, Some(h)) => self.ty_of(h),
            (None, None) => self.fresh(VarKind::General),
        };
        self.bind_pattern(pat, ty, init, stmts);
        diverges
    }

    /// Binds `pat` to a value of type `ty` (initialised from `init`, if any).
    fn bind_pattern(
        &mut self,
        pat: &syn::Pat,
        ty: Ty,
        init: Option<Handle<ir::Expr>>,
        stmts: &mut Vec<ir::Stmt>,
    ) {
        match pat {
            syn::Pat::Ident(pi) => {
                if let Some(r) = &pi.by_ref {
                    self.error_hint(
                        r.span,
                        "`ref` bindings are not supported in kernels",
                        "bind by value: `let x = ..`",
                    );
                }
                if let Some((at, _)) = &pi.subpat {
                    self.error(at.span, "`@` patterns are not supported in kernels");
                }
                let name = pi.ident.to_string();
                let local = self.new_local(&name, ty, pi.mutability.is_some(), pi.ident.span());
                if init.is_none() {
                    if let Some(info) = self.local_info.get_mut(local.index()) {
                        info.deferred_init = true;
                    }
                }
                stmts.push(ir::Stmt::Let { local, init });
            }
            syn::Pat::Wild(_) => {
                if let Some(h) = init {
                    stmts.push(ir::Stmt::Expr(h));
                }
            }
            syn::Pat::Paren(p) => self.bind_pattern(&p.pat, ty, init, stmts),
            syn::Pat::Tuple(t) => {
                let Some(init) = init else {
                    self.error_hint(
                        t.span(),
                        "tuple patterns need an initialiser in kernels",
                        "declare each variable with its own `let`",
                    );
                    return;
                };
                if t.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) {
                    self.error_hint(
                        t.span(),
                        "`..` in tuple patterns is not supported in kernels",
                        "name every element (use `_` to ignore one)",
                    );
                    return;
                }
                let n = t.elems.len();
                let items = match self.table.shallow(&ty) {
                    Ty::Tuple(items) if items.len() == n => items,
                    Ty::Error => vec![Ty::Error; n],
                    Ty::Var(_) => {
                        // An unknown callee's tuple result: its parts are unknown too.
                        let kind = match self.table.var_kind(&ty) {
                            Some(VarKind::Opaque) => VarKind::Opaque,
                            _ => VarKind::General,
                        };
                        let items: Vec<Ty> = (0..n).map(|_| self.fresh(kind)).collect();
                        let _ = self.table.unify(&ty, &Ty::Tuple(items.clone()));
                        items
                    }
                    _ => {
                        let d = self.table.describe(&ty);
                        if !self.table.is_suppressed(&ty) {
                            self.error(t.span(), format!("mismatched types: expected `{d}`, found a tuple with {n} elements"));
                        }
                        vec![Ty::Error; n]
                    }
                };
                // Destructure through a temporary so the initialiser runs once.
                let temp = self.new_local("(tuple)", ty.clone(), false, t.span());
                stmts.push(ir::Stmt::Let {
                    local: temp,
                    init: Some(init),
                });
                for (i, (sub, item_ty)) in t.elems.iter().zip(items).enumerate() {
                    if matches!(sub, syn::Pat::Wild(_)) {
                        continue;
                    }
                    let base = self.push_expr(ir::ExprKind::Local(temp), ty.clone(), sub.span());
                    let field = self.push_expr(
                        ir::ExprKind::Field {
                            base,
                            index: i as u32,
                        },
                        item_ty.clone(),
                        sub.span(),
                    );
                    self.bind_pattern(sub, item_ty, Some(field), stmts);
                }
            }
            syn::Pat::Type(pt) => {
                self.error_hint(
                    pt.colon_token.span,
                    "type annotations inside patterns are not supported",
                    "annotate the whole `let`: `let (a, b): (T, U) = ..`",
                );
                self.bind_pattern(&pt.pat, ty, init, stmts);
            }
            other => {
                self.error_hint(
                    other.span(),
                    "this pattern is not supported in kernels",
                    "use a name, `mut name`, `_` or a tuple of those",
                );
                self.bind_names_unchecked(other);
            }
        }
    }

    /// Declares every name `pat` binds, of an already reported (error) type, so that
    /// their uses report nothing more.
    fn bind_names_unchecked(&mut self, pat: &syn::Pat) {
        for ident in super::patterns::names_in(pat) {
            self.new_local(&ident.to_string(), Ty::Error, true, ident.span());
        }
    }

    fn lower_assign(
        &mut self,
        lhs: &syn::Expr,
        op: Option<ir::BinaryOp>,
        rhs: &syn::Expr,
        op_span: Span,
        stmts: &mut Vec<ir::Stmt>,
    ) {
        let value = self.lower_expr(rhs);
        let Some((place, place_ty)) = self.assign_place(lhs) else {
            return;
        };
        let value_ty = self.ty_of(value);
        match op {
            None => self.expect_ty(&value_ty, &place_ty, rhs.first_span()),
            Some(op) => {
                self.check_binary_operands(
                    op,
                    &place_ty,
                    &value_ty,
                    op_span,
                    rhs.first_span(),
                    true,
                );
            }
        }
        stmts.push(ir::Stmt::Assign { place, op, value });
    }

    fn lower_while(&mut self, w: &syn::ExprWhile, stmts: &mut Vec<ir::Stmt>) {
        if let syn::Expr::Let(l) = &*w.cond {
            return self.lower_while_let(w, l, stmts);
        }
        let cond = self.lower_expr(&w.cond);
        let ct = self.ty_of(cond);
        self.expect_ty(&ct, &Ty::BOOL, w.cond.first_span());
        let id = self.new_loop_id();
        let body = self
            .lower_loop_body(id, label_name(&w.label), false, &w.body)
            .0;
        stmts.push(ir::Stmt::While { id, cond, body });
    }

    /// Lowers a loop's body with its frame pushed; the body must be `()`.
    pub fn lower_loop_body(
        &mut self,
        id: ir::LoopId,
        label: Option<String>,
        is_loop: bool,
        body: &syn::Block,
    ) -> (ir::Block, LoopFrame) {
        let break_ty = self.fresh(VarKind::General);
        self.loops.push(LoopFrame {
            id,
            label,
            is_loop,
            break_ty,
            has_break: false,
        });
        let (block, ty) = self.lower_block(body);
        if let Some(syn::Stmt::Expr(e, None)) = body.stmts.last() {
            self.expect_ty(&ty, &Ty::Unit, e.span());
        }
        let frame = self.loops.pop().unwrap_or(LoopFrame {
            id,
            label: None,
            is_loop,
            break_ty: Ty::Error,
            has_break: true,
        });
        (block, frame)
    }

    pub fn lower_loop(&mut self, l: &syn::ExprLoop) -> Handle<ir::Expr> {
        let id = self.new_loop_id();
        let (body, frame) = self.lower_loop_body(id, label_name(&l.label), true, &l.body);
        let ty = if frame.has_break {
            frame.break_ty
        } else {
            Ty::Never
        };
        self.push_expr(ir::ExprKind::Loop { id, body }, ty, l.span())
    }

    /// Index of the loop a `break`/`continue` targets.
    fn loop_target(
        &mut self,
        label: &Option<syn::Lifetime>,
        span: Span,
        what: &str,
    ) -> Option<usize> {
        match label {
            None => {
                if self.loops.is_empty() {
                    self.error(span, format!("`{what}` outside of a loop"));
                    None
                } else {
                    Some(self.loops.len() - 1)
                }
            }
            Some(lt) => {
                let name = lt.ident.to_string();
                let found = self
                    .loops
                    .iter()
                    .rposition(|f| f.label.as_deref() == Some(name.as_str()));
                if found.is_none() {
                    self.error(lt.span(), format!("use of undeclared label `'{name}`"));
                }
                found
            }
        }
    }

    pub fn lower_break(&mut self, b: &syn::ExprBreak) -> Handle<ir::Expr> {
        let value = b.expr.as_ref().map(|e| self.lower_expr(e));
        let Some(index) = self.loop_target(&b.label, b.break_token.span, "break") else {
            return self.error_expr(b.span());
        };
        let frame = self.loops[index].clone();
        if let Some(v) = value {
            if !frame.is_loop {
                self.error_hint(
                    b.span(),
                    "`break` with value from a `while` or `for` loop",
                    "only `loop` can break with a value",
                );
            } else {
                let vt = self.ty_of(v);
                let span = b.expr.as_ref().map(|e| e.span()).unwrap_or(b.span());
                self.expect_ty(&vt, &frame.break_ty, span);
            }
        } else if frame.is_loop {
            self.expect_ty(&Ty::Unit, &frame.break_ty, b.span());
        }
        self.loops[index].has_break = true;
        self.push_expr(
            ir::ExprKind::Break {
                target: frame.id,
                value,
            },
            Ty::Never,
            b.span(),
        )
    }

    pub fn lower_continue(&mut self, c: &syn::ExprContinue) -> Handle<ir::Expr> {
        let Some(index) = self.loop_target(&c.label, c.continue_token.span, "continue") else {
            return self.error_expr(c.span());
        };
        let target = self.loops[index].id;
        self.push_expr(ir::ExprKind::Continue { target }, Ty::Never, c.span())
    }

    pub fn lower_return(&mut self, r: &syn::ExprReturn) -> Handle<ir::Expr> {
        let value = r.expr.as_ref().map(|e| self.lower_expr(e));
        let ret = self.ret.clone();
        match (value, &r.expr) {
            (Some(v), Some(e)) => {
                let vt = self.ty_of(v);
                self.expect_ty(&vt, &ret, e.span());
            }
            _ => self.expect_ty(&Ty::Unit, &ret, r.span()),
        }
        self.push_expr(ir::ExprKind::Return(value), Ty::Never, r.span())
    }
}

pub fn label_name(label: &Option<syn::Label>) -> Option<String> {
    label.as_ref().map(|l| l.name.ident.to_string())
}

impl FnLowerer<'_> {
    /// `const N: usize = 100;` in a body: evaluated now, so that it sizes a shared or
    /// local array (`[f32; N]`) and reads as its value. At macro time a constant built
    /// from crate constants of unknown value stays unknown (rustc checks it in the twin).
    fn body_const(&mut self, c: &syn::ItemConst) {
        let name = c.ident.to_string();
        let Some(ty) = super::consts::item_type(&c.ty, &self.consts) else {
            if self.consts.complete {
                self.error_hint(
                    c.ty.span(),
                    format!("`const {name}` has a type kernels cannot hold as a constant"),
                    "constants are scalars or arrays of them: `const N: usize = 100;`, `const W: [f32; 3] = [0.25, 0.5, 0.25];`",
                );
            }
            return;
        };
        match super::consts::eval(&c.expr, Some(&ty), &self.consts) {
            Ok(Some(value)) => self.consts.values.push((name, value)),
            Ok(None) => {}
            Err(d) => self.diags.push(d),
        }
    }
}
