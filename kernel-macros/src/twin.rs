//! The rustc-checked copy of a body: same statements, with intrinsics resolved to the
//! typed stand-ins in `cudajit::__private::device_api` and `grid(N)` / `grid_size(N)`
//! (whose result type depends on the literal) rewritten to `grid_N()` / `grid_size_N()`.
//! rustc then type-checks everything cudajit accepts, with errors at the user's tokens.

use kernel_device::diag::Diagnostic;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// The body with the device API imported and `grid(N)` rewritten. Bad `grid`
/// arguments are reported into `errors` (and rewritten to `grid_1()` so rustc adds
/// nothing).
pub fn body(
    block: &syn::Block,
    generics: &syn::Generics,
    errors: &mut Vec<Diagnostic>,
) -> syn::Block {
    let mut block = block.clone();
    let mut rewriter = GridRewriter { errors };
    rewriter.visit_block_mut(&mut block);
    let consts: Vec<syn::Ident> = generics.const_params().map(|c| c.ident.clone()).collect();
    if !consts.is_empty() {
        ConstLenRewriter { consts: &consts }.visit_block_mut(&mut block);
    }
    // As tokens, not parsed into a `use` item first (issue 27: the macro's cost).
    let import = syn::Stmt::Item(syn::Item::Verbatim(quote! {
        #[allow(unused_imports)]
        use ::cudajit::__private::device_api::in_kernel::*;
    }));
    block.stmts.insert(0, import);
    block
}

/// The body used once errors are reported: it type-checks against any signature.
pub fn stub_body() -> syn::Block {
    syn::parse_quote!({ loop {} })
}

/// The rustc-checked copy of a kernel's body, `fn __cudajit_twin_k(same params) -> same
/// { body }`, and the kernel's name in the value namespace: `fn k(same params) -> same
/// where for<'call> &'call k: Callable<k> { loop {} }` (its `k` in the bound is the
/// braced `struct k {}` of the type namespace, which holds everything else of the
/// kernel). The bound is never satisfied and names a higher-ranked lifetime, so rustc
/// accepts the definition and checks the bound at each use: calling the kernel like a
/// function, `k(3, 1.0)` on the host or from device code, is one error in cudajit's
/// words pointing to `launch!` (`launch_traits::Callable`), and rust-analyzer shows `k`
/// as a fn with the kernel's signature and docs. The body is not in that fn: rustc
/// replaces the body of a fn with an impossible bound by `unreachable`, constants
/// inside it included (`[0.0; TILE + 1]` would fail to evaluate). A mistake in the
/// signature is reported once: rustc drops the same error at the same token.
pub fn kernel_twin(item: &syn::ItemFn, body: syn::Block) -> proc_macro2::TokenStream {
    let name = &item.sig.ident;
    let mut twin = item.sig.clone();
    twin.ident = format_ident!("__cudajit_twin_{}", name, span = name.span());
    // The signature, its `where` clause printed apart with the bound added last:
    // what pushing the bound onto the clause prints, without parsing it first (issue
    // 27: the macro's cost).
    let mut sig = item.sig.clone();
    let clause = sig.generics.where_clause.take();
    let where_token = clause
        .as_ref()
        .map_or_else(Default::default, |w| w.where_token);
    let predicates = clause.map(|w| w.predicates).unwrap_or_default();
    let comma = (!predicates.empty_or_trailing()).then(|| quote!(,));
    // Spanned at the name: rustc's "required by a bound" note then points at the
    // kernel's definition.
    let bound = quote::quote_spanned!(name.span()=>
        for<'call> &'call #name: ::cudajit::launch_traits::Callable<#name>
    );
    let vis = &item.vis;
    let cfgs: Vec<_> = item.attrs.iter().filter(|a| is_cfg(a)).collect();
    let docs = item.attrs.iter().filter(|a| a.path().is_ident("doc"));
    quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(dead_code, unused, non_snake_case, clippy::all)]
        #twin #body

        #(#cfgs)*
        #(#docs)*
        #[allow(dead_code, unused, non_snake_case, clippy::all)]
        #vis #sig #where_token #predicates #comma #bound {
            loop {}
        }
    }
}

