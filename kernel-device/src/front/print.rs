//! `print!`, `println!`, `eprint!`, `eprintln!`, `assert!`, `assert_eq!`, `assert_ne!`
//! (and their `debug_` forms), `panic!`, `unreachable!`, `todo!` and `unimplemented!`
//! in kernels and device functions: the macro's tokens parsed as Rust parses them, the
//! format string by [`crate::ir::format::parse`] (errors at the literal, in rustc's
//! words), and one [`ir::Stmt::Print`] per call whose format goes to the module's
//! table. Argument types are known only after inference: [`FnLowerer::finish_prints`]
//! fills the table's types and checks each placeholder's trait then.

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use super::infer::{StructTy, Ty};
use super::lower_fn::FnLowerer;
use super::lower_place::ty_of_ir;
use crate::diag::Diagnostic;
use crate::ir::format::panic::{
    assert_compare_message, assert_message, panic_message, AssertOp, PanicMacro,
};
use crate::ir::format::program::Piece;
use crate::ir::format::{
    check_trait, parse, ArgumentSource, Destination, ExplicitArguments, FormatProgram, PrintFormat,
};
use crate::ir::{self, Handle, ScalarType};

/// Which of the debugging macros a call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugMacro {
    Print {
        newline: bool,
        destination: Destination,
    },
    Panic(PanicMacro),
    /// `assert!` (`debug`: `debug_assert!`).
    Assert {
        debug: bool,
    },
    AssertCompare {
        op: AssertOp,
        debug: bool,
    },
}

impl DebugMacro {
    pub fn of(mac: &syn::Macro) -> Option<DebugMacro> {
        let name = mac.path.segments.last()?.ident.to_string();
        let print = |newline, destination| DebugMacro::Print {
            newline,
            destination,
        };
        Some(match name.as_str() {
            "print" => print(false, Destination::Stdout),
            "println" => print(true, Destination::Stdout),
            "eprint" => print(false, Destination::Stderr),
            "eprintln" => print(true, Destination::Stderr),
            "panic" => DebugMacro::Panic(PanicMacro::Panic),
            "unreachable" => DebugMacro::Panic(PanicMacro::Unreachable),
            "todo" => DebugMacro::Panic(PanicMacro::Todo),
            "unimplemented" => DebugMacro::Panic(PanicMacro::Unimplemented),
            "assert" => DebugMacro::Assert { debug: false },
            "debug_assert" => DebugMacro::Assert { debug: true },
            "assert_eq" => DebugMacro::AssertCompare {
                op: AssertOp::Eq,
                debug: false,
            },
            "assert_ne" => DebugMacro::AssertCompare {
                op: AssertOp::Ne,
                debug: false,
            },
            "debug_assert_eq" => DebugMacro::AssertCompare {
                op: AssertOp::Eq,
                debug: true,
            },
            "debug_assert_ne" => DebugMacro::AssertCompare {
                op: AssertOp::Ne,
                debug: true,
            },
            _ => return None,
        })
    }

    /// The operands before the format string (`assert!`'s condition, `assert_eq!`'s two).
    fn leading(self) -> usize {
        match self {
            DebugMacro::Assert { .. } => 1,
            DebugMacro::AssertCompare { .. } => 2,
            _ => 0,
        }
    }
}

/// A debugging macro's arguments as written.
pub struct DebugMacroArgs {
    pub kind: DebugMacro,
    /// The condition, or the two compared operands.
    pub leading: Vec<syn::Expr>,
    pub format: Option<syn::LitStr>,
    pub positional: Vec<syn::Expr>,
    pub named: Vec<(syn::Ident, syn::Expr)>,
}

impl DebugMacroArgs {
    /// Every expression the call evaluates (for the visitors that look for device
    /// calls and constants).
    pub fn operands(&self) -> impl Iterator<Item = &syn::Expr> {
        self.leading
            .iter()
            .chain(&self.positional)
            .chain(self.named.iter().map(|(_, e)| e))
    }
}

/// Parses a debugging macro's arguments; `None` for any other macro.
pub fn debug_macro_args(mac: &syn::Macro) -> Option<Result<DebugMacroArgs, Diagnostic>> {
    let kind = DebugMacro::of(mac)?;
    Some(parse_args(mac, kind))
}

