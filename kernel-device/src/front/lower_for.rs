//! `for` loops: over `a..b` / `a..=b`, optionally `.rev()` and/or `.step_by(n)`
//! (`(a..b).rev().step_by(n)` when both), lowered to `ir::Stmt::ForRange`.

use super::infer::{Ty, VarKind};
use super::lower_fn::FnLowerer;
use super::lower_place::strip;
use super::lower_stmt::label_name;
use super::signature::plain_binding;
use crate::ir;
use syn::spanned::Spanned;

/// The iterator of a supported `for` loop, taken apart.
struct RangeIter<'e> {
    range: &'e syn::ExprRange,
    /// The argument of `.step_by(..)`.
    step: Option<&'e syn::Expr>,
    reverse: bool,
}

impl FnLowerer<'_> {
    /// Splits `for`'s iterator into a range and its adapters, or reports why it is not
    /// one of the supported forms.
    fn range_iter<'e>(&mut self, expr: &'e syn::Expr) -> Option<RangeIter<'e>> {
        // The method calls from the outermost in, then what they are called on.
        let mut chain: Vec<&syn::ExprMethodCall> = Vec::new();
        let mut base = strip(expr);
        while let syn::Expr::MethodCall(m) = base {
            chain.push(m);
            base = strip(&m.receiver);
        }
        let syn::Expr::Range(range) = base else {
            self.error_hint(
                expr.span(),
                "`for` loops in kernels only iterate over integer ranges (`a..b` or `a..=b`, optionally with `.rev()` and `.step_by(n)`)",
                "iterate over indices: `for i in 0..s.len() { .. s[i] .. }`",
            );
            return None;
        };
        chain.reverse();
        let names: Vec<String> = chain.iter().map(|m| m.method.to_string()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for m in &chain {
            let name = m.method.to_string();
            let arity = match name.as_str() {
                "rev" => 0,
                "step_by" => 1,
                _ => {
                    self.error_hint(
                        m.method.span(),
                        format!("`.{name}()` is not supported on a `for` loop's range in kernels"),
                        "only `.rev()` and `.step_by(n)` are: compute the value from the loop variable in the body",
                    );
                    return None;
                }
            };
            if m.turbofish.is_some() || m.args.len() != arity {
                let want = if arity == 0 {
                    "`.rev()` takes no arguments"
                } else {
                    "`.step_by(n)` takes one argument, the step (a usize)"
                };
                self.error_hint(
                    m.method.span(),
                    format!("wrong arguments to `.{name}`"),
                    want,
                );
                return None;
            }
        }
        let (step, reverse) = match names.as_slice() {
            [] => (None, false),
            ["rev"] => (None, true),
            ["step_by"] => (chain[0].args.first(), false),
            ["rev", "step_by"] => (chain[1].args.first(), true),
            ["step_by", "rev"] => {
                self.error_hint(
                    chain[1].method.span(),
                    "`.step_by(n).rev()` is not supported in kernels",
                    "write `(a..b).rev().step_by(n)` to count down from the range's last element by `n` (a different sequence: `.step_by(n).rev()` starts at the last element that stepping forward reaches)",
                );
                return None;
            }
            _ => {
                // A repeated adapter (`.rev().rev()`, `.step_by(a).step_by(b)`, ...).
                let last = chain[chain.len() - 1];
                self.error_hint(
                    last.method.span(),
                    "this chain of range adapters is not supported in kernels",
                    "use `(a..b).rev()`, `(a..b).step_by(n)` or `(a..b).rev().step_by(n)`",
                );
                return None;
            }
        };
        Some(RangeIter {
            range,
            step,
            reverse,
        })
    }

    pub fn lower_for(&mut self, f: &syn::ExprForLoop, stmts: &mut Vec<ir::Stmt>) {
        let unroll = self.unroll_attr(&f.attrs);
        let Some(RangeIter {
            range,
            step,
            reverse,
        }) = self.range_iter(&f.expr)
        else {
            return;
        };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            self.error_hint(
                range.span(),
                "`for` loops need a bounded range `a..b` or `a..=b`",
                "write both bounds",
            );
            return;
        };
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let start_h = self.lower_expr(start);
        let end_h = self.lower_expr(end);
        let st = self.ty_of(start_h);
        let et = self.ty_of(end_h);
        if self.table.unify(&st, &et).is_err() {
            self.mismatch(end.span(), &st, &et);
        }
        // std's `step_by` takes a usize whatever the range's type.
        let step_h = step.map(|s| {
            let h = self.lower_expr(s);
            let t = self.ty_of(h);
            self.expect_ty(&t, &Ty::USIZE, s.span());
            h
        });
        let ty = match self.table.shallow(&st) {
            Ty::Never => et.clone(),
            _ => st.clone(),
        };
        match self.table.shallow(&ty) {
            Ty::Var(_) => {
                let int = self.fresh(VarKind::Int);
                if self.table.unify(&ty, &int).is_err() {
                    let d = self.table.describe(&ty);
                    self.error(
                        range.span(),
                        format!("`for` loops need an integer range, found `{d}`"),
                    );
                }
            }
            Ty::Scalar(s) if s.is_integer() => {}
            Ty::Error | Ty::Never => {}
            _ => {
                let d = self.table.describe(&ty);
                self.error_hint(
                    range.span(),
                    format!("`for` loops need an integer range, found `{d}`"),
                    "loop over an integer counter and compute the value from it",
                );
            }
        }
        self.scopes.push(Vec::new());
        let (name, mutable, span) = match plain_binding(&f.pat) {
            Ok(binding) => binding,
            Err(names) => {
                self.error_hint(
                    f.pat.span(),
                    "this loop pattern is not supported",
                    "use a name or `_`",
                );
                for (name, span) in names {
                    self.new_local(&name, Ty::Error, false, span);
                }
                ("_".to_string(), false, f.pat.span())
            }
        };
        let var = self.new_local(&name, ty, mutable, span);
        let id = self.new_loop_id();
        let body = self
            .lower_loop_body(id, label_name(&f.label), false, &f.body)
            .0;
        self.scopes.pop();
        stmts.push(ir::Stmt::ForRange {
            id,
            var,
            start: start_h,
            end: end_h,
            inclusive,
            step: step_h,
            reverse,
            unroll,
            body,
        });
    }

    /// The loop's `#[unroll]` / `#[unroll(n)]` attribute, if any (other attributes are
    /// left to rustc, which sees them in the checked twin).
    fn unroll_attr(&mut self, attrs: &[syn::Attribute]) -> ir::Unroll {
        let mut unroll = ir::Unroll::Auto;
        for attr in attrs.iter().filter(|a| a.path().is_ident("unroll")) {
            let count = match &attr.meta {
                syn::Meta::Path(_) => Some(ir::Unroll::Full),
                syn::Meta::List(list) => list
                    .parse_args::<syn::LitInt>()
                    .ok()
                    .and_then(|n| n.base10_parse::<u32>().ok())
                    .filter(|n| (1..=MAX_UNROLL).contains(n))
                    .map(ir::Unroll::Times),
                syn::Meta::NameValue(_) => None,
            };
            // The count as written (`0` in `#[unroll(0)]`), else the attribute's name.
            let at = match &attr.meta {
                syn::Meta::List(list) => list.tokens.span(),
                syn::Meta::NameValue(pair) => pair.value.span(),
                syn::Meta::Path(path) => path.span(),
            };
            match count {
                Some(c) => unroll = c,
                None => self.error_hint(
                    at,
                    format!("`#[unroll(..)]` takes an iteration count from 1 to {MAX_UNROLL}"),
                    "write `#[unroll]` to unroll every iteration, `#[unroll(4)]` for four per trip, `#[unroll(1)]` to keep the loop rolled",
                ),
            }
        }
        unroll
    }
}

/// The largest `#[unroll(n)]` (CUDA's `#pragma unroll` has no limit; past this, code
/// size grows for no gain).
const MAX_UNROLL: u32 = 1024;
