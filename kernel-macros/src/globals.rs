//! Reads of a crate `static mut` in a kernel. The frontend sees only names: `SCALE` may
//! be a `const` (read at launch, supported), a `static` or a `static mut` (global
//! mutable state, rejected). Writes are the frontend's to reject (any crate constant);
//! a read looks like a constant's, and rustc would reject it with its own unsafety error
//! (E0133). So the macro looks for `static mut NAME` in the file being compiled, as
//! `context` does for `impl` blocks, and reports each such name the body reads in
//! cudajit's words. A `static mut` declared in another file still gets rustc's error.

use kernel_device::diag::Diagnostic;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashSet;

/// A diagnostic for each name of `static mut` that `item` reads, at its first use, unless
/// `reported` already names it (a write is reported by the frontend).
pub fn static_mut_reads(item: &syn::ItemFn, reported: &[Diagnostic]) -> Vec<Diagnostic> {
    let refs = kernel_device::front::const_refs(item);
    if refs.is_empty() {
        return Vec::new();
    }
    let statics = static_muts_of_this_file();
    static_mut_reads_among(&refs, &statics, reported)
}

fn static_mut_reads_among(
    refs: &[(String, syn::Path)],
    statics: &HashSet<String>,
    reported: &[Diagnostic],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (_, path) in refs {
        let Some(last) = path.segments.last() else {
            continue;
        };
        let name = last.ident.to_string();
        let named = format!("`{name}`");
        if !statics.contains(&name) || reported.iter().any(|d| d.message.contains(&named)) {
            continue;
        }
        out.push(
            Diagnostic::new(
                last.ident.span(),
                format!(
                    "cannot read `{name}`: it is a `static mut`, global mutable state that kernels cannot read or write (every GPU thread and the host would share it)"
                ),
            )
            .with_hint(
                "pass its value as a kernel parameter (a scalar, or a `&[T]` slice), or keep a shared counter in a `&mut [T]` parameter and update it with an atomic: `atomic_add(counts, i, 1)`",
            ),
        );
    }
    out
}

/// The names declared `static mut` anywhere in the file holding the attribute being
/// expanded; empty where it cannot be read (rust-analyzer, generated code, unit tests).
fn static_muts_of_this_file() -> HashSet<String> {
    if !proc_macro::is_available() {
        return HashSet::new();
    }
    let text = proc_macro::Span::call_site()
        .local_file()
        .and_then(|path| std::fs::read_to_string(path).ok());
    let Some(tokens) = text.and_then(|t| t.parse::<TokenStream>().ok()) else {
        return HashSet::new();
    };
    let mut names = HashSet::new();
    collect_static_muts(tokens, &mut names);
    names
}

/// Each `static mut NAME` in `tokens`, at any depth.
fn collect_static_muts(tokens: TokenStream, names: &mut HashSet<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(group) => collect_static_muts(group.stream(), names),
            TokenTree::Ident(word) if word == "static" => {
                if let (Some(TokenTree::Ident(m)), Some(TokenTree::Ident(name))) =
                    (trees.get(i + 1), trees.get(i + 2))
                {
                    if m == "mut" {
                        names.insert(name.to_string());
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_static_muts_at_any_depth_and_only_those() {
        let file: TokenStream = "static mut A: u32 = 0; static B: u32 = 1; const C: u32 = 2; \
             mod m { pub static mut D: f32 = 0.0; } fn f() { static mut E: u8 = 0; }"
            .parse()
            .unwrap();
        let mut names = HashSet::new();
        collect_static_muts(file, &mut names);
        let mut names: Vec<_> = names.into_iter().collect();
        names.sort();
        assert_eq!(names, ["A", "D", "E"]);
    }

    #[test]
    fn a_read_of_a_static_mut_is_reported_once_and_a_reported_write_is_not() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn k(c: &mut [f32]) { c[0] = SCALE + SCALE * TILE as f32; c[1] = COUNT as f32; }
        };
        let refs = kernel_device::front::const_refs(&item);
        let statics: HashSet<String> = ["SCALE", "COUNT"].map(String::from).into();
        let write = Diagnostic::new(proc_macro2::Span::call_site(), "cannot assign to `COUNT`");
        let found = static_mut_reads_among(&refs, &statics, &[write]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.starts_with("cannot read `SCALE`"));
    }
}
