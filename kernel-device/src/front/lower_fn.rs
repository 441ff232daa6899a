//! Lowering of one function: signature, scopes, loops, diagnostics, and the final pass
//! that applies deferred checks and writes concrete types into the IR.
//!
//! Expressions and statements are in `lower_expr.rs` / `lower_stmt.rs`; they are
//! methods of the [`FnLowerer`] defined here.

use super::consts::ConstEnv;
use super::infer::{Table, Ty, VarKind};
pub use super::signature::{lower_signature, SigInfo};
use crate::diag::Diagnostic;
use crate::ir::{self, Handle, ScalarType, SourceLoc};
use crate::source::SourceKind;
use proc_macro2::Span;
use syn::spanned::Spanned;

/// A callee's signature as seen by callers.
#[derive(Clone, Debug)]
pub struct Signature {
    pub name: String,
    pub handle: Handle<ir::Function>,
    pub params: Vec<Ty>,
    pub ret: Ty,
    /// A `&mut self` method: it returns its receiver (first) with its result, which
    /// the call stores back into the receiver's place (`methods::mutates_receiver`).
    pub mut_receiver: bool,
}

/// What calls to non-intrinsic functions resolve against.
#[derive(Clone, Copy)]
pub enum Callees<'a> {
    /// The whole compilation unit is known (run-time compile).
    Unit(&'a [Signature]),
    /// Macro-time check of one item: callees' signatures are unknown.
    Unknown,
}

#[derive(Clone, Debug)]
pub struct LoopFrame {
    pub id: ir::LoopId,
    pub label: Option<String>,
    /// Only `loop` may `break` with a value.
    pub is_loop: bool,
    pub break_ty: Ty,
    pub has_break: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LocalInfo {
    pub is_param: bool,
    /// `let x;` without initialiser: one later assignment is allowed even if not `mut`.
    pub deferred_init: bool,
}

/// Which scalars an operand may end up as.
pub use crate::proc::operators::OperandClass;

/// How to word a failed operand check, computed when the types are final.
pub enum OperandMsg {
    Binary {
        op: ir::BinaryOp,
        lhs: Ty,
        rhs: Ty,
        compound: bool,
    },
    Unary {
        op: &'static str,
        ty: Ty,
    },
}

/// A check that needs the final types (after defaulting), as rustc's trait checks do.
pub enum Deferred {
    Operand {
        ty: Ty,
        span: Span,
        class: OperandClass,
        msg: OperandMsg,
    },
    Cast {
        from: Ty,
        to: ScalarType,
        span: Span,
    },
    /// An integer literal's value must fit its final type (rustc's `overflowing_literals`).
    IntLiteral {
        ty: Ty,
        magnitude: u64,
        negated: bool,
        span: Span,
    },
}

pub struct FnLowerer<'a> {
    pub f: ir::Function,
    pub table: Table,
    pub expr_tys: Vec<Ty>,
    pub local_tys: Vec<Ty>,
    pub local_info: Vec<LocalInfo>,
    pub scopes: Vec<Vec<(String, Handle<ir::Local>)>>,
    pub loops: Vec<LoopFrame>,
    pub next_loop: u32,
    pub diags: Vec<Diagnostic>,
    pub ret: Ty,
    pub line_offset: u32,
    pub callees: Callees<'a>,
    pub deferred: Vec<Deferred>,
    /// Integer literals `(expr, magnitude, negated, span)`, range-checked at the end
    /// (after a leading `-` has been folded in).
    pub int_literals: Vec<(Handle<ir::Expr>, u64, bool, Span)>,
    /// Float literals `(expr, digits)` (without suffix or `_`): their value is parsed
    /// again once their type is known, directly to that type as rustc does (parsing
    /// to f64 and rounding to f32 rounds twice and can be one ulp off).
    pub float_literals: Vec<(Handle<ir::Expr>, String)>,
    /// Macro time: the types of struct method calls' results (`Vec3::new(..)`,
    /// `a.scaled(2.0)`), unknown but possibly structs, so their own method calls are
    /// left to the unit's compile (`Vec3::new(..).len()`).
    pub method_results: Vec<Ty>,
    /// Macro time: the results of device fn calls, which may be structs whose
    /// `#[device]` methods (not the built-in ones) are called on them.
    pub call_results: Vec<Ty>,
    /// The crate constants the body may read.
    pub consts: ConstEnv,
    /// The module's globals so far (handles are module-wide): this function adds its
    /// shared arrays and constant tables.
    pub globals: ir::Arena<ir::Global>,
    /// `shared_array()` globals whose array type is known only once inference is done.
    pub pending_shared: Vec<(Handle<ir::Global>, Ty, Span)>,
    // print
    /// The module's print formats so far (ids are module-wide): this function adds its
    /// own, typed by [`Self::finish_prints`].
    pub prints: crate::ir::format::FormatTable,
    pub pending_prints: Vec<super::print::PendingPrint>,
}

