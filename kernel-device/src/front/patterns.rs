//! Refutable patterns: what a pattern tests and what it binds.
//!
//! `match`, `if let`, `while let` and `matches!` (in `lower_match.rs`) evaluate their
//! scrutinee once into a temporary local; a pattern then becomes a [`PatternPlan`]: a
//! boolean IR expression over that temporary (literal and range comparisons joined with
//! `&&` / `||`), or nothing when it always matches, plus the names it binds with the
//! part of the scrutinee each one copies. The IR needs no new node: the constructs
//! become `if` chains the NVVM writer and the simulator already have.

use super::infer::{Ty, VarKind};
use super::lower_fn::FnLowerer;
use crate::ir::{self, BinaryOp, Handle, LogicalOp};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// A part of the scrutinee: its temporary and the tuple fields leading to the part.
#[derive(Clone, Debug)]
pub struct Part {
    pub local: Handle<ir::Local>,
    /// Each field index with the type of the value it selects.
    pub path: Vec<(u32, Ty)>,
    pub ty: Ty,
}

impl Part {
    fn field(&self, index: u32, ty: Ty) -> Part {
        let mut path = self.path.clone();
        path.push((index, ty.clone()));
        Part {
            local: self.local,
            path,
            ty,
        }
    }

    fn same_place(&self, other: &Part) -> bool {
        self.local == other.local
            && self.path.len() == other.path.len()
            && self.path.iter().zip(&other.path).all(|(a, b)| a.0 == b.0)
    }
}

/// A name a pattern binds: `n`, `mut n`, `n @ 1..=5`.
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub mutable: bool,
    pub span: Span,
    pub part: Part,
}

/// What a pattern tests (`None`: it always matches) and what it binds.
#[derive(Clone, Debug, Default)]
pub struct PatternPlan {
    pub test: Option<Handle<ir::Expr>>,
    pub bindings: Vec<Binding>,
}

