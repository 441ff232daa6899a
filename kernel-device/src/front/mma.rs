//! The typed tensor-core API in kernels: `FragA<S, T>`, `FragB<S, T>`, `Acc<S, C>` as
//! built-in structs (one field, `elems: [storage; len]`, held in registers), and their
//! operations (`mma_sync`, `zero`/`fill`, `load_*`/`store_*` with one bounds check per
//! fragment, `ldmatrix_*`/`stmatrix_*`, `row_col`, `position`, `len`, `frag[i]`,
//! `to_tf32`). Each operation is checked here (shape, element type and role against
//! `proc::mma`'s table, with errors at the token) and then expanded, as
//! `front::complex` expands `Complex`, to kernel-subset text (`front::mma_text`) over
//! the register-level intrinsics, so the backends see nothing new.

use super::first_span::FirstSpan;
use super::infer::{StructTy, Ty, VarKind};
use super::lower_fn::FnLowerer;
use super::lower_place::PlaceInfo;
use super::mma_text::{self as text, Fragment, RowAddress};
use crate::diag::Diagnostic;
use crate::ir::layout::{StructDef, StructField};
use crate::ir::{self, AddressSpace, Handle, Type};
use crate::proc::mma::{
    combo_of, fragment_exists, matrices_of, supported_for, MmaElem, MmaRole, MmaShape, TileLayout,
    MMA_COMBOS,
};
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use std::sync::Arc;
use syn::spanned::Spanned;

/// The built-in struct of a fragment type.
pub fn fragment_def(frag: Fragment) -> StructDef {
    StructDef {
        name: frag.display(),
        fields: vec![StructField {
            name: "elems".into(),
            ty: Type::array(Type::Scalar(frag.elem.storage()), frag.len() as u64),
        }],
    }
}

fn fragment_ty(frag: Fragment) -> Ty {
    Ty::Struct(StructTy::known(&Arc::new(fragment_def(frag))))
}

/// Every fragment type that exists.
fn all_fragments() -> impl Iterator<Item = Fragment> {
    MMA_COMBOS.iter().flat_map(|c| {
        [
            (MmaRole::A, c.input),
            (MmaRole::B, c.input),
            (MmaRole::Acc, c.acc),
        ]
        .map(|(role, elem)| Fragment {
            role,
            shape: c.shape,
            elem,
        })
    })
}

/// The fragment a built-in struct is (`None` for any other struct).
pub fn fragment_of_def(def: &StructDef) -> Option<Fragment> {
    all_fragments().find(|&f| *def == fragment_def(f))
}

/// The path's segments without a leading `cudajit::`.
fn fragment_segments(path: &syn::Path) -> Vec<&syn::PathSegment> {
    let mut segs: Vec<&syn::PathSegment> = path.segments.iter().collect();
    if segs.len() > 1 && segs[0].ident == "cudajit" {
        segs.remove(0);
    }
    segs
}

