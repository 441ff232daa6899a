//! Finds `#[kernel]` / `#[device]` functions in source files and builds their
//! `FnSource`s exactly as the macro does (attributes and visibility dropped, text from
//! `render_preserving_lines`, `line` of the `fn` token, `file` relative to the
//! workspace root as `file!()` gives it), so the NVVM IR — and its key — are the ones
//! the run-time compiler would produce.

use kernel_device::source::{render_preserving_lines, FnSource, SourceKind};
use quote::ToTokens;
use std::path::{Path, PathBuf};

/// One attributed function found in a file.
pub struct Found {
    pub kind: SourceKind,
    pub item: syn::ItemFn,
    /// Workspace-relative path with `/`.
    pub file: String,
    pub bounds_check: bool,
    pub fast_math: bool,
}

/// Every `.rs` file under `dirs` (recursively), skipping `target` and the compile-fail
/// cases in `tests/ui`.
pub fn rust_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                if name != "target" && !path.ends_with("tests/ui") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn attribute_kind(attr: &syn::Attribute) -> Option<SourceKind> {
    match attr.path().segments.last()?.ident.to_string().as_str() {
        "kernel" => Some(SourceKind::Kernel),
        "device" => Some(SourceKind::Device),
        _ => None,
    }
}

/// The attributed functions of one file (also inside inline modules and fn bodies).
pub fn scan_file(path: &Path, root: &Path) -> Result<Vec<Found>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&text).map_err(|e| {
        let at = e.span().start();
        format!("{}:{}:{}: {e}", path.display(), at.line, at.column + 1)
    })?;
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    struct Visitor {
        file: String,
        found: Vec<Found>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Visitor {
        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            if let Some(attr) = item.attrs.iter().find(|a| attribute_kind(a).is_some()) {
                let (bounds_check, fast_math) = options(attr);
                self.found.push(Found {
                    kind: attribute_kind(attr).expect("checked"),
                    item: item.clone(),
                    file: self.file.clone(),
                    bounds_check,
                    fast_math,
                });
            }
            syn::visit::visit_item_fn(self, item);
        }
    }
    let mut v = Visitor {
        file: rel,
        found: Vec::new(),
    };
    syn::visit::Visit::visit_file(&mut v, &file);
    Ok(v.found)
}

/// `boundscheck = bool` / `fastmath = bool` (the macro rejects anything else).
fn options(attr: &syn::Attribute) -> (bool, bool) {
    let (mut bounds_check, mut fast_math) = (true, false);
    let _ = attr.parse_nested_meta(|meta| {
        let value: syn::LitBool = meta.value()?.parse()?;
        if meta.path.is_ident("boundscheck") {
            bounds_check = value.value;
        } else if meta.path.is_ident("fastmath") {
            fast_math = value.value;
        }
        Ok(())
    });
    (bounds_check, fast_math)
}

/// The macro's text rendering of `item`: (text, line of the first token).
pub fn render(item: &syn::ItemFn) -> (String, u32) {
    let mut bare = item.clone();
    bare.attrs.clear();
    bare.vis = syn::Visibility::Inherited;
    render_preserving_lines(bare.to_token_stream())
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// A leaked `FnSource` for `found` with the given dependencies.
pub fn fn_source(found: &Found, deps: &'static [&'static FnSource]) -> &'static FnSource {
    let (text, line) = render(&found.item);
    Box::leak(Box::new(FnSource {
        name: leak(found.item.sig.ident.to_string()),
        kind: found.kind,
        text: leak(text),
        file: leak(found.file.clone()),
        line,
        bounds_check: found.bounds_check,
        fast_math: found.fast_math,
        deps,
    }))
}

/// The kernel's unit in the macro's order (`FnSource::unit`: breadth-first over device
/// calls in first-call order, each function once), as indices into `all`. Calls resolve
/// by the last path segment's name, preferring a device fn of the same file.
pub fn unit_order(kernel: usize, all: &[Found]) -> Result<Vec<usize>, String> {
    let mut order = vec![kernel];
    let mut next = 0;
    while next < order.len() {
        let caller = &all[order[next]];
        for path in kernel_device::front::device_calls(&caller.item) {
            let name = path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let candidates: Vec<usize> = (0..all.len())
                .filter(|&i| all[i].kind == SourceKind::Device && all[i].item.sig.ident == name)
                .collect();
            let same_file: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|&i| all[i].file == caller.file)
                .collect();
            let pick = match (same_file.as_slice(), candidates.as_slice()) {
                ([one], _) | ([], [one]) => *one,
                ([], []) => {
                    return Err(format!(
                        "{}: `{}` calls `{}`, which is no #[device] fn in the scanned sources",
                        caller.file,
                        caller.item.sig.ident,
                        path.to_token_stream()
                    ))
                }
                _ => {
                    return Err(format!(
                        "{}: `{name}` is ambiguous among #[device] fns",
                        caller.file
                    ))
                }
            };
            if !order.contains(&pick) {
                order.push(pick);
            }
        }
        next += 1;
    }
    Ok(order)
}