pub fn is_cfg(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr")
}

struct GridRewriter<'e> {
    errors: &'e mut Vec<Diagnostic>,
}

impl VisitMut for GridRewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        if let syn::Expr::ForLoop(f) = expr {
            // `#[unroll]` is a hint to cudajit's compiler (the frontend reads it from the
            // embedded source); rustc knows no such attribute.
            f.attrs.retain(|a| !a.path().is_ident("unroll"));
        }
        let syn::Expr::Call(call) = expr else { return };
        let syn::Expr::Path(func) = &*call.func else {
            return;
        };
        let Some(name) = func.path.get_ident().map(|i| i.to_string()) else {
            return;
        };
        if func.qself.is_some() || (name != "grid" && name != "grid_size") {
            return;
        }
        let ndim = match call.args.first() {
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            })) if call.args.len() == 1 => {
                n.base10_parse::<u8>().ok().filter(|n| (1..=3).contains(n))
            }
            _ => None,
        };
        let ndim = ndim.unwrap_or_else(|| {
            self.errors.push(
                Diagnostic::new(
                    // `grid()` has no argument tokens to point at: point at the call.
                    if call.args.is_empty() {
                        call.span()
                    } else {
                        call.args.span()
                    },
                    format!(
                        "`{name}` takes the number of dimensions as an integer literal 1, 2 or 3"
                    ),
                )
                .with_hint(format!("write `{name}(1)`, `{name}(2)` or `{name}(3)`")),
            );
            1
        });
        let span = call.span();
        let stand_in = format_ident!("{}_{}", name, ndim, span = func.path.span());
        // As tokens: nothing visits the stand-in's call again, and parsing it would cost
        // the macro time (issue 27).
        *expr = syn::Expr::Verbatim(quote::quote_spanned!(span=> #stand_in()));
    }
}

/// Stable Rust cannot type an array whose length is an expression of a const
/// parameter (`[[T; N + 1]; N]`) in a generic function: the twin gets
/// `ConstLenArray<T>` there (indexable, what rustc needs to check the body), and
/// `[x; N + 1]` becomes `ConstLenArray::repeat(x)`. Lengths that are the parameter
/// itself (`[T; N]`) stay as written.
struct ConstLenRewriter<'c> {
    consts: &'c [syn::Ident],
}

impl ConstLenRewriter<'_> {
    fn is_expression_of_a_param(&self, len: &syn::Expr) -> bool {
        let bare = matches!(len, syn::Expr::Path(p) if p.path.get_ident().is_some())
            || matches!(len, syn::Expr::Lit(_));
        if bare {
            return false;
        }
        struct Finder<'c> {
            consts: &'c [syn::Ident],
            found: bool,
        }
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
            fn visit_ident(&mut self, ident: &'ast syn::Ident) {
                self.found |= self.consts.contains(ident);
            }
        }
        let mut finder = Finder {
            consts: self.consts,
            found: false,
        };
        syn::visit::Visit::visit_expr(&mut finder, len);
        finder.found
    }
}

impl VisitMut for ConstLenRewriter<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        syn::visit_mut::visit_type_mut(self, ty);
        if let syn::Type::Array(array) = ty {
            // An array of stand-ins is a stand-in too (`[[T; N + 1]; N]`): only
            // arrays of scalars are shared arrays.
            let of_stand_ins = matches!(&*array.elem, syn::Type::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == "ConstLenArray"));
            if of_stand_ins || self.is_expression_of_a_param(&array.len) {
                let elem = &array.elem;
                let span = array.span();
                *ty = syn::parse_quote_spanned!(span=>
                    ::cudajit::__private::device_api::ConstLenArray<#elem>);
            }
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        if let syn::Expr::Repeat(repeat) = expr {
            if self.is_expression_of_a_param(&repeat.len) {
                let value = &repeat.expr;
                let span = repeat.span();
                *expr = syn::parse_quote_spanned!(span=>
                    ::cudajit::__private::device_api::ConstLenArray::repeat(#value));
            }
        }
    }
}
