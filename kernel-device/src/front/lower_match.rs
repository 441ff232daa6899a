//! `match`, `if let`, `while let` and `matches!`, lowered to `if` chains over the
//! scrutinee evaluated once (see `patterns.rs` for what each pattern tests and binds).
//!
//! `match s { p1 if g1 => e1, p2 => e2, p3 => e3 }` becomes
//! `{ let t = s; if test1(t) && { let binds1; g1 } { let binds1; e1 }
//!   else if test2(t) { let binds2; e2 } else { let binds3; e3 } }`:
//! the last arm is not tested again, as rustc has checked that the arms are exhaustive
//! (the kernel's twin is compiled by rustc), so nothing else can reach it. A guard sees
//! the arm's bindings through a block of its own; the arm binds them again.

use super::infer::{Ty, VarKind};
use super::lower_fn::{FnLowerer, LoopFrame};
use super::lower_stmt::label_name;
use super::patterns::{Part, PatternPlan};
use crate::ir::{self, Handle};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// One lowered arm: its condition (`None`: always taken), its body and the body's type.
struct Arm {
    cond: Option<Handle<ir::Expr>>,
    body: ir::Block,
    ty: Ty,
    span: Span,
}

/// `matches!(scrutinee, pattern)` / `matches!(scrutinee, pattern if guard)`.
pub struct MatchesArgs {
    pub scrutinee: syn::Expr,
    pub pat: syn::Pat,
    pub guard: Option<syn::Expr>,
}

impl MatchesArgs {
    /// The expressions a `matches!` evaluates: the scrutinee, then the guard if any.
    pub fn operands(&self) -> impl Iterator<Item = &syn::Expr> {
        std::iter::once(&self.scrutinee).chain(self.guard.as_ref())
    }
}

/// The parts of a `matches!` call, for the visitors that look for calls and constants
/// in a body (a macro's tokens are not syntax to them).
pub fn matches_args(mac: &syn::Macro) -> Option<MatchesArgs> {
    if is_matches_macro(mac) {
        mac.parse_body().ok()
    } else {
        None
    }
}

impl syn::parse::Parse for MatchesArgs {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let scrutinee = input.parse()?;
        input.parse::<syn::Token![,]>()?;
        let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
        let guard = if input.peek(syn::Token![if]) {
            input.parse::<syn::Token![if]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        if input.peek(syn::Token![,]) {
            input.parse::<syn::Token![,]>()?;
        }
        Ok(MatchesArgs {
            scrutinee,
            pat,
            guard,
        })
    }
}

/// Whether `mac` is std's `matches!` (the only macro kernels may use).
pub fn is_matches_macro(mac: &syn::Macro) -> bool {
    let names: Vec<String> = mac
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(
        names
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["matches"] | ["std", "matches"] | ["core", "matches"]
    )
}

