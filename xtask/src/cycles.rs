//! `cargo xtask cycles`: finds import cycles among a crate's source files.
//!
//! Every `.rs` file under a crate's `src/` is a node (its module path follows from its
//! file path). An edge A → B means A names something of B: a `use crate::…`,
//! `use super::…`, `use self::…` or `use child::…` item, or a `crate::…`/`super::…`
//! path anywhere in A (types, expressions, macro arguments), outside `#[cfg(test)]` items
//! (tests may use anything). A child reaching its parent
//! through `super::` is an edge to the parent's file; `mod` declarations are not edges.
//! A path through a re-export (`pub use x::Y` in a `mod.rs`) counts as an edge to the
//! file that defines `Y` as well as to the re-exporting file's own `use`, so a facade
//! `lib.rs` listing the public items does not close a cycle by itself.
//!
//! The strongly connected components of that graph (Tarjan) with more than one node are
//! the cycles; each is printed with one concrete loop through it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

const USAGE: &str =
    "usage: cargo xtask cycles [--crate NAME | --dir CRATE/src/PATH | --top-level NAME]
  --crate kernel-host           every file of the crate's src/
  --dir kernel-device/src/back/nvvm
                                the files under one folder of a crate's src/
  --top-level kernel-device     the crate's top-level modules, each folder one node";

/// `cargo xtask cycles …`: prints the cycles and fails when there is one.
pub fn run(args: &[String]) -> Result<(), String> {
    let [flag, value] = args else {
        return Err(USAGE.into());
    };
    let scope = match flag.as_str() {
        "--crate" => Scope::Crate(crate::root().join(value).join("src")),
        "--dir" => dir_scope(&crate::root().join(value))?,
        "--top-level" => Scope::TopLevel(crate::root().join(value).join("src")),
        _ => return Err(USAGE.into()),
    };
    check(&scope)
}

/// What `cargo xtask test` checks: issue 26's bars, no import cycle among kernel-host's
/// files or its top-level modules, among the files of `back/nvvm` or `back/sim`, or
/// among kernel-device's top-level modules.
pub fn run_test_checks() -> Result<(), String> {
    let root = crate::root();
    let scopes = [
        Scope::Crate(root.join("kernel-host/src")),
        Scope::TopLevel(root.join("kernel-host/src")),
        dir_scope(&root.join("kernel-device/src/back/nvvm"))?,
        dir_scope(&root.join("kernel-device/src/back/sim"))?,
        Scope::TopLevel(root.join("kernel-device/src")),
    ];
    scopes.iter().try_for_each(check)
}

/// Which files are nodes.
pub enum Scope {
    /// Every file of a crate, rooted at its `src/`.
    Crate(PathBuf),
    /// The files under `dir` of the crate rooted at `src`.
    Dir { src: PathBuf, dir: PathBuf },
    /// The crate's top-level modules, each collapsed to one node.
    TopLevel(PathBuf),
}

/// A folder inside a crate: the crate's `src/` is the nearest ancestor named `src`.
fn dir_scope(dir: &Path) -> Result<Scope, String> {
    let src = dir
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "src"))
        .ok_or_else(|| format!("{} is not inside a crate's src/", dir.display()))?;
    Ok(Scope::Dir {
        src: src.to_path_buf(),
        dir: dir.to_path_buf(),
    })
}

fn check(scope: &Scope) -> Result<(), String> {
    let (src, what) = match scope {
        Scope::Crate(src) | Scope::TopLevel(src) => (src, src.display().to_string()),
        Scope::Dir { src, dir } => (src, dir.display().to_string()),
    };
    let files = read_tree(src)?;
    let graph = match scope {
        Scope::Crate(_) => file_graph(&files),
        Scope::Dir { src, dir } => {
            let prefix = module_path(dir.strip_prefix(src).unwrap_or(dir), true);
            restrict(file_graph(&files), |m| within(m, &prefix))
        }
        Scope::TopLevel(_) => collapse_to_top_level(file_graph(&files)),
    };
    let cycles = cycles(&graph);
    if cycles.is_empty() {
        eprintln!(
            "xtask: cycles: {what}: {} modules, no import cycle",
            graph.len()
        );
        return Ok(());
    }
    for (i, (members, path)) in cycles.iter().enumerate() {
        println!(
            "cycle {} ({} modules): {}",
            i + 1,
            members.len(),
            path.join(" -> ")
        );
        println!("  members: {}", members.join(", "));
    }
    Err(format!("{what}: {} import cycle(s)", cycles.len()))
}

