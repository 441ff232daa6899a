//! Fieldless `#[derive(DeviceCopy)]` enums in kernels. The frontend treats a value of
//! such an enum as its repr integer (`Op` with `#[repr(u8)]` is a `u8` from here on):
//! a type path naming it lowers to the repr ([`enum_repr`]), `Op::Add` to its
//! discriminant ([`FnLowerer::lower_enum_variant`]); `==`, `as` and `match` are then
//! the integer's. rustc's check of the kernel's twin keeps everything else out (no
//! `op + 1`, no `x as Op`, exhaustive matches), which is why a match's last arm needs
//! no test. A kernel only ever sees valid discriminants, except where unsafe host code
//! put other bytes into a slice of the enum: that is undefined behaviour in Rust too,
//! and such a value takes the last arm of a `match`.
//!
//! At macro time the enum's definition is not known: `Op` is then a named type of
//! unknown kind (`Ty::Struct` without fields), `Op::Add` an opaque value, and the
//! operator checks leave both to rustc.

use super::consts::ConstEnv;
use super::infer::VarKind;
use super::lower_fn::FnLowerer;
use super::structs::{is_struct_name, struct_path_key};
use crate::ir::{self, EnumDef, Handle, Literal, ScalarType};
use proc_macro2::Span;
use std::sync::Arc;

impl ConstEnv {
    /// The enum written `name` (`Op`, `ops::Op`), found as structs are.
    pub fn enum_def(&self, name: &str) -> Option<&Arc<EnumDef>> {
        if let Some((_, d)) = self.enums.iter().find(|(n, _)| n == name) {
            return Some(d);
        }
        let last = name.rsplit("::").next().filter(|l| l.len() < name.len())?;
        let mut matches = self.enums.iter().filter(|(n, _)| n == last);
        match (matches.next(), matches.next()) {
            (Some((_, d)), None) => Some(d),
            _ => None,
        }
    }
}

/// The repr integer of the enum a written type path names, if it names one.
pub fn enum_repr(path: &syn::Path, env: &ConstEnv) -> Option<ScalarType> {
    let key = struct_path_key(path)?;
    env.enum_def(&key).map(|e| e.repr)
}

impl FnLowerer<'_> {
    /// `Op::Add`: the variant's discriminant, a literal of the enum's repr. `None` if
    /// the path does not name an enum's variant (the caller reports it).
    pub fn lower_enum_variant(&mut self, path: &syn::Path, span: Span) -> Option<Handle<ir::Expr>> {
        if path.segments.len() < 2 || path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        let variant = path.segments.last()?.ident.clone();
        let mut enum_path = path.clone();
        enum_path.segments.pop();
        enum_path.segments.pop_punct();
        let key = struct_path_key(&enum_path)?;
        let Some(def) = self.consts.enum_def(&key).cloned() else {
            if self.consts.complete || !is_struct_name(&variant.to_string()) {
                return None;
            }
            // Macro time: rustc checks the variant in the twin.
            let ty = self.fresh(VarKind::Opaque);
            return Some(self.push_expr(ir::ExprKind::Literal(Literal::Bool(false)), ty, span));
        };
        match def.variant_bits(&variant.to_string()) {
            Some(bits) => Some(self.push_expr(
                ir::ExprKind::Literal(Literal::Int(bits)),
                super::infer::Ty::Scalar(def.repr),
                span,
            )),
            None => {
                self.error_hint(
                    variant.span(),
                    format!("no variant `{variant}` in enum `{}`", def.name),
                    format!("its variants are {}", def.variant_names()),
                );
                Some(self.error_expr(span))
            }
        }
    }
}