impl FnLowerer<'_> {
    pub fn lower_match(&mut self, m: &syn::ExprMatch) -> Handle<ir::Expr> {
        let span = m.span();
        let mut stmts = Vec::new();
        let part = self.scrutinee(&m.expr, &mut stmts);
        if m.arms.is_empty() {
            self.error_hint(
                m.match_token.span,
                "a `match` without arms is not supported in kernels",
                "kernel values always have a value to match: add the arms",
            );
            return self.error_expr(span);
        }
        let mut arms = Vec::new();
        for arm in &m.arms {
            let plan = self.plan_pattern(&arm.pat, &part);
            let guard = arm.guard.as_ref().map(|(_, g)| self.lower_guard(&plan, g));
            let cond = self.and_tests(plan.test, guard, arm.pat.span());
            let (body, ty) = self.lower_arm_body(&plan, &arm.body);
            arms.push(Arm {
                cond,
                body,
                ty,
                span: arm.span(),
            });
        }
        let ty = self.join_arm_types(&arms, m);
        // From the last arm back: each earlier arm's `if` takes the rest as its `else`.
        let mut rest: Option<ir::Block> = None;
        for arm in arms.into_iter().rev() {
            rest = Some(match (arm.cond, rest) {
                (Some(cond), Some(else_block)) => {
                    let h = self.push_expr(
                        ir::ExprKind::If {
                            cond,
                            then_block: arm.body,
                            else_block: Some(else_block),
                        },
                        ty.clone(),
                        arm.span,
                    );
                    self.block_of(h)
                }
                // The last arm, or an arm that always matches: later arms are unreachable.
                (_, _) => arm.body,
            });
        }
        let chain = rest.unwrap_or_default();
        stmts.extend(chain.stmts);
        let block = ir::Block {
            stmts,
            tail: chain.tail,
        };
        self.push_expr(ir::ExprKind::Block(block), ty, span)
    }

    /// The type of a `match`: its arms' common type, ignoring arms that diverge.
    fn join_arm_types(&mut self, arms: &[Arm], m: &syn::ExprMatch) -> Ty {
        let mut joined: Option<Ty> = None;
        for (arm, syn_arm) in arms.iter().zip(&m.arms) {
            if self.table.is_never(&arm.ty) {
                continue;
            }
            match &joined {
                None => joined = Some(arm.ty.clone()),
                Some(expected) => {
                    if self.table.unify(expected, &arm.ty).is_err()
                        && !self.table.is_suppressed(expected)
                        && !self.table.is_suppressed(&arm.ty)
                    {
                        let e = self.table.describe(expected);
                        let f = self.table.describe_found(&arm.ty);
                        self.error_hint(
                            syn_arm.body.span(),
                            format!("`match` arms have incompatible types: expected `{e}`, found {f}"),
                            format!("every arm must give a `{e}`; convert with `as` where it is a number"),
                        );
                    }
                }
            }
        }
        joined.unwrap_or(Ty::Never)
    }

    /// `{ let bindings; guard }`: the guard sees the arm's bindings.
    fn lower_guard(&mut self, plan: &PatternPlan, guard: &syn::Expr) -> Handle<ir::Expr> {
        self.scopes.push(Vec::new());
        let stmts = self.bind_plan(plan);
        let g = self.lower_expr(guard);
        let gt = self.ty_of(g);
        self.expect_ty(&gt, &Ty::BOOL, guard.span());
        self.scopes.pop();
        self.push_expr(
            ir::ExprKind::Block(ir::Block {
                stmts,
                tail: Some(g),
            }),
            Ty::BOOL,
            guard.span(),
        )
    }

    /// An arm's body in a scope holding its bindings. A body may be a statement form
    /// (`1 => a[0] = 1,`), as in Rust.
    fn lower_arm_body(&mut self, plan: &PatternPlan, body: &syn::Expr) -> (ir::Block, Ty) {
        self.scopes.push(Vec::new());
        let mut block = ir::Block {
            stmts: self.bind_plan(plan),
            tail: None,
        };
        let ty = match self.lower_stmt_expr(body, &mut block.stmts) {
            Some(h) => {
                let t = self.ty_of(h);
                self.put_value(&mut block, h, &t);
                t
            }
            None => Ty::Unit,
        };
        self.scopes.pop();
        (block, ty)
    }

    /// Ends `block` with `h`: as its tail if it is a value, as a statement if it is
    /// `()` or diverges (a block's `tail` is always a value, see `ir::Block::tail`).
    fn put_value(&mut self, block: &mut ir::Block, h: Handle<ir::Expr>, ty: &Ty) {
        match self.table.shallow(ty) {
            Ty::Unit | Ty::Never => block.stmts.push(ir::Stmt::Expr(h)),
            _ => block.tail = Some(h),
        }
    }

    fn block_of(&mut self, h: Handle<ir::Expr>) -> ir::Block {
        let mut block = ir::Block::default();
        let ty = self.ty_of(h);
        self.put_value(&mut block, h, &ty);
        block
    }

    /// The test and bindings of `if let` / `while let`: the scrutinee is evaluated into
    /// `stmts`, the pattern's test is the condition, and the returned block (in a new
    /// scope, which the caller pops) starts by binding the pattern's names.
    fn begin_let_arm(
        &mut self,
        l: &syn::ExprLet,
        stmts: &mut Vec<ir::Stmt>,
    ) -> (Handle<ir::Expr>, ir::Block) {
        let part = self.scrutinee(&l.expr, stmts);
        let plan = self.plan_pattern(&l.pat, &part);
        let cond = self.test_or_true(plan.test, l.pat.span());
        self.scopes.push(Vec::new());
        let then_block = ir::Block {
            stmts: self.bind_plan(&plan),
            tail: None,
        };
        (cond, then_block)
    }

    /// `if let pat = scrutinee { .. } else { .. }`.
    pub fn lower_if_let(&mut self, i: &syn::ExprIf, l: &syn::ExprLet) -> Handle<ir::Expr> {
        let span = i.span();
        let mut stmts = Vec::new();
        let (cond, mut then_block) = self.begin_let_arm(l, &mut stmts);
        let (inner, then_ty) = self.lower_block(&i.then_branch);
        self.scopes.pop();
        let inner = self.push_expr(
            ir::ExprKind::Block(inner),
            then_ty.clone(),
            i.then_branch.span(),
        );
        self.put_value(&mut then_block, inner, &then_ty);
        let h = self.finish_if(cond, then_block, then_ty, i, span);
        let ty = self.ty_of(h);
        let mut block = ir::Block { stmts, tail: None };
        self.put_value(&mut block, h, &ty);
        self.push_expr(ir::ExprKind::Block(block), ty, span)
    }

    /// `while let pat = scrutinee { body }` as
    /// `loop { let t = scrutinee; if test(t) { let binds; body } else { break } }`.
    pub fn lower_while_let(
        &mut self,
        w: &syn::ExprWhile,
        l: &syn::ExprLet,
        stmts: &mut Vec<ir::Stmt>,
    ) {
        let id = self.new_loop_id();
        let break_ty = self.fresh(VarKind::General);
        self.loops.push(LoopFrame {
            id,
            label: label_name(&w.label),
            is_loop: false,
            break_ty,
            has_break: false,
        });
        self.scopes.push(Vec::new());
        let mut body = Vec::new();
        let (cond, mut then_block) = self.begin_let_arm(l, &mut body);
        let (inner, ty) = self.lower_block(&w.body);
        if let Some(syn::Stmt::Expr(e, None)) = w.body.stmts.last() {
            self.expect_ty(&ty, &Ty::Unit, e.span());
        }
        self.scopes.pop();
        let inner = self.push_expr(ir::ExprKind::Block(inner), Ty::Unit, w.body.span());
        then_block.stmts.push(ir::Stmt::Expr(inner));
        let exit = self.push_expr(
            ir::ExprKind::Break {
                target: id,
                value: None,
            },
            Ty::Never,
            l.span(),
        );
        let test = self.push_expr(
            ir::ExprKind::If {
                cond,
                then_block,
                else_block: Some(ir::Block {
                    stmts: vec![ir::Stmt::Expr(exit)],
                    tail: None,
                }),
            },
            Ty::Unit,
            w.span(),
        );
        body.push(ir::Stmt::Expr(test));
        self.scopes.pop();
        self.loops.pop();
        let lp = self.push_expr(
            ir::ExprKind::Loop {
                id,
                body: ir::Block {
                    stmts: body,
                    tail: None,
                },
            },
            Ty::Unit,
            w.span(),
        );
        stmts.push(ir::Stmt::Expr(lp));
    }

    /// `matches!(scrutinee, pattern [if guard])`: a `bool`.
    pub fn lower_matches(&mut self, m: &syn::ExprMacro) -> Handle<ir::Expr> {
        let span = m.span();
        let args: MatchesArgs = match m.mac.parse_body() {
            Ok(args) => args,
            Err(e) => {
                self.error_hint(
                    e.span(),
                    format!("cannot read this `matches!`: {e}"),
                    "write `matches!(value, pattern)` or `matches!(value, pattern if condition)`",
                );
                return self.error_expr(span);
            }
        };
        let mut stmts = Vec::new();
        let part: Part = self.scrutinee(&args.scrutinee, &mut stmts);
        let plan = self.plan_pattern(&args.pat, &part);
        let guard = args.guard.as_ref().map(|g| self.lower_guard(&plan, g));
        let test = self.and_tests(plan.test, guard, span);
        let test = self.test_or_true(test, span);
        self.push_expr(
            ir::ExprKind::Block(ir::Block {
                stmts,
                tail: Some(test),
            }),
            Ty::BOOL,
            span,
        )
    }
}
