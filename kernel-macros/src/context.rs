//! Where an attribute sits: at module level (or inside a fn body), or as an item of an
//! `impl` / `trait` block. An attribute macro is not told; it only sees the `fn`. Inside
//! an `impl` block the items generated beside the fn (a struct, a module, impls) cannot
//! exist, and rustc would report them ("struct is not supported in `trait`s or
//! `impl`s"), an item the user never wrote. So the macro reads the source text before
//! its attribute (the file rustc is compiling, found through the attribute's span) and
//! follows the braces there. Where the file cannot be read (rust-analyzer, generated
//! code), it answers "module level", the common case.

use kernel_device::diag::Diagnostic;
use kernel_device::source::SourceKind;
use proc_macro2::TokenStream;
use quote::quote;

/// The block an item sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// A module (or a fn body, or anything else that may hold items).
    Module,
    /// An `impl` block.
    Impl,
    /// A `trait` definition.
    Trait,
}

/// Where the attribute being expanded sits: read once per expansion (each read is a
/// file read and a lookup in the file's scan), then asked as often as needed.
#[derive(Clone, Debug, Default)]
pub struct Site {
    /// The blocks open before the attribute; `None` where the file cannot be read.
    open: Option<OpenBlocks>,
    /// The `#[device]` functions the file surely defines in the attribute's module
    /// ([`ScannedFile::device_fns`]); `None` where the file cannot be read.
    device_fns_here: Option<std::sync::Arc<DeviceFns>>,
    /// The file's text and where its lines start (byte offset, char index).
    file: Option<FileText>,
}

type FileText = (std::sync::Arc<str>, std::sync::Arc<Vec<(usize, usize)>>);

impl Site {
    /// The site of the attribute being expanded (`Span::call_site()` of an attribute
    /// macro).
    pub fn of_attribute() -> Site {
        blocks_before_attribute().unwrap_or_default()
    }

    /// The macro's text of the function whose tokens (attributes and visibility
    /// dropped) are `tokens`, rendered from the file's text
    /// (`source::render_tokens_from_file`, as the AOT build renders a file's
    /// functions) where the file holds exactly these tokens from the first one's
    /// position to the last one's end (not so for a function a macro made or changed):
    /// the text and its first line. `None` where the file cannot be read (`file` is
    /// only read inside an expansion) or does not hold them.
    pub fn render_from_file(&self, tokens: &TokenStream) -> Option<(String, u32)> {
        let (text, lines) = self.file.as_ref()?;
        let (rendered, first_line) = kernel_device::source::render_tokens_from_file(
            text,
            |line| lines.get(line.checked_sub(1)?).map(|(byte, _)| *byte),
            tokens,
        )?;
        // One lexing and one print of each side, in the compiler (proc-macro2's
        // `parse` would first lex it again itself, to validate it).
        let reread: proc_macro::TokenStream = rendered.parse().ok()?;
        (reread.to_string() == tokens.to_string()).then_some((rendered, first_line))
    }

    /// Whether `name` is surely a `#[device]` fn of the module this item sits in, both at
    /// module level: the file defines one `fn name` only, there, under `#[device]` and
    /// no `cfg`. A call of it then needs no fallback (`routed_callees`): it resolves to
    /// that fn, whose generated `mod name` holds its source.
    pub fn defines_device_fn(&self, name: &str) -> bool {
        self.at_module_level()
            && self
                .device_fns_here
                .as_ref()
                .is_some_and(|names| names.contains(name))
    }

    /// The block the item sits in; a module where the file cannot be read.
    pub fn container(&self) -> Container {
        self.open.as_ref().map_or(Container::Module, innermost)
    }

    /// Whether the item sits directly in modules only (no fn body or other block
    /// around it). `false` where the file cannot be read: the callers then take the way
    /// that works in any scope.
    pub fn at_module_level(&self) -> bool {
        self.open
            .as_ref()
            .is_some_and(|open| open.iter().all(|(_, header)| *header == Some("mod")))
    }
}

