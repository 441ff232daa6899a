//! Places and arrays: indexing (`a[i]`, `m[i][j]`, `tile[ty][tx]` through a shared
//! reference, `s[i]` through a slice, `TAPS[k]` in constant memory) as [`ir::Place`]
//! projections, assignment targets with Rust's mutability rules, `&arr` /
//! `&mut tile[r]`, array literals `[a, b]` / `[x; N]`, `.len()` of arrays, crate
//! constants, `shared_array()`, and the `&mut [T; N]` → `&mut [T]` coercion.

use super::check;
use super::consts::{const_path_key, eval_len};
use super::first_span::FirstSpan;
use super::infer::{StructTy, Ty, VarKind};
use super::lower_fn::FnLowerer;
use super::types::{lower_type, TypeSite};
use crate::ir::{self, AddressSpace, ConstValue, Handle, Literal, Place, PlaceRoot, Projection};
use proc_macro2::Span;
use syn::spanned::Spanned;

/// Whether a place may be written, and if not, how rustc words the refusal.
#[derive(Clone, Debug)]
pub enum Writable {
    Yes,
    /// Rooted in a local that is not `mut` (`deferred` for `let x;` assigned once).
    ImmutableLocal {
        local: Handle<ir::Local>,
        name: String,
    },
    /// Behind a `&` reference or a `&[T]` slice (named as written).
    BehindShared {
        base: String,
        elem: String,
    },
    /// A crate constant or static table.
    Constant {
        name: String,
    },
}

/// A lowered place: where it is, its type, whether it may be written and its root's
/// address space (for `&place`).
pub struct PlaceInfo {
    pub place: Place,
    pub ty: Ty,
    pub writable: Writable,
    pub space: Option<AddressSpace>,
    /// Statements that must run before the place is used (a spilled temporary).
    pub prelude: Vec<ir::Stmt>,
}

fn text_of(expr: &syn::Expr) -> String {
    quote::ToTokens::to_token_stream(expr)
        .to_string()
        .replace(' ', "")
}