/// A module's path from the crate root, `::`-joined (`""` is the root).
type ModulePath = String;

/// Source files by module path.
pub fn read_tree(src: &Path) -> Result<BTreeMap<ModulePath, String>, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                let relative = path.strip_prefix(src).unwrap_or(&path);
                files.insert(module_path(relative, false), text);
            }
        }
    }
    Ok(files)
}

/// `a/b.rs` → `a::b`, `a/mod.rs` → `a`, `lib.rs` → `` (a folder when `is_dir`).
fn module_path(relative: &Path, is_dir: bool) -> ModulePath {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if !is_dir
        && matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        )
    {
        parts.pop();
    }
    parts.join("::")
}

/// Edges between files, by module path (every file is a key).
pub type Graph = BTreeMap<ModulePath, BTreeSet<ModulePath>>;

/// The file graph of a crate whose files are `files` (by module path).
pub fn file_graph(files: &BTreeMap<ModulePath, String>) -> Graph {
    let modules: BTreeSet<&str> = files.keys().map(String::as_str).collect();
    let parsed: BTreeMap<&str, syn::File> = files
        .iter()
        .filter_map(|(m, text)| Some((m.as_str(), syn::parse_file(text).ok()?)))
        .collect();
    let reexports: HashMap<&str, Reexports> = parsed
        .iter()
        .map(|(m, file)| (*m, reexports_of(m, file, &modules)))
        .collect();
    let resolver = Resolver {
        modules: &modules,
        reexports: &reexports,
    };
    let test_only = test_only_modules(&parsed);
    let mut graph = Graph::new();
    for module in files.keys() {
        if test_only.contains(module.as_str()) {
            continue;
        }
        let mut targets = BTreeSet::new();
        if let Some(file) = parsed.get(module.as_str()) {
            let mut collector = PathCollector {
                module: split(module),
                inline: Vec::new(),
                paths: Vec::new(),
                children: &modules,
            };
            collector.visit_file(file);
            for path in collector.paths {
                resolver.resolve(&path, 0, &mut targets);
            }
        }
        targets.remove(module);
        targets.retain(|t| !test_only.contains(t.as_str()));
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The modules compiled only for tests: declared `#[cfg(test)] mod x;` in their
/// parent's file, and every module below one. Tests may use anything, as the
/// `#[cfg(test)]` items of a file may.
fn test_only_modules(parsed: &BTreeMap<&str, syn::File>) -> BTreeSet<String> {
    let mut roots = BTreeSet::new();
    for (module, file) in parsed {
        for item in &file.items {
            if let syn::Item::Mod(m) = item {
                if m.content.is_none() && is_test_only(item) {
                    let child = m.ident.to_string();
                    roots.insert(if module.is_empty() {
                        child
                    } else {
                        format!("{module}::{child}")
                    });
                }
            }
        }
    }
    parsed
        .keys()
        .filter(|m| {
            roots
                .iter()
                .any(|root| *m == root || m.starts_with(&format!("{root}::")))
        })
        .map(|m| m.to_string())
        .collect()
}

fn split(module: &str) -> Vec<String> {
    if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").map(String::from).collect()
    }
}

/// A module's re-exported names and the absolute paths they stand for (`None`: an item
/// of another crate).
type Reexports = HashMap<String, Option<Vec<String>>>;

/// Names a module re-exports (`pub use` / `pub(crate) use`), as absolute paths.
fn reexports_of(module: &str, file: &syn::File, modules: &BTreeSet<&str>) -> Reexports {
    let mut out = HashMap::new();
    for item in &file.items {
        if let syn::Item::Use(use_item) = item {
            if matches!(use_item.vis, syn::Visibility::Inherited) {
                continue;
            }
            let mut leaves = Vec::new();
            flatten_use(&use_item.tree, Vec::new(), &mut leaves);
            for (path, name) in leaves {
                let module = split(module);
                // `None`: another crate's item, which is no edge.
                let target = absolute(&module, &path).or_else(|| child(&module, &path, modules));
                out.insert(name, target);
            }
        }
    }
    out
}

/// `use a::{b, c::d as e}` → `([a, b], b)`, `([a, c, d], e)`; a glob ends in `*`.
fn flatten_use(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    let with = |segment: String| {
        let mut path = prefix.clone();
        path.push(segment);
        path
    };
    match tree {
        syn::UseTree::Path(p) => flatten_use(&p.tree, with(p.ident.to_string()), out),
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                let last = prefix.last().cloned().unwrap_or_default();
                out.push((prefix.clone(), last));
            } else {
                out.push((with(name.clone()), name));
            }
        }
        syn::UseTree::Rename(r) => out.push((with(r.ident.to_string()), r.rename.to_string())),
        syn::UseTree::Glob(_) => out.push((with("*".into()), "*".into())),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                flatten_use(tree, prefix.clone(), out);
            }
        }
    }
}