/// For a kernel inside a fn body, whether a call of `name` can be routed through a
/// fallback (`routed_callees`) without hiding an item of an enclosing block: every
/// mention of `name` in the file is a call (`name(` or `name::<`, never `fn name` nor
/// an import), and no glob import of the file sits inside a block. `false` where the
/// file cannot be read.
pub fn only_called_in_file(name: &str) -> bool {
    let Some(text) = source_file() else {
        return false;
    };
    let word = |at: usize, len: usize| {
        let before = text[..at].chars().next_back();
        let after = text[at + len..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    };
    let mentions_are_calls = text.match_indices(name).all(|(at, _)| {
        if !word(at, name.len()) {
            return true;
        }
        let rest = text[at + name.len()..].trim_start();
        let called =
            rest.starts_with('(') || rest.replace(char::is_whitespace, "").starts_with("::<");
        let defined = text[..at].trim_end().ends_with("fn");
        called && !defined
    });
    let globs_at_module_level = text.match_indices("::*").all(|(at, _)| {
        open_blocks(&text[..at])
            .iter()
            .all(|(_, header)| *header == Some("mod"))
    });
    mentions_are_calls && globs_at_module_level
}

/// The text of the file being compiled; `None` outside a macro expansion.
fn source_file() -> Option<String> {
    if !proc_macro::is_available() {
        return None;
    }
    let path = proc_macro::Span::call_site().local_file()?;
    std::fs::read_to_string(path).ok()
}

/// The site of the attribute being expanded, from the file being compiled: the blocks
/// open before it and the `#[device]` functions of its module; `None` outside a macro
/// expansion (the crate's unit tests) or where the file cannot be read. From one scan
/// per file ([`ScannedFile`]), not one per attribute.
fn blocks_before_attribute() -> Option<Site> {
    if !proc_macro::is_available() {
        return None;
    }
    let call_site = proc_macro::Span::call_site();
    let path = call_site.local_file()?;
    let text = std::fs::read_to_string(&path).ok()?;
    // Both 1-based; the column counts chars.
    Some(ScannedFile::blocks_at(
        path,
        text,
        call_site.line(),
        call_site.column(),
    ))
}

type OpenBlocks = Vec<(Container, Option<&'static str>)>;

/// Names of `#[device]` functions, of one module.
type DeviceFns = std::collections::HashSet<String>;

/// A `fn name` the scan found (any block, any level).
#[derive(Clone, Debug, PartialEq, Eq)]
struct FnDefinition {
    name: String,
    /// The char index of the innermost `{` open around it; `None` at the file's level.
    block: Option<usize>,
    /// Only modules are open around it.
    module_level: bool,
    /// Its attributes include `#[device]` (or `#[cudajit::device]`), and no `cfg`.
    device_without_cfg: bool,
}

/// One file's scan: the blocks open at each `#` between tokens (where attributes
/// start), by char index. A proc macro's statics live for the whole compilation (and
/// in rust-analyzer's server across edits, hence the text kept to compare), and one
/// file's attributes come one after another: scanning each attribute's whole prefix
/// made the expansion quadratic in the file's length, two thirds of the macro's time
/// in a 100-item file (`bench/macro_cost.sh`, measured with `perf`).
struct ScannedFile {
    path: std::path::PathBuf,
    text: std::sync::Arc<str>,
    /// At each `#`: the blocks open there and the innermost `{`'s char index.
    at_hash: std::collections::HashMap<usize, (OpenBlocks, Option<usize>)>,
    /// By the block they sit in (the innermost `{`'s char index), the functions the
    /// file surely defines as `#[device]` fns at module level: the only `fn` of their
    /// name anywhere in the file, under `#[device]` without `cfg`.
    device_fns: std::collections::HashMap<Option<usize>, std::sync::Arc<DeviceFns>>,
    /// Where each line starts, as (byte offset, char index): a lookup then walks one
    /// line, not the whole prefix before the attribute (a walk per attribute is
    /// quadratic in the file's length, as the scan this cache replaced was).
    lines: std::sync::Arc<Vec<(usize, usize)>>,
}

/// The files scanned last (a crate's files expand one after another; a few suffice).
static SCANNED: std::sync::Mutex<Vec<ScannedFile>> = std::sync::Mutex::new(Vec::new());
const FILES_KEPT: usize = 4;

impl ScannedFile {
    /// The blocks open at 1-based `line` and char `column` of `text`, the file at `path`.
    fn blocks_at(path: std::path::PathBuf, text: String, line: usize, column: usize) -> Site {
        let mut files = SCANNED.lock().unwrap_or_else(|p| p.into_inner());
        let found = files
            .iter()
            .position(|f| f.path == path && *f.text == *text);
        let file = match found {
            Some(i) => &files[i],
            None => {
                if files.len() >= FILES_KEPT {
                    files.remove(0);
                }
                files.push(ScannedFile::scan(path, text));
                files.last().expect("just pushed")
            }
        };
        let (line_byte, line_char) = file
            .lines
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or((file.text.len(), usize::MAX));
        let into_line = column.saturating_sub(1);
        let prefix_end = file.text[line_byte..]
            .char_indices()
            .nth(into_line)
            .map_or(file.text.len(), |(offset, _)| line_byte + offset);
        match file.at_hash.get(&line_char.saturating_add(into_line)) {
            Some((open, block)) => Site {
                open: Some(open.clone()),
                device_fns_here: file.device_fns.get(block).cloned(),
                file: Some((file.text.clone(), file.lines.clone())),
            },
            // Not at a `#` the scan saw (a call site elsewhere): the prefix alone.
            None => Site {
                open: Some(open_blocks(&file.text[..prefix_end])),
                device_fns_here: None,
                file: Some((file.text.clone(), file.lines.clone())),
            },
        }
    }

    /// `text`'s one scan: the blocks open at each `#`, and its line table.
    fn scan(path: std::path::PathBuf, text: String) -> ScannedFile {
        let chars: Vec<char> = text.chars().collect();
        let mut at_hash = std::collections::HashMap::new();
        let mut functions = Vec::new();
        scan_items(
            &chars,
            |i, open, block| {
                at_hash.insert(i, (open.clone(), block));
            },
            |definition| functions.push(definition),
        );
        let device_fns = device_fns_by_block(&functions);
        let mut lines = vec![(0, 0)];
        for (char_index, (byte, c)) in text.char_indices().enumerate() {
            if c == '\n' {
                lines.push((byte + 1, char_index + 1));
            }
        }
        ScannedFile {
            path,
            text: text.into(),
            at_hash,
            device_fns,
            lines: std::sync::Arc::new(lines),
        }
    }
}

/// Whether a `#[device]` fn is a method (or associated fn) of an `impl` block: one
/// with a receiver is, whatever the file says (it cannot be anything else).
pub fn is_device_method(kind: SourceKind, item: &syn::ItemFn, site: &Site) -> bool {
    kind == SourceKind::Device
        && (item.sig.receiver().is_some() || site.container() == Container::Impl)
}

/// The one error for a `#[kernel]` fn written as an item of an `impl` block, or a
/// `#[kernel]` / `#[device]` fn in a `trait`, with the fn itself (body stubbed) so that
/// its callers still type-check; `None` at module level, and for a `#[device]` method
/// of an `impl` block ([`is_device_method`]). This is the one place that decides.
pub fn reject_in_impl_or_trait(
    kind: SourceKind,
    item: &syn::ItemFn,
    site: &Site,
) -> Option<TokenStream> {
    let container = site.container();
    // A kernel with `self` gets the frontend's message about `self`, which says the same.
    if item.sig.receiver().is_some() && container != Container::Trait {
        return None;
    }
    let block = match container {
        Container::Module => return None,
        Container::Impl if kind == SourceKind::Device => return None,
        Container::Impl => "an `impl` block",
        Container::Trait => "a `trait`",
    };
    let name = &item.sig.ident;
    let diagnostic = match kind {
        SourceKind::Kernel => Diagnostic::new(
            name.span(),
            format!("a `#[kernel]` cannot be an item of {block}: move `{name}` out of it, to module level"),
        )
        .with_hint(format!(
            "a kernel is a free function, launched with `launch!({name}[grid, block](..))`"
        )),
        SourceKind::Device => Diagnostic::new(
            name.span(),
            format!("a `#[device]` function cannot be an item of {block}: move `{name}` out of it, to module level"),
        )
        .with_hint("write it as a free `#[device] fn`, or as a `#[device]` method in the `impl` block of a `#[derive(DeviceCopy)]` struct"),
    };
    let error = kernel_device::diag::combine(&[diagnostic]).map(|e| e.to_compile_error());
    let mut method = item.clone();
    *method.block = crate::twin::stub_body();
    method
        .attrs
        .push(syn::parse_quote!(#[allow(unused_variables, dead_code)]));
    Some(quote!(#error #method))
}

/// The container of whatever follows `prefix`, a prefix of a Rust source file that
/// ends between tokens: the innermost `{` still open at its end decides.
#[cfg(test)]
fn innermost_container(prefix: &str) -> Container {
    innermost(&open_blocks(prefix))
}

/// The container of whatever follows the blocks `open`: the innermost decides.
fn innermost(open: &OpenBlocks) -> Container {
    open.last()
        .map_or(Container::Module, |(container, _)| *container)
}

/// Each `{` still open at the end of `prefix`, outermost first, with the first item
/// keyword of its header (`mod`, `fn`, `impl`, ..; `None` for a bare block).
fn open_blocks(prefix: &str) -> OpenBlocks {
    let chars: Vec<char> = prefix.chars().collect();
    scan_items(&chars, |_, _, _| {}, |_| {})
}

/// [`open_blocks`] over `chars`, telling `at_hash` the blocks open at each `#` between
/// tokens (by char index).
#[cfg(test)]
fn scan(chars: &[char], mut at_hash: impl FnMut(usize, &OpenBlocks)) -> OpenBlocks {
    scan_items(chars, |i, open, _| at_hash(i, open), |_| {})
}

/// By block, the names [`ScannedFile::device_fns`] keeps: those `functions` define once
/// in the whole file, at module level, under `#[device]` without `cfg`.
fn device_fns_by_block(
    functions: &[FnDefinition],
) -> std::collections::HashMap<Option<usize>, std::sync::Arc<DeviceFns>> {
    let mut definitions: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for f in functions {
        *definitions.entry(f.name.as_str()).or_default() += 1;
    }
    let mut by_block: std::collections::HashMap<Option<usize>, DeviceFns> =
        std::collections::HashMap::new();
    for f in functions {
        let once = definitions[f.name.as_str()] == 1;
        if once && f.module_level && f.device_without_cfg {
            by_block.entry(f.block).or_default().insert(f.name.clone());
        }
    }
    by_block
        .into_iter()
        .map(|(block, names)| (block, std::sync::Arc::new(names)))
        .collect()
}

/// The path an attribute starting at the `#` at `i` names, its whitespace removed
/// (`cudajit::device` of `#[cudajit :: device(..)]`); `None` for an inner attribute.
fn attribute_path(chars: &[char], i: usize) -> Option<String> {
    let mut j = i + 1;
    let skip_space = |mut j: usize| {
        while chars.get(j).is_some_and(|c| c.is_whitespace()) {
            j += 1;
        }
        j
    };
    j = skip_space(j);
    if chars.get(j) != Some(&'[') {
        return None;
    }
    j = skip_space(j + 1);
    let mut path = String::new();
    while let Some(&c) = chars.get(j) {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            path.push(c);
        } else if !c.is_whitespace() {
            break;
        }
        j += 1;
    }
    Some(path)
}

/// The identifier after `fn` and whitespace at `i`, if one follows (not `fn(` of a
/// function pointer type).
fn name_after(chars: &[char], mut i: usize) -> Option<String> {
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    let begin = i;
    while chars
        .get(i)
        .is_some_and(|c| c.is_alphanumeric() || *c == '_')
    {
        i += 1;
    }
    let starts_ident = chars
        .get(begin)
        .is_some_and(|c| c.is_alphabetic() || *c == '_');
    starts_ident.then(|| chars[begin..i].iter().collect())
}

/// [`scan`], also telling `at_hash` the innermost open `{` (its char index) and
/// `on_fn` each `fn name` outside brackets, with what its attributes say.
fn scan_items(
    chars: &[char],
    mut at_hash: impl FnMut(usize, &OpenBlocks, Option<usize>),
    mut on_fn: impl FnMut(FnDefinition),
) -> OpenBlocks {
    // One entry per open `{`, and for the header being read at the current level: its
    // first item keyword at bracket depth 0 (`impl`, `trait`, `fn`, `mod`, ..).
    let mut open: OpenBlocks = Vec::new();
    // Where each open `{` is, and what the attributes of the item being read say.
    let mut braces: Vec<usize> = Vec::new();
    let mut device_attribute = false;
    let mut cfg_attribute = false;
    let mut header: Option<&'static str> = None;
    let mut nesting = 0usize; // `(` and `[` inside a header (generics, attributes)
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => i = kernel_device::source::block_comment_end(chars, i),
            '"' => i = skip_string(chars, i),
            'r' | 'b' | 'c' if starts_raw_string(chars, i) => i = skip_raw_string(chars, i),
            '\'' => i = skip_char_or_lifetime(chars, i),
            '#' => {
                at_hash(i, &open, braces.last().copied());
                match attribute_path(chars, i).as_deref() {
                    Some("device" | "cudajit::device" | "::cudajit::device") => {
                        device_attribute = true
                    }
                    Some("cfg" | "cfg_attr") => cfg_attribute = true,
                    _ => {}
                }
            }
            '(' | '[' => nesting += 1,
            ')' | ']' => nesting = nesting.saturating_sub(1),
            '{' => {
                let container = match header {
                    Some("impl") => Container::Impl,
                    Some("trait") => Container::Trait,
                    _ => Container::Module,
                };
                open.push((container, header));
                braces.push(i);
                header = None;
                nesting = 0;
                (device_attribute, cfg_attribute) = (false, false);
            }
            '}' => {
                open.pop();
                braces.pop();
                header = None;
                nesting = 0;
                (device_attribute, cfg_attribute) = (false, false);
            }
            // Inside brackets a `;` belongs to an array type (`[u8; 2]`).
            ';' if nesting == 0 => {
                header = None;
                (device_attribute, cfg_attribute) = (false, false);
            }
            c if c.is_alphabetic() || c == '_' => {
                let begin = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word = &chars[begin..i];
                if nesting == 0 && word == ['f', 'n'] {
                    if let Some(name) = name_after(chars, i) {
                        on_fn(FnDefinition {
                            name,
                            block: braces.last().copied(),
                            module_level: open.iter().all(|(_, h)| *h == Some("mod")),
                            device_without_cfg: device_attribute && !cfg_attribute,
                        });
                    }
                }
                if header.is_none() && nesting == 0 {
                    header = ITEM_KEYWORDS
                        .iter()
                        .copied()
                        .find(|k| k.len() == word.len() && k.chars().eq(word.iter().copied()));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    open
}

/// Keywords that say what a braced block is, when they come first in its header
/// (`pub`, `unsafe`, `default` and attributes may precede them).
const ITEM_KEYWORDS: &[&str] = &[
    "impl",
    "trait",
    "fn",
    "mod",
    "struct",
    "enum",
    "union",
    "extern",
    "macro_rules",
    "const",
    "static",
    "let",
    "match",
    "if",
    "else",
    "while",
    "for",
    "loop",
    "return",
    "move",
    "async",
];

/// Past the `".."` starting at `i`, escapes included.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    i += 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// `r"`, `r#"`, `br"`, `cr#"` .. at `i`, not inside an identifier.
fn starts_raw_string(chars: &[char], i: usize) -> bool {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let mut j = i;
    if chars[j] != 'r' {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return false;
    }
    j += 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"')
}

/// Past the raw string starting at `i` (its closing quote followed by as many `#`).
fn skip_raw_string(chars: &[char], mut i: usize) -> usize {
    while chars[i] != '"' && chars[i] != '#' {
        i += 1;
    }
    let mut hashes = 0;
    while chars[i] == '#' {
        hashes += 1;
        i += 1;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// Past the char literal (`'x'`, `'\n'`, `'\u{1F600}'`) or lifetime (`'a`) at `i`.
fn skip_char_or_lifetime(chars: &[char], i: usize) -> usize {
    match chars.get(i + 1) {
        Some('\\') => {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            j + 1
        }
        Some(_) if chars.get(i + 2) == Some(&'\'') => i + 3,
        // A lifetime or label: its name is read as a word.
        _ => i + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::{innermost, innermost_container, open_blocks, scan, Container};

    /// One scan of a whole file answers, at each attribute, what a scan of the prefix
    /// before it answers (the cache `ScannedFile` keeps relies on it).
    #[test]
    fn one_scan_answers_as_each_prefix_does() {
        let text = "#![allow(x)]\nuse a::*;\n#[device]\nfn f() {}\nimpl S {\n #[device]\n fn m(&self) { let s = \"#{\"; let r = r#\"}\"#; }\n #[kernel]\n fn k() {}\n}\nmod m {\n #[kernel]\n fn k2() { let c = '{'; }\n fn g() {\n  #[kernel]\n  fn inner() {}\n }\n}\ntrait T {\n #[device]\n fn t();\n}\n";
        let chars: Vec<char> = text.chars().collect();
        let mut seen = Vec::new();
        scan(&chars, |i, open| seen.push((i, open.clone())));
        let hashes: Vec<usize> = text
            .char_indices()
            .filter(|(_, c)| *c == '#')
            .map(|(at, _)| text[..at].chars().count())
            .collect();
        // The `#` inside the strings are not between tokens.
        assert_eq!(seen.len(), hashes.len() - 3, "{seen:?}");
        for (i, open) in &seen {
            let prefix: String = chars[..*i].iter().collect();
            assert_eq!(*open, open_blocks(&prefix), "at char {i}");
        }
        let containers: Vec<Container> = seen.iter().map(|(_, open)| innermost(open)).collect();
        use Container::*;
        assert_eq!(
            containers,
            [Module, Module, Impl, Impl, Module, Module, Trait]
        );
    }

    /// The `#[device]` fns [`super::ScannedFile`] finds for the `n`th `#[kernel]` of
    /// `text`, sorted.
    fn device_fns_at_kernel(text: &str, n: usize) -> Vec<String> {
        let file = super::ScannedFile::scan("lib.rs".into(), text.to_string());
        let (at, _) = text.match_indices("#[kernel]").nth(n).expect("a kernel");
        let char_index = text[..at].chars().count();
        let (_, block) = &file.at_hash[&char_index];
        let mut names: Vec<String> = file
            .device_fns
            .get(block)
            .map(|names| names.iter().cloned().collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn device_fns_of_the_kernels_module_are_those_surely_defined_there() {
        let text = "use cudajit::prelude::*;\n#[device]\nfn f(x: f32) -> f32 { x }\n#[device(fast_math = true)]\n/// doc\npub fn g() {}\n#[cudajit :: device]\npub(crate) fn h() {}\n#[cfg(test)]\n#[device]\nfn gated() {}\n// #[device]\n// fn commented() {}\n#[device]\nfn twice() {}\nmod m {\n #[device]\n fn twice() {}\n #[device]\n fn inner() {}\n #[kernel]\n fn k2() { let p: fn(f32) -> f32 = x; }\n}\nimpl S {\n #[device]\n fn method(&self) {}\n}\nfn host() {\n #[device]\n fn in_body() {}\n}\n#[device] fn plain_after_attr() {}\nfn not_device() {}\n#[kernel]\nfn k() {}\n";
        assert_eq!(
            device_fns_at_kernel(text, 1),
            ["f", "g", "h", "plain_after_attr"]
        );
        assert_eq!(device_fns_at_kernel(text, 0), ["inner"]);
    }

    #[test]
    fn module_level_and_nested_modules_are_modules() {
        assert_eq!(innermost_container("use x;\n"), Container::Module);
        assert_eq!(
            innermost_container("mod m {\n  struct S;\n"),
            Container::Module
        );
        assert_eq!(
            innermost_container("fn f() -> impl Fn() {\n"),
            Container::Module
        );
        let after_impl = "impl S {\n fn a() {}\n}\n#[cfg(test)]\nmod t {\n";
        assert_eq!(innermost_container(after_impl), Container::Module);
    }

    #[test]
    fn impl_and_trait_blocks_are_found() {
        assert_eq!(
            innermost_container("struct S;\nimpl S {\n"),
            Container::Impl
        );
        let generic = "#[derive(Debug)]\nunsafe impl<T: Fn(u32) -> [u8; 2]> X for S<T> where T: Copy {\n fn a() { let x = 1; }\n";
        assert_eq!(innermost_container(generic), Container::Impl);
        assert_eq!(innermost_container("pub trait T {\n"), Container::Trait);
    }

    #[test]
    fn only_modules_around_an_item_are_module_level() {
        let in_modules = |prefix: &str| open_blocks(prefix).iter().all(|(_, h)| *h == Some("mod"));
        assert!(in_modules("use x;\nmod a {\n pub mod b {\n"));
        assert!(in_modules("fn f() {}\nmod a {\n"));
        assert!(!in_modules("fn main() {\n"));
        assert!(!in_modules("mod a {\n const _: () = {\n"));
        assert!(!in_modules("mod a {\n fn f() {\n {\n"));
    }

    #[test]
    fn braces_in_comments_strings_and_chars_do_not_count() {
        let text = "impl S {\n // }\n /* } /* } */ } */\n const A: &str = \"}\\\"}\";\n const B: char = '}';\n const C: &str = r#\"}\"#;\n fn f<'a>(x: &'a u8) {}\n";
        assert_eq!(innermost_container(text), Container::Impl);
        assert_eq!(
            innermost_container("fn f() { let c = '{'; }\n"),
            Container::Module
        );
    }
}