/// Where a function is lowered: its constants and the module's globals so far.
pub struct Context {
    pub consts: ConstEnv,
    pub globals: ir::Arena<ir::Global>,
    // print
    pub prints: crate::ir::format::FormatTable,
}

impl<'a> FnLowerer<'a> {
    pub fn new(
        item: &syn::ItemFn,
        kind: SourceKind,
        file: &str,
        line_offset: u32,
        options: ir::FunctionOptions,
        callees: Callees<'a>,
        sig: SigInfo,
        context: Context,
    ) -> Self {
        let mut this = FnLowerer {
            f: ir::Function {
                name: item.sig.ident.to_string(),
                kind: match kind {
                    SourceKind::Kernel => ir::FunctionKind::Kernel,
                    SourceKind::Device => ir::FunctionKind::Device,
                },
                options,
                file: file.to_string(),
                loc: SourceLoc::default(),
                params: Vec::new(),
                ret: ir::Type::Unit,
                locals: ir::Arena::new(),
                exprs: ir::Arena::new(),
                expr_locs: Vec::new(),
                body: ir::Block::default(),
                unchecked_indices: Default::default(),
                predicated_loads: Default::default(),
            },
            table: Table::default(),
            expr_tys: Vec::new(),
            local_tys: Vec::new(),
            local_info: Vec::new(),
            scopes: vec![Vec::new()],
            loops: Vec::new(),
            next_loop: 0,
            diags: Vec::new(),
            ret: sig.ret,
            line_offset,
            callees,
            deferred: Vec::new(),
            int_literals: Vec::new(),
            float_literals: Vec::new(),
            method_results: Vec::new(),
            call_results: Vec::new(),
            consts: context.consts,
            globals: context.globals,
            pending_shared: Vec::new(),
            prints: context.prints,
            pending_prints: Vec::new(),
        };
        this.f.loc = this.loc(item.sig.fn_token.span);
        for p in sig.params {
            let local = this.new_local(&p.name, p.ty.clone(), p.mutable, p.span);
            if let Some(info) = this.local_info.get_mut(local.index()) {
                info.is_param = true;
            }
            this.f.params.push(ir::Param {
                name: p.name,
                ty: ir::Type::Unit,
                local,
            });
        }
        for (name, span) in sig.poisoned {
            this.new_local(&name, Ty::Error, false, span);
        }
        this
    }

    /// Lowers the body and checks it against the return type.
    pub fn lower_body(&mut self, item: &syn::ItemFn) {
        let (block, ty) = self.lower_block(&item.block);
        self.f.body = block;
        let ret = self.ret.clone();
        if self.table.coerce(&ty, &ret).is_err() {
            let span = match item.block.stmts.last() {
                Some(syn::Stmt::Expr(e, None)) => e.span(),
                _ => match &item.sig.output {
                    syn::ReturnType::Type(_, t) => t.span(),
                    syn::ReturnType::Default => item.sig.ident.span(),
                },
            };
            self.mismatch(span, &ret, &ty);
        }
    }