fn parse_args(mac: &syn::Macro, kind: DebugMacro) -> Result<DebugMacroArgs, Diagnostic> {
    let name = mac.path.segments.last().map(|s| s.ident.to_string());
    let name = name.unwrap_or_default();
    let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
    let exprs = syn::parse::Parser::parse2(parser, mac.tokens.clone()).map_err(|e| {
        Diagnostic::new(e.span(), format!("invalid `{name}!` arguments: {e}")).with_hint(format!(
            "write `{name}!(\"..\", value, ..)` with comma-separated expressions"
        ))
    })?;
    let mut exprs = exprs.into_iter();
    let leading: Vec<syn::Expr> = exprs.by_ref().take(kind.leading()).collect();
    if leading.len() < kind.leading() {
        let what = if kind.leading() == 1 {
            "a boolean expression"
        } else {
            "two arguments to compare"
        };
        let usage = if kind.leading() == 1 {
            format!("`{name}!(condition)` or `{name}!(condition, \"message {{}}\", value)`")
        } else {
            format!("`{name}!(left, right)` or `{name}!(left, right, \"message {{}}\", value)`")
        };
        return Err(
            Diagnostic::new(mac.path.span(), format!("`{name}!` requires {what}"))
                .with_hint(format!("write {usage}")),
        );
    }
    let format = match exprs.next() {
        None => None,
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        })) => Some(s),
        Some(other) => {
            return Err(
                Diagnostic::new(other.span(), "format argument must be a string literal")
                    .with_hint(format!(
                        "write `{name}!(\"{{}}\", ..)` with the value as an argument"
                    )),
            )
        }
    };
    if format.is_none() && matches!(kind, DebugMacro::Print { newline: false, .. }) {
        return Err(Diagnostic::new(
            mac.path.span(),
            format!("`{name}!` requires at least a format string argument"),
        )
        .with_hint(format!("write `{name}!(\"text {{}}\", value)`")));
    }
    let mut positional = Vec::new();
    let mut named: Vec<(syn::Ident, syn::Expr)> = Vec::new();
    for e in exprs {
        if let syn::Expr::Assign(a) = &e {
            if let syn::Expr::Path(p) = &*a.left {
                if let Some(ident) = p.path.get_ident() {
                    named.push((ident.clone(), (*a.right).clone()));
                    continue;
                }
            }
        }
        if !named.is_empty() {
            return Err(Diagnostic::new(
                e.span(),
                "positional arguments cannot follow named arguments",
            )
            .with_hint("put the positional arguments first, then `name = value`"));
        }
        positional.push(e);
    }
    Ok(DebugMacroArgs {
        kind,
        leading,
        format,
        positional,
        named,
    })
}

/// A print statement whose argument types are filled in after inference.
pub struct PendingPrint {
    pub format: u32,
    /// Each argument with the span its errors point at.
    pub args: Vec<(Handle<ir::Expr>, Span)>,
}