impl FnLowerer<'_> {
    /// `expr` as a place, if it denotes one (a local, a constant table, an index or
    /// tuple field of a place, or an index through a reference or slice value). Values
    /// that are not places (`f(x)[i]`'s `f(x)`) are spilled to a temporary. `None` after
    /// an error was reported.
    pub fn lower_place(&mut self, expr: &syn::Expr) -> Option<PlaceInfo> {
        let loc = self.loc(expr.first_span());
        match expr {
            syn::Expr::Paren(p) => self.lower_place(&p.expr),
            syn::Expr::Group(g) => self.lower_place(&g.expr),
            syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let ident = p.path.get_ident()?;
                let name = ident.to_string();
                if let Some(local) = self.lookup(&name) {
                    let mutable = self.f.locals.get(local).is_some_and(|l| l.mutable);
                    return Some(PlaceInfo {
                        place: Place::local(local, loc),
                        ty: self.local_ty(local),
                        writable: if mutable {
                            Writable::Yes
                        } else {
                            Writable::ImmutableLocal { local, name }
                        },
                        space: Some(AddressSpace::Generic),
                        prelude: Vec::new(),
                    });
                }
                self.const_table_place(&name, expr)
            }
            syn::Expr::Path(p) if p.qself.is_none() => match const_path_key(&p.path) {
                Some(key) => self.const_table_place(&key, expr),
                None => self.value_place(expr),
            },
            // `s[a..b][i]`: the sub-slice is a slice value.
            syn::Expr::Index(ix) if matches!(strip(&ix.index), syn::Expr::Range(_)) => {
                let h = self.lower_slice_operand(expr);
                match self.table.shallow(&self.ty_of(h)) {
                    Ty::Error => None,
                    _ => Some(self.pointee_place(h, loc)),
                }
            }
            syn::Expr::Index(ix) => self.index_place(ix),
            syn::Expr::Field(f) if matches!(f.member, syn::Member::Unnamed(_)) => {
                let base = self.lower_place(&f.base)?;
                let syn::Member::Unnamed(index) = &f.member else {
                    return None;
                };
                let index = index.index;
                match self.table.shallow(&base.ty) {
                    Ty::Tuple(items) => match items.get(index as usize) {
                        Some(t) => {
                            let mut place = base.place;
                            place.projections.push(Projection::Field(index));
                            Some(PlaceInfo {
                                place,
                                ty: t.clone(),
                                ..base
                            })
                        }
                        None => {
                            let d = self.table.describe(&base.ty);
                            self.error(
                                f.member.span(),
                                format!("no field `{index}` on type `{d}`"),
                            );
                            None
                        }
                    },
                    Ty::Error => None,
                    _ => {
                        let d = self.table.describe(&base.ty);
                        self.error(f.member.span(), format!("no field `{index}` on type `{d}`"));
                        None
                    }
                }
            }
            syn::Expr::Field(f) => match &f.member {
                syn::Member::Named(name) if is_place_expr(&f.base) => {
                    let base = self.lower_place(&f.base)?;
                    self.named_field_place(base, name)
                }
                _ => self.value_place(expr),
            },
            _ => self.value_place(expr),
        }
    }

    /// A crate constant named `key` as a place: a table in constant memory, or (a
    /// scalar, or unknown at macro time) a value.
    fn const_table_place(&mut self, key: &str, expr: &syn::Expr) -> Option<PlaceInfo> {
        let loc = self.loc(expr.span());
        if let Some(value @ ConstValue::Array { .. }) = self.consts.get(key).cloned() {
            let global = self.const_global(key, value, expr.span());
            let ty = self.global_ty(global);
            return Some(PlaceInfo {
                place: Place {
                    root: PlaceRoot::Global(global),
                    projections: Vec::new(),
                    loc,
                },
                ty,
                writable: Writable::Constant {
                    name: key.to_string(),
                },
                space: Some(AddressSpace::Constant),
                prelude: Vec::new(),
            });
        }
        self.value_place(expr)
    }

    /// A value that is not a place, as one: references and slices denote their
    /// pointee; arrays (and anything else) are spilled to a temporary local.
    fn value_place(&mut self, expr: &syn::Expr) -> Option<PlaceInfo> {
        let loc = self.loc(expr.span());
        let h = self.lower_expr(expr);
        let ty = self.ty_of(h);
        match self.table.shallow(&ty) {
            Ty::Error => None,
            Ty::Ref { .. } | Ty::Slice { .. } | Ty::StructSlice { .. } => {
                Some(self.pointee_place(h, loc))
            }
            _ => {
                let temp = self.new_local("(temp)", ty.clone(), false, expr.span());
                Some(PlaceInfo {
                    place: Place::local(temp, loc),
                    ty,
                    writable: Writable::Constant {
                        name: text_of(expr),
                    },
                    space: Some(AddressSpace::Generic),
                    prelude: vec![ir::Stmt::Let {
                        local: temp,
                        init: Some(h),
                    }],
                })
            }
        }
    }

    /// The memory a reference or slice value `h` points at.
    fn pointee_place(&mut self, h: Handle<ir::Expr>, loc: ir::SourceLoc) -> PlaceInfo {
        let ty = self.ty_of(h);
        let place = Place {
            root: PlaceRoot::Pointee(h),
            projections: Vec::new(),
            loc,
        };
        match self.table.shallow(&ty) {
            Ty::Ref {
                pointee,
                mutable,
                space,
            } => {
                let elem = self.table.describe(&pointee);
                PlaceInfo {
                    place,
                    ty: *pointee,
                    writable: if mutable {
                        Writable::Yes
                    } else {
                        Writable::BehindShared {
                            base: String::new(),
                            elem,
                        }
                    },
                    space,
                    prelude: Vec::new(),
                }
            }
            Ty::Slice { mutable, .. } | Ty::StructSlice { mutable, .. } => {
                let elem = match self.table.shallow(&ty) {
                    Ty::Slice { elem, .. } => elem.to_string(),
                    Ty::StructSlice { elem, .. } => elem.name,
                    _ => String::new(),
                };
                PlaceInfo {
                    place,
                    ty,
                    writable: if mutable {
                        Writable::Yes
                    } else {
                        Writable::BehindShared {
                            base: String::new(),
                            elem: format!("[{elem}]"),
                        }
                    },
                    space: Some(AddressSpace::Generic),
                    prelude: Vec::new(),
                }
            }
            _ => PlaceInfo {
                place,
                ty,
                writable: Writable::Yes,
                space: None,
                prelude: Vec::new(),
            },
        }
    }

    /// Reads a place's value: a plain local read, or a load.
    pub fn read_place(&mut self, info: PlaceInfo, span: Span) -> Handle<ir::Expr> {
        let kind = match (&info.place.root, info.place.projections.is_empty()) {
            (PlaceRoot::Local(l), true) => ir::ExprKind::Local(*l),
            _ => ir::ExprKind::Load(info.place),
        };
        let read = self.push_expr(kind, info.ty.clone(), span);
        self.after_prelude(info.prelude, read, info.ty, span)
    }

    /// `{ prelude; value }`, or `value` itself without a prelude.
    fn after_prelude(
        &mut self,
        prelude: Vec<ir::Stmt>,
        value: Handle<ir::Expr>,
        ty: Ty,
        span: Span,
    ) -> Handle<ir::Expr> {
        if prelude.is_empty() {
            return value;
        }
        let block = ir::Block {
            stmts: prelude,
            tail: Some(value),
        };
        self.push_expr(ir::ExprKind::Block(block), ty, span)
    }

    /// `base[index]` as a place: through references and slices, into arrays.
    fn index_place(&mut self, ix: &syn::ExprIndex) -> Option<PlaceInfo> {
        if let syn::Expr::Range(r) = &*ix.index {
            // Indexed or called on, `s[a..b]` is handled by `lower_slice_operand`; as a
            // value it would be an unsized `[T]`.
            self.lower_expr(&ix.expr);
            self.error_hint(
                r.span(),
                "a sub-slice must be borrowed: `s[a..b]` alone has no size",
                "borrow it: `&s[a..b]` (or `&mut s[a..b]`)",
            );
            return None;
        }
        let mut base = self.lower_place(&ix.expr)?;
        // Indexing a reference or slice value indexes what it points at (unless `base`
        // already is that pointee: a slice value's place is its elements).
        let is_pointee = matches!(base.place.root, PlaceRoot::Pointee(_))
            && base.place.projections.is_empty()
            && matches!(
                self.table.shallow(&base.ty),
                Ty::Slice { .. } | Ty::StructSlice { .. }
            );
        if !is_pointee
            && matches!(
                self.table.shallow(&base.ty),
                Ty::Ref { .. } | Ty::Slice { .. } | Ty::StructSlice { .. }
            )
        {
            let loc = base.place.loc;
            let value = self.read_place(base, ix.expr.first_span());
            base = self.pointee_place(value, loc);
        }
        // tensor cores: `frag[i]` is an element of the fragment's array
        let mut base = self.fragment_elements_place(base, ix)?;
        if let Writable::BehindShared { base: name, .. } = &mut base.writable {
            if name.is_empty() {
                *name = text_of(&ix.expr);
            }
        }
        // Numba's `sa[ty, tx]` is `tile[(ty, tx)]` in Rust, which indexes nothing: a
        // 2-D array is an array of arrays, indexed one axis at a time.
        if let syn::Expr::Tuple(t) = strip(&ix.index) {
            // Reported once per function: every later `tile[(a, b)]` is the same
            // mistake.
            let reported = self
                .diags
                .iter()
                .any(|d| d.message.contains("cannot be indexed by a tuple"));
            if t.elems.len() >= 2 && reported {
                return None;
            }
            if t.elems.len() >= 2 {
                let name = text_of(&ix.expr);
                let axes: Vec<String> = t
                    .elems
                    .iter()
                    .map(|e| format!("[{}]", text_of(e)))
                    .collect();
                self.error_hint(
                    ix.index.span(),
                    format!(
                        "`{name}` cannot be indexed by a tuple: index an array of arrays one axis at a time"
                    ),
                    format!(
                        "write `{name}{}` (Numba's `{name}[{}]`)",
                        axes.concat(),
                        t.elems.iter().map(text_of).collect::<Vec<_>>().join(", ")
                    ),
                );
                return None;
            }
        }
        let index = self.lower_expr(&ix.index);
        let it = self.ty_of(index);
        let shallow = self.table.shallow(&base.ty);
        let elem = match &shallow {
            Ty::Slice { elem, .. } => Ty::Scalar(*elem),
            Ty::StructSlice { elem, .. } => Ty::Struct(elem.clone()),
            Ty::Array { elem, .. } => (**elem).clone(),
            Ty::Error => return None,
            Ty::Var(_) if self.table.var_kind(&base.ty) == Some(VarKind::Opaque) => {
                self.fresh(VarKind::Opaque)
            }
            _ => {
                let d = self.table.describe(&base.ty);
                self.error_hint(
                    ix.expr.span(),
                    format!("cannot index into a value of type `{d}`"),
                    "only slices (`&[T]` / `&mut [T]`) and arrays (`[T; N]`) can be indexed",
                );
                return None;
            }
        };
        if self.table.coerce(&it, &Ty::USIZE).is_err() && !self.table.is_suppressed(&it) {
            let e = match &shallow {
                Ty::Slice { elem, .. } => format!("[{elem}]"),
                Ty::StructSlice { elem, .. } => format!("[{}]", elem.name),
                Ty::Array { .. } => self.table.describe(&base.ty),
                _ => "_".into(),
            };
            let i = self.table.describe(&it);
            self.error_hint(
                ix.index.span(),
                format!("the type `{e}` cannot be indexed by `{i}`"),
                "slice and array indices are of type `usize`: write `s[i as usize]`",
            );
        }
        base.place.projections.push(Projection::Index(index));
        Some(PlaceInfo { ty: elem, ..base })
    }

    /// `a[i]` read.
    pub fn lower_index(&mut self, ix: &syn::ExprIndex) -> Handle<ir::Expr> {
        match self.index_place(ix) {
            Some(info) => self.read_place(info, ix.first_span()),
            None => self.error_expr(ix.first_span()),
        }
    }

    /// An assignment target and its type; reports rustc's refusals.
    pub fn assign_place(&mut self, expr: &syn::Expr) -> Option<(Place, Ty)> {
        let stripped = strip(expr);
        let is_path = matches!(stripped, syn::Expr::Path(_));
        let is_place_form = matches!(
            stripped,
            syn::Expr::Path(_) | syn::Expr::Index(_) | syn::Expr::Field(_)
        );
        if !is_place_form {
            if let syn::Expr::Unary(u) = stripped {
                if matches!(u.op, syn::UnOp::Deref(_)) {
                    if !self.is_reported_local(&u.expr) {
                        self.diags.push(check::deref_diag(u.op.span()));
                    }
                    return None;
                }
            }
            self.error_hint(
                expr.span(),
                "invalid left-hand side of assignment",
                "assign to a `let mut` variable, an element `a[i]` or a tuple field `t.0`",
            );
            return None;
        }
        if let syn::Expr::Path(p) = stripped {
            if let Some(ident) = p.path.get_ident() {
                let name = ident.to_string();
                if self.lookup(&name).is_none() && self.consts.get(&name).is_none() {
                    if super::consts::is_const_name(&name) {
                        self.error_hint(
                            ident.span(),
                            format!("cannot assign to `{name}`: kernels cannot write a crate `const` or `static` (a `static mut` is global mutable state, shared by every GPU thread)"),
                            "write results into a `&mut [T]` parameter, or update a shared counter with an atomic on one: `atomic_add(counts, i, 1)`",
                        );
                    } else {
                        self.error(
                            ident.span(),
                            format!("cannot find value `{name}` in this scope"),
                        );
                    }
                    return None;
                }
            }
        }
        let info = self.lower_place(expr)?;
        match &info.writable {
            Writable::Yes => {}
            Writable::ImmutableLocal { local, name } => {
                let local_info = self
                    .local_info
                    .get(local.index())
                    .copied()
                    .unwrap_or_default();
                if !(is_path && local_info.deferred_init) {
                    let msg = if is_path && local_info.is_param {
                        format!("cannot assign to immutable argument `{name}`")
                    } else if is_path {
                        format!("cannot assign twice to immutable variable `{name}`")
                    } else {
                        format!(
                            "cannot assign to `{}`, as `{name}` is not declared as mutable",
                            text_of(expr)
                        )
                    };
                    self.error_hint(
                        expr.span(),
                        msg,
                        format!("consider making this binding mutable: `mut {name}`"),
                    );
                }
            }
            Writable::BehindShared { base, elem } => {
                let hint = if elem.starts_with('[') && !elem.contains(';') {
                    format!("make the parameter mutable: `{base}: &mut {elem}`")
                } else {
                    format!("make the reference mutable: `&mut {elem}`")
                };
                self.error_hint(
                    expr.span(),
                    format!("cannot assign to `{base}[_]`, which is behind a `&` reference"),
                    hint,
                );
            }
            Writable::Constant { name } => {
                self.error_hint(
                    expr.span(),
                    format!(
                        "cannot assign to `{}`: `{name}` is a constant",
                        text_of(expr)
                    ),
                    format!("copy it into a local first: `let mut t = {name};`"),
                );
            }
        }
        Some((info.place, info.ty))
    }

    /// `&place` / `&mut place` of an array: a reference into the place's memory.
    pub fn lower_array_reference(&mut self, r: &syn::ExprReference) -> Handle<ir::Expr> {
        let span = r.span();
        let mutable = r.mutability.is_some();
        let Some(info) = self.lower_place(&r.expr) else {
            return self.error_expr(span);
        };
        match self.table.shallow(&info.ty) {
            Ty::Array { .. } => {}
            Ty::Error => return self.error_expr(span),
            Ty::Var(_) if self.table.var_kind(&info.ty) == Some(VarKind::Opaque) => {
                let opaque = self.fresh(VarKind::Opaque);
                return self.push_expr(ir::ExprKind::Literal(Literal::Bool(false)), opaque, span);
            }
            _ => {
                self.diags
                    .push(check::unsupported_expr(&syn::Expr::Reference(r.clone())));
                return self.error_expr(span);
            }
        }
        if mutable {
            let refused = match &info.writable {
                Writable::Yes => None,
                Writable::ImmutableLocal { name, .. } => Some((
                    format!(
                        "cannot borrow `{}` as mutable, as `{name}` is not declared as mutable",
                        text_of(&r.expr)
                    ),
                    format!("consider making this binding mutable: `mut {name}`"),
                )),
                Writable::BehindShared { base, .. } => Some((
                    format!(
                        "cannot borrow `{}` as mutable, as it is behind a `&` reference",
                        text_of(&r.expr)
                    ),
                    format!("make `{base}` a `&mut` reference"),
                )),
                Writable::Constant { name } => Some((
                    format!("cannot borrow `{name}` as mutable: it is a constant"),
                    "copy it into a `let mut` local first".to_string(),
                )),
            };
            if let Some((msg, hint)) = refused {
                self.error_hint(r.expr.span(), msg, hint);
            }
        }
        self.borrow_place(info, mutable, span)
    }

    /// A reference to an array place (mutability already checked).
    pub fn borrow_place(&mut self, info: PlaceInfo, mutable: bool, span: Span) -> Handle<ir::Expr> {
        let ty = Ty::Ref {
            pointee: Box::new(info.ty.clone()),
            mutable,
            space: info.space,
        };
        let address = self.push_expr(
            ir::ExprKind::AddressOf {
                place: info.place,
                mutable,
            },
            ty.clone(),
            span,
        );
        self.after_prelude(info.prelude, address, ty, span)
    }

    /// `[a, b, c]`.
    pub fn lower_array_literal(&mut self, a: &syn::ExprArray) -> Handle<ir::Expr> {
        let span = a.span();
        if a.elems.is_empty() {
            self.error_hint(
                span,
                "empty array literals are not supported in kernels",
                "write the element type and length with a repeat expression: `[0.0f32; N]`",
            );
            return self.error_expr(span);
        }
        let items: Vec<Handle<ir::Expr>> = a.elems.iter().map(|e| self.lower_expr(e)).collect();
        let elem = match items.first() {
            Some(first) => self.ty_of(*first),
            None => self.fresh(VarKind::General),
        };
        if !self.is_array_element(&elem, a.elems[0].span()) {
            return self.error_expr(span);
        }
        for (h, e) in items.iter().zip(a.elems.iter()).skip(1) {
            let t = self.ty_of(*h);
            self.expect_ty(&t, &elem, e.span());
        }
        let ty = Ty::array(elem, Some(items.len() as u64));
        self.push_expr(ir::ExprKind::Array(items), ty, span)
    }

    /// Whether a value of type `elem` may be an array element (a scalar or an array of
    /// them); reports it at `span` if not.
    fn is_array_element(&mut self, elem: &Ty, span: Span) -> bool {
        let (what, hint) = match self.table.shallow(elem) {
            Ty::Tuple(_) => (
                "tuples",
                "use one array per component: `[f32; N]` for x, another for y",
            ),
            Ty::Slice { .. } | Ty::Ref { .. } => (
                "slices and references",
                "index the slice itself, or copy its elements into an array of scalars",
            ),
            _ => return true,
        };
        self.error_hint(
            span,
            format!("arrays of {what} are not supported in kernels: arrays hold scalars, `#[derive(DeviceCopy)]` structs or arrays of them"),
            hint,
        );
        false
    }

    /// `[value; N]` with `N` a constant expression.
    pub fn lower_repeat(&mut self, r: &syn::ExprRepeat) -> Handle<ir::Expr> {
        let span = r.span();
        let value = self.lower_expr(&r.expr);
        let len = match eval_len(&r.len, &self.consts) {
            Ok(len) => len,
            Err(d) => {
                self.diags.push(d);
                return self.error_expr(span);
            }
        };
        let elem = self.ty_of(value);
        if !self.is_array_element(&elem, r.expr.span()) {
            return self.error_expr(span);
        }
        self.push_expr(
            ir::ExprKind::Splat {
                value,
                len: len.unwrap_or(0),
            },
            Ty::array(elem, len),
            span,
        )
    }

    /// `.len()` of an array or a reference to one: its constant length (the receiver
    /// is still evaluated, for its effects).
    pub fn array_len(&mut self, recv: Handle<ir::Expr>, span: Span) -> Option<Handle<ir::Expr>> {
        let rt = self.ty_of(recv);
        let array = match self.table.shallow(&rt) {
            Ty::Ref { pointee, .. } => self.table.shallow(&pointee),
            other => other,
        };
        let Ty::Array { len, .. } = array else {
            return None;
        };
        let lit = self.push_expr(
            ir::ExprKind::Literal(Literal::Int(len.unwrap_or(0))),
            Ty::USIZE,
            span,
        );
        // Naming an array has no effects: `TAPS.len()` reads nothing.
        let pure = match self.f.exprs.get(recv).map(|e| &e.kind) {
            Some(ir::ExprKind::Local(_)) => true,
            Some(ir::ExprKind::Load(place)) => {
                place.projections.is_empty() && !matches!(place.root, PlaceRoot::Pointee(_))
            }
            _ => false,
        };
        if pure {
            return Some(lit);
        }
        let block = ir::Block {
            stmts: vec![ir::Stmt::Expr(recv)],
            tail: Some(lit),
        };
        Some(self.push_expr(ir::ExprKind::Block(block), Ty::USIZE, span))
    }

    /// A crate constant named in an expression: a scalar is a literal, an array a
    /// read of its constant-memory table. `None` if `name` is no known constant.
    pub fn lower_const(&mut self, name: &str, span: Span) -> Option<Handle<ir::Expr>> {
        let Some(value) = self.consts.get(name).cloned() else {
            if self.consts.is_unknown_const(name) {
                // Macro time: rustc checks the constant in the twin.
                let ty = self.fresh(VarKind::Opaque);
                return Some(self.push_expr(ir::ExprKind::Literal(Literal::Bool(false)), ty, span));
            }
            return None;
        };
        match value {
            ConstValue::Scalar { ty, value } => {
                Some(self.push_expr(ir::ExprKind::Literal(value), Ty::Scalar(ty), span))
            }
            array @ ConstValue::Array { .. } => {
                let global = self.const_global(name, array, span);
                let ty = self.global_ty(global);
                let loc = self.loc(span);
                let place = Place {
                    root: PlaceRoot::Global(global),
                    projections: Vec::new(),
                    loc,
                };
                Some(self.push_expr(ir::ExprKind::Load(place), ty, span))
            }
        }
    }

    /// The constant-memory table holding `value` (one per distinct table in the module).
    fn const_global(&mut self, name: &str, value: ConstValue, span: Span) -> Handle<ir::Global> {
        if let Some((h, _)) = self
            .globals
            .iter()
            .find(|(_, g)| g.space == AddressSpace::Constant && g.init.as_ref() == Some(&value))
        {
            return h;
        }
        let unique = format!(
            "__cudajit_const_{}_{}",
            name.replace("::", "_"),
            self.globals.len()
        );
        let loc = self.loc(span);
        self.globals.append(ir::Global {
            name: unique,
            space: AddressSpace::Constant,
            ty: value.ty(),
            init: Some(value),
            align: ir::DEFAULT_GLOBAL_ALIGN,
            loc,
        })
    }

    fn global_ty(&mut self, g: Handle<ir::Global>) -> Ty {
        match self.globals.get(g) {
            Some(global) => ty_of_ir(&global.ty),
            None => Ty::Error,
        }
    }

    /// `shared_array::<A>()` (or `shared_array()` with `A` inferred from the use): a
    /// new shared-memory global for this call site, aligned to `align` bytes, and a
    /// `&mut A` to it.
    pub fn lower_shared_array(
        &mut self,
        call: &syn::ExprCall,
        turbofish: Option<&syn::Type>,
        align: u32,
    ) -> Handle<ir::Expr> {
        let span = call.span();
        if let Some(arg) = call.args.first() {
            for a in &call.args {
                self.lower_expr(a);
            }
            self.error_hint(
                arg.span(),
                "`shared_array` takes no arguments",
                "name the array type: `shared_array::<[f32; 256]>()`",
            );
            return self.error_expr(span);
        }
        let array = match turbofish {
            Some(t) => {
                let table = &mut self.table;
                match lower_type(t, TypeSite::Let, &self.consts, &mut || {
                    table.new_var(VarKind::General)
                }) {
                    Ok(ty) => ty,
                    Err(d) => {
                        self.diags.push(d);
                        return self.error_expr(span);
                    }
                }
            }
            // Inferred from the use; until then its uses raise no errors of their own
            // (`resolve_shared` reports an array type that stays unknown, once).
            None => self.fresh(VarKind::Opaque),
        };
        let loc = self.loc(span);
        let name = format!("__cudajit_shared_{}_{}", self.f.name, self.globals.len());
        let global = self.globals.append(ir::Global {
            name,
            space: AddressSpace::Shared,
            ty: ir::Type::Unit,
            init: None,
            align,
            loc,
        });
        let at = turbofish.map(|t| t.span()).unwrap_or(span);
        self.pending_shared.push((global, array.clone(), at));
        let place = Place {
            root: PlaceRoot::Global(global),
            projections: Vec::new(),
            loc,
        };
        self.push_expr(
            ir::ExprKind::AddressOf {
                place,
                mutable: true,
            },
            Ty::Ref {
                pointee: Box::new(array),
                mutable: true,
                space: Some(AddressSpace::Shared),
            },
            span,
        )
    }

    /// Gives each `shared_array()` global its final type, or says why it has none.
    pub fn resolve_shared(&mut self) {
        for (global, ty, span) in std::mem::take(&mut self.pending_shared) {
            let shallow = self.table.shallow(&ty);
            if !matches!(shallow, Ty::Var(_)) && self.table.is_suppressed(&ty) {
                continue;
            }
            if matches!(shallow, Ty::Var(_)) {
                self.error_hint(
                    span,
                    "cannot infer the type of this `shared_array()`",
                    "name it: `shared_array::<[f32; 256]>()`, or annotate the binding: `let tile: &mut [f32; 256] = shared_array();`",
                );
                continue;
            }
            let ir_ty = self.table.to_ir(&ty);
            match ir_ty.array_scalar() {
                Some((_, n)) if matches!(ir_ty, ir::Type::Array { .. }) => {
                    if n == 0 && self.consts.complete {
                        self.error_hint(
                            span,
                            "a shared array must not be empty",
                            "give it a length of at least 1",
                        );
                    }
                }
                _ => {
                    let d = self.table.describe(&ty);
                    self.error_hint(
                        span,
                        format!("`shared_array` makes arrays of scalars, not `{d}`"),
                        "use `[T; N]` or `[[T; N]; M]` with a scalar `T`, e.g. `shared_array::<[f32; 256]>()`",
                    );
                    continue;
                }
            }
            if let Some(g) = self.globals.get(global).cloned() {
                self.globals[global] = ir::Global { ty: ir_ty, ..g };
            }
        }
    }

    /// A reference to an array of scalars as the slice of its elements (same
    /// mutability); any other value unchanged.
    pub fn array_ref_as_slice(&mut self, value: Handle<ir::Expr>, span: Span) -> Handle<ir::Expr> {
        let ty = self.ty_of(value);
        let Ty::Ref {
            pointee, mutable, ..
        } = self.table.shallow(&ty)
        else {
            return value;
        };
        let Ty::Array { elem, .. } = self.table.shallow(&pointee) else {
            return value;
        };
        let Ty::Scalar(elem) = self.table.shallow(&elem) else {
            return value;
        };
        self.push_expr(
            ir::ExprKind::RefToSlice(value),
            Ty::Slice { elem, mutable },
            span,
        )
    }

    /// `value` used where `expected` is wanted, with Rust's unsizing coercion of a
    /// reference to an array into a slice made explicit; mismatches are reported.
    pub fn coerce_value(
        &mut self,
        value: Handle<ir::Expr>,
        expected: &Ty,
        span: Span,
    ) -> Handle<ir::Expr> {
        let actual = self.ty_of(value);
        if let (
            Ty::Ref {
                pointee, mutable, ..
            },
            Ty::Slice {
                elem,
                mutable: want_mut,
            },
        ) = (self.table.shallow(&actual), self.table.shallow(expected))
        {
            let array = self.table.shallow(&pointee);
            if let Ty::Array { elem: inner, .. } = array {
                let fits = self.table.unify(&inner, &Ty::Scalar(elem)).is_ok();
                if fits && (mutable || !want_mut) {
                    return self.push_expr(
                        ir::ExprKind::RefToSlice(value),
                        Ty::Slice {
                            elem,
                            mutable: want_mut,
                        },
                        span,
                    );
                }
            }
        }
        self.expect_ty(&actual, expected, span);
        value
    }
}