    pub fn loc(&self, span: Span) -> SourceLoc {
        let start = span.start();
        SourceLoc {
            line: (start.line as u32).saturating_add(self.line_offset),
            column: (start.column as u32).saturating_add(1),
        }
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::new(span, message));
    }

    pub fn error_hint(&mut self, span: Span, message: impl Into<String>, hint: impl Into<String>) {
        self.diags
            .push(Diagnostic::new(span, message).with_hint(hint));
    }

    /// rustc's E0308, unless either side already carries an error.
    pub fn mismatch(&mut self, span: Span, expected: &Ty, found: &Ty) {
        if self.table.is_suppressed(expected) || self.table.is_suppressed(found) {
            return;
        }
        let e = self.table.describe(expected);
        let f = self.table.describe_found(found);
        let message = format!("mismatched types: expected `{e}`, found {f}");
        let numeric = |s: Option<ScalarType>| s.is_some_and(|s| s != ScalarType::Bool);
        let (es, fs) = (
            self.table.final_scalar(expected),
            self.table.final_scalar(found),
        );
        if es.is_some_and(ScalarType::is_half) || fs.is_some_and(ScalarType::is_half) {
            // The half types convert with their own functions, not `as`.
            let hint = match es.filter(|s| s.is_half()) {
                Some(h) => format!("make a `{h}` with `{h}::from_f32(..)` or `{h}::from_f64(..)`"),
                None => "widen the half value with `.to_f32()` or `.to_f64()`".to_string(),
            };
            self.error_hint(span, message, hint);
        } else if numeric(es) && numeric(fs) {
            self.error_hint(
                span,
                message,
                format!("convert the value with `as`: `(..) as {e}`"),
            );
        } else {
            self.error(span, message);
        }
    }

    /// Coerces and reports a mismatch at `span`.
    pub fn expect_ty(&mut self, actual: &Ty, expected: &Ty, span: Span) {
        if self.table.coerce(actual, expected).is_err() {
            self.mismatch(span, expected, actual);
        }
    }

    pub fn push_expr(&mut self, kind: ir::ExprKind, ty: Ty, span: Span) -> Handle<ir::Expr> {
        let loc = self.loc(span);
        let h = self.f.add_expr(
            ir::Expr {
                kind,
                ty: ir::Type::Unit,
            },
            loc,
        );
        self.expr_tys.push(ty);
        h
    }

    /// Placeholder for an expression that produced a diagnostic.
    pub fn error_expr(&mut self, span: Span) -> Handle<ir::Expr> {
        self.push_expr(
            ir::ExprKind::Literal(ir::Literal::Bool(false)),
            Ty::Error,
            span,
        )
    }

    pub fn ty_of(&self, h: Handle<ir::Expr>) -> Ty {
        self.expr_tys.get(h.index()).cloned().unwrap_or(Ty::Error)
    }

    pub fn local_ty(&self, l: Handle<ir::Local>) -> Ty {
        self.local_tys.get(l.index()).cloned().unwrap_or(Ty::Error)
    }

    pub fn new_local(
        &mut self,
        name: &str,
        ty: Ty,
        mutable: bool,
        span: Span,
    ) -> Handle<ir::Local> {
        let loc = self.loc(span);
        let h = self.f.locals.append(ir::Local {
            name: name.to_string(),
            ty: ir::Type::Unit,
            mutable,
            loc,
        });
        self.local_tys.push(ty);
        self.local_info.push(LocalInfo::default());
        if name != "_" {
            if let Some(scope) = self.scopes.last_mut() {
                scope.push((name.to_string(), h));
            }
        }
        h
    }

    pub fn lookup(&self, name: &str) -> Option<Handle<ir::Local>> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, h)| *h)
    }

    pub fn fresh(&mut self, kind: VarKind) -> Ty {
        self.table.new_var(kind)
    }

    pub fn new_loop_id(&mut self) -> ir::LoopId {
        let id = ir::LoopId(self.next_loop);
        self.next_loop += 1;
        id
    }

    /// Applies the deferred checks, then writes concrete types everywhere. Returns the
    /// function, its diagnostics and the module's globals (with this function's added).
    #[allow(clippy::type_complexity)]
    pub fn finish(
        mut self,
    ) -> (
        ir::Function,
        Vec<Diagnostic>,
        ir::Arena<ir::Global>,
        crate::ir::format::FormatTable,
    ) {
        self.resolve_shared();
        let mut deferred = std::mem::take(&mut self.deferred);
        for (h, magnitude, negated, span) in std::mem::take(&mut self.int_literals) {
            let ty = self.ty_of(h);
            deferred.push(Deferred::IntLiteral {
                ty,
                magnitude,
                negated,
                span,
            });
        }
        for check in deferred {
            self.run_deferred(check);
        }
        for (h, digits) in std::mem::take(&mut self.float_literals) {
            self.round_float_literal(h, &digits);
        }
        self.finish_prints();
        for i in 0..self.expr_tys.len() {
            let ty = self.table.to_ir(&self.expr_tys[i]);
            if self.f.exprs.get(Handle::new(i)).is_some() {
                self.f.exprs[Handle::new(i)].ty = ty;
            }
        }
        for i in 0..self.local_tys.len() {
            let ty = self.table.to_ir(&self.local_tys[i]);
            if self.f.locals.get(Handle::new(i)).is_some() {
                self.f.locals[Handle::new(i)].ty = ty;
            }
        }
        for p in &mut self.f.params {
            if let Some(local) = self.f.locals.get(p.local) {
                p.ty = local.ty.clone();
            }
        }
        let ret = self.ret.clone();
        self.f.ret = self.table.to_ir(&ret);
        super::half::widen_math(&mut self.f);
        (self.f, self.diags, self.globals, self.prints)
    }

    /// Gives an `f32` literal its correctly rounded value: `digits.parse::<f32>()`
    /// (what rustc does), kept in the IR's f64 exactly. A `-` folded into the literal
    /// (see `fold_negated_literal`) is kept.
    fn round_float_literal(&mut self, h: Handle<ir::Expr>, digits: &str) {
        let ty = self.ty_of(h);
        if self.table.final_scalar(&ty) != Some(ScalarType::F32) {
            return;
        }
        let Some(ir::Expr {
            kind: ir::ExprKind::Literal(ir::Literal::Float(v)),
            ..
        }) = self.f.exprs.get(h)
        else {
            return;
        };
        let negated = v.is_sign_negative();
        if let Ok(x) = digits.parse::<f32>() {
            let x = x as f64;
            let value = if negated { -x } else { x };
            self.f.exprs[h].kind = ir::ExprKind::Literal(ir::Literal::Float(value));
        }
    }

    fn run_deferred(&mut self, check: Deferred) {
        match check {
            Deferred::Operand {
                ty,
                span,
                class,
                msg,
            } => {
                if self.table.is_suppressed(&ty) {
                    return;
                }
                // Macro time: `op == Op::Add` on a named type (an enum is its integer
                // at run time); rustc checks that the type has `==` in the twin.
                if class == OperandClass::Scalar && self.table.is_unknown_named(&ty) {
                    return;
                }
                let good = match self.table.final_scalar(&ty) {
                    Some(s) => class.allows(s),
                    None => matches!(self.table.shallow(&ty), Ty::Never | Ty::Var(_)),
                };
                if !good {
                    let text = match msg {
                        OperandMsg::Binary {
                            op,
                            lhs,
                            rhs,
                            compound,
                        } => {
                            let l = self.table.describe(&lhs);
                            let r = self.table.describe(&rhs);
                            let named = |this: &mut Self, t: &Ty| {
                                matches!(this.table.shallow(t), Ty::Struct(_))
                                    || this.table.is_unknown_named(t)
                            };
                            if named(self, &lhs) || named(self, &rhs) {
                                // `impl Add for Vec3`: rustc accepts it in the twin,
                                // but trait impls are host code.
                                let text = binop_message(op, &l, &r, compound);
                                self.error_hint(
                                    span,
                                    format!("{text}: operators on structs are not supported in kernels (an `impl` of `std::ops` runs on the host only)"),
                                    format!("write the operation as a `#[device]` method in a `#[device] impl {l}` block and call it: `a.plus(b)`"),
                                );
                                return;
                            }
                            binop_message(op, &l, &r, compound)
                        }
                        OperandMsg::Unary { op, ty } => {
                            let t = self.table.describe(&ty);
                            format!("cannot apply unary operator `{op}` to type `{t}`")
                        }
                    };
                    self.error(span, text);
                }
            }
            Deferred::Cast { from, to, span } => self.check_cast(&from, to, span),
            Deferred::IntLiteral {
                ty,
                magnitude,
                negated,
                span,
            } => {
                if let Some(s) = self.table.final_scalar(&ty) {
                    if s.is_integer() && !literal_fits(s, magnitude, negated) {
                        self.error_hint(
                            span,
                            format!("literal out of range for `{s}`"),
                            format!("the literal does not fit into the type `{s}`"),
                        );
                    }
                }
            }
        }
    }

    fn check_cast(&mut self, from: &Ty, to: ScalarType, span: Span) {
        if self.table.is_suppressed(from) || self.table.is_unknown_named(from) {
            return;
        }
        let Some(f) = self.table.final_scalar(from) else {
            if !matches!(self.table.shallow(from), Ty::Never) {
                let d = self.table.describe(from);
                self.error_hint(
                    span,
                    format!("non-primitive cast: `{d}` as `{to}`"),
                    "`as` converts between scalar types only",
                );
            }
            return;
        };
        if (f.is_storage_only() || to.is_storage_only()) && f != to {
            // `e4m3` is the tensor cores' input: the host converts (`e4m3::from_f32`).
            self.error_hint(
                span,
                format!("`as` cannot convert `{f}` to `{to}`: kernels only copy `e4m3` values"),
                "convert on the host with `e4m3::from_f32(x)` and `x.to_f32()`; wgmma_m64nNk32_f32_e4m3 reads e4m3 tiles",
            );
        } else if (f.is_half() || to.is_half()) && f != to {
            // Rust has no `as` for the `half` crate's types; the twin would fail too.
            let hint = if to.is_half() {
                format!("convert with `{to}::from_f32(x)` or `{to}::from_f64(x)`")
            } else {
                format!("widen with `x.to_f32()` or `x.to_f64()`, then cast: `x.to_f32() as {to}`")
            };
            self.error_hint(span, format!("`as` cannot convert `{f}` to `{to}`"), hint);
        } else if to == ScalarType::Bool && f != ScalarType::Bool {
            self.error_hint(
                span,
                format!("cannot cast `{f}` as `bool`"),
                "compare with zero instead: `x != 0`",
            );
        } else if f == ScalarType::Bool && to.is_float() {
            self.error_hint(
                span,
                format!("casting `bool` as `{to}` is invalid"),
                "cast through an integer first: `b as u8 as f32`",
            );
        }
    }
}