impl FnLowerer<'_> {
    /// Lowers a debugging macro call to an expression: a block holding the print
    /// statement (unit), a panic (never), or the assertion's `if` (unit).
    pub fn lower_debug_macro(&mut self, mac: &syn::Macro) -> Handle<ir::Expr> {
        let span = mac.path.span();
        let args = match debug_macro_args(mac) {
            Some(Ok(args)) => args,
            Some(Err(d)) => {
                self.diags.push(d);
                return self.error_expr(span);
            }
            None => {
                self.diags.push(super::check::macro_diag(mac));
                return self.error_expr(span);
            }
        };
        let loc = self.loc(span);
        let message = match &args.format {
            Some(lit) => match self.message_program(lit, &args) {
                Some(program) => Some(program),
                None => return self.error_expr(span),
            },
            None => None,
        };
        match args.kind {
            DebugMacro::Print {
                newline,
                destination,
            } => {
                let mut program = message.unwrap_or(FormatProgram {
                    pieces: Vec::new(),
                    arguments: Vec::new(),
                });
                if newline {
                    program.pieces.push(Piece::Literal("\n".into()));
                }
                let stmt =
                    self.print_stmt(program, destination, &args, &[], loc, ir::PrintKind::Print);
                self.unit_block(vec![stmt], span)
            }
            DebugMacro::Panic(which) => {
                let program = panic_message(which, message);
                let stmt = self.print_stmt(
                    program,
                    Destination::Panic,
                    &args,
                    &[],
                    loc,
                    ir::PrintKind::Panic,
                );
                let block = ir::Block {
                    stmts: vec![stmt],
                    tail: None,
                };
                self.push_expr(ir::ExprKind::Block(block), Ty::Never, span)
            }
            DebugMacro::Assert { debug } => {
                if debug && !self.f.options.debug_assertions {
                    return self.unit_block(Vec::new(), span);
                }
                let cond_expr = &args.leading[0];
                let cond = self.lower_expr(cond_expr);
                let cond_ty = self.ty_of(cond);
                self.expect_ty(&cond_ty, &Ty::Scalar(ScalarType::Bool), cond_expr.span());
                let program = match message {
                    Some(program) => program,
                    None => assert_message(&condition_text(cond_expr)),
                };
                let stmt = self.print_stmt(
                    program,
                    Destination::Panic,
                    &args,
                    &[],
                    loc,
                    ir::PrintKind::Panic,
                );
                let failed = self.push_expr(
                    ir::ExprKind::Unary {
                        op: ir::UnaryOp::Not,
                        operand: cond,
                    },
                    Ty::Scalar(ScalarType::Bool),
                    cond_expr.span(),
                );
                let check = self.if_then(failed, stmt, span);
                self.unit_block(vec![ir::Stmt::Expr(check)], span)
            }
            DebugMacro::AssertCompare { op, debug } => {
                if debug && !self.f.options.debug_assertions {
                    return self.unit_block(Vec::new(), span);
                }
                // Each operand is evaluated once, into a local, as Rust's `match (&l, &r)`.
                let mut stmts = Vec::new();
                let mut reads = Vec::new();
                for (side, e) in ["left", "right"].iter().zip(&args.leading) {
                    let value = self.lower_expr(e);
                    let ty = self.ty_of(value);
                    let local =
                        self.new_local(&format!("__cudajit.{side}"), ty.clone(), false, e.span());
                    stmts.push(ir::Stmt::Let {
                        local,
                        init: Some(value),
                    });
                    reads.push((local, ty, e.span()));
                }
                let (lt, rt) = (reads[0].1.clone(), reads[1].1.clone());
                self.expect_ty(&rt, &lt, args.leading[1].span());
                let read = |this: &mut Self, k: usize| {
                    let (local, ty, span) = reads[k].clone();
                    this.push_expr(ir::ExprKind::Local(local), ty, span)
                };
                let places = [reads[0].0, reads[1].0].map(|l| ir::Place::local(l, loc));
                let [left_place, right_place] = places;
                let equal = self.equality(left_place, right_place, &lt, span);
                let failed = match op {
                    AssertOp::Eq => self.push_expr(
                        ir::ExprKind::Unary {
                            op: ir::UnaryOp::Not,
                            operand: equal,
                        },
                        Ty::Scalar(ScalarType::Bool),
                        span,
                    ),
                    AssertOp::Ne => equal,
                };
                let program = assert_compare_message(op, message);
                let operands = [(read(self, 0), reads[0].2), (read(self, 1), reads[1].2)];
                let stmt = self.print_stmt(
                    program,
                    Destination::Panic,
                    &args,
                    &operands,
                    loc,
                    ir::PrintKind::Panic,
                );
                let check = self.if_then(failed, stmt, span);
                stmts.push(ir::Stmt::Expr(check));
                self.unit_block(stmts, span)
            }
        }
    }

    /// The format string parsed against the call's explicit arguments; `None` after
    /// reporting its errors.
    fn message_program(
        &mut self,
        lit: &syn::LitStr,
        args: &DebugMacroArgs,
    ) -> Option<FormatProgram> {
        let explicit = ExplicitArguments {
            positional: args.positional.len(),
            named: args.named.iter().map(|(n, _)| n.to_string()).collect(),
        };
        match parse(&lit.value(), &explicit) {
            Ok(program) => Some(program),
            Err(errors) => {
                for e in errors {
                    let at = e
                        .argument
                        .and_then(|k| {
                            args.positional.get(k).map(|p| p.span()).or_else(|| {
                                args.named
                                    .get(k - args.positional.len())
                                    .map(|(n, _)| n.span())
                            })
                        })
                        .unwrap_or(lit.span());
                    let hint = e.note().unwrap_or_else(|| match e.argument {
                        Some(_) => "remove the argument, or print it with a `{}`".into(),
                        None => "write the format as `std::fmt` describes: `{}`, `{:?}`, `{name}`, `{0:>8.3}`".into(),
                    });
                    self.diags
                        .push(Diagnostic::new(at, e.to_string()).with_hint(hint));
                }
                None
            }
        }
    }

    /// The print statement of `program`: its arguments lowered in its order (`operands`
    /// stand for `assert_eq!`'s left and right), its format added to the table.
    fn print_stmt(
        &mut self,
        program: FormatProgram,
        destination: Destination,
        args: &DebugMacroArgs,
        operands: &[(Handle<ir::Expr>, Span)],
        loc: ir::SourceLoc,
        kind: ir::PrintKind,
    ) -> ir::Stmt {
        let literal_span = args.format.as_ref().map_or(Span::call_site(), |l| l.span());
        let mut lowered = Vec::with_capacity(program.arguments.len());
        for source in &program.arguments {
            let arg = match source {
                ArgumentSource::Positional(k) => {
                    let e = &args.positional[*k];
                    (self.lower_expr(e), e.span())
                }
                ArgumentSource::Named(name) => {
                    let e = &args
                        .named
                        .iter()
                        .find(|(n, _)| n == name)
                        .expect("parsed")
                        .1;
                    (self.lower_expr(e), e.span())
                }
                ArgumentSource::Captured(name) => {
                    let ident = syn::Ident::new(name, literal_span);
                    let path = syn::Expr::Path(syn::ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: ident.into(),
                    });
                    (self.lower_expr(&path), literal_span)
                }
                ArgumentSource::AssertLeft => operands[0],
                ArgumentSource::AssertRight => operands[1],
            };
            lowered.push(arg);
        }
        // A width or precision argument is a `usize`, as rustc infers it (`w = 4`).
        for k in program.count_arguments() {
            let (h, span) = lowered[k];
            let ty = self.ty_of(h);
            self.expect_ty(&ty, &Ty::Scalar(ScalarType::Usize), span);
        }
        let format = self.prints.push(PrintFormat {
            program,
            argument_types: Vec::new(),
            destination,
        });
        self.pending_prints.push(PendingPrint {
            format,
            args: lowered.clone(),
        });
        ir::Stmt::Print(Box::new(ir::PrintStmt {
            format,
            args: lowered.into_iter().map(|(h, _)| h).collect(),
            loc,
            kind,
        }))
    }

    fn unit_block(&mut self, stmts: Vec<ir::Stmt>, span: Span) -> Handle<ir::Expr> {
        let block = ir::Block { stmts, tail: None };
        self.push_expr(ir::ExprKind::Block(block), Ty::Unit, span)
    }

    fn if_then(&mut self, cond: Handle<ir::Expr>, stmt: ir::Stmt, span: Span) -> Handle<ir::Expr> {
        let then_block = ir::Block {
            stmts: vec![stmt],
            tail: None,
        };
        self.push_expr(
            ir::ExprKind::If {
                cond,
                then_block,
                else_block: None,
            },
            Ty::Unit,
            span,
        )
    }

    /// After inference: each print format's argument types, each placeholder's trait
    /// checked for its argument's type, widths and precisions checked to be `usize`.
    pub fn finish_prints(&mut self) {
        for pending in std::mem::take(&mut self.pending_prints) {
            let mut types = Vec::with_capacity(pending.args.len());
            let mut known = Vec::with_capacity(pending.args.len());
            for (h, _) in &pending.args {
                let ty = self.ty_of(*h);
                known.push(!self.table.is_suppressed(&ty) && !self.names_unknown_struct(&ty));
                types.push(self.table.to_ir(&ty));
            }
            let Some(format) = self.prints.formats.get_mut(pending.format as usize) else {
                continue;
            };
            format.argument_types = types.clone();
            let program = format.program.clone();
            let mut reported = vec![false; types.len()];
            let mut report = |this: &mut Self, k: usize, message: String| {
                if known[k] && types[k] != ir::Type::Unit && !reported[k] {
                    reported[k] = true;
                    this.diags.push(Diagnostic::new(pending.args[k].1, message).with_hint(
                        "kernels print scalars, `f16`/`bf16`, `Complex`, `#[derive(Debug)]` structs and arrays of them; a width or precision is a `usize`",
                    ));
                }
            };
            for p in program.placeholders() {
                if let Err(e) = check_trait(&types[p.argument], p.spec.format_trait) {
                    report(self, p.argument, e.to_string());
                }
            }
            for k in program.count_arguments() {
                if types[k] != ir::Type::Scalar(ScalarType::Usize) {
                    report(
                        self,
                        k,
                        format!(
                            "a width or precision argument must be a `usize`, found `{}`",
                            types[k]
                        ),
                    );
                }
            }
        }
    }
}

