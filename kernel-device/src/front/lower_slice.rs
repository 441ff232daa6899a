//! Views of slices: sub-slices (`&a[i..j]`, `&mut s[1..]`, `&a[..=k]`, `a[1..][0]`),
//! `split_at` / `split_at_mut`, and typed slices carved from the launch's dynamic
//! shared memory (`let mut smem = dynamic_shared(); smem.take::<f32>(n)`).
//! The run-time checks these need are the IR's (`ir::checks`); here are the type rules.

use super::infer::{Ty, VarKind};
use super::lower_fn::FnLowerer;
use super::lower_place::Writable;
use super::types::{lower_type, TypeSite};
use crate::ir::{self, Handle, ScalarType};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// `e` without the parentheses and invisible groups around it.
fn peel(mut e: &syn::Expr) -> &syn::Expr {
    loop {
        match e {
            syn::Expr::Paren(p) => e = &p.expr,
            syn::Expr::Group(g) => e = &g.expr,
            other => return other,
        }
    }
}

/// A path, an index or a tuple field: an expression that may denote a place.
fn is_place_form(e: &syn::Expr) -> bool {
    matches!(
        peel(e),
        syn::Expr::Path(_) | syn::Expr::Index(_) | syn::Expr::Field(_)
    )
}

/// `s[a..b]`: the indexing and its range, if `e` is a range-indexing.
fn range_index(e: &syn::Expr) -> Option<(&syn::ExprIndex, &syn::ExprRange)> {
    match peel(e) {
        syn::Expr::Index(ix) => match peel(&ix.index) {
            syn::Expr::Range(r) => Some((ix, r)),
            _ => None,
        },
        _ => None,
    }
}