/// The fragment a `FragA<S, T>` segment names; `Ok(None)` if the segment names no
/// fragment type; `Err` for a shape, type or role that does not exist.
fn fragment_of_segment(seg: &syn::PathSegment) -> Result<Option<Fragment>, Diagnostic> {
    let Some(role) = MmaRole::from_type_name(&seg.ident.to_string()) else {
        return Ok(None);
    };
    let example = format!("{}<M16N8K16, bf16>", role.type_name());
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return Err(Diagnostic::new(
            seg.ident.span(),
            format!(
                "`{}` needs its shape and element type in kernels",
                seg.ident
            ),
        )
        .with_hint(format!(
            "write `{example}` (or `{}::<M16N8K16, bf16>::..` in a call)",
            role.type_name()
        )));
    };
    let idents: Vec<Option<String>> = args
        .args
        .iter()
        .map(|a| match a {
            syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => {
                p.path.segments.last().map(|s| s.ident.to_string())
            }
            _ => None,
        })
        .collect();
    let [shape_name, elem_name] = idents.as_slice() else {
        return Err(Diagnostic::new(
            args.span(),
            format!(
                "`{}` takes two type arguments, a shape and an element type",
                role.type_name()
            ),
        )
        .with_hint(format!("write `{example}`")));
    };
    let Some(shape) = shape_name.as_deref().and_then(MmaShape::from_name) else {
        return Err(Diagnostic::new(
            args.args[0].span(),
            format!("`{}` is not an `mma.sync` shape", text_of(&args.args[0])),
        )
        .with_hint("the shapes: M16N8K16, M16N8K8, M8N8K4, M16N8K32"));
    };
    let elem = elem_name.as_deref().and_then(MmaElem::from_rust_name);
    let Some(elem) = elem.filter(|&e| fragment_exists(shape, role, e)) else {
        let what = match role {
            MmaRole::A | MmaRole::B => "multiplies",
            MmaRole::Acc => "accumulates in",
        };
        return Err(Diagnostic::new(
            args.args[1].span(),
            format!(
                "no `mma.sync` of shape `{}` {what} `{}`: `{}<{}, {}>` does not exist",
                shape.name(),
                text_of(&args.args[1]),
                role.type_name(),
                shape.name(),
                text_of(&args.args[1])
            ),
        )
        .with_hint(supported_for(shape, role)));
    };
    Ok(Some(Fragment { role, shape, elem }))
}

fn text_of(t: &impl quote::ToTokens) -> String {
    t.to_token_stream().to_string().replace(' ', "")
}

/// `mma_sync(..)`, `to_tf32(..)` and the expansion's helpers: calls the frontend
/// lowers itself (no `#[device]` function of the user's).
pub fn is_builtin_call(path: &syn::Path) -> bool {
    match fragment_segments(path).as_slice() {
        [one] => matches!(
            one.ident.to_string().as_str(),
            "mma_sync" | "to_tf32" | "__cudajit_unchecked"
        ),
        _ => false,
    }
}

/// `FragA<M16N8K16, bf16>` as a type.
pub fn fragment_of_path(path: &syn::Path) -> Result<Option<Ty>, Diagnostic> {
    match fragment_segments(path).as_slice() {
        [seg] => Ok(fragment_of_segment(seg)?.map(fragment_ty)),
        _ => Ok(None),
    }
}

