//! Calls and method calls: intrinsics, scalar methods (`x.sqrt()`, `f32::sqrt(x)`),
//! `s.len()`, `s.split_at(mid)` (in `lower_slice.rs`), and calls of `#[device]` functions resolved by name in the unit.
//! Also [`device_calls`], the macro's list of callee paths.

use super::first_span::FirstSpan;
use super::infer::{Ty, VarKind};
use super::intrinsics::{self, Method};
use super::lower_fn::{Callees, FnLowerer};
use super::types::heap_diag;
use crate::ir::{self, Handle, ScalarType};
use proc_macro2::Span;
use syn::spanned::Spanned;

const HEAP_CONSTRUCTORS: &[&str] = &[
    "Vec", "Box", "String", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap", "VecDeque",
];
/// Std types and traits whose functions a kernel body may name like a struct's
/// (`Default::default()`): outside the subset, never a `#[device]` method.
const STD_TYPES_AND_TRAITS: &[&str] = &[
    "Option",
    "Result",
    "Default",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "Clone",
    "Copy",
    "Iterator",
    "IntoIterator",
    "PartialEq",
    "PartialOrd",
    "Eq",
    "Ord",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Rem",
    "Neg",
    "ToString",
    "AsRef",
    "AsMut",
    "Hash",
    "Fn",
    "FnMut",
    "FnOnce",
    "Drop",
    "Ordering",
    "Wrapping",
];
/// Methods of `std::sync::atomic` types: a hint points to cudajit's atomics.
const ATOMIC_METHODS: &[&str] = &[
    "fetch_add",
    "fetch_sub",
    "fetch_min",
    "fetch_max",
    "fetch_and",
    "fetch_or",
    "fetch_xor",
    "load",
    "store",
    "swap",
    "compare_exchange",
    "compare_exchange_weak",
    "fetch_update",
];
const ITERATOR_METHODS: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "map",
    "sum",
    "zip",
    "enumerate",
    "for_each",
    "fold",
    "collect",
    "count",
    "filter",
    "rev",
    "last",
    "position",
    "windows",
    "chunks",
];

/// How a called path is classified before lowering (shared with [`device_calls`]).
enum CalleeKind {
    Intrinsic(String),
    /// `f32::sqrt(x)`, `i32::max(a, b)`.
    ScalarAssoc(ScalarType, String),
    /// `std::…`, `Vec::new`, `Some(..)`: outside the subset.
    Std,
    Device(String),
    /// `Vec3::new(..)`, `Vec3::dot(a, b)`, `Self::new(..)`: a `#[device]` method or
    /// associated fn of a struct, by its type's path.
    StructAssoc(syn::Path, String),
}

fn classify(path: &syn::Path) -> CalleeKind {
    if let Some(name) = intrinsics::intrinsic_of_path(path) {
        return CalleeKind::Intrinsic(name);
    }
    // tensor cores: `mma_sync`, `to_tf32` (built in, no device dependency)
    if super::mma::is_builtin_call(path) {
        return CalleeKind::Std;
    }
    let mut segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    // `half::f16::from_f32`, `cudajit::bf16::ONE`: the half types by their crate path.
    if segs.len() == 3 && super::types::half_crate_prefix(&segs[0], &segs[1]) {
        segs.remove(0);
    }
    let first = segs.first().map(String::as_str).unwrap_or("");
    if segs.len() == 2 {
        if let Some(s) = ScalarType::from_rust_name(first) {
            return CalleeKind::ScalarAssoc(s, segs[1].clone());
        }
    }
    let last = segs.last().cloned().unwrap_or_default();
    if !HEAP_CONSTRUCTORS.contains(&first) && !STD_TYPES_AND_TRAITS.contains(&first) {
        if let Some((ty, name)) = super::methods::type_of_assoc(path) {
            return CalleeKind::StructAssoc(ty, name.to_string());
        }
    }
    let upper = |s: &str| s.chars().next().is_some_and(|c| c.is_uppercase());
    if matches!(first, "std" | "core" | "alloc")
        || segs.iter().any(|s| upper(s))
        || ScalarType::from_rust_name(first).is_some()
    {
        return CalleeKind::Std;
    }
    CalleeKind::Device(last)
}

