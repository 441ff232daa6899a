//! Lowering of the asynchronous copies (`cp_async::<16>(dst, di, src, si)` and its
//! `_cg`/`_zfill` forms, `cp_async_commit()`, `cp_async_wait::<N>()`,
//! `cp_async_wait_all()`) and the vector accesses (`s.load_vec::<4>(i)`,
//! `s.store_vec::<4>(i, v)`): their constant arguments, the memory spaces of a copy's
//! two ends (shared destination, global source: a compile error naming the space
//! otherwise) and the element types. Sizes and run-time checks are
//! `proc::async_copy`'s.

use super::infer::{Ty, VarKind};
use super::lower_fn::FnLowerer;
use crate::ir::{self, AddressSpace, Handle, Intrinsic, ScalarType};
use crate::proc::async_copy::{copy_size_error, vector_width_error, ASYNC_ELEMENTS};
use crate::proc::intrinsics::type_list;
use proc_macro2::Span;
use syn::spanned::Spanned;

/// The intrinsics named with a constant argument (`cp_async::<16>`, `cp_async_wait::<1>`).
pub fn takes_const_argument(name: &str) -> bool {
    matches!(
        name,
        "cp_async" | "cp_async_cg" | "cp_async_zfill" | "cp_async_cg_zfill" | "cp_async_wait"
    )
}

/// Whether `name` is one of the calls this module lowers.
pub fn is_async_call(name: &str) -> bool {
    takes_const_argument(name) || matches!(name, "cp_async_commit" | "cp_async_wait_all")
}

/// The one generic argument of `name::<N>`, as an expression (`None`: none given).
fn const_argument(
    args: Option<&syn::AngleBracketedGenericArguments>,
) -> Result<Option<syn::Expr>, Span> {
    let Some(a) = args else {
        return Ok(None);
    };
    if a.args.len() != 1 {
        return Err(a.span());
    }
    match &a.args[0] {
        syn::GenericArgument::Const(e) => Ok(Some(e.clone())),
        // `::<N>` parses as a type: the path of a constant (or of a variable).
        syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => {
            Ok(Some(syn::Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: p.path.clone(),
            })))
        }
        other => Err(other.span()),
    }
}

