//! The kernel language's TMA (Hopper's bulk tensor copies): the `&TensorMap<T, N>` and
//! `&TensorMapMut<T, N>` parameter types and the calls of `proc::tma_intrinsics`, each
//! mistake a compile error at its token: a tile whose element type is not the map's,
//! coordinates that are not the map's `N` `i32`s, a map that is not a map parameter, a
//! store through a read-only `&TensorMap` (the host built it from a shared borrow: only
//! a `TensorMapMut`, built from `&mut`, may be written through), `bulk_wait_group_read`'s
//! count out of range.

use super::infer::Ty;
use super::lower_fn::FnLowerer;
use super::types::{scalar_of_type, TypeSite};
use crate::diag::Diagnostic;
use crate::ir::{self, Handle, Intrinsic, ScalarType, TmaOp};
use crate::proc::tma::MAX_RANK;
use crate::proc::tma_intrinsics::{MAP_ELEMS, MAX_PENDING_GROUPS};
use syn::spanned::Spanned;

const PARAM_HINT: &str = "take the map as a kernel parameter: `map: &TensorMap<bf16, 2>`";

/// `&TensorMap<T, N>` or `&TensorMapMut<T, N>` as written (`Some` when the referenced
/// type is a path ending in either name): its frontend type, or why it cannot be one here.
pub fn tensor_map_type(r: &syn::TypeReference, site: TypeSite) -> Option<Result<Ty, Diagnostic>> {
    let syn::Type::Path(p) = &*r.elem else {
        return None;
    };
    let last = p.path.segments.last()?;
    let writable = match () {
        _ if last.ident == "TensorMap" => false,
        _ if last.ident == "TensorMapMut" => true,
        _ => return None,
    };
    Some(tensor_map_of(r, last, site, writable))
}

fn tensor_map_of(
    r: &syn::TypeReference,
    last: &syn::PathSegment,
    site: TypeSite,
    writable: bool,
) -> Result<Ty, Diagnostic> {
    let name = crate::ir::map_type_name(writable);
    if site != TypeSite::Param {
        return Err(Diagnostic::new(
            r.span(),
            "a tensor map is a kernel parameter; device functions, locals and results cannot hold one",
        )
        .with_hint("pass the map to the kernel and call the copies there"));
    }
    if let Some(m) = &r.mutability {
        return Err(Diagnostic::new(
            m.span(),
            format!("a tensor map is read-only on the device: take `&{name}<T, N>`"),
        )
        .with_hint("remove `mut` (a map that stores write through is a `&TensorMapMut<T, N>`)"));
    }
    let wrong = |span: proc_macro2::Span| {
        Diagnostic::new(
            span,
            format!(
                "a tensor map parameter is `&{name}<T, N>`: an element type and a rank from 1 to 5"
            ),
        )
        .with_hint(format!("write e.g. `&{name}<bf16, 2>`"))
    };
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return Err(wrong(last.span()));
    };
    let args: Vec<&syn::GenericArgument> = a.args.iter().collect();
    let [syn::GenericArgument::Type(elem), rank] = args[..] else {
        return Err(wrong(a.span()));
    };
    let rank_literal = match rank {
        syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        })) => i.base10_parse::<u8>().ok(),
        _ => None,
    };
    let Some(rank) = rank_literal.filter(|n| (1..=MAX_RANK as u8).contains(n)) else {
        return Err(wrong(rank.span()));
    };
    match scalar_of_type(elem) {
        Some(s) if MAP_ELEMS.contains(&s) => Ok(Ty::TensorMap {
            elem: s,
            rank,
            writable,
        }),
        _ => Err(Diagnostic::new(
            elem.span(),
            "a tensor map holds integers of 8 to 64 bits, `f16`, `bf16`, `f32` or `f64`",
        )
        .with_hint(format!("write e.g. `&{name}<bf16, 2>`"))),
    }
}

/// The error of a `tma_store` through a read-only map of `elem` and `rank`, and its hint.
fn read_only_store(elem: ScalarType, rank: u8) -> (String, String) {
    (
        format!(
            "`tma_store` writes through its map, but this is a read-only `&TensorMap<{elem}, {rank}>` (the host builds one from a shared borrow)"
        ),
        format!(
            "take the parameter as `&TensorMapMut<{elem}, {rank}>`, a map the host builds from the array's `&mut` (`TensorMapMut::tiled(&mut array, ..)`)"
        ),
    )
}

/// Whether `name` is one of the calls this module lowers.
pub fn is_tma_call(name: &str) -> bool {
    matches!(
        name,
        "tma_load"
            | "tma_load_multicast"
            | "tma_store"
            | "tma_prefetch"
            | "bulk_commit_group"
            | "bulk_wait_group_read"
    )
}