impl FnLowerer<'_> {
    /// `&expr` / `&mut expr`: sub-slices here, arrays in `lower_place.rs`.
    pub fn lower_reference(&mut self, r: &syn::ExprReference) -> Handle<ir::Expr> {
        if let Some((ix, range)) = range_index(&r.expr) {
            let borrow = Borrow::Explicit {
                mutable: r.mutability.is_some(),
                span: match &r.mutability {
                    Some(m) => r.and_token.span.join(m.span).unwrap_or(r.and_token.span),
                    None => r.and_token.span,
                },
            };
            return self.lower_sub_slice(ix, range, borrow, r.span());
        }
        self.lower_array_reference(r)
    }

    /// An expression used as a slice (indexed, or a method's receiver): like
    /// `lower_expr`, but also accepts an unborrowed sub-slice (`a[1..][0]`,
    /// `a[2..].len()`), which in Rust is a place of type `[T]`.
    pub fn lower_slice_operand(&mut self, e: &syn::Expr) -> Handle<ir::Expr> {
        match range_index(e) {
            Some((ix, range)) => self.lower_sub_slice(ix, range, Borrow::Place, e.span()),
            None => self.lower_expr(e),
        }
    }

    /// The operand of a sub-slice or `split_at` (`s[a..b]`'s `s`): a slice, or an array
    /// (a local, a row `m[i]`, a shared array through its reference) as the slice of its
    /// elements, borrowed mutably where it may be written. With an array place, also
    /// why it may not be written (for the refusal of a `&mut` view).
    fn lower_sliced(&mut self, e: &syn::Expr) -> (Handle<ir::Expr>, Option<Writable>) {
        if range_index(e).is_some() || !is_place_form(e) {
            let h = self.lower_slice_operand(e);
            return (self.array_ref_as_slice(h, e.span()), None);
        }
        let Some(info) = self.lower_place(e) else {
            return (self.error_expr(e.span()), None);
        };
        if matches!(self.table.shallow(&info.ty), Ty::Array { .. }) {
            // `acc[1..]`: borrow the array, mutably where it may be written.
            let writable = info.writable.clone();
            let mutable = matches!(writable, Writable::Yes);
            let r = self.borrow_place(info, mutable, e.span());
            return (self.array_ref_as_slice(r, e.span()), Some(writable));
        }
        let h = self.read_place(info, e.span());
        (self.array_ref_as_slice(h, e.span()), None)
    }

    fn lower_sub_slice(
        &mut self,
        ix: &syn::ExprIndex,
        range: &syn::ExprRange,
        borrow: Borrow,
        span: Span,
    ) -> Handle<ir::Expr> {
        let (slice, writable) = self.lower_sliced(&ix.expr);
        let st = self.ty_of(slice);
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let bound = |this: &mut Self, e: &Option<Box<syn::Expr>>| {
            let e = e.as_deref()?;
            let h = this.lower_expr(e);
            let t = this.ty_of(h);
            if this.table.coerce(&t, &Ty::USIZE).is_err() && !this.table.is_suppressed(&t) {
                let d = this.table.describe(&t);
                this.error_hint(
                    e.span(),
                    format!("slice ranges are of type `usize`, found `{d}`"),
                    "convert the bound: `(..) as usize`",
                );
            }
            Some(h)
        };
        let start = bound(self, &range.start);
        let end = bound(self, &range.end);
        let (elem, source_mutable) = match self.table.shallow(&st) {
            Ty::Slice { elem, mutable } => (elem, mutable),
            Ty::Error => return self.error_expr(span),
            Ty::Var(_) if self.table.var_kind(&st) == Some(VarKind::Opaque) => {
                let ty = self.fresh(VarKind::Opaque);
                return self.push_expr(
                    ir::ExprKind::SubSlice {
                        slice,
                        start,
                        end,
                        inclusive,
                    },
                    ty,
                    span,
                );
            }
            _ => {
                let d = self.table.describe(&st);
                self.error_hint(
                    ix.expr.span(),
                    format!("cannot take a sub-slice of a value of type `{d}`"),
                    "only slices (`&[T]` / `&mut [T]`) can be sliced",
                );
                return self.error_expr(span);
            }
        };
        let mutable = match borrow {
            Borrow::Place => source_mutable,
            Borrow::Explicit { mutable, span } => {
                if mutable && !source_mutable {
                    self.not_mutable(&ix.expr, elem, writable, span, "borrow a sub-slice of");
                }
                mutable
            }
        };
        self.push_expr(
            ir::ExprKind::SubSlice {
                slice,
                start,
                end,
                inclusive,
            },
            Ty::Slice { elem, mutable },
            span,
        )
    }

    /// rustc's E0596 for a `&mut` view of something that may not be written: a `&[T]`,
    /// an array behind a `&` reference, a local array not declared `mut`, a constant.
    fn not_mutable(
        &mut self,
        source: &syn::Expr,
        elem: ScalarType,
        writable: Option<Writable>,
        at: Span,
        what: &str,
    ) {
        let name = quote::ToTokens::to_token_stream(source)
            .to_string()
            .replace(' ', "");
        let (message, hint) = match writable {
            Some(Writable::ImmutableLocal { name: local, .. }) => (
                format!(
                    "cannot {what} `{name}` as mutable, as `{local}` is not declared as mutable"
                ),
                format!("consider making this binding mutable: `mut {local}`"),
            ),
            Some(Writable::Constant { name: constant }) => (
                format!("cannot {what} `{constant}` as mutable: it is a constant"),
                "copy it into a `let mut` local first".to_string(),
            ),
            Some(Writable::BehindShared { base, .. }) if !base.is_empty() => (
                format!("cannot {what} `{name}` as mutable, as it is behind a `&` reference"),
                format!("make `{base}` a `&mut` reference"),
            ),
            _ => (
                format!("cannot {what} `{name}` as mutable, as it is behind a `&` reference"),
                format!("make the slice mutable: `{name}: &mut [{elem}]`"),
            ),
        };
        self.error_hint(at, message, hint);
    }

    /// `recv.split_at(mid)` / `recv.split_at_mut(mid)`.
    pub fn lower_split_at(&mut self, m: &syn::ExprMethodCall, mutable: bool) -> Handle<ir::Expr> {
        let span = m.span();
        let (recv, writable) = self.lower_sliced(&m.receiver);
        let name = m.method.to_string();
        let args: Vec<Handle<ir::Expr>> = m.args.iter().map(|a| self.lower_expr(a)).collect();
        let rt = self.ty_of(recv);
        let elem = match self.table.shallow(&rt) {
            Ty::Slice {
                elem,
                mutable: source_mutable,
            } => {
                if mutable && !source_mutable {
                    self.not_mutable(&m.receiver, elem, writable, m.method.span(), "borrow");
                }
                Some(elem)
            }
            Ty::Error => return self.error_expr(span),
            Ty::Var(_) if self.table.var_kind(&rt) == Some(VarKind::Opaque) => None,
            _ => {
                let d = self.table.describe(&rt);
                self.error_hint(
                    m.method.span(),
                    format!("no method named `{name}` found for type `{d}`"),
                    format!("`{name}` is available on slices"),
                );
                return self.error_expr(span);
            }
        };
        let [mid] = args[..] else {
            self.error_hint(
                m.method.span(),
                format!("`{name}` takes 1 argument but {} were supplied", args.len()),
                format!("write `s.{name}(mid)`"),
            );
            return self.error_expr(span);
        };
        let mt = self.ty_of(mid);
        self.expect_ty(&mt, &Ty::USIZE, m.args[0].span());
        let ty = match elem {
            Some(elem) => {
                let half = Ty::Slice { elem, mutable };
                Ty::Tuple(vec![half.clone(), half])
            }
            None => self.fresh(VarKind::Opaque),
        };
        self.push_expr(ir::ExprKind::SplitAt { slice: recv, mid }, ty, span)
    }

    /// `cursor.take::<T>(count)` when `m`'s receiver names a `dynamic_shared()` cursor;
    /// `None` (nothing lowered) for any other `take`.
    pub fn try_lower_take(&mut self, m: &syn::ExprMethodCall) -> Option<Handle<ir::Expr>> {
        let syn::Expr::Path(p) = peel(&m.receiver) else {
            return None;
        };
        let ident = p.path.get_ident()?;
        let cursor = self.lookup(&ident.to_string())?;
        if self.table.shallow(&self.local_ty(cursor)) != Ty::DynamicShared {
            return None;
        }
        let span = m.span();
        let count = match m.args.len() {
            1 => {
                let h = self.lower_expr(&m.args[0]);
                let t = self.ty_of(h);
                self.expect_ty(&t, &Ty::USIZE, m.args[0].span());
                h
            }
            n => {
                for a in &m.args {
                    self.lower_expr(a);
                }
                self.error_hint(
                    m.method.span(),
                    format!("`take` takes 1 argument (the element count) but {n} were supplied"),
                    "write `smem.take::<f32>(n)`",
                );
                return Some(self.error_expr(span));
            }
        };
        let elem = self.take_element_type(m)?;
        let Some(elem) = elem else {
            return Some(self.error_expr(span));
        };
        let mutable = self.f.locals.get(cursor).is_some_and(|l| l.mutable);
        if !mutable {
            let name = ident.to_string();
            self.error_hint(
                ident.span(),
                format!("cannot borrow `{name}` as mutable, as it is not declared as mutable"),
                format!(
                    "`take` advances the cursor: declare it `let mut {name} = dynamic_shared();`"
                ),
            );
        }
        Some(self.push_expr(
            ir::ExprKind::DynamicSharedTake {
                cursor,
                elem,
                count,
            },
            Ty::Slice {
                elem,
                mutable: true,
            },
            span,
        ))
    }

    /// The `T` of `take::<T>`: `Some(None)` after reporting why it is not a scalar.
    fn take_element_type(&mut self, m: &syn::ExprMethodCall) -> Option<Option<ScalarType>> {
        let hint = "name the element type: `smem.take::<f32>(n)`";
        let Some(turbofish) = &m.turbofish else {
            self.error_hint(
                m.method.span(),
                "`take` needs the element type of the slice it carves",
                hint,
            );
            return Some(None);
        };
        let mut types = turbofish.args.iter();
        let (Some(syn::GenericArgument::Type(t)), None) = (types.next(), types.next()) else {
            self.error_hint(
                turbofish.span(),
                "`take` takes one type argument, the element type",
                hint,
            );
            return Some(None);
        };
        match lower_type(t, TypeSite::Let, &self.consts, &mut || Ty::Error) {
            Ok(Ty::Scalar(s)) => Some(Some(s)),
            Ok(_) => {
                self.error_hint(
                    t.span(),
                    "dynamic shared memory holds scalars only",
                    "carve a slice of a scalar type: `take::<f32>(n)`, `take::<u32>(n)`",
                );
                Some(None)
            }
            Err(d) => {
                self.diags.push(d);
                Some(None)
            }
        }
    }
}

/// How a sub-slice is taken: under `&`/`&mut` (its mutability is the borrow's), or as a
/// place that is indexed or has a method called on it (the source's mutability).
#[derive(Clone, Copy)]
enum Borrow {
    Explicit { mutable: bool, span: Span },
    Place,
}