impl FnLowerer<'_> {
    pub fn is_known_function(&self, name: &str) -> bool {
        match self.callees {
            Callees::Unit(sigs) => sigs.iter().any(|s| s.name == name),
            Callees::Unknown => false,
        }
    }

    pub(super) fn lower_args(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::token::Comma>,
    ) -> Vec<Handle<ir::Expr>> {
        args.iter().map(|a| self.lower_expr(a)).collect()
    }

    /// A call at macro time, when no callee is in hand (`Callees::Unknown`): its IR
    /// names function 0, as macro-time IR is checked and never compiled.
    pub(super) fn unresolved_call(
        &mut self,
        args: Vec<Handle<ir::Expr>>,
        ty: Ty,
        span: proc_macro2::Span,
    ) -> Handle<ir::Expr> {
        self.push_expr(
            ir::ExprKind::Call {
                function: Handle::new(0),
                args,
            },
            ty,
            span,
        )
    }

    pub fn lower_call(&mut self, call: &syn::ExprCall) -> Handle<ir::Expr> {
        let span = call.first_span();
        let syn::Expr::Path(func) = &*call.func else {
            self.lower_args(&call.args);
            self.error_hint(
                call.func.span(),
                "only calls of named functions are supported in kernels",
                "call a `#[device]` function by name",
            );
            return self.error_expr(span);
        };
        if func.qself.is_some() {
            self.lower_args(&call.args);
            self.error(func.span(), "qualified paths are not supported in kernels");
            return self.error_expr(span);
        }
        if let Some(h) = self.try_lower_complex_new(call) {
            return h;
        }
        // tensor cores: `mma_sync`, `FragA::<S, T>::load_row`, ...
        if let Some(h) = self.try_lower_mma_call(call) {
            return h;
        }
        let path = &func.path;
        let memory = intrinsics::intrinsic_of_path(path)
            .and_then(|name| crate::proc::intrinsics::memory_by_name(&name));
        if let Some(memory) = memory.filter(|m| m.space == crate::ir::AddressSpace::Shared) {
            // Hopper: TMA (`shared_array_aligned::<A, ALIGN>()`)
            let turbofish = if memory.aligned {
                intrinsics::type_and_alignment_arguments(path)
            } else {
                intrinsics::single_type_argument(path).map(|t| (t, crate::ir::DEFAULT_GLOBAL_ALIGN))
            };
            return match turbofish {
                Ok((t, align)) => self.lower_shared_array(call, t, align),
                Err(d) => {
                    self.diags.push(d);
                    self.error_expr(span)
                }
            };
        }
        let kind = classify(path);
        let generic = path.segments.iter().find(|s| !s.arguments.is_none());
        // `f::<T>(x)`: a generic device function, instantiated by name before a unit
        // is lowered (`generic_calls`); at macro time its result is unknown.
        let device_turbofish = matches!(kind, CalleeKind::Device(_))
            && path
                .segments
                .iter()
                .rev()
                .skip(1)
                .all(|s| s.arguments.is_none());
        // async copies: `cp_async::<16>`, `cp_async_wait::<1>`; their own checks
        // (and their own error for `cp_async_commit::<1>`).
        // Hopper: wgmma (`setmaxnreg_inc::<240>()`)
        let const_intrinsic = matches!(&kind, CalleeKind::Intrinsic(name)
            if super::async_copy::is_async_call(name)
                || super::setmaxnreg::is_setmaxnreg_call(name)
                // Hopper: TMA (`bulk_wait_group_read::<0>()`)
                || name == "bulk_wait_group_read");
        let allowed = matches!(kind, CalleeKind::Std) || device_turbofish || const_intrinsic;
        if let (Some(seg), false) = (generic, allowed) {
            self.lower_args(&call.args);
            self.error_hint(
                seg.arguments.span(),
                "generic arguments are not supported in kernels",
                "call the function without `::<..>`",
            );
            return self.error_expr(span);
        }
        match kind {
            CalleeKind::Intrinsic(name) => self.lower_intrinsic_call(&name, call),
            CalleeKind::ScalarAssoc(scalar, name)
                if scalar.is_half() && name.starts_with("from_f") =>
            {
                self.lower_half_from(scalar, &name, call, path.span())
            }
            CalleeKind::ScalarAssoc(scalar, name) => {
                let Some(method) = intrinsics::method(&name) else {
                    self.lower_args(&call.args);
                    let hint = if name == "from" {
                        format!("convert with `as`: `x as {scalar}`")
                    } else {
                        "see the supported math methods in cudajit's documentation".into()
                    };
                    self.error_hint(
                        path.span(),
                        format!("function `{scalar}::{name}` is not supported in kernels"),
                        hint,
                    );
                    return self.error_expr(span);
                };
                if method == Method::Math(ir::MathFn::FromBits) {
                    return self.lower_from_bits(scalar, call, path.span());
                }
                let mut args = call.args.iter();
                let Some(first) = args.next() else {
                    self.error(
                        span,
                        format!("`{scalar}::{name}` needs a `{scalar}` argument"),
                    );
                    return self.error_expr(span);
                };
                let recv = self.lower_expr(first);
                let rt = self.ty_of(recv);
                self.expect_ty(&rt, &Ty::Scalar(scalar), first.span());
                let rest: Vec<&syn::Expr> = args.collect();
                self.lower_method(&name, method, recv, &rest, span, path.span())
            }
            CalleeKind::Std => {
                // The arguments are not lowered: the call itself is the one mistake.
                let text = quote::ToTokens::to_token_stream(path)
                    .to_string()
                    .replace(' ', "");
                let first = path
                    .segments
                    .first()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                let last = path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                if HEAP_CONSTRUCTORS.contains(&first.as_str()) {
                    self.diags.push(heap_diag(&first, path.span()));
                } else if matches!(last.as_str(), "Some" | "None" | "Ok" | "Err") {
                    self.error_hint(path.span(), format!("`{last}` is not supported in kernels: `Option` and `Result` are not available on the device"), "return plain values and use flags or sentinel values");
                } else if path.segments.len() == 1 && first.starts_with(|c: char| c.is_uppercase())
                {
                    self.error_hint(path.span(), format!("`{text}(..)`: tuple structs are not supported in kernels"), "use a `#[derive(DeviceCopy)]` struct with named fields, built as `P { x: .. }`");
                } else if first.starts_with(|c: char| c.is_uppercase()) {
                    self.error_hint(path.span(), format!("`{text}` is not supported in kernels: only `#[device]` methods of `#[derive(DeviceCopy)]` structs can be called by a type's path"), "call `#[device]` functions, or `#[device]` methods of your `#[derive(DeviceCopy)]` structs");
                } else {
                    self.error_hint(path.span(), format!("`{text}` is not supported in kernels: only intrinsics, scalar math and `#[device]` functions can be called"), "write the code out, or in a `#[device]` function");
                }
                self.error_expr(span)
            }
            CalleeKind::Device(name) => self.lower_device_call(&name, call, path),
            CalleeKind::StructAssoc(ty, name) => self.lower_assoc_call(&ty, &name, call, path),
        }
    }

    fn lower_device_call(
        &mut self,
        name: &str,
        call: &syn::ExprCall,
        path: &syn::Path,
    ) -> Handle<ir::Expr> {
        let span = call.first_span();
        if let Some(local) = path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
            let ty = self.local_ty(local);
            let d = self.table.describe(&ty);
            self.error_hint(
                path.span(),
                format!("`{name}` is a local variable of type `{d}`, not a function"),
                "kernels call `#[device]` functions by name; closures and function values are not supported",
            );
            return self.error_expr(span);
        }
        // Hopper: wgmma (a form that does not exist, with the reason)
        if let Some(hint) = crate::proc::wgmma::missing_form_hint(name) {
            self.lower_args(&call.args);
            self.error_hint(path.span(), format!("there is no wgmma `{name}`"), hint);
            return self.error_expr(span);
        }
        let args = self.lower_args(&call.args);
        if name == self.f.name {
            self.error_hint(
                path.span(),
                format!("recursion is not supported in kernels: `{name}` calls itself"),
                "GPU threads have tiny stacks; rewrite it as a loop",
            );
            return self.error_expr(span);
        }
        let sigs = match self.callees {
            Callees::Unknown if random_result(path).is_some() && args.len() == 2 => {
                // cudajit's own `random` device functions: their signature is known, so
                // a wrong argument is reported here, not by rustc at cudajit's source.
                let states = Ty::Slice {
                    elem: ir::ScalarType::U64,
                    mutable: true,
                };
                for (arg, (expected, syn_arg)) in args
                    .iter()
                    .zip([states, Ty::USIZE].iter().zip(call.args.iter()))
                {
                    let at = self.ty_of(*arg);
                    self.expect_ty(&at, expected, syn_arg.span());
                }
                let ty = match random_result(path) {
                    Some(Some(s)) => Ty::Scalar(s),
                    _ => Ty::Unit,
                };
                return self.unresolved_call(args, ty, span);
            }
            Callees::Unknown => {
                // Macro-time: the callee is checked by its own `#[device]` attribute; here
                // the result is whatever it returns, and each argument whatever its
                // parameter is (an unsuffixed `5_000_000_000` passed to a `u64`
                // parameter is not an `i32` out of range).
                let call = self.opaque_call(args, span);
                self.call_results.push(self.ty_of(call));
                return call;
            }
            Callees::Unit(sigs) => sigs,
        };
        let Some(sig) = sigs.iter().find(|s| s.name == name).cloned() else {
            self.error_hint(
                path.span(),
                format!("cannot find function `{name}` in this kernel's compilation unit"),
                format!("mark `{name}` with `#[device]` so kernels can call it"),
            );
            return self.error_expr(span);
        };
        let spans: Vec<Span> = call.args.iter().map(|a| a.span()).collect();
        self.call_signature(&sig, args, &spans, call.paren_token.span.join(), span)
    }

    pub fn lower_method_call(&mut self, m: &syn::ExprMethodCall) -> Handle<ir::Expr> {
        let span = m.first_span();
        let name = m.method.to_string();
        if name == "take" {
            if let Some(h) = self.try_lower_take(m) {
                return h;
            }
        }
        if name == "split_at" || name == "split_at_mut" {
            return self.lower_split_at(m, name == "split_at_mut");
        }
        // async copies
        if name == "load_vec" || name == "store_vec" {
            return self.lower_vector_access(m);
        }
        let recv = self.lower_slice_operand(&m.receiver);
        // num-complex's methods first: `Complex` is a built-in struct, not a user's with
        // `#[device]` methods.
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        if let Some(h) = self.try_complex_method(&name, recv, &args, span, m.method.span()) {
            return h;
        }
        // tensor cores: `frag.row_col(i)`, `acc.store_row(..)`, ...
        if let Some(h) = self.try_fragment_method(&name, recv, m) {
            return h;
        }
        if let Ty::Struct(s) = self.table.shallow(&self.ty_of(recv)) {
            return self.lower_struct_method(&s, m, recv);
        }
        let recv_ty = self.ty_of(recv);
        // A device fn's result (macro time) may be a struct: a method name that is no
        // built-in one is left to the unit's compile, which knows the type.
        let builtin = name == "len" || intrinsics::method(&name).is_some();
        if self.is_method_result(&recv_ty) || (!builtin && self.is_call_result(&recv_ty)) {
            let mut all = vec![recv];
            all.extend(self.lower_args(&m.args));
            return self.opaque_method_call(all, span);
        }
        let known = name == "len" || intrinsics::method(&name).is_some();
        if let (Some(t), true) = (&m.turbofish, known) {
            self.lower_args(&m.args);
            self.error_hint(
                t.span(),
                "generic arguments are not supported in kernels",
                "remove the `::<..>`",
            );
            return self.error_expr(span);
        }
        let rt = self.ty_of(recv);
        if name == "len" {
            self.lower_args(&m.args);
            if let Some(len) = self.array_len(recv, span) {
                if !m.args.is_empty() {
                    self.error(m.method.span(), "`len` takes no arguments");
                }
                return len;
            }
            match self.table.shallow(&rt) {
                Ty::Slice { .. } | Ty::StructSlice { .. } => {}
                Ty::Error => return self.error_expr(span),
                Ty::Var(_) if self.table.var_kind(&rt) == Some(VarKind::Opaque) => {}
                _ => {
                    let d = self.table.describe(&rt);
                    self.error_hint(
                        m.method.span(),
                        format!("no method named `len` found for type `{d}`"),
                        "`len()` is available on slices and arrays",
                    );
                    return self.error_expr(span);
                }
            }
            if !m.args.is_empty() {
                self.error(m.method.span(), "`len` takes no arguments");
            }
            return self.push_expr(ir::ExprKind::Len(recv), Ty::USIZE, span);
        }
        if let (Ty::Scalar(half), "to_f32" | "to_f64") = (self.table.shallow(&rt), name.as_str()) {
            if half.is_half() {
                return self.lower_half_to(half, &name, recv, &args, span, m.method.span());
            }
        }
        if intrinsics::method(&name).is_none() {
            if let Some(h) = self.try_lower_enum_method(m, recv) {
                return h;
            }
        }
        let Some(method) = intrinsics::method(&name) else {
            // The arguments are not lowered (a closure passed to `map` is part of this
            // one mistake), and a receiver already reported (`a.iter().sum()`) is not
            // reported again.
            let receiver = match self.table.shallow(&rt) {
                Ty::Error => return self.error_expr(span),
                // Macro time: a value of unknown type (a call's result) may be a
                // struct with a `#[device]` method of this name.
                Ty::Var(_) if self.table.var_kind(&rt) == Some(VarKind::Opaque) => None,
                _ => Some(self.table.describe(&rt)),
            };
            let hint = if ITERATOR_METHODS.contains(&name.as_str()) {
                "iterators are not supported in kernels; loop over indices: `for i in 0..s.len() { .. s[i] .. }`".to_string()
            } else if matches!(self.table.shallow(&rt), Ty::Slice { .. }) {
                "slices support indexing `s[i]`, sub-slices `&s[a..b]`, `s.len()` and `s.split_at(mid)`".to_string()
            } else if ATOMIC_METHODS.contains(&name.as_str()) {
                "kernels have no global mutable state: take a `&mut [T]` parameter and use `atomic_add(slice, i, v)` and the other atomic functions on it".to_string()
            } else {
                "supported methods: float math (`sqrt`, `sin`, `powf`, `mul_add`, ...), `abs`, `min`, `max`, `wrapping_add/sub/mul`".to_string()
            };
            let message = match receiver {
                Some(d) => {
                    format!("method `{name}` is not supported in kernels (receiver type `{d}`)")
                }
                None => format!("method `{name}` is not supported in kernels"),
            };
            self.error_hint(m.method.span(), message, hint);
            return self.error_expr(span);
        };
        if method == Method::Math(ir::MathFn::FromBits) {
            for a in &args {
                self.lower_expr(a);
            }
            self.error_hint(
                m.method.span(),
                "`from_bits` is an associated function, not a method",
                "write `f32::from_bits(bits)` or `f64::from_bits(bits)`",
            );
            return self.error_expr(span);
        }
        self.lower_method(&name, method, recv, &args, span, m.method.span())
    }
}