/// `path` as seen from module `from`, made absolute; `None` for an external crate or
/// a local item (a path whose first segment is neither `crate`, `self`, `super` nor a
/// child module is resolved by `PathCollector`, which knows the children).
fn absolute(from: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base = from.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// `path` whose first segment is a child module of `module` (2018 paths: `use child::X`),
/// made absolute.
fn child(module: &[String], path: &[String], modules: &BTreeSet<&str>) -> Option<Vec<String>> {
    let mut child = module.to_vec();
    child.push(path.first()?.clone());
    modules.contains(child.join("::").as_str()).then(|| {
        child.extend(path[1..].iter().cloned());
        child
    })
}

struct Resolver<'a> {
    modules: &'a BTreeSet<&'a str>,
    reexports: &'a HashMap<&'a str, Reexports>,
}

impl Resolver<'_> {
    /// Adds the file(s) an absolute path names: the longest prefix that is a file, or,
    /// when the next segment is that file's re-export, what the re-export names.
    fn resolve(&self, path: &[String], depth: usize, out: &mut BTreeSet<ModulePath>) {
        let Some(len) = (0..=path.len())
            .rev()
            .find(|&n| self.modules.contains(path[..n].join("::").as_str()))
        else {
            return;
        };
        let module = path[..len].join("::");
        let reexported = path
            .get(len)
            .and_then(|name| self.reexports.get(module.as_str())?.get(name));
        match reexported {
            Some(None) => {}
            Some(Some(target)) if depth < 8 => {
                let mut target = target.clone();
                target.extend(path[len + 1..].iter().cloned());
                self.resolve(&target, depth + 1, out);
            }
            _ => {
                out.insert(module);
            }
        }
    }
}

/// Collects the absolute paths a file names (see the module comment).
struct PathCollector<'a> {
    /// The file's module path.
    module: Vec<String>,
    /// Inline modules (`mod tests { … }`) entered so far.
    inline: Vec<String>,
    paths: Vec<Vec<String>>,
    children: &'a BTreeSet<&'a str>,
}

