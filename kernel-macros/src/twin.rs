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
pub fn body(block: &syn::Block, errors: &mut Vec<Diagnostic>) -> syn::Block {
    let mut block = block.clone();
    let mut rewriter = GridRewriter { errors };
    rewriter.visit_block_mut(&mut block);
    let import: syn::Stmt = syn::parse_quote! {
        #[allow(unused_imports)]
        use ::cudajit::__private::device_api::*;
    };
    block.stmts.insert(0, import);
    block
}

/// The body used once errors are reported: it type-checks against any signature.
pub fn stub_body() -> syn::Block {
    syn::parse_quote!({ loop {} })
}

/// `#[doc(hidden)] fn __cudajit_twin_<name>(same params) -> same { body }`.
pub fn kernel_twin(item: &syn::ItemFn, body: syn::Block) -> proc_macro2::TokenStream {
    let mut sig = item.sig.clone();
    sig.ident = format_ident!(
        "__cudajit_twin_{}",
        item.sig.ident,
        span = item.sig.ident.span()
    );
    let cfgs = item.attrs.iter().filter(|a| is_cfg(a));
    quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(dead_code, unused, non_snake_case, clippy::all)]
        #sig #body
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
        *expr = syn::parse_quote_spanned!(span=> #stand_in());
    }
}