/// The inference type of a concrete IR type.
pub fn ty_of_ir(ty: &ir::Type) -> Ty {
    match ty {
        ir::Type::Unit => Ty::Unit,
        ir::Type::Never => Ty::Never,
        ir::Type::Scalar(s) => Ty::Scalar(*s),
        ir::Type::Slice { elem, mutable } => Ty::Slice {
            elem: *elem,
            mutable: *mutable,
        },
        ir::Type::Tuple(items) => Ty::Tuple(items.iter().map(ty_of_ir).collect()),
        ir::Type::DynamicShared => Ty::DynamicShared,
        ir::Type::Array { elem, len } => Ty::array(ty_of_ir(elem), Some(*len)),
        ir::Type::Ref {
            pointee,
            mutable,
            space,
        } => Ty::Ref {
            pointee: Box::new(ty_of_ir(pointee)),
            mutable: *mutable,
            space: Some(*space),
        },
        ir::Type::Struct(def) => Ty::Struct(StructTy::known(def)),
        ir::Type::StructSlice { elem, mutable } => Ty::StructSlice {
            elem: StructTy::known(elem),
            mutable: *mutable,
        },
        // Hopper: TMA
        ir::Type::TensorMap {
            elem,
            rank,
            writable,
        } => Ty::TensorMap {
            elem: *elem,
            rank: *rank,
            writable: *writable,
        },
    }
}

/// Whether `expr` denotes a place by its syntax (a name, an index or a field of one):
/// a named field of it is then a field of that place (`bodies[i].pos.x`), read or
/// written in memory without copying the whole struct.
pub fn is_place_expr(expr: &syn::Expr) -> bool {
    match strip(expr) {
        syn::Expr::Path(p) => p.qself.is_none(),
        syn::Expr::Index(ix) => !matches!(strip(&ix.index), syn::Expr::Range(_)),
        syn::Expr::Field(f) => is_place_expr(&f.base),
        _ => false,
    }
}

/// Looks through parentheses and invisible groups.
pub(super) fn strip(mut expr: &syn::Expr) -> &syn::Expr {
    loop {
        match expr {
            syn::Expr::Paren(p) => expr = &p.expr,
            syn::Expr::Group(g) => expr = &g.expr,
            other => return other,
        }
    }
}