/// Paths of the functions `item` calls that are neither intrinsics nor std/scalar
/// functions: its `#[device]` dependencies. Deduplicated, in first-call order.
pub fn device_calls(item: &syn::ItemFn) -> Vec<syn::Path> {
    struct Collector {
        own: String,
        seen: Vec<String>,
        out: Vec<syn::Path>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Collector {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                // `f::<T>(x)` depends on `f` (a generic device function).
                let mut path = p.path.clone();
                if let Some(last) = path.segments.last_mut() {
                    last.arguments = syn::PathArguments::None;
                }
                if p.qself.is_none() && path.segments.iter().all(|s| s.arguments.is_none()) {
                    if let CalleeKind::Device(name) = classify(&path) {
                        let key = quote::ToTokens::to_token_stream(&path).to_string();
                        if name != self.own && !self.seen.contains(&key) {
                            self.seen.push(key);
                            self.out.push(path);
                        }
                    }
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if let Some(args) = super::lower_match::matches_args(mac) {
                args.operands().for_each(|operand| self.visit_expr(operand));
            }
            // print
            if let Some(Ok(args)) = super::print::debug_macro_args(mac) {
                args.operands().for_each(|operand| self.visit_expr(operand));
            }
        }
        // Nested items are rejected anyway; their calls are not this function's.
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut c = Collector {
        own: item.sig.ident.to_string(),
        seen: Vec::new(),
        out: Vec::new(),
    };
    syn::visit::Visit::visit_block(&mut c, &item.block);
    c.out
}

/// The result of `cudajit::random`'s device function `path` names, each
/// `fn(states: &mut [u64], index: usize)`: `Some(None)` for `()`; `None` for any other
/// function.
fn random_result(path: &syn::Path) -> Option<Option<ir::ScalarType>> {
    let last = path.segments.last()?.ident.to_string();
    let through = path.segments.len() == 1
        || path
            .segments
            .iter()
            .rev()
            .nth(1)
            .is_some_and(|s| s.ident == "random");
    if !through {
        return None;
    }
    Some(match last.as_str() {
        "xoroshiro128p_next" => Some(ir::ScalarType::U64),
        "xoroshiro128p_jump" => None,
        "xoroshiro128p_uniform_f32" | "xoroshiro128p_normal_f32" => Some(ir::ScalarType::F32),
        "xoroshiro128p_uniform_f64" | "xoroshiro128p_normal_f64" => Some(ir::ScalarType::F64),
        _ => return None,
    })
}