/// Tokens with `__cudajit_P0` replaced by the (parenthesised) `place` tokens, which
/// keep their own spans; everything else spanned at `span`, so that a template's code
/// is blamed on the user's operator or call (also `front::complex`'s templates).
pub(super) fn instantiate(
    tokens: TokenStream,
    place: Option<&TokenStream>,
    span: Span,
) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) if i == "__cudajit_P0" && place.is_some() => {
                let mut g = Group::new(Delimiter::Parenthesis, place.cloned().unwrap_or_default());
                g.set_span(span);
                TokenTree::Group(g)
            }
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), instantiate(g.stream(), place, span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// The operation a call or method names.
enum Operation {
    Fill(Option<usize>),
    Load(TileLayout),
    Ldmatrix {
        address: RowAddress,
        trans: bool,
        pair: bool,
    },
    Position,
    FromElements,
}

impl FnLowerer<'_> {
    /// The fragment type of `h`'s value, if it is one.
    fn fragment_of_expr(&mut self, h: Handle<ir::Expr>) -> Option<Fragment> {
        match self.table.shallow(&self.ty_of(h)) {
            Ty::Struct(StructTy { def: Some(def), .. }) => fragment_of_def(&def),
            _ => None,
        }
    }

    /// Whether `h`'s type is still unknown (macro time) or already reported.
    fn is_unknown(&mut self, h: Handle<ir::Expr>) -> bool {
        let ty = self.ty_of(h);
        matches!(self.table.shallow(&ty), Ty::Error)
            || self.table.var_kind(&ty) == Some(VarKind::Opaque)
    }

    /// Binds `operands` to their names, lowers `template` over them (the accumulator
    /// place `__cudajit_P0`, if any, spliced in), as one block expression.
    fn expand_mma(
        &mut self,
        operands: &[(&str, Handle<ir::Expr>)],
        place: Option<&syn::Expr>,
        template: &str,
        span: Span,
    ) -> Handle<ir::Expr> {
        let tokens: TokenStream = template.parse().expect("fragment template tokenizes");
        let place_tokens = place.map(quote::ToTokens::to_token_stream);
        let expr: syn::Expr = syn::parse2(instantiate(tokens, place_tokens.as_ref(), span))
            .expect("fragment template parses");
        self.lower_with_bindings(operands, &expr, span)
    }

    /// Binds `operands` to fresh locals of their names and lowers `expr` over them, as
    /// one block expression (the expansions of `Complex` and of the fragments).
    pub(super) fn lower_with_bindings(
        &mut self,
        operands: &[(&str, Handle<ir::Expr>)],
        expr: &syn::Expr,
        span: Span,
    ) -> Handle<ir::Expr> {
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        for &(name, operand) in operands {
            let ty = self.ty_of(operand);
            let local = self.new_local(name, ty, false, span);
            stmts.push(ir::Stmt::Let {
                local,
                init: Some(operand),
            });
        }
        let tail = self.lower_expr(expr);
        self.scopes.pop();
        let ty = self.ty_of(tail);
        self.push_expr(
            ir::ExprKind::Block(ir::Block {
                stmts,
                tail: Some(tail),
            }),
            ty,
            span,
        )
    }

    /// `mma_sync(..)`, `to_tf32(..)`, `FragA::<S, T>::op(..)` and the expansion's own
    /// helpers; `None` if `call` is none of them.
    pub(super) fn try_lower_mma_call(&mut self, call: &syn::ExprCall) -> Option<Handle<ir::Expr>> {
        let syn::Expr::Path(func) = &*call.func else {
            return None;
        };
        let segs = fragment_segments(&func.path);
        let span = call.first_span();
        match segs.as_slice() {
            [one] if one.arguments.is_none() => match one.ident.to_string().as_str() {
                "mma_sync" => Some(self.lower_mma_sync(call)),
                "to_tf32" => {
                    let args = self.lower_args(&call.args);
                    if args.len() != 1 {
                        self.error_hint(
                            call.paren_token.span.join(),
                            "`to_tf32` takes 1 argument",
                            "write `to_tf32(x)` with an `f32` `x`",
                        );
                        return Some(self.error_expr(span));
                    }
                    let ty = self.ty_of(args[0]);
                    self.expect_ty(&ty, &Ty::Scalar(ir::ScalarType::F32), call.args[0].span());
                    Some(self.expand_mma(&[("__cudajit_0", args[0])], None, text::TO_TF32, span))
                }
                // The expansion's marker of an index its fragment check covers.
                "__cudajit_unchecked" => {
                    let index = self.lower_expr(call.args.first()?);
                    self.f.unchecked_indices.insert(index);
                    Some(index)
                }
                _ => None,
            },
            [ty, op] => {
                let frag = match fragment_of_segment(ty) {
                    Ok(Some(frag)) => frag,
                    Ok(None) => return None,
                    Err(d) => {
                        self.lower_args(&call.args);
                        self.diags.push(d);
                        return Some(self.error_expr(span));
                    }
                };
                Some(self.lower_fragment_assoc(frag, &op.ident, call))
            }
            _ => None,
        }
    }

    fn lower_fragment_assoc(
        &mut self,
        frag: Fragment,
        op: &syn::Ident,
        call: &syn::ExprCall,
    ) -> Handle<ir::Expr> {
        let span = call.span();
        let name = op.to_string();
        let ldm = |address, trans, pair| Operation::Ldmatrix {
            address,
            trans,
            pair,
        };
        use MmaRole::{Acc, A, B};
        use RowAddress::{Lane, Tile};
        use TileLayout::{Col, Row};
        let operation = match (frag.role, name.as_str()) {
            (_, "zero") => Operation::Fill(None),
            (_, "fill") => Operation::Fill(Some(0)),
            (_, "load_row") => Operation::Load(Row),
            (_, "load_col") => Operation::Load(Col),
            (_, "position") => Operation::Position,
            (_, "__from_elements") => Operation::FromElements,
            (A, "ldmatrix_row") | (B, "ldmatrix_col") => {
                ldm(Tile(if frag.role == A { Row } else { Col }), false, false)
            }
            (A, "ldmatrix_col") | (B, "ldmatrix_row") => {
                ldm(Tile(if frag.role == A { Col } else { Row }), true, false)
            }
            (A | B, "ldmatrix_at") => ldm(Lane, false, false),
            (A | B, "ldmatrix_trans_at") => ldm(Lane, true, false),
            (B, "ldmatrix_pair_col") => ldm(Tile(Col), false, true),
            (B, "ldmatrix_pair_row") => ldm(Tile(Row), true, true),
            (B, "ldmatrix_pair_at") => ldm(Lane, false, true),
            (B, "ldmatrix_pair_trans_at") => ldm(Lane, true, true),
            (role, _) => {
                self.lower_args(&call.args);
                let hint = match role {
                    A => "`FragA` has `zero`, `fill`, `load_row`, `load_col`, `ldmatrix_row`, `ldmatrix_col`, `ldmatrix_at`, `ldmatrix_trans_at`, `position`",
                    B => "`FragB` has `zero`, `fill`, `load_row`, `load_col`, `ldmatrix_col`, `ldmatrix_row`, `ldmatrix_pair_col`, `ldmatrix_pair_row`, the `_at` forms, `position`",
                    Acc => "`Acc` has `zero`, `fill`, `load_row`, `load_col`, `position`; `ldmatrix` loads A and B fragments only",
                };
                self.error_hint(
                    op.span(),
                    format!("no function `{name}` on `{}`", frag.display()),
                    hint,
                );
                return self.error_expr(span);
            }
        };
        let args = self.lower_args(&call.args);
        let arity = match &operation {
            Operation::Fill(None) => 0,
            Operation::Fill(Some(_)) | Operation::FromElements => 1,
            Operation::Position => 2,
            Operation::Ldmatrix { address: Lane, .. } => 2,
            Operation::Load(_) | Operation::Ldmatrix { .. } => 4,
        };
        if args.len() != arity {
            self.error_hint(
                call.paren_token.span.join(),
                format!(
                    "`{}::{name}` takes {arity} arguments but {} were supplied",
                    frag.display(),
                    args.len()
                ),
                "see the operations of docs/tensor_cores.md",
            );
            return self.error_expr(span);
        }
        let spans: Vec<Span> = call.args.iter().map(|a| a.span()).collect();
        self.check_usize_operands(&args, &spans, &operation);
        match operation {
            Operation::FromElements => {
                let ty = self.ty_of(args[0]);
                let want = Ty::array(Ty::Scalar(frag.elem.storage()), Some(frag.len() as u64));
                self.expect_ty(&ty, &want, spans[0]);
                self.push_expr(ir::ExprKind::Tuple(args), fragment_ty(frag), span)
            }
            Operation::Fill(value) => {
                let mut operands = Vec::new();
                if value.is_some() {
                    let ty = self.ty_of(args[0]);
                    self.expect_ty(&ty, &Ty::Scalar(frag.elem.storage()), spans[0]);
                    operands.push(("__cudajit_0", args[0]));
                }
                let template = text::fill(frag, value.map(|_| "__cudajit_0"));
                self.expand_mma(&operands, None, &template, span)
            }
            Operation::Position => {
                let operands = [("__cudajit_0", args[0]), ("__cudajit_1", args[1])];
                let lane = self.ty_of(args[0]);
                self.expect_ty(&lane, &Ty::U32, spans[0]);
                let template = text::position(frag, "__cudajit_0", "__cudajit_1");
                self.expand_mma(&operands, None, &template, span)
            }
            Operation::Load(layout) => {
                if !self.check_tile(frag, args[0], spans[0], &name, false) {
                    return self.error_expr(span);
                }
                let names = ["__cudajit_0", "__cudajit_1", "__cudajit_2", "__cudajit_3"];
                let operands: Vec<_> = names.into_iter().zip(args).collect();
                self.expand_mma(&operands, None, &text::load(frag, layout), span)
            }
            Operation::Ldmatrix {
                address,
                trans,
                pair,
            } => {
                if !self.check_ldmatrix(frag, trans, op.span(), &name)
                    || !self.check_tile(frag, args[0], spans[0], &name, false)
                    || !self.check_matrix_tile_space(&name, args[0], spans[0])
                {
                    return self.error_expr(span);
                }
                let names: &[&str] = match address {
                    Lane => &["__cudajit_0", "__cudajit_1"],
                    Tile(_) => &["__cudajit_0", "__cudajit_2", "__cudajit_3", "__cudajit_4"],
                };
                let operands: Vec<_> = names.iter().copied().zip(args).collect();
                self.expand_mma(
                    &operands,
                    None,
                    &text::ldmatrix(frag, address, trans, pair),
                    span,
                )
            }
        }
    }

    /// Leading dimensions, rows, columns and offsets are `usize`; a lane is `u32`.
    fn check_usize_operands(&mut self, args: &[Handle<ir::Expr>], spans: &[Span], op: &Operation) {
        let from = match op {
            Operation::Load(_) | Operation::Ldmatrix { .. } => 1,
            Operation::Position => 1,
            _ => return,
        };
        for (&a, &s) in args.iter().zip(spans).skip(from) {
            let ty = self.ty_of(a);
            self.expect_ty(&ty, &Ty::USIZE, s);
        }
    }

    /// `ldmatrix` moves this fragment (and transposes it, if asked).
    fn check_ldmatrix(&mut self, frag: Fragment, trans: bool, at: Span, name: &str) -> bool {
        if matches_of(frag).is_none() {
            self.error_hint(
                at,
                format!("`ldmatrix` cannot load `{}` fragments (`{name}`)", frag.display()),
                "DMMA's f64 fragments hold one element per lane: load them with `load_row` / `load_col`",
            );
            return false;
        }
        if trans && frag.elem.bytes() != 2 {
            self.error_hint(
                at,
                format!("`ldmatrix.trans` transposes 16-bit elements, not `{}` (`{name}` on `{}`)", frag.elem.rust_name(), frag.display()),
                "keep the tile in the layout that needs no transpose (A row-major: `FragA::ldmatrix_row`; B column-major: `FragB::ldmatrix_col`), or use `load_row` / `load_col`",
            );
            return false;
        }
        true
    }

    /// A tile or source of the fragment's storage type (`write`: a mutable one).
    fn check_tile(
        &mut self,
        frag: Fragment,
        h: Handle<ir::Expr>,
        at: Span,
        name: &str,
        write: bool,
    ) -> bool {
        let storage = frag.elem.storage();
        let ty = self.ty_of(h);
        let (elem, mutable) = match self.table.shallow(&ty) {
            Ty::Slice { elem, mutable } => (Ty::Scalar(elem), mutable),
            Ty::Ref {
                pointee, mutable, ..
            } => match self.table.shallow(&pointee) {
                Ty::Array { elem, .. } => (*elem, mutable),
                _ => (Ty::Error, mutable),
            },
            Ty::Error => return false,
            _ if self.is_unknown(h) => return true,
            _ => (Ty::Error, true),
        };
        let elem = self.table.shallow(&elem);
        if elem != Ty::Scalar(storage) {
            let d = self.table.describe(&ty);
            self.error_hint(
                at,
                format!(
                    "`{name}` of a `{}` moves `{storage}` elements, found `{d}`",
                    frag.display()
                ),
                format!("pass a `&[{storage}]` slice or a shared `[{storage}; N]` tile"),
            );
            return false;
        }
        if write && !mutable {
            self.error_hint(
                at,
                format!("`{name}` writes its tile: it must be `&mut [{storage}]`"),
                "take the parameter as `&mut [T]`",
            );
            return false;
        }
        true
    }

    /// `ldmatrix`/`stmatrix` move shared memory only: a tile known to be elsewhere
    /// (a kernel's slice parameter, a global, a local array) is a compile error.
    pub(super) fn check_matrix_tile_space(
        &mut self,
        name: &str,
        h: Handle<ir::Expr>,
        at: Span,
    ) -> bool {
        let Some(words) = self.known_non_shared(h) else {
            return true;
        };
        self.error_hint(
            at,
            format!("`{name}` moves a tile in shared memory, but this tile is in {words}"),
            "stage the tile in a `shared_array::<[T; N]>()` or a `dynamic_shared().take::<T>(n)` slice; `load_row` / `load_col` read global memory",
        );
        false
    }

    /// Where the memory `h` refers to lives, when it is known not to be shared memory
    /// (a global or constant array, a local array, a kernel's slice parameter).
    pub(super) fn known_non_shared(&mut self, h: Handle<ir::Expr>) -> Option<&'static str> {
        let ty = self.ty_of(h);
        Some(match self.table.shallow(&ty) {
            Ty::Ref {
                space: Some(space), ..
            } if space != AddressSpace::Shared => match space {
                AddressSpace::Generic => "local memory (a local array)",
                AddressSpace::Constant => "constant memory",
                _ => "global memory",
            },
            Ty::Slice { .. } => {
                let is_param = matches!(
                    self.f.exprs[h].kind,
                    ir::ExprKind::Local(l) if self.local_info.get(l.index()).is_some_and(|i| i.is_param)
                ) && self.f.kind == ir::FunctionKind::Kernel;
                if !is_param {
                    return None;
                }
                "global memory (a kernel parameter)"
            }
            _ => return None,
        })
    }

    /// `mma_sync(&a, &b, &mut acc)`.
    fn lower_mma_sync(&mut self, call: &syn::ExprCall) -> Handle<ir::Expr> {
        let span = call.span();
        let hint = "write `mma_sync(&a, &b, &mut acc)` with `a: FragA<S, T>`, `b: FragB<S, T>`, `acc: Acc<S, C>`";
        let operands: Vec<Option<(&syn::Expr, bool)>> = call
            .args
            .iter()
            .map(|a| match a {
                syn::Expr::Reference(r) => Some((&*r.expr, r.mutability.is_some())),
                _ => None,
            })
            .collect();
        let refs_ok = operands.len() == 3
            && operands
                .iter()
                .enumerate()
                .all(|(k, o)| o.is_some_and(|(_, m)| m == (k == 2)));
        if !refs_ok {
            // The operands themselves, so that a missing `mut` is the one error.
            for (arg, operand) in call.args.iter().zip(&operands) {
                self.lower_expr(operand.map_or(arg, |(e, _)| e));
            }
            let at = if call.args.len() == 3 {
                let bad = operands
                    .iter()
                    .enumerate()
                    .position(|(k, o)| !o.is_some_and(|(_, m)| m == (k == 2)));
                call.args[bad.unwrap_or(0)].span()
            } else {
                call.paren_token.span.join()
            };
            self.error_hint(at, "`mma_sync` takes `&a`, `&b` and `&mut acc`", hint);
            return self.error_expr(span);
        }
        let exprs: Vec<&syn::Expr> = operands.iter().flatten().map(|(e, _)| *e).collect();
        let values: Vec<Handle<ir::Expr>> = exprs.iter().map(|e| self.lower_expr(e)).collect();
        if values.iter().any(|&h| self.is_unknown(h)) {
            return self.push_expr(ir::ExprKind::Tuple(Vec::new()), Ty::Unit, span);
        }
        let frags: Vec<Option<Fragment>> =
            values.iter().map(|&h| self.fragment_of_expr(h)).collect();
        let roles = [MmaRole::A, MmaRole::B, MmaRole::Acc];
        for k in 0..3 {
            if frags[k].is_some_and(|f| f.role == roles[k]) {
                continue;
            }
            let ty = self.ty_of(values[k]);
            let d = self.table.describe(&ty);
            let which = [
                "first operand is the A fragment (`FragA<S, T>`)",
                "second operand is the B fragment (`FragB<S, T>`)",
                "third operand is the accumulator (`Acc<S, C>`)",
            ][k];
            self.error_hint(
                call.args[k].span(),
                format!("`mma_sync`'s {which}, found `{d}`"),
                hint,
            );
            return self.error_expr(span);
        }
        let [Some(a), Some(b), Some(acc)] = [frags[0], frags[1], frags[2]] else {
            return self.error_expr(span);
        };
        if (b.shape, b.elem) != (a.shape, a.elem) {
            self.error_hint(
                call.args[1].span(),
                format!("`mma_sync` multiplies `{}` by a `FragB<{}, {}>`, found `{}`", a.display(), a.shape.name(), a.elem.rust_name(), b.display()),
                "A and B of one `mma_sync` have the same shape and element type (transpose with `ldmatrix.trans`, not in the fragment)",
            );
            return self.error_expr(span);
        }
        if acc.shape != a.shape || combo_of(a.shape, a.elem, acc.elem).is_none() {
            self.error_hint(
                call.args[2].span(),
                format!(
                    "`mma.sync` of shape `{}` has no `{}` inputs with `{}` accumulation (`{}`)",
                    a.shape.name(),
                    a.elem.rust_name(),
                    acc.elem.rust_name(),
                    acc.display()
                ),
                "the combinations: M16N8K16 bf16->f32, f16->f32, f16->f16; M16N8K8 tf32->f32; M8N8K4 f64->f64; M16N8K32 i8->i32, u8->i32",
            );
            return self.error_expr(span);
        }
        let operands = [
            ("__cudajit_0", values[0]),
            ("__cudajit_1", values[1]),
            ("__cudajit_2", values[2]),
        ];
        self.expand_mma(&operands, Some(exprs[2]), &text::mma_sync(a, b, acc), span)
    }

    /// `frag.len()`, `frag.row_col(i)`, `acc.store_row(..)`, `acc.stmatrix_*(..)`;
    /// `None` if the receiver is no fragment.
    pub(super) fn try_fragment_method(
        &mut self,
        name: &str,
        recv: Handle<ir::Expr>,
        m: &syn::ExprMethodCall,
    ) -> Option<Handle<ir::Expr>> {
        let frag = self.fragment_of_expr(recv)?;
        let span = m.span();
        let args = self.lower_args(&m.args);
        let spans: Vec<Span> = m.args.iter().map(|a| a.span()).collect();
        let arity = match name {
            "len" => 0,
            "row_col" => 1,
            "stmatrix_at" | "stmatrix_trans_at" => 2,
            _ => 4,
        };
        let known = matches!(name, "len" | "row_col")
            || (frag.role == MmaRole::Acc
                && matches!(
                    name,
                    "store_row"
                        | "store_col"
                        | "stmatrix_row"
                        | "stmatrix_col"
                        | "stmatrix_at"
                        | "stmatrix_trans_at"
                ));
        if !known {
            let hint = match frag.role {
                MmaRole::Acc => "fragments have `len`, `row_col` and `frag[i]`; accumulators also `store_row`, `store_col`, `stmatrix_row`, `stmatrix_col`, `stmatrix_at`, `stmatrix_trans_at`",
                _ => "fragments have `len`, `row_col` and `frag[i]`; only an `Acc` is stored (`store_row`, `stmatrix_row`, ..)",
            };
            self.error_hint(
                m.method.span(),
                format!("no method named `{name}` found for `{}`", frag.display()),
                hint,
            );
            return Some(self.error_expr(span));
        }
        if args.len() != arity {
            self.error_hint(
                m.paren_token.span.join(),
                format!(
                    "`{name}` takes {arity} arguments but {} were supplied",
                    args.len()
                ),
                "see the operations of docs/tensor_cores.md",
            );
            return Some(self.error_expr(span));
        }
        for (&a, &s) in args.iter().zip(&spans).skip(1) {
            let ty = self.ty_of(a);
            self.expect_ty(&ty, &Ty::USIZE, s);
        }
        Some(match name {
            "len" => self.expand_mma(&[], None, &format!("({} as usize)", frag.len()), span),
            "row_col" => {
                let ty = self.ty_of(args[0]);
                self.expect_ty(&ty, &Ty::USIZE, spans[0]);
                let template = text::position(frag, "lane_id()", "__cudajit_1");
                self.expand_mma(&[("__cudajit_1", args[0])], None, &template, span)
            }
            "store_row" | "store_col" => {
                if !self.check_tile(frag, args[0], spans[0], name, true) {
                    return Some(self.error_expr(span));
                }
                let layout = if name == "store_row" {
                    TileLayout::Row
                } else {
                    TileLayout::Col
                };
                let mut operands = vec![("__cudajit_0", recv)];
                operands.extend(
                    ["__cudajit_1", "__cudajit_2", "__cudajit_3", "__cudajit_4"]
                        .into_iter()
                        .zip(args),
                );
                self.expand_mma(&operands, None, &text::store(frag, layout), span)
            }
            _ => {
                let trans = name == "stmatrix_col" || name == "stmatrix_trans_at";
                if frag.elem.bytes() != 2 {
                    self.error_hint(
                        m.method.span(),
                        format!(
                            "`stmatrix` stores 16-bit accumulators, not `{}`",
                            frag.display()
                        ),
                        "store other accumulators with `store_row` / `store_col`",
                    );
                    return Some(self.error_expr(span));
                }
                if !self.check_tile(frag, args[0], spans[0], name, true)
                    || !self.check_matrix_tile_space(name, args[0], spans[0])
                {
                    return Some(self.error_expr(span));
                }
                let (address, names): (_, &[&str]) = match name {
                    "stmatrix_row" => (
                        RowAddress::Tile(TileLayout::Row),
                        &["__cudajit_0", "__cudajit_2", "__cudajit_3", "__cudajit_4"],
                    ),
                    "stmatrix_col" => (
                        RowAddress::Tile(TileLayout::Col),
                        &["__cudajit_0", "__cudajit_2", "__cudajit_3", "__cudajit_4"],
                    ),
                    _ => (RowAddress::Lane, &["__cudajit_0", "__cudajit_1"]),
                };
                let mut operands: Vec<_> = names.iter().copied().zip(args).collect();
                operands.push(("__cudajit_5", recv));
                self.expand_mma(&operands, None, &text::stmatrix(frag, address, trans), span)
            }
        })
    }

    /// `frag[i]`: indexes the fragment's element array (a constant index past `len()`
    /// is a compile error here; a computed one is checked like any array index).
    pub(super) fn fragment_elements_place(
        &mut self,
        base: PlaceInfo,
        ix: &syn::ExprIndex,
    ) -> Option<PlaceInfo> {
        let frag = match self.table.shallow(&base.ty) {
            Ty::Struct(StructTy { def: Some(def), .. }) => fragment_of_def(&def),
            _ => None,
        };
        let Some(frag) = frag else {
            return Some(base);
        };
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) = &*ix.index
        {
            if i.base10_parse::<u64>()
                .is_ok_and(|i| i >= frag.len() as u64)
            {
                self.error_hint(
                    ix.index.span(),
                    format!("this index is out of range: `{}` holds {} elements per lane", frag.display(), frag.len()),
                    format!("index with `0..{}` (`frag.len()`); `frag.row_col(i)` says which matrix element each is", frag.len()),
                );
                return None;
            }
        }
        let mut place = base.place;
        place.projections.push(ir::Projection::Field(0));
        Some(PlaceInfo {
            place,
            ty: Ty::array(Ty::Scalar(frag.elem.storage()), Some(frag.len() as u64)),
            ..base
        })
    }
}

fn matches_of(frag: Fragment) -> Option<usize> {
    matrices_of(frag.shape, frag.role, frag.elem)
}