impl FnLowerer<'_> {
    /// `left == right` as Rust's `PartialEq` decides it for `assert_eq!`: scalars
    /// compared as they are, structs field by field (`#[derive(PartialEq)]`) and arrays
    /// element by element, stopping at the first difference as `&&` does; the IR
    /// compares scalars only. A struct the macro knows by name only stays one
    /// comparison (rustc's check of the twin decides whether it has `PartialEq`).
    fn equality(
        &mut self,
        left: ir::Place,
        right: ir::Place,
        ty: &Ty,
        span: Span,
    ) -> Handle<ir::Expr> {
        let bool_ty = Ty::Scalar(ScalarType::Bool);
        let parts: Vec<(ir::Place, ir::Place, Ty)> = match self.table.shallow(ty) {
            Ty::Struct(StructTy { def: Some(def), .. }) => (def.fields.iter())
                .enumerate()
                .map(|(k, f)| {
                    let k = k as u32;
                    (
                        left.clone().field(k),
                        right.clone().field(k),
                        ty_of_ir(&f.ty),
                    )
                })
                .collect(),
            Ty::Tuple(items) => (items.iter().enumerate())
                .map(|(k, t)| {
                    (
                        left.clone().field(k as u32),
                        right.clone().field(k as u32),
                        t.clone(),
                    )
                })
                .collect(),
            Ty::Array {
                elem,
                len: Some(len),
            } => (0..len)
                .map(|j| {
                    let index = self.push_expr(
                        ir::ExprKind::Literal(ir::Literal::Int(j)),
                        Ty::Scalar(ScalarType::Usize),
                        span,
                    );
                    let at = |p: &ir::Place| {
                        let mut p = p.clone();
                        p.projections.push(ir::Projection::Index(index));
                        p
                    };
                    (at(&left), at(&right), (*elem).clone())
                })
                .collect(),
            _ => {
                let lhs = self.push_expr(ir::ExprKind::Load(left), ty.clone(), span);
                let rhs = self.push_expr(ir::ExprKind::Load(right), ty.clone(), span);
                let op = ir::BinaryOp::Eq;
                return self.push_expr(ir::ExprKind::Binary { op, lhs, rhs }, bool_ty, span);
            }
        };
        let mut equal: Option<Handle<ir::Expr>> = None;
        for (l, r, part_ty) in parts {
            let part = self.equality(l, r, &part_ty, span);
            equal = Some(match equal {
                None => part,
                Some(lhs) => self.push_expr(
                    ir::ExprKind::Logical {
                        op: ir::LogicalOp::And,
                        lhs,
                        rhs: part,
                    },
                    bool_ty.clone(),
                    span,
                ),
            });
        }
        equal.unwrap_or_else(|| {
            self.push_expr(
                ir::ExprKind::Literal(ir::Literal::Bool(true)),
                bool_ty,
                span,
            )
        })
    }

    /// Whether `ty` is, or holds in an array or tuple, a struct the macro knows by name
    /// only: its `Debug` is checked when the module is compiled with the definitions.
    fn names_unknown_struct(&mut self, ty: &Ty) -> bool {
        match self.table.shallow(ty) {
            Ty::Array { elem, .. } => self.names_unknown_struct(&elem),
            Ty::Tuple(items) => items.iter().any(|t| self.names_unknown_struct(t)),
            other => self.table.is_unknown_named(&other),
        }
    }
}

/// `assert!`'s condition as its message shows it: the source text with runs of
/// whitespace made one space (rustc pretty-prints the tokens; for code as rustfmt
/// writes it the two agree).
fn condition_text(cond: &syn::Expr) -> String {
    let text = cond
        .span()
        .source_text()
        .unwrap_or_else(|| quote::ToTokens::to_token_stream(cond).to_string());
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
