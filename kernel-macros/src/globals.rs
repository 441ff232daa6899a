//! Reads of a crate `static mut` in a kernel. The frontend sees only names: `SCALE` may
//! be a `const` (read at launch, supported), a `static` or a `static mut` (global
//! mutable state, rejected). Writes are the frontend's to reject (any crate constant);
//! a read looks like a constant's, and rustc would reject it with its own unsafety error
//! (E0133). Nothing in the type system tells a `static mut` from a `const` of the same
//! type (the difference is the place and its unsafety, checked after types), so the
//! macro reads the source, as `context` does for `impl` blocks: the file being compiled,
//! and the files of the crate's module tree (`mod x;` followed from that file and, for a
//! file under `src/`, from the crate roots there). Each name declared `static mut` that
//! the body reads is reported in cudajit's words. A name declared `static mut` in another
//! file and also as a `const` or `static` somewhere is left to rustc: the macro cannot
//! tell which of them the body names.

use kernel_device::diag::Diagnostic;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A diagnostic for each name of `static mut` that `item` reads, at its first use, unless
/// `reported` already names it (a write is reported by the frontend).
pub fn static_mut_reads(item: &syn::ItemFn, reported: &[Diagnostic]) -> Vec<Diagnostic> {
    let refs = kernel_device::front::const_refs(item);
    if refs.is_empty() {
        return Vec::new();
    }
    let statics = static_muts_in_reach();
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

/// The names declared `static mut` in the file holding the attribute being expanded,
/// and those declared only `static mut` in the other files of its module tree; empty
/// where the file cannot be read (rust-analyzer, generated code, unit tests).
fn static_muts_in_reach() -> HashSet<String> {
    if !proc_macro::is_available() {
        return HashSet::new();
    }
    let Some(this_file) = proc_macro::Span::call_site().local_file() else {
        return HashSet::new();
    };
    let Some(here) = declarations_in(&this_file) else {
        return HashSet::new();
    };
    let mut names = here.static_muts.clone();
    let mut elsewhere = Declarations::default();
    for file in module_tree_files(&this_file) {
        if file == this_file {
            continue;
        }
        if let Some(found) = declarations_in(&file) {
            elsewhere.static_muts.extend(found.static_muts);
            elsewhere.others.extend(found.others);
        }
    }
    names.extend(
        elsewhere
            .static_muts
            .into_iter()
            .filter(|n| !elsewhere.others.contains(n) && !here.others.contains(n)),
    );
    names
}

/// The global names one file declares.
#[derive(Default, Clone)]
struct Declarations {
    /// `static mut NAME`.
    static_muts: HashSet<String>,
    /// `const NAME` and `static NAME` (not `mut`).
    others: HashSet<String>,
}

fn declarations_in(file: &Path) -> Option<Declarations> {
    let text = std::fs::read_to_string(file).ok()?;
    let tokens = text.parse::<TokenStream>().ok()?;
    let mut found = Declarations::default();
    collect_static_muts(tokens, &mut found.static_muts, &mut found.others);
    Some(found)
}

/// At most this many files are read: a module tree larger than that is scanned in part.
const MAX_FILES: usize = 400;

/// The files of the module tree `file` belongs to: `file`, the files its `mod x;` items
/// name (recursively), and, when `file` sits under the crate's `src/`, every file
/// reachable from the roots there (`lib.rs`, `main.rs`), since a kernel in
/// `src/kernels.rs` may read `crate::config::SCALE` of `src/config.rs`.
fn module_tree_files(file: &Path) -> Vec<PathBuf> {
    let mut roots = vec![file.to_path_buf()];
    if let Some(manifest) = std::env::var_os("CARGO_MANIFEST_DIR") {
        let src = Path::new(&manifest).join("src");
        if file.starts_with(&src) {
            roots.push(src.join("lib.rs"));
            roots.push(src.join("main.rs"));
        }
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut pending: Vec<(PathBuf, bool)> = roots
        .into_iter()
        .filter(|r| r.is_file())
        // A file named by `mod` is found in a folder named after it unless it is a crate
        // root or a `mod.rs`; `file` is taken as a root (what rustc compiles directly).
        .map(|r| (r, true))
        .collect();
    while let Some((path, owns_its_folder)) = pending.pop() {
        if seen.contains(&path) || seen.len() >= MAX_FILES {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        seen.push(path.clone());
        let Ok(tokens) = text.parse::<TokenStream>() else {
            continue;
        };
        let Some(folder) = path.parent() else {
            continue;
        };
        let is_mod_rs = path.file_name().is_some_and(|n| n == "mod.rs");
        let children_folder = if owns_its_folder || is_mod_rs {
            folder.to_path_buf()
        } else {
            folder.join(path.file_stem().unwrap_or_default())
        };
        let mut found = Vec::new();
        out_of_line_modules(tokens, folder, &children_folder, &mut found);
        pending.extend(found);
    }
    seen
}

/// The files `mod name;` items in `tokens` load: `#[path = ".."]` relative to `folder`
/// (the file's own), else `name.rs` or `name/mod.rs` in `children` (inline `mod a { .. }`
/// adds `a/`). Each comes with whether it is a `mod.rs`-like owner of its folder.
fn out_of_line_modules(
    tokens: TokenStream,
    folder: &Path,
    children: &Path,
    found: &mut Vec<(PathBuf, bool)>,
) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut path_attr: Option<String> = None;
    // The body of an inline `mod a { .. }`, read with `a/` added already.
    let mut module_body = None;
    for (i, tree) in trees.iter().enumerate() {
        if module_body == Some(i) {
            continue;
        }
        match tree {
            TokenTree::Group(group) if group.delimiter() == Delimiter::Bracket => {
                // `#[path = "x.rs"]`
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                if let [TokenTree::Ident(word), TokenTree::Punct(eq), TokenTree::Literal(lit)] =
                    inner.as_slice()
                {
                    if word == "path" && eq.as_char() == '=' {
                        let text = lit.to_string();
                        path_attr = Some(text.trim_matches('"').to_string());
                    }
                }
            }
            TokenTree::Ident(word) if word == "mod" => {
                let (Some(TokenTree::Ident(name)), next) = (trees.get(i + 1), trees.get(i + 2))
                else {
                    continue;
                };
                let name = name.to_string();
                let name = name.trim_start_matches("r#");
                match next {
                    Some(TokenTree::Punct(p)) if p.as_char() == ';' => {
                        if let Some(explicit) = path_attr.take() {
                            found.push((folder.join(explicit), true));
                        } else {
                            let flat = children.join(format!("{name}.rs"));
                            if flat.is_file() {
                                found.push((flat, false));
                            } else {
                                found.push((children.join(name).join("mod.rs"), true));
                            }
                        }
                    }
                    Some(TokenTree::Group(body)) if body.delimiter() == Delimiter::Brace => {
                        path_attr = None;
                        module_body = Some(i + 2);
                        let nested = children.join(name);
                        out_of_line_modules(body.stream(), &nested, &nested, found);
                    }
                    _ => {}
                }
            }
            TokenTree::Punct(p) if p.as_char() == ';' => path_attr = None,
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                // Items inside fn bodies and other blocks: same folders.
                path_attr = None;
                out_of_line_modules(group.stream(), folder, children, found);
            }
            _ => {}
        }
    }
}

/// Each `static mut NAME` in `tokens`, at any depth, into `names`; each `const NAME:`
/// and `static NAME:` into `others`.
fn collect_static_muts(
    tokens: TokenStream,
    names: &mut HashSet<String>,
    others: &mut HashSet<String>,
) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(group) => collect_static_muts(group.stream(), names, others),
            TokenTree::Ident(word) if word == "static" || word == "const" => {
                match (trees.get(i + 1), trees.get(i + 2)) {
                    (Some(TokenTree::Ident(m)), Some(TokenTree::Ident(name)))
                        if word == "static" && m == "mut" =>
                    {
                        names.insert(name.to_string());
                    }
                    (Some(TokenTree::Ident(name)), Some(TokenTree::Punct(colon)))
                        if colon.as_char() == ':' =>
                    {
                        others.insert(name.to_string());
                    }
                    _ => {}
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
        let (mut names, mut others) = (HashSet::new(), HashSet::new());
        collect_static_muts(file, &mut names, &mut others);
        let mut names: Vec<_> = names.into_iter().collect();
        names.sort();
        assert_eq!(names, ["A", "D", "E"]);
        let mut others: Vec<_> = others.into_iter().collect();
        others.sort();
        assert_eq!(others, ["B", "C"]);
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

    #[test]
    fn the_module_tree_is_followed_through_mod_items_and_path_attributes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "case.rs",
            "#[path = \"modules/statics.rs\"] mod statics; mod inline { mod deep; } fn main() {}",
        );
        write(
            "modules/statics.rs",
            "pub static mut SCALE: f32 = 1.0; mod more;",
        );
        write("modules/more.rs", "pub static mut MORE: u32 = 0;");
        write("inline/deep.rs", "pub const DEEP: u32 = 0;");
        write("unrelated.rs", "pub static mut UNRELATED: u32 = 0;");
        let mut files: Vec<String> = module_tree_files(&root.join("case.rs"))
            .iter()
            .map(|f| {
                f.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        files.sort();
        assert_eq!(
            files,
            [
                "case.rs",
                "inline/deep.rs",
                "modules/more.rs",
                "modules/statics.rs"
            ]
        );
    }
}