/// Whether an integer literal of `magnitude` (negated if `-` was folded in) fits `s`.
fn literal_fits(s: ScalarType, magnitude: u64, negated: bool) -> bool {
    let bits = s.bits();
    if s.is_signed_integer() {
        let max = (1u64 << (bits - 1)) - 1;
        if negated {
            magnitude <= max + 1
        } else {
            magnitude <= max
        }
    } else if negated {
        // `-1u32` is rejected elsewhere (unary minus on unsigned).
        true
    } else {
        bits >= 64 || magnitude < (1u64 << bits)
    }
}

/// rustc's E0277 wording for a binary operator whose operand types do not fit.
pub fn binop_message(op: ir::BinaryOp, l: &str, r: &str, compound: bool) -> String {
    use ir::BinaryOp::*;
    let sym = match op {
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        Rem => "%",
        BitAnd => "&",
        BitOr => "|",
        BitXor => "^",
        Shl => "<<",
        Shr => ">>",
        Eq => "==",
        Ne => "!=",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
    };
    match (op, compound) {
        (Add, false) => format!("cannot add `{r}` to `{l}`"),
        (Sub, false) => format!("cannot subtract `{r}` from `{l}`"),
        (Mul, false) => format!("cannot multiply `{l}` by `{r}`"),
        (Div, false) => format!("cannot divide `{l}` by `{r}`"),
        (Rem, false) => format!("cannot calculate the remainder of `{l}` divided by `{r}`"),
        (Add, true) => format!("cannot add-assign `{r}` to `{l}`"),
        (Sub, true) => format!("cannot subtract-assign `{r}` from `{l}`"),
        (Mul, true) => format!("cannot multiply-assign `{l}` by `{r}`"),
        (Div, true) => format!("cannot divide-assign `{l}` by `{r}`"),
        (Rem, true) => {
            format!("cannot calculate and assign the remainder of `{l}` divided by `{r}`")
        }
        (_, true) => format!("no implementation for `{l} {sym}= {r}`"),
        (_, false) if op.is_comparison() => format!("can't compare `{l}` with `{r}`"),
        (_, false) => format!("no implementation for `{l} {sym} {r}`"),
    }
}