impl FnLowerer<'_> {
    /// `tma_load`, `tma_load_multicast`, `tma_store`, `tma_prefetch`,
    /// `bulk_commit_group`, `bulk_wait_group_read::<N>`.
    pub fn lower_tma_call(&mut self, name: &str, call: &syn::ExprCall) -> Handle<ir::Expr> {
        let span = call.span();
        let (op, shape): (TmaOp, &[&str]) = match name {
            "tma_load" => (TmaOp::Load, &["map", "tile", "coords", "bars", "i"]),
            "tma_load_multicast" => (
                TmaOp::LoadMulticast,
                &["map", "tile", "coords", "bars", "i", "mask"],
            ),
            "tma_store" => (TmaOp::Store, &["map", "coords", "tile"]),
            "tma_prefetch" => (TmaOp::Prefetch, &["map"]),
            "bulk_commit_group" => (TmaOp::CommitGroup, &[]),
            _ => return self.lower_wait_group_read(call),
        };
        let mut args: Vec<Handle<ir::Expr>> =
            call.args.iter().map(|a| self.lower_expr(a)).collect();
        if args.len() != shape.len() {
            self.error_hint(
                call.paren_token.span.join(),
                format!(
                    "`{name}` takes {} argument(s) but {} were supplied",
                    shape.len(),
                    args.len()
                ),
                format!("write `{name}({})`", shape.join(", ")),
            );
            return self.error_expr(span);
        }
        let at = |k: usize| call.args[k].span();
        let mut failed = false;
        let map = if shape.is_empty() {
            None
        } else {
            match self.table.shallow(&self.ty_of(args[0])) {
                Ty::TensorMap {
                    elem,
                    rank,
                    writable,
                } => {
                    if op == TmaOp::Store && !writable {
                        let (message, hint) = read_only_store(elem, rank);
                        self.error_hint(at(0), message, hint);
                        return self.error_expr(span);
                    }
                    Some((elem, rank))
                }
                Ty::Error => return self.error_expr(span),
                other => {
                    let found = self.table.describe(&other);
                    self.error_hint(
                        at(0),
                        format!("`{name}` copies through a `&TensorMap<T, N>`, found `{found}`"),
                        PARAM_HINT,
                    );
                    return self.error_expr(span);
                }
            }
        };
        for (k, role) in shape.iter().enumerate().skip(1) {
            let Some((elem, rank)) = map else { break };
            match *role {
                "tile" => {
                    args[k] = self.array_ref_as_slice(args[k], at(k));
                    let load = op != TmaOp::Store;
                    failed |= !self.check_tma_tile(name, args[k], load, elem, at(k));
                }
                "coords" => {
                    let ty = self.ty_of(args[k]);
                    let want = Ty::array(Ty::Scalar(ScalarType::I32), Some(u64::from(rank)));
                    self.expect_ty(&ty, &want, at(k));
                }
                "bars" => {
                    args[k] = self.array_ref_as_slice(args[k], at(k));
                    let ty = self.ty_of(args[k]);
                    let want = Ty::Slice {
                        elem: ScalarType::U64,
                        mutable: true,
                    };
                    self.expect_ty(&ty, &want, at(k));
                }
                "mask" => {
                    let ty = self.ty_of(args[k]);
                    self.expect_ty(&ty, &Ty::Scalar(ScalarType::U16), at(k));
                }
                _ => {
                    let ty = self.ty_of(args[k]);
                    self.expect_ty(&ty, &Ty::USIZE, at(k));
                }
            }
        }
        if failed {
            return self.error_expr(span);
        }
        self.push_expr(
            ir::ExprKind::Intrinsic {
                intrinsic: Intrinsic::Tma(op),
                args,
            },
            Ty::Unit,
            span,
        )
    }

    /// Whether `tile` is a slice of the map's `elem` (`&mut` for a load); reported if not.
    fn check_tma_tile(
        &mut self,
        name: &str,
        tile: Handle<ir::Expr>,
        load: bool,
        elem: ScalarType,
        at: proc_macro2::Span,
    ) -> bool {
        let ty = self.ty_of(tile);
        let what = if load { "&mut " } else { "&" };
        match self.table.shallow(&ty) {
            Ty::Slice { elem: e, mutable } if e == elem && (mutable || !load) => true,
            Ty::Error => false,
            Ty::Slice { elem: e, .. } if e != elem => {
                self.error_hint(
                    at,
                    format!("the tile holds `{e}` but the map's elements are `{elem}`"),
                    format!(
                        "copy into a shared `{what}[{elem}]` tile, or build the map over `{e}`"
                    ),
                );
                false
            }
            other => {
                let found = self.table.describe(&other);
                self.error_hint(
                    at,
                    format!("`{name}`'s tile is a shared `{what}[{elem}]`, found `{found}`"),
                    format!("pass `shared_array_aligned::<[{elem}; N], 1024>()` or a slice of it"),
                );
                false
            }
        }
    }

    /// `bulk_wait_group_read::<N>()`.
    fn lower_wait_group_read(&mut self, call: &syn::ExprCall) -> Handle<ir::Expr> {
        let span = call.span();
        let name = "bulk_wait_group_read";
        let example = "bulk_wait_group_read::<0>()";
        for a in &call.args {
            self.lower_expr(a);
        }
        if !call.args.is_empty() {
            self.error_hint(
                call.paren_token.span.join(),
                format!(
                    "`{name}` takes no arguments: the groups left pending are its generic argument"
                ),
                format!("write `{example}`"),
            );
            return self.error_expr(span);
        }
        let turbofish = match &*call.func {
            syn::Expr::Path(p) => match &p.path.segments.last().map(|s| &s.arguments) {
                Some(syn::PathArguments::AngleBracketed(a)) => Some(a.clone()),
                _ => None,
            },
            _ => None,
        };
        let Ok(pending) = self.const_of(
            name,
            turbofish.as_ref(),
            "the groups left pending",
            example,
            span,
        ) else {
            return self.error_expr(span);
        };
        let pending = pending.unwrap_or(0);
        if pending > MAX_PENDING_GROUPS {
            self.error_hint(
                turbofish.as_ref().map_or(span, |t| t.span()),
                format!("`{name}` leaves 0 to {MAX_PENDING_GROUPS} groups pending, not {pending}"),
                format!("write `{example}`"),
            );
            return self.error_expr(span);
        }
        self.push_expr(
            ir::ExprKind::Intrinsic {
                intrinsic: Intrinsic::Tma(TmaOp::WaitGroupRead {
                    pending: pending as u8,
                }),
                args: Vec::new(),
            },
            Ty::Unit,
            span,
        )
    }
}