impl FnLowerer<'_> {
    /// Evaluates `expr` once into a temporary (a `Let` pushed to `stmts`).
    pub fn scrutinee(&mut self, expr: &syn::Expr, stmts: &mut Vec<ir::Stmt>) -> Part {
        let init = self.lower_expr(expr);
        let ty = self.ty_of(init);
        let local = self.new_local("(scrutinee)", ty.clone(), false, expr.span());
        stmts.push(ir::Stmt::Let {
            local,
            init: Some(init),
        });
        Part {
            local,
            path: Vec::new(),
            ty,
        }
    }

    /// Reads `part` of the scrutinee (a fresh expression at each use).
    pub fn read_part(&mut self, part: &Part, span: Span) -> Handle<ir::Expr> {
        let root_ty = self.local_ty(part.local);
        let mut h = self.push_expr(ir::ExprKind::Local(part.local), root_ty, span);
        for (index, ty) in &part.path {
            h = self.push_expr(
                ir::ExprKind::Field {
                    base: h,
                    index: *index,
                },
                ty.clone(),
                span,
            );
        }
        h
    }

    /// Declares the plan's bindings in the current scope, each a copy of its part.
    pub fn bind_plan(&mut self, plan: &PatternPlan) -> Vec<ir::Stmt> {
        let mut stmts = Vec::new();
        for b in &plan.bindings {
            let init = self.read_part(&b.part, b.span);
            let local = self.new_local(&b.name, b.part.ty.clone(), b.mutable, b.span);
            stmts.push(ir::Stmt::Let {
                local,
                init: Some(init),
            });
        }
        stmts
    }

    /// A pattern's test, or `true` where the pattern is irrefutable (it tests nothing).
    pub fn test_or_true(&mut self, test: Option<Handle<ir::Expr>>, span: Span) -> Handle<ir::Expr> {
        match test {
            Some(test) => test,
            None => self.bool_literal(true, span),
        }
    }

    /// A `bool` literal (the test of a pattern that always matches).
    pub fn bool_literal(&mut self, value: bool, span: Span) -> Handle<ir::Expr> {
        self.push_expr(
            ir::ExprKind::Literal(ir::Literal::Bool(value)),
            Ty::BOOL,
            span,
        )
    }

    /// `lhs && rhs` where either side may be absent (always true).
    pub fn and_tests(
        &mut self,
        lhs: Option<Handle<ir::Expr>>,
        rhs: Option<Handle<ir::Expr>>,
        span: Span,
    ) -> Option<Handle<ir::Expr>> {
        match (lhs, rhs) {
            (Some(lhs), Some(rhs)) => Some(self.push_expr(
                ir::ExprKind::Logical {
                    op: LogicalOp::And,
                    lhs,
                    rhs,
                },
                Ty::BOOL,
                span,
            )),
            (one, None) | (None, one) => one,
        }
    }

    /// Type-checks `pat` against `part` and plans its test and bindings.
    pub fn plan_pattern(&mut self, pat: &syn::Pat, part: &Part) -> PatternPlan {
        let mut plan = PatternPlan::default();
        plan.test = self.pattern_test(pat, part, &mut plan.bindings);
        plan
    }

    fn pattern_test(
        &mut self,
        pat: &syn::Pat,
        part: &Part,
        bindings: &mut Vec<Binding>,
    ) -> Option<Handle<ir::Expr>> {
        match pat {
            syn::Pat::Wild(_) => None,
            syn::Pat::Paren(p) => self.pattern_test(&p.pat, part, bindings),
            syn::Pat::Ident(pi) => self.ident_pattern(pi, part, bindings),
            syn::Pat::Lit(l) => {
                let value = self.pattern_bound(&syn::Expr::Lit(l.clone()));
                Some(self.compare_part(part, BinaryOp::Eq, value, l.span()))
            }
            syn::Pat::Path(p) => {
                let value = self.lower_expr(&syn::Expr::Path(p.clone()));
                Some(self.compare_part(part, BinaryOp::Eq, value, p.span()))
            }
            syn::Pat::Range(r) => self.range_test(r, part),
            syn::Pat::Or(o) => self.or_test(o, part, bindings),
            syn::Pat::Tuple(t) => {
                let mut test = None;
                for (sub, sub_part) in self.tuple_parts(t, part) {
                    let sub_test = self.pattern_test(sub, &sub_part, bindings);
                    test = self.and_tests(test, sub_test, t.span());
                }
                test
            }
            other => {
                self.unsupported_pattern(other);
                // Its names are declared, of the error type, so their uses say nothing more.
                bindings.extend(names_in(other).into_iter().map(|ident| Binding {
                    name: ident.to_string(),
                    mutable: true,
                    span: ident.span(),
                    part: Part {
                        ty: Ty::Error,
                        ..part.clone()
                    },
                }));
                None
            }
        }
    }

    /// `n`, `mut n`, `n @ sub`, or a crate constant named by one identifier (`LIMIT`),
    /// which rustc reads as a constant pattern.
    fn ident_pattern(
        &mut self,
        pi: &syn::PatIdent,
        part: &Part,
        bindings: &mut Vec<Binding>,
    ) -> Option<Handle<ir::Expr>> {
        let name = pi.ident.to_string();
        if super::consts::names_const_pattern(pi) {
            if let Some(value) = self.lower_const(&name, pi.ident.span()) {
                return Some(self.compare_part(part, BinaryOp::Eq, value, pi.span()));
            }
        }
        if let Some(r) = &pi.by_ref {
            self.error_hint(
                r.span,
                "`ref` bindings are not supported in kernels",
                format!("bind by value: `{name} =>` (kernel values are copied)"),
            );
        }
        bindings.push(Binding {
            name,
            mutable: pi.mutability.is_some(),
            span: pi.ident.span(),
            part: part.clone(),
        });
        let (_, sub) = pi.subpat.as_ref()?;
        self.pattern_test(sub, part, bindings)
    }

    /// `part op value`, type-checked as the operator would be.
    fn compare_part(
        &mut self,
        part: &Part,
        op: BinaryOp,
        value: Handle<ir::Expr>,
        span: Span,
    ) -> Handle<ir::Expr> {
        let lhs = self.read_part(part, span);
        let value_ty = self.ty_of(value);
        let ty = self.check_binary_operands(op, &part.ty, &value_ty, span, span, false);
        self.push_expr(
            ir::ExprKind::Binary {
                op,
                lhs,
                rhs: value,
            },
            ty,
            span,
        )
    }

    /// `lo..=hi`, `lo..hi`, `lo..`, `..=hi`: one or two comparisons.
    fn range_test(&mut self, r: &syn::PatRange, part: &Part) -> Option<Handle<ir::Expr>> {
        let span = r.span();
        let low = r.start.as_ref().map(|lo| {
            let v = self.pattern_bound(lo);
            self.compare_part(part, BinaryOp::Ge, v, lo.span())
        });
        let high = r.end.as_ref().map(|hi| {
            let v = self.pattern_bound(hi);
            let op = match r.limits {
                syn::RangeLimits::Closed(_) => BinaryOp::Le,
                syn::RangeLimits::HalfOpen(_) => BinaryOp::Lt,
            };
            self.compare_part(part, op, v, hi.span())
        });
        self.and_tests(low, high, span)
    }

    /// A literal or constant in a pattern (a range's end, a literal pattern).
    fn pattern_bound(&mut self, e: &syn::Expr) -> Handle<ir::Expr> {
        let span = e.span();
        let syn::Expr::Lit(l) = e else {
            return self.lower_expr(e);
        };
        match &l.lit {
            syn::Lit::Int(i) if matches!(i.suffix(), "f32" | "f64") => self.float_pattern(span),
            syn::Lit::Float(_) => self.float_pattern(span),
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => {
                self.error_hint(
                    span,
                    "string literal patterns are not supported in kernels: device code has no strings",
                    "match on integer codes instead",
                );
                self.error_expr(span)
            }
            // syn reads a pattern's `-5` as one literal; lower it as `-(5)` so the
            // sign is checked (`-1` on a `u32`) and folded as in expressions.
            syn::Lit::Int(i) if i.base10_digits().starts_with('-') => {
                let digits = &i.base10_digits()[1..];
                let positive = syn::LitInt::new(&format!("{digits}{}", i.suffix()), i.span());
                let negated = syn::Expr::Unary(syn::ExprUnary {
                    attrs: Vec::new(),
                    op: syn::UnOp::Neg(syn::Token![-](span)),
                    expr: Box::new(syn::Expr::Lit(syn::ExprLit {
                        attrs: Vec::new(),
                        lit: syn::Lit::Int(positive),
                    })),
                });
                self.lower_expr(&negated)
            }
            _ => self.lower_expr(e),
        }
    }

    fn float_pattern(&mut self, span: Span) -> Handle<ir::Expr> {
        self.error_hint(
            span,
            "float literal patterns are not supported in kernels",
            "bind the value and compare it in a guard: `x if x == 0.5 =>`",
        );
        self.error_expr(span)
    }

    /// `a | b | c`: any alternative. Every alternative must bind the same names to the
    /// same parts (`(n, 0) | (n, 1)`), so the bindings do not depend on which matched.
    fn or_test(
        &mut self,
        o: &syn::PatOr,
        part: &Part,
        bindings: &mut Vec<Binding>,
    ) -> Option<Handle<ir::Expr>> {
        let mut test: Option<Handle<ir::Expr>> = None;
        let mut always = false;
        let mut first: Option<Vec<Binding>> = None;
        for case in &o.cases {
            let mut case_bindings = Vec::new();
            let case_test = self.pattern_test(case, part, &mut case_bindings);
            match &first {
                None => first = Some(case_bindings),
                Some(expected) => {
                    let same = expected.len() == case_bindings.len()
                        && expected.iter().all(|e| {
                            case_bindings
                                .iter()
                                .any(|b| b.name == e.name && b.part.same_place(&e.part))
                        });
                    if !same {
                        self.error_hint(
                            case.span(),
                            "alternatives of a `|` pattern that bind names in different places are not supported in kernels",
                            "use one arm per alternative, or bind the whole value: `n @ (1 | 2)`",
                        );
                    }
                }
            }
            match case_test {
                None => always = true,
                Some(t) => {
                    test = Some(match test {
                        None => t,
                        Some(acc) => self.push_expr(
                            ir::ExprKind::Logical {
                                op: LogicalOp::Or,
                                lhs: acc,
                                rhs: t,
                            },
                            Ty::BOOL,
                            o.span(),
                        ),
                    });
                }
            }
        }
        bindings.extend(first.unwrap_or_default());
        if always {
            None
        } else {
            test
        }
    }

    /// The sub-patterns of a tuple pattern with the parts they match (`..` skips
    /// elements); reports a pattern that does not fit the scrutinee's type.
    fn tuple_parts<'p>(&mut self, t: &'p syn::PatTuple, part: &Part) -> Vec<(&'p syn::Pat, Part)> {
        let rest = t.elems.iter().position(|p| matches!(p, syn::Pat::Rest(_)));
        let written = t.elems.len() - usize::from(rest.is_some());
        let items = match self.table.shallow(&part.ty) {
            Ty::Tuple(items) if rest.is_some() && items.len() >= written => items,
            Ty::Tuple(items) if items.len() == written => items,
            // Already reported: bind the names, of the error type, and say nothing more.
            Ty::Error => vec![Ty::Error; items_len_guess(&t.elems)],
            Ty::Var(_) if rest.is_none() => {
                let kind = match self.table.var_kind(&part.ty) {
                    Some(VarKind::Opaque) => VarKind::Opaque,
                    _ => VarKind::General,
                };
                let items: Vec<Ty> = (0..written).map(|_| self.fresh(kind)).collect();
                let _ = self.table.unify(&part.ty, &Ty::Tuple(items.clone()));
                items
            }
            _ => {
                if !self.table.is_suppressed(&part.ty) {
                    let d = self.table.describe(&part.ty);
                    self.error_hint(
                        t.span(),
                        format!("mismatched types: expected `{d}`, found a tuple pattern with {written} elements"),
                        "a tuple pattern matches a tuple value: `match (a, b) { (0, _) => .. }`",
                    );
                }
                return Vec::new();
            }
        };
        let skipped = items.len() - written;
        let mut out = Vec::new();
        for (i, sub) in t.elems.iter().enumerate() {
            let index = match rest {
                Some(r) if i == r => continue,
                Some(r) if i > r => i - 1 + skipped,
                _ => i,
            };
            let ty = items[index].clone();
            out.push((sub, part.field(index as u32, ty)));
        }
        out
    }

    /// Reports a pattern form outside the subset, naming what to write instead.
    fn unsupported_pattern(&mut self, pat: &syn::Pat) {
        let (message, hint) = match pat {
            syn::Pat::Slice(_) => (
                "slice and array patterns are not supported in kernels",
                "index the elements (`s[0]`, `s[1]`) and match on their values",
            ),
            syn::Pat::Struct(_) => (
                "struct patterns are not supported in kernels",
                "read the fields (`p.x`) and match on their values",
            ),
            syn::Pat::TupleStruct(ts) if ts.path.segments.last().is_some_and(|s| s.ident == "Some") => (
                "`Option` patterns are not supported in kernels: kernels have no `Option`",
                "use a flag or a sentinel value (`while n > 0 { n -= 1; .. }`)",
            ),
            syn::Pat::TupleStruct(_) => (
                "tuple-struct and enum-variant patterns with fields are not supported in kernels",
                "match a scalar or a tuple of scalars, with literals, ranges, `_`, names and `|`: `(kind, 0..=9) =>`",
            ),
            syn::Pat::Reference(_) => (
                "reference patterns (`&x`) are not supported in kernels",
                "match the value itself: kernels read scalars by value",
            ),
            syn::Pat::Type(_) => (
                "type annotations inside patterns are not supported",
                "annotate the scrutinee instead: `match x as u32 { .. }` or a typed `let`",
            ),
            syn::Pat::Macro(_) => (
                "macros in patterns are not supported in kernels",
                "write the pattern out",
            ),
            syn::Pat::Const(_) => (
                "`const` blocks are not supported in kernels",
                "use a literal or a crate constant",
            ),
            syn::Pat::Rest(_) => (
                "`..` is only supported inside a tuple pattern in kernels",
                "write `_` to match anything",
            ),
            syn::Pat::Verbatim(tokens) if tokens.to_string().starts_with("box") => (
                "`box` patterns are not supported in kernels (nor in stable Rust)",
                "kernels have no heap: match the value itself",
            ),
            _ => (
                "this pattern is not supported in kernels",
                "use literals, ranges (`1..=9`), `_`, names, `n @ pattern`, `a | b`, tuples of those and fieldless enum variants",
            ),
        };
        self.error_hint(pat.span(), message, hint);
    }
}

/// How many elements a tuple pattern names (`..` counts none).
fn items_len_guess(elems: &syn::punctuated::Punctuated<syn::Pat, syn::Token![,]>) -> usize {
    elems
        .iter()
        .filter(|p| !matches!(p, syn::Pat::Rest(_)))
        .count()
}

/// The names a pattern binds (of a pattern outside the subset, to declare them).
pub(super) fn names_in(pat: &syn::Pat) -> Vec<syn::Ident> {
    struct Names(Vec<syn::Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut names = Names(Vec::new());
    syn::visit::Visit::visit_pat(&mut names, pat);
    names.0
}
