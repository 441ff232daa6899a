//! Struct values in a function body: named fields of places (`bodies[i].vel.x`, read
//! and written in memory) and of values (`make().x`), and struct literals
//! (`Body { pos, vel: v, mass: 1.0 }`), as `ir::Projection::Field` /
//! `ir::ExprKind::Field` / `ir::ExprKind::Tuple` over the struct's fields in
//! declaration order.

use super::infer::{StructTy, Ty, VarKind};
use super::lower_fn::FnLowerer;
use super::lower_place::PlaceInfo;
use super::structs::{field_names, field_of, literal_struct_ty};
use crate::ir::{self, Handle, Projection};
use syn::spanned::Spanned;

/// `thread_idx()`'s `(x, y, z)` tuples name their fields.
fn dim_field(name: &str) -> Option<u32> {
    match name {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}

impl FnLowerer<'_> {
    /// `base.name` where `base` is a place.
    pub fn named_field_place(&mut self, base: PlaceInfo, name: &syn::Ident) -> Option<PlaceInfo> {
        let member = name.to_string();
        let (index, ty) = match self.table.shallow(&base.ty) {
            Ty::Error => return None,
            Ty::Struct(s) => match field_of(&s, &member) {
                Some(Some(found)) => found,
                // Macro time: a field of unknown type, possibly a struct with methods.
                Some(None) => (0, self.fresh_method_result()),
                None => {
                    self.no_field(name, &s);
                    return None;
                }
            },
            Ty::Tuple(items)
                if items.len() == 3
                    && items.iter().all(|t| *t == Ty::U32)
                    && dim_field(&member).is_some() =>
            {
                (dim_field(&member).unwrap_or(0), Ty::U32)
            }
            Ty::Var(_) if self.table.var_kind(&base.ty) == Some(VarKind::Opaque) => {
                (0, self.fresh(VarKind::Opaque))
            }
            _ => {
                let d = self.table.describe(&base.ty);
                self.error_hint(
                    name.span(),
                    format!("no field `{member}` on type `{d}`"),
                    "structs have their named fields, tuples `.0`, `.1`, ...; `thread_idx()` and friends have `.x`, `.y`, `.z`",
                );
                return None;
            }
        };
        let mut place = base.place;
        place.projections.push(Projection::Field(index));
        Some(PlaceInfo { place, ty, ..base })
    }

    /// `value.name` on a struct value that is not a place (`make().x`); `None` if the
    /// base is no struct (the caller then tries tuples).
    pub fn struct_value_field(
        &mut self,
        base: Handle<ir::Expr>,
        name: &syn::Ident,
        span: proc_macro2::Span,
    ) -> Option<Handle<ir::Expr>> {
        let Ty::Struct(s) = self.table.shallow(&self.ty_of(base)) else {
            return None;
        };
        let member = name.to_string();
        Some(match field_of(&s, &member) {
            Some(Some((index, ty))) => {
                self.push_expr(ir::ExprKind::Field { base, index }, ty, span)
            }
            Some(None) => {
                let ty = self.fresh_method_result();
                self.push_expr(ir::ExprKind::Field { base, index: 0 }, ty, span)
            }
            None => {
                self.no_field(name, &s);
                self.error_expr(span)
            }
        })
    }

    fn no_field(&mut self, name: &syn::Ident, s: &StructTy) {
        self.error_hint(
            name.span(),
            format!("no field `{name}` on struct `{}`", s.name),
            format!("`{}` has the fields {}", s.name, field_names(s)),
        );
    }

    /// `Body { pos, vel: v, mass: 1.0 }`: every field exactly once, in any order
    /// (evaluated in the order written, as Rust does); no `..base`.
    pub fn lower_struct_literal(&mut self, lit: &syn::ExprStruct) -> Handle<ir::Expr> {
        let span = lit.span();
        if lit.qself.is_some() {
            self.error(
                lit.path.span(),
                "qualified struct paths are not supported in kernels",
            );
            return self.error_expr(span);
        }
        let s = match literal_struct_ty(&lit.path, &self.consts) {
            Ok(Some(s)) => s,
            Ok(None) => {
                self.error_hint(
                    lit.path.span(),
                    "this struct expression does not name a `#[derive(DeviceCopy)]` struct",
                    "kernels build `#[derive(DeviceCopy)] #[repr(C)]` structs; enums and other types are not supported",
                );
                return self.error_expr(span);
            }
            Err(d) => {
                self.diags.push(d);
                return self.error_expr(span);
            }
        };
        if let Some(rest) = &lit.rest {
            self.error_hint(
                rest.span(),
                "struct update syntax (`..base`) is not supported in kernels",
                "write every field: `S { a, b: base.b }`",
            );
        }
        // Evaluate in source order; each value is checked against its field's type.
        let mut values: Vec<Option<Handle<ir::Expr>>> = match &s.def {
            Some(def) => vec![None; def.fields.len()],
            None => Vec::new(),
        };
        let mut opaque = Vec::new();
        for field in &lit.fields {
            let syn::Member::Named(name) = &field.member else {
                self.error(field.member.span(), "struct fields are named in kernels");
                continue;
            };
            let value = self.lower_expr(&field.expr);
            let Some(def) = s.def.clone() else {
                opaque.push(value);
                continue;
            };
            match def.field_index(&name.to_string()) {
                Some(i) => {
                    let want = super::lower_place::ty_of_ir(&def.fields[i].ty);
                    let value = self.coerce_value(value, &want, field.expr.span());
                    if values[i].replace(value).is_some() {
                        self.error(
                            name.span(),
                            format!("field `{name}` specified more than once"),
                        );
                    }
                }
                None => self.no_field(name, &s),
            }
        }
        if s.def.is_none() {
            // Macro time: the fields are unknown; rustc checks them in the twin.
            return self.push_expr(ir::ExprKind::Tuple(opaque), Ty::Struct(s), span);
        }
        let missing: Vec<String> = s
            .def
            .iter()
            .flat_map(|d| d.fields.iter())
            .zip(&values)
            .filter(|(_, v)| v.is_none())
            .map(|(f, _)| format!("`{}`", f.name))
            .collect();
        if !missing.is_empty() {
            self.error_hint(
                lit.path.span(),
                format!(
                    "missing fields {} in initializer of `{}`",
                    missing.join(", "),
                    s.name
                ),
                "every field of a struct literal must be given",
            );
            return self.error_expr(span);
        }
        let items: Vec<Handle<ir::Expr>> = values.into_iter().flatten().collect();
        // Rust evaluates the fields in the order written; the IR builds the struct in
        // declaration order. Written out of order, the values go to temporaries first.
        let written: Vec<usize> = items.iter().map(|h| h.index()).collect();
        if written.windows(2).all(|w| w[0] < w[1]) {
            return self.push_expr(ir::ExprKind::Tuple(items), Ty::Struct(s), span);
        }
        let mut by_source = items.clone();
        by_source.sort_by_key(|h| h.index());
        let mut stmts = Vec::new();
        let mut temps = std::collections::HashMap::new();
        for value in by_source {
            let ty = self.ty_of(value);
            let temp = self.new_local("(field)", ty, false, span);
            stmts.push(ir::Stmt::Let {
                local: temp,
                init: Some(value),
            });
            temps.insert(value.index(), temp);
        }
        let reads = items
            .iter()
            .map(|h| {
                let temp = temps[&h.index()];
                let ty = self.ty_of(*h);
                self.push_expr(ir::ExprKind::Local(temp), ty, span)
            })
            .collect();
        let ty = Ty::Struct(s);
        let tail = self.push_expr(ir::ExprKind::Tuple(reads), ty.clone(), span);
        let block = ir::Block {
            stmts,
            tail: Some(tail),
        };
        self.push_expr(ir::ExprKind::Block(block), ty, span)
    }
}