impl FnLowerer<'_> {
    /// The value of `name::<N>`'s `N` (a literal or a crate `const`). `Ok(None)` at macro
    /// time for a constant whose value only rustc knows; `Err(())` once reported.
    pub(super) fn const_of(
        &mut self,
        name: &str,
        args: Option<&syn::AngleBracketedGenericArguments>,
        what: &str,
        example: &str,
        at: Span,
    ) -> Result<Option<u64>, ()> {
        let expr = match const_argument(args) {
            Ok(Some(e)) => e,
            Ok(None) => {
                self.error_hint(
                    at,
                    format!("`{name}` needs {what} as a generic argument"),
                    format!("write `{example}`"),
                );
                return Err(());
            }
            Err(span) => {
                self.error_hint(
                    span,
                    format!("`{name}` takes one generic argument: {what}"),
                    format!("write `{example}`"),
                );
                return Err(());
            }
        };
        let usize_ty = ir::Type::Scalar(ScalarType::Usize);
        match super::consts::eval(&expr, Some(&usize_ty), &self.consts) {
            Ok(Some(ir::ConstValue::Scalar {
                value: ir::Literal::Int(v),
                ty,
            })) if ty.is_integer() => Ok(Some(v)),
            Ok(None) => Ok(None),
            _ => {
                self.error_hint(
                    expr.span(),
                    format!("{what} of `{name}` must be a constant"),
                    format!(
                        "write a literal or a crate `const` (`{example}`): the hardware instruction encodes it"
                    ),
                );
                Err(())
            }
        }
    }

    /// `cp_async*`, `cp_async_commit`, `cp_async_wait*`.
    pub fn lower_async_call(&mut self, name: &str, call: &syn::ExprCall) -> Handle<ir::Expr> {
        let span = call.span();
        let turbofish = match &*call.func {
            syn::Expr::Path(p) => match &p.path.segments.last().map(|s| &s.arguments) {
                Some(syn::PathArguments::AngleBracketed(a)) => Some(a.clone()),
                _ => None,
            },
            _ => None,
        };
        let args: Vec<Handle<ir::Expr>> = call.args.iter().map(|a| self.lower_expr(a)).collect();
        let arity = match name {
            "cp_async" | "cp_async_cg" => 4,
            "cp_async_zfill" | "cp_async_cg_zfill" => 5,
            _ => 0,
        };
        if args.len() != arity {
            let form = match arity {
                0 if name == "cp_async_wait" => "cp_async_wait::<1>()".to_string(),
                0 => format!("{name}()"),
                4 => format!("{name}::<16>(tile, tile_index, src, src_index)"),
                _ => format!("{name}::<16>(tile, tile_index, src, src_index, valid)"),
            };
            self.error_hint(
                call.paren_token.span.join(),
                format!("`{name}` takes {arity} arguments, {} given", args.len()),
                format!("write `{form}`"),
            );
            return self.error_expr(span);
        }
        if !takes_const_argument(name) {
            if let Some(t) = &turbofish {
                self.error_hint(
                    t.span(),
                    format!("`{name}` takes no generic arguments"),
                    format!("write `{name}()`"),
                );
                return self.error_expr(span);
            }
        }
        let intrinsic = match name {
            "cp_async_commit" => Intrinsic::CpAsyncCommit,
            "cp_async_wait_all" => Intrinsic::CpAsyncWaitAll,
            "cp_async_wait" => {
                let example = "cp_async_wait::<1>()";
                let Ok(pending) = self.const_of(
                    name,
                    turbofish.as_ref(),
                    "the number of groups left in flight",
                    example,
                    span,
                ) else {
                    return self.error_expr(span);
                };
                let Ok(pending) = u32::try_from(pending.unwrap_or(0)) else {
                    self.error_hint(
                        turbofish.as_ref().map_or(span, |t| t.span()),
                        "the wait count of `cp_async_wait` is a `u32`",
                        "write a small constant: the number of stages in flight",
                    );
                    return self.error_expr(span);
                };
                Intrinsic::CpAsyncWait { pending }
            }
            _ => return self.lower_copy(name, call, turbofish.as_ref(), args),
        };
        self.push_expr(ir::ExprKind::Intrinsic { intrinsic, args }, Ty::Unit, span)
    }

    /// `cp_async[_cg][_zfill]::<B>(dst, dst_index, src, src_index[, valid])`.
    fn lower_copy(
        &mut self,
        name: &str,
        call: &syn::ExprCall,
        turbofish: Option<&syn::AngleBracketedGenericArguments>,
        mut args: Vec<Handle<ir::Expr>>,
    ) -> Handle<ir::Expr> {
        let span = call.span();
        let l2_only = name.starts_with("cp_async_cg");
        let zero_fill = name.ends_with("_zfill");
        let example = format!("{name}::<16>(..)");
        let Ok(bytes) = self.const_of(name, turbofish, "the byte count", &example, span) else {
            return self.error_expr(span);
        };
        let spans: Vec<Span> = call.args.iter().map(|a| a.span()).collect();
        let dst_elem = self.copy_destination(name, args[0], &call.args[0]);
        let src_elem = self.copy_source(name, args[2], spans[2]);
        args[0] = self.array_ref_as_slice(args[0], spans[0]);
        for k in [1, 3, 4].into_iter().take(args.len() - 2) {
            let ty = self.ty_of(args[k]);
            self.expect_ty(&ty, &Ty::USIZE, spans[k]);
        }
        let (Some(dst_elem), Some(src_elem)) = (dst_elem, src_elem) else {
            return self.error_expr(span);
        };
        if let (Some(d), Some(s)) = (dst_elem, src_elem) {
            if d != s {
                self.error_hint(
                    spans[2],
                    format!("`{name}` copies `{s}` elements into a `{d}` destination"),
                    "the source and the destination must have one element type",
                );
                return self.error_expr(span);
            }
        }
        let elem = dst_elem.or(src_elem);
        if let Some(e) = elem {
            if !ASYNC_ELEMENTS.contains(&e) {
                self.error_hint(
                    spans[0],
                    format!("`{name}` does not copy `{e}`"),
                    format!("it copies {}", type_list(ASYNC_ELEMENTS)),
                );
                return self.error_expr(span);
            }
        }
        let bytes = bytes.unwrap_or(16);
        let at = turbofish.map_or(span, |t| t.span());
        let size_error = match elem {
            Some(e) => copy_size_error(bytes, l2_only, e),
            None => copy_size_error(bytes, l2_only, ScalarType::U8),
        };
        if let Some(message) = size_error {
            let hint = if l2_only {
                "write `::<16>`, or use `cp_async` (`.ca`) for 4 or 8 bytes"
            } else {
                "write `::<4>`, `::<8>` or `::<16>`, a multiple of the element size"
            };
            self.error_hint(at, message, hint);
            return self.error_expr(span);
        }
        let intrinsic = Intrinsic::CpAsync {
            bytes: bytes as u8,
            l2_only,
            zero_fill,
        };
        self.push_expr(ir::ExprKind::Intrinsic { intrinsic, args }, Ty::Unit, span)
    }

    /// The element type of a copy's destination (`Some(None)`: not known yet), after
    /// checking that it is shared memory; `None` once reported.
    fn copy_destination(
        &mut self,
        name: &str,
        dst: Handle<ir::Expr>,
        expr: &syn::Expr,
    ) -> Option<Option<ScalarType>> {
        let at = expr.span();
        let ty = self.ty_of(dst);
        let hint = "the destination is shared memory: a `shared_array::<[T; N]>()`, a row `&mut tile[r]` of one, or a `dynamic_shared().take::<T>(n)` slice";
        match self.table.shallow(&ty) {
            Ty::Ref {
                pointee,
                mutable,
                space,
            } => {
                let space = space.unwrap_or(AddressSpace::Shared);
                if space != AddressSpace::Shared {
                    let words = match space {
                        AddressSpace::Generic => "local memory (a local array)",
                        AddressSpace::Constant => "constant memory",
                        _ => "global memory",
                    };
                    self.error_hint(
                        at,
                        format!("`{name}` copies into shared memory, but this destination is in {words}"),
                        hint,
                    );
                    return None;
                }
                if !mutable {
                    self.error_hint(
                        at,
                        format!("`{name}` writes its destination: it must be `&mut`"),
                        hint,
                    );
                    return None;
                }
                match self.table.shallow(&pointee) {
                    Ty::Array { elem, .. } => match self.table.shallow(&elem) {
                        Ty::Scalar(s) => Some(Some(s)),
                        Ty::Array { .. } => {
                            self.error_hint(
                                at,
                                format!("`{name}` copies into a one-dimensional array"),
                                "pass a row, `&mut tile[r]`, or declare the tile flat (`[f32; ROWS * COLS]`)",
                            );
                            None
                        }
                        _ => Some(None),
                    },
                    _ => Some(None),
                }
            }
            Ty::Slice { elem, mutable } => {
                let is_kernel_param = matches!(
                    self.f.exprs[dst].kind,
                    ir::ExprKind::Local(l) if self.local_info.get(l.index()).is_some_and(|i| i.is_param)
                ) && self.f.kind == ir::FunctionKind::Kernel;
                if is_kernel_param {
                    self.error_hint(
                        at,
                        format!("`{name}` copies into shared memory, but this destination is a kernel parameter, in global memory"),
                        hint,
                    );
                    return None;
                }
                if !mutable {
                    self.error_hint(
                        at,
                        format!("`{name}` writes its destination: it must be `&mut [{elem}]`"),
                        hint,
                    );
                    return None;
                }
                // A slice's space is checked at run time (`isspacep.shared`).
                Some(Some(elem))
            }
            Ty::Error => None,
            Ty::Var(_) if self.table.var_kind(&ty) == Some(VarKind::Opaque) => Some(None),
            _ => {
                let d = self.table.describe(&ty);
                self.error_hint(
                    at,
                    format!("`{name}` needs a shared-memory destination, found `{d}`"),
                    hint,
                );
                None
            }
        }
    }

    /// The element type of a copy's source (`Some(None)`: not known yet), after checking
    /// that it is a slice (global memory); `None` once reported.
    fn copy_source(
        &mut self,
        name: &str,
        src: Handle<ir::Expr>,
        at: Span,
    ) -> Option<Option<ScalarType>> {
        let ty = self.ty_of(src);
        match self.table.shallow(&ty) {
            Ty::Slice { elem, .. } => Some(Some(elem)),
            Ty::Ref { space, .. } => {
                let words = match space {
                    Some(AddressSpace::Shared) | None => "shared memory",
                    Some(AddressSpace::Constant) => "constant memory",
                    _ => "local memory (a local array)",
                };
                self.error_hint(
                    at,
                    format!("`{name}` copies from global memory, but this source is in {words}"),
                    "the source is a slice in global memory: a kernel parameter `&[T]` (or a sub-slice of one); copy shared to shared with ordinary loads and stores",
                );
                None
            }
            Ty::Error => None,
            Ty::Var(_) if self.table.var_kind(&ty) == Some(VarKind::Opaque) => Some(None),
            _ => {
                let d = self.table.describe(&ty);
                self.error_hint(
                    at,
                    format!("`{name}` copies from a slice in global memory, found `{d}`"),
                    "pass a kernel parameter `&[T]`",
                );
                None
            }
        }
    }

    /// `s.load_vec::<N>(i)` / `s.store_vec::<N>(i, values)`.
    pub fn lower_vector_access(&mut self, m: &syn::ExprMethodCall) -> Handle<ir::Expr> {
        let span = m.span();
        let name = m.method.to_string();
        let store = name == "store_vec";
        let recv = self.lower_slice_operand(&m.receiver);
        let recv = self.array_ref_as_slice(recv, m.receiver.span());
        let mut args = vec![recv];
        args.extend(m.args.iter().map(|a| self.lower_expr(a)));
        let example = if store {
            "s.store_vec::<4>(i, values)"
        } else {
            "s.load_vec::<4>(i)"
        };
        let Ok(lanes) = self.const_of(
            &name,
            m.turbofish.as_ref(),
            "the number of elements",
            example,
            m.method.span(),
        ) else {
            return self.error_expr(span);
        };
        if args.len() != if store { 3 } else { 2 } {
            self.error_hint(
                m.method.span(),
                format!(
                    "`{name}` takes {} arguments, {} given",
                    args.len() - 1,
                    m.args.len()
                ),
                format!("write `{example}`"),
            );
            return self.error_expr(span);
        }
        let index_ty = self.ty_of(args[1]);
        self.expect_ty(&index_ty, &Ty::USIZE, m.args[0].span());
        let rt = self.ty_of(recv);
        let elem = match self.table.shallow(&rt) {
            Ty::Slice { elem, mutable } => {
                if store && !mutable {
                    self.error_hint(
                        m.receiver.span(),
                        format!("`store_vec` writes the slice: it must be `&mut [{elem}]`"),
                        "take the parameter as `&mut [T]`",
                    );
                    return self.error_expr(span);
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
                    format!("`{name}` is available on slices and arrays"),
                );
                return self.error_expr(span);
            }
        };
        let lanes = lanes.unwrap_or(4);
        if let Some(e) = elem {
            let problem = if ASYNC_ELEMENTS.contains(&e) {
                vector_width_error(lanes, e)
            } else {
                Some(format!(
                    "vector accesses move {}, not `{e}`",
                    type_list(ASYNC_ELEMENTS)
                ))
            };
            if let Some(message) = problem {
                let at = m.turbofish.as_ref().map_or(m.method.span(), |t| t.span());
                self.error_hint(
                    at,
                    message,
                    "use `[bf16; 2]`, `[f32; 2]`, `[f32; 4]`, `[f64; 2]`, `[bf16; 8]`, ...: 4, 8 or 16 bytes",
                );
                return self.error_expr(span);
            }
        }
        let elem_ty = elem.map_or_else(|| self.fresh(VarKind::Opaque), Ty::Scalar);
        let array = Ty::Array {
            elem: Box::new(elem_ty),
            len: Some(lanes),
        };
        let (intrinsic, ty) = if store {
            let values_ty = self.ty_of(args[2]);
            self.expect_ty(&values_ty, &array, m.args[1].span());
            (Intrinsic::StoreVec { lanes: lanes as u8 }, Ty::Unit)
        } else {
            (Intrinsic::LoadVec { lanes: lanes as u8 }, array)
        };
        self.push_expr(ir::ExprKind::Intrinsic { intrinsic, args }, ty, span)
    }
}