impl PathCollector<'_> {
    fn current(&self) -> Vec<String> {
        let mut current = self.module.clone();
        current.extend(self.inline.iter().cloned());
        current
    }

    fn add(&mut self, path: Vec<String>) {
        let current = self.current();
        if let Some(absolute) = absolute(&current, &path) {
            self.paths.push(absolute);
            return;
        }
        if self.inline.is_empty() {
            self.paths.extend(child(&self.module, &path, self.children));
        }
    }

    /// `crate :: a :: b` sequences in a macro's tokens (`format!`, `matches!`, ...).
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => self.scan_tokens(g.stream()),
                TokenTree::Ident(id) if ["crate", "super", "self"].contains(&&*id.to_string()) => {
                    let mut path = vec![id.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        j += 3;
                    }
                    if path.len() > 1 {
                        self.add(path);
                    }
                    i = j.max(i + 1);
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for PathCollector<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        flatten_use(&item.tree, Vec::new(), &mut leaves);
        for (mut path, _) in leaves {
            if path.last().is_some_and(|s| s == "*") {
                path.pop();
            }
            self.add(path);
        }
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        // Tests may use anything: only what the crate itself is built from layers it.
        if !is_test_only(item) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        // `mod x;` is not an edge; an inline module's paths are the file's.
        if item.content.is_some() {
            self.inline.push(item.ident.to_string());
            syn::visit::visit_item_mod(self, item);
            self.inline.pop();
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if matches!(
            segments.first().map(String::as_str),
            Some("crate" | "super" | "self")
        ) {
            self.add(segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(in crate::x)` names where an item is visible, not what it uses.
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        self.scan_tokens(mac.tokens.clone());
    }
}

/// Whether `module` is `folder` or inside it.
fn within(module: &str, folder: &str) -> bool {
    module == folder || module.starts_with(&format!("{folder}::"))
}

/// Whether `item` is compiled only for tests (`#[cfg(test)]`).
fn is_test_only(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Use(u) => &u.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Const(c) => &c.attrs,
        syn::Item::Static(s) => &s.attrs,
        _ => return false,
    };
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

/// The subgraph of the modules `keep` accepts.
fn restrict(graph: Graph, keep: impl Fn(&str) -> bool) -> Graph {
    graph
        .into_iter()
        .filter(|(m, _)| keep(m))
        .map(|(m, targets)| {
            let targets = targets.into_iter().filter(|t| keep(t)).collect();
            (m, targets)
        })
        .collect()
}

/// Each module replaced by its top-level module (the crate root stays `""`, shown as
/// `crate`); edges inside one top-level module vanish.
pub fn collapse_to_top_level(graph: Graph) -> Graph {
    let top = |m: &str| {
        let first = m.split("::").next().unwrap_or_default();
        if first.is_empty() {
            "crate".to_string()
        } else {
            first.to_string()
        }
    };
    let mut collapsed = Graph::new();
    for (module, targets) in graph {
        let from = top(&module);
        let entry = collapsed.entry(from.clone()).or_default();
        entry.extend(targets.iter().map(|t| top(t)).filter(|t| *t != from));
    }
    collapsed
}

/// Every strongly connected component of more than one module, as its members (sorted)
/// and one loop through its first member, which ends where it starts.
pub fn cycles(graph: &Graph) -> Vec<(Vec<String>, Vec<String>)> {
    tarjan(graph)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|mut members| {
            members.sort();
            let inside: BTreeSet<&str> = members.iter().map(String::as_str).collect();
            let loop_path = shortest_loop(graph, &members[0], &inside);
            let shown = |m: &String| {
                if m.is_empty() {
                    "crate".to_string()
                } else {
                    m.clone()
                }
            };
            (
                members.iter().map(shown).collect(),
                loop_path.iter().map(shown).collect(),
            )
        })
        .collect()
}

/// Tarjan's strongly connected components (recursive: module graphs are shallow).
fn tarjan(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: HashMap<&'g str, usize>,
        low: HashMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, node: &'g str) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for next in s.graph.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !s.graph.contains_key(next) {
                continue;
            }
            if !s.index.contains_key(next) {
                visit(s, next);
                let low = s.low[node].min(s.low[next]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(next) {
                let low = s.low[node].min(s.index[next]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut component = Vec::new();
            while let Some(member) = s.stack.pop() {
                s.on_stack.remove(member);
                component.push(member.to_string());
                if member == node {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let mut state = State {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.components
}

/// A shortest path from `start` back to itself within `inside` (breadth first).
fn shortest_loop(graph: &Graph, start: &str, inside: &BTreeSet<&str>) -> Vec<String> {
    let mut parent: HashMap<&str, &str> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !inside.contains(next) {
                continue;
            }
            if next == start {
                let mut path = vec![start.to_string()];
                let mut at = node;
                while at != start {
                    path.push(at.to_string());
                    at = parent[at];
                }
                path.push(start.to_string());
                path.reverse();
                return path;
            }
            if !parent.contains_key(next) {
                parent.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    vec![start.to_string()]
}

#[cfg(test)]
mod tests;
