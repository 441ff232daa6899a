//! Calls of `#[device]` methods (see `methods.rs`): `a.dot(b)` by the receiver's
//! inferred type, `Vec3::dot(a, b)` and `Vec3::new(..)` by the type's path, an enum's
//! `op.apply(x)` by its repr; at macro time, where the unit is unknown, each is an
//! opaque call whose result may itself be a struct.

use super::infer::{StructTy, Ty, VarKind};
use super::lower_fn::{Callees, FnLowerer, Signature};
use crate::ir::{self, Handle};
use proc_macro2::Span;
use syn::spanned::Spanned;

impl FnLowerer<'_> {
    /// `Vec3::new(..)` / `Vec3::dot(a, b)`: the method `Vec3::name` of the unit.
    pub(super) fn lower_assoc_call(
        &mut self,
        ty: &syn::Path,
        name: &str,
        call: &syn::ExprCall,
        path: &syn::Path,
    ) -> Handle<ir::Expr> {
        let span = call.span();
        // `Vec3::len(&p)`: a `&self` method's receiver is passed by value (rustc
        // checks the borrow in the twin).
        let args: Vec<Handle<ir::Expr>> = call
            .args
            .iter()
            .enumerate()
            .map(|(n, a)| match a {
                syn::Expr::Reference(r) if n == 0 && r.mutability.is_none() => {
                    self.lower_expr(&r.expr)
                }
                _ => self.lower_expr(a),
            })
            .collect();
        let written = quote::ToTokens::to_token_stream(ty)
            .to_string()
            .replace(' ', "");
        let Callees::Unit(sigs) = self.callees else {
            if written == "Self" && name == self.f.name {
                return self.method_recursion(path.span(), name, span);
            }
            return self.opaque_method_call(args, span);
        };
        let type_name = match (
            self.consts.struct_def(&written),
            self.consts.enum_def(&written),
        ) {
            (Some(def), _) => def.name.clone(),
            (None, Some(def)) => def.name.clone(),
            (None, None) => {
                self.error_hint(
                    ty.span(),
                    format!("`{written}::{name}` cannot be called in kernels: `{written}` is not a `#[derive(DeviceCopy)]` struct"),
                    "kernels call `#[device]` methods of `#[derive(DeviceCopy)]` structs and `#[device]` functions",
                );
                return self.error_expr(span);
            }
        };
        let unit_name = super::methods::unit_name(&type_name, name);
        let Some(sig) = sigs.iter().find(|s| s.name == unit_name).cloned() else {
            self.error_hint(
                path.span(),
                format!("no `#[device]` method `{name}` found for `{type_name}` in this kernel's compilation unit"),
                format!("mark `{name}` in `impl {type_name}` with `#[device]` so kernels can call it"),
            );
            return self.error_expr(span);
        };
        if sig.name == self.f.name {
            return self.method_recursion(path.span(), &unit_name, span);
        }
        let spans: Vec<Span> = call.args.iter().map(|a| a.span()).collect();
        self.call_signature(&sig, args, &spans, call.paren_token.span.join(), span)
    }

    /// `a.dot(b)` where `a` is a struct: its `#[device]` method, `self` first.
    pub(super) fn lower_struct_method(
        &mut self,
        s: &StructTy,
        m: &syn::ExprMethodCall,
        recv: Handle<ir::Expr>,
    ) -> Handle<ir::Expr> {
        let span = m.span();
        let name = m.method.to_string();
        let mut args = vec![recv];
        args.extend(self.lower_args(&m.args));
        if let Some(t) = &m.turbofish {
            self.error_hint(
                t.span(),
                "generic methods are not supported in kernels",
                "call the method without `::<..>`",
            );
            return self.error_expr(span);
        }
        let Callees::Unit(sigs) = self.callees else {
            if s.name == super::methods::SELF_TYPE && name == self.f.name {
                return self.method_recursion(m.method.span(), &name, span);
            }
            return self.opaque_method_call(args, span);
        };
        let unit_name = super::methods::unit_name(&s.name, &name);
        let Some(sig) = sigs.iter().find(|sig| sig.name == unit_name).cloned() else {
            let hint = if self.f.name == unit_name {
                String::new()
            } else {
                format!(
                    "mark `{name}` in `impl {0}` with `#[device]`; a kernel finds the methods of the structs it names: name `{0}` in it (`let v: {0} = ..`) or call `{0}::{name}(..)`, or mark the block itself (`#[device] impl {0} {{ .. }}`) so that kernels find its `#[device]` methods anywhere",
                    s.name
                )
            };
            self.error_hint(
                m.method.span(),
                format!("no `#[device]` method `{name}` found for struct `{}` in this kernel's compilation unit", s.name),
                hint,
            );
            return self.error_expr(span);
        };
        if sig.name == self.f.name {
            return self.method_recursion(m.method.span(), &unit_name, span);
        }
        let mut spans = vec![m.receiver.span()];
        spans.extend(m.args.iter().map(|a| a.span()));
        let parens = m.paren_token.span.join();
        let call = self.call_signature(&sig, args, &spans, parens, span);
        if sig.mut_receiver {
            return self.store_receiver_back(&m.receiver, &sig, call, span);
        }
        call
    }

    /// `x.m(..)` for a `&mut self` method `m`, compiled as a function returning the
    /// receiver's new value with its result (`methods::mutates_receiver`): `{ let t =
    /// call; x = t.0; t.1 }`. The receiver must be a local or a field of one, whose
    /// place is evaluated twice without effects (an element `a[i]` would evaluate `i`
    /// twice: bind it to a local first).
    fn store_receiver_back(
        &mut self,
        receiver: &syn::Expr,
        sig: &Signature,
        call: Handle<ir::Expr>,
        span: Span,
    ) -> Handle<ir::Expr> {
        let Some(info) = self.lower_place(receiver) else {
            return self.error_expr(span);
        };
        // The place is evaluated again to store the receiver back: fine when
        // evaluating it has no effect (`ps[i]`, `tile[r][c].pos`, `v.field`), which
        // is what the twin's rustc checked (`ps[i].advance(dt)` is valid Rust).
        let root_ok = match info.place.root {
            ir::PlaceRoot::Local(_) | ir::PlaceRoot::Global(_) => true,
            ir::PlaceRoot::Pointee(h) => self.repeatable(h),
        };
        let plain = root_ok
            && info.prelude.is_empty()
            && info.place.projections.iter().all(|p| match p {
                ir::Projection::Field(_) => true,
                ir::Projection::Index(h) => self.repeatable(*h),
            });
        if !plain {
            self.error_hint(
                receiver.span(),
                "a `&mut self` method is called here on a place whose index has an effect (a call, an atomic)",
                "bind the index to a local first: `let j = f(); a[j].method();`",
            );
            return self.error_expr(span);
        }
        let ret = sig.ret.clone();
        let temp = self.new_local("(receiver)", ret.clone(), false, span);
        let read = |this: &mut Self| this.push_expr(ir::ExprKind::Local(temp), ret.clone(), span);
        let (new_self, result) = match &ret {
            Ty::Tuple(parts) if parts.len() == 2 => {
                let (self_ty, result_ty) = (parts[0].clone(), parts[1].clone());
                let base = read(self);
                let new_self =
                    self.push_expr(ir::ExprKind::Field { base, index: 0 }, self_ty, span);
                let base = read(self);
                let result =
                    self.push_expr(ir::ExprKind::Field { base, index: 1 }, result_ty, span);
                (new_self, Some(result))
            }
            _ => (read(self), None),
        };
        let result_ty = result.map_or(Ty::Unit, |r| self.ty_of(r));
        let block = ir::Block {
            stmts: vec![
                ir::Stmt::Let {
                    local: temp,
                    init: Some(call),
                },
                ir::Stmt::Assign {
                    place: info.place,
                    op: None,
                    value: new_self,
                },
            ],
            tail: result,
        };
        self.push_expr(ir::ExprKind::Block(block), result_ty, span)
    }

    /// Whether evaluating `h` twice gives the same value and has no effect: locals,
    /// literals, operators, casts and loads of such places.
    fn repeatable(&self, h: Handle<ir::Expr>) -> bool {
        match &self.f.exprs[h].kind {
            ir::ExprKind::Literal(_) | ir::ExprKind::Local(_) => true,
            ir::ExprKind::Unary { operand, .. } | ir::ExprKind::Cast { operand, .. } => {
                self.repeatable(*operand)
            }
            ir::ExprKind::Binary { lhs, rhs, .. } | ir::ExprKind::Logical { lhs, rhs, .. } => {
                self.repeatable(*lhs) && self.repeatable(*rhs)
            }
            ir::ExprKind::Load(place) => {
                let root = match place.root {
                    ir::PlaceRoot::Local(_) | ir::PlaceRoot::Global(_) => true,
                    ir::PlaceRoot::Pointee(p) => self.repeatable(p),
                };
                root && place.projections.iter().all(|p| match p {
                    ir::Projection::Field(_) => true,
                    ir::Projection::Index(i) => self.repeatable(*i),
                })
            }
            _ => false,
        }
    }

    /// `op.apply(x)` where `op` is a `#[derive(DeviceCopy)]` enum: the frontend sees its
    /// repr integer, so the method is the one `E::apply` of the unit's enums with that
    /// repr (rustc resolved the call in the twin, and no integer has a method of a
    /// name that is not a scalar method). `None` where no enum has one.
    pub(super) fn try_lower_enum_method(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: Handle<ir::Expr>,
    ) -> Option<Handle<ir::Expr>> {
        let Callees::Unit(sigs) = self.callees else {
            return None;
        };
        let Ty::Scalar(repr) = self.table.shallow(&self.ty_of(recv)) else {
            return None;
        };
        let name = m.method.to_string();
        let mut candidates: Vec<String> = self
            .consts
            .enums
            .iter()
            .filter(|(_, def)| def.repr == repr)
            .map(|(_, def)| super::methods::unit_name(&def.name, &name))
            .filter(|unit_name| sigs.iter().any(|s| s.name == *unit_name))
            .collect();
        candidates.dedup();
        let span = m.span();
        match candidates.as_slice() {
            [] => None,
            [one] => {
                let sig = sigs.iter().find(|s| s.name == *one).cloned()?;
                if sig.name == self.f.name {
                    return Some(self.method_recursion(m.method.span(), one, span));
                }
                let mut args = vec![recv];
                args.extend(self.lower_args(&m.args));
                let mut spans = vec![m.receiver.span()];
                spans.extend(m.args.iter().map(|a| a.span()));
                let parens = m.paren_token.span.join();
                Some(self.call_signature(&sig, args, &spans, parens, span))
            }
            several => {
                self.lower_args(&m.args);
                self.error_hint(
                    m.method.span(),
                    format!(
                        "`{name}` is a method of several enums with repr `{repr}` here ({})",
                        several.join(", ")
                    ),
                    format!("call it by its type's path: `{}(value, ..)`", several[0]),
                );
                Some(self.error_expr(span))
            }
        }
    }

    pub(super) fn method_recursion(
        &mut self,
        at: Span,
        name: &str,
        span: Span,
    ) -> Handle<ir::Expr> {
        self.error_hint(
            at,
            format!("recursion is not supported in kernels: `{name}` calls itself"),
            "GPU threads have tiny stacks; rewrite it as a loop",
        );
        self.error_expr(span)
    }

    /// Macro time: a call whose callee is not known yet; its result is whatever it
    /// returns, and each argument whatever its parameter is.
    pub(super) fn opaque_call(
        &mut self,
        args: Vec<Handle<ir::Expr>>,
        span: Span,
    ) -> Handle<ir::Expr> {
        for arg in &args {
            let at = self.ty_of(*arg);
            let param = self.fresh(VarKind::Opaque);
            let _ = self.table.unify(&at, &param);
        }
        let ty = self.fresh(VarKind::Opaque);
        self.unresolved_call(args, ty, span)
    }

    /// Macro time: a struct method's call, whose result may be a struct in turn.
    pub(super) fn opaque_method_call(
        &mut self,
        args: Vec<Handle<ir::Expr>>,
        span: Span,
    ) -> Handle<ir::Expr> {
        let h = self.opaque_call(args, span);
        let ty = self.ty_of(h);
        self.method_results.push(ty);
        h
    }

    /// Macro time: an opaque type that may be a struct's (a field of a struct whose
    /// fields are unknown), so method calls on it are left to the unit's compile.
    pub fn fresh_method_result(&mut self) -> Ty {
        let ty = self.fresh(VarKind::Opaque);
        self.method_results.push(ty.clone());
        ty
    }

    /// Whether `ty` is (unified with) a device fn call's result at macro time.
    pub(super) fn is_call_result(&mut self, ty: &Ty) -> bool {
        let ty = self.table.shallow(ty);
        let results = self.call_results.clone();
        results.iter().any(|r| self.table.shallow(r) == ty)
    }

    /// Whether `ty` is (unified with) the result of a struct method's call at macro time.
    pub(super) fn is_method_result(&mut self, ty: &Ty) -> bool {
        let ty = self.table.shallow(ty);
        let results = self.method_results.clone();
        results.iter().any(|r| self.table.shallow(r) == ty)
    }

    /// A call of `sig` with `args` (written at `spans`, in parentheses at `parens`).
    pub(super) fn call_signature(
        &mut self,
        sig: &Signature,
        args: Vec<Handle<ir::Expr>>,
        spans: &[Span],
        parens: Span,
        span: Span,
    ) -> Handle<ir::Expr> {
        if sig.params.len() != args.len() {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            self.error(
                parens,
                format!(
                    "this function takes {} argument{} but {} argument{} supplied",
                    sig.params.len(),
                    plural(sig.params.len()),
                    args.len(),
                    if args.len() == 1 { " was" } else { "s were" }
                ),
            );
            return self.push_expr(
                ir::ExprKind::Call {
                    function: sig.handle,
                    args,
                },
                sig.ret.clone(),
                span,
            );
        }
        let mut coerced = Vec::with_capacity(args.len());
        for ((arg, at), param) in args.iter().zip(spans).zip(sig.params.iter()) {
            coerced.push(self.coerce_value(*arg, param, *at));
        }
        self.push_expr(
            ir::ExprKind::Call {
                function: sig.handle,
                args: coerced,
            },
            sig.ret.clone(),
            span,
        )
    }
}
