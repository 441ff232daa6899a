//! How a `#[kernel]` or `#[device]` function travels from the macro to the run-time
//! compiler: the macro embeds one [`FnSource`] static per function, holding the
//! function's text and the statics of the device functions it calls, so the run-time
//! can gather a whole compilation unit (kernel + every device function it reaches)
//! across items and modules of the user's crate. `crate::offline` builds the same
//! sources from a file's text, for ahead-of-time builds and snapshot tests.

mod call_graph;
mod consts;
pub mod registry;
mod structs;

pub use call_graph::{first_of_a_call_cycle, IsDevice};
pub use consts::{ConstItem, ToConstValue};
pub use registry::DeviceMethodEntry;
pub use structs::{DeviceCopy, DeviceMethodOwner, StructItem};

/// Which attribute a function carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SourceKind {
    Kernel,
    Device,
}

/// The name under which a method's `FnSource` lists its own type among its structs.
pub const SELF_TYPE: &str = "Self";

/// A function's source as embedded by the macro. Built only by generated code. Its
/// compilation unit, `FnSource::unit`, is gathered by the front end (`front::unit`),
/// which reads the method calls in each source's text.
#[derive(Debug)]
pub struct FnSource {
    /// The function's name as written.
    pub name: &'static str,
    pub kind: SourceKind,
    /// The whole `fn` item (attributes stripped), printed so that every token sits on
    /// the same line, relative to `line`, as in the user's file (see
    /// [`render_preserving_lines`]).
    pub text: &'static str,
    /// `file!()` at the definition.
    pub file: &'static str,
    /// Line in `file` of the first line of `text`.
    pub line: u32,
    /// `#[kernel(boundscheck = false, fastmath = true, launch_bounds = ..)]`, as
    /// `proc::options` parsed them (the defaults for a `#[device]` function).
    pub options: crate::ir::FunctionOptions,
    /// The device functions this one calls directly, by their own `FnSource`.
    pub deps: &'static [&'static FnSource],
    /// The crate `const`/`static` items the body names, with rustc's values.
    pub consts: &'static [ConstItem],
    /// The `#[derive(DeviceCopy)]` structs the function names (in its signature, its
    /// `let` types, struct literals and `Type::function` calls), from the derive. A
    /// `#[device]` method lists its own type here under the name `Self`
    /// ([`SELF_TYPE`]): that entry is what makes a source a method.
    pub structs: &'static [StructItem],
    /// For a generic kernel: the instantiation this source stands for, one argument
    /// per generic parameter in declaration order (`axpy::<f32>`: `[Type(F32)]`).
    /// Empty for the macro's own (template) source and for non-generic functions.
    pub instance: &'static [GenericArg],
}

/// One argument of a generic kernel's instantiation: a scalar type for a type
/// parameter (`T = f32`), a value for a const parameter (`N = 16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GenericArg {
    Type(crate::ir::ScalarType),
    Const(i128),
}

impl std::fmt::Display for GenericArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenericArg::Type(t) => f.write_str(t.rust_name()),
            GenericArg::Const(v) => write!(f, "{v}"),
        }
    }
}

/// `f32, 16`: an instantiation as written in `k::<f32, 16>`.
pub fn instance_text(args: &[GenericArg]) -> String {
    args.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl FnSource {
    /// The function as a launch names it: `axpy::<f32>` for a generic kernel's
    /// instantiation, else its name (`vecadd`), for reports that list several
    /// instantiations of one kernel.
    pub fn written_name(&self) -> String {
        if self.instance.is_empty() {
            self.name.to_string()
        } else {
            format!("{}::<{}>", self.name, instance_text(self.instance))
        }
    }

    /// What `#[kernel]` and `#[device]` generate, with their `deps`, `consts` and
    /// `structs` filled in by a struct update (as fields, so that the lists' borrows
    /// live as long as the static): a call, not a whole struct literal, so that each
    /// expansion is fewer tokens for the macro to build and rustc to lower (issue 27).
    /// `debug_assertions` is `cfg!(debug_assertions)` in the defining crate.
    #[doc(hidden)]
    pub const fn generated(
        kind: SourceKind,
        name: &'static str,
        text: &'static str,
        file: &'static str,
        line: u32,
        options: crate::ir::FunctionOptions,
        debug_assertions: bool,
    ) -> FnSource {
        FnSource {
            name,
            kind,
            text,
            file,
            line,
            options: crate::ir::FunctionOptions {
                debug_assertions,
                ..options
            },
            deps: &[],
            consts: &[],
            structs: &[],
            instance: &[],
        }
    }

    /// The source of one instantiation of this (generic kernel's) source: the same
    /// text, compiled with `instance`'s arguments. Leaked: instantiations live as long
    /// as the kernel's static that caches them.
    pub fn instantiate(&'static self, instance: &'static [GenericArg]) -> &'static FnSource {
        Box::leak(Box::new(FnSource { instance, ..*self }))
    }

    /// For a `#[device]` method, its type (the struct its `impl` block is for).
    pub fn self_type(&self) -> Option<&StructItem> {
        self.structs.iter().find(|s| s.name == SELF_TYPE)
    }

    /// Whether `self` and `other` are one function: the same static, or the same
    /// definition (a method's source is an associated `const`, which rustc may copy
    /// at each use).
    pub(crate) fn same_definition(&self, other: &FnSource) -> bool {
        std::ptr::eq(self, other)
            || (self.name == other.name
                && self.file == other.file
                && self.line == other.line
                && self.text == other.text
                && self.instance == other.instance)
    }
}

/// Prints tokens so that each token starts at the line and column it had in the
/// original file, lines counted from the first token's line (which becomes line 1).
/// Returns the text and the first token's line. With this, a run-time re-parse of
/// the text (syn with proc-macro2's `span-locations`) yields original positions by
/// adding `first_line - 1` to the line, which is how device-side panics name
/// `file:line:column`. Tokens out of order (macro-made spans) fall back to a space.
pub fn render_preserving_lines(tokens: proc_macro2::TokenStream) -> (String, u32) {
    let mut printer = LinePrinter::default();
    printer.stream(tokens);
    (printer.out, printer.first_line.unwrap_or(1) as u32)
}

/// What [`render_preserving_lines`] prints for the tokens of `source`, read from the
/// source text instead of token by token (issue 27: each token's position is a call
/// into the compiler inside a proc macro). `source` runs from the first token (at char
/// column `first_column` of its line) to the end of the last. Between tokens the
/// renderer puts spaces up to the next token's column and a newline per line, never
/// trailing spaces; a comment is as the whitespace it stands in. `None` where `source`
/// holds a doc comment (a token, which the renderer prints as an attribute).
pub fn render_from_text(source: &str, first_column: usize) -> Option<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(first_column + source.len());
    out.extend(std::iter::repeat_n(' ', first_column));
    // Spaces owed before the next token on this line (none if the line ends first).
    let mut pending = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\n' => {
                pending = 0;
                out.push('\n');
                i += 1;
            }
            c if c.is_whitespace() => {
                pending += 1;
                i += 1;
            }
            '/' if next == Some('/') => {
                // `///` and `//!` are doc comments, `////` is not.
                let third = chars.get(i + 2).copied();
                if (third == Some('/') && chars.get(i + 3) != Some(&'/')) || third == Some('!') {
                    return None;
                }
                while i < chars.len() && chars[i] != '\n' {
                    pending += 1;
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                // `/**` (not `/**/` or `/***`) and `/*!` are doc comments.
                let third = chars.get(i + 2).copied();
                let fourth = chars.get(i + 3).copied();
                if third == Some('!') || (third == Some('*') && !matches!(fourth, Some('*' | '/')))
                {
                    return None;
                }
                let end = block_comment_end(&chars, i);
                for &c in &chars[i..end] {
                    if c == '\n' {
                        pending = 0;
                        out.push('\n');
                    } else {
                        pending += 1;
                    }
                }
                i = end;
            }
            _ => {
                for _ in 0..pending {
                    out.push(' ');
                }
                pending = 0;
                let literal = matches!(c, '"' | '\'' | 'r' | 'b' | 'c')
                    .then(|| literal_end(&chars, i))
                    .flatten();
                match literal {
                    Some(end) => {
                        out.extend(&chars[i..end]);
                        i = end;
                    }
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
        }
    }
    Some(out)
}

/// [`render_from_text`] of the part of `file` that `tokens` (a function's, its
/// attributes and visibility dropped) span: from the first token's start to the last
/// one's end, by their proc-macro2 positions. Returns the text and the first token's
/// line, as [`render_preserving_lines`] does. `line_start` gives a 1-based line's
/// first byte in `file` (callers keep the table: a walk of the file per function
/// would make a file's expansion quadratic). `None` where the positions fall outside
/// `file`, or as [`render_from_text`].
pub fn render_tokens_from_file(
    file: &str,
    line_start: impl Fn(usize) -> Option<usize>,
    tokens: &proc_macro2::TokenStream,
) -> Option<(String, u32)> {
    let first = tokens.clone().into_iter().next()?.span().start();
    let last = tokens.clone().into_iter().last()?.span().end();
    let byte_at = |line: usize, column: usize| -> Option<usize> {
        let line_start = line_start(line)?;
        let rest = file.get(line_start..)?;
        let line_text = &rest[..rest.find('\n').unwrap_or(rest.len())];
        match line_text.char_indices().nth(column) {
            Some((offset, _)) => Some(line_start + offset),
            None if line_text.chars().count() == column => Some(line_start + line_text.len()),
            None => None,
        }
    };
    let begin = byte_at(first.line, first.column)?;
    let end = byte_at(last.line, last.column)?;
    let text = render_from_text(file.get(begin..end)?, first.column)?;
    Some((text, first.line as u32))
}

/// The first byte of each line of `text` (line `n` at index `n - 1`).
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(at, _)| at + 1))
        .collect()
}

/// Past the block comment starting at `i` of `chars` (they nest).
pub fn block_comment_end(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// Past the string, byte string, raw string or char literal starting at `i` (whose
/// text, newlines included, is one token's); `None` where none starts there. A
/// lifetime (`'a`) is no literal: its chars are tokens' like any other.
fn literal_end(chars: &[char], i: usize) -> Option<usize> {
    let at = |k: usize| chars.get(k).copied();
    let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    // `b"..."`, `c"..."`, `r#"..."#`, `br"..."`: the prefix is part of the literal.
    let mut j = i;
    if !ident_before {
        if matches!(at(j), Some('b' | 'c')) && matches!(at(j + 1), Some('r' | '"' | '\'')) {
            j += 1;
        }
        if at(j) == Some('r') && matches!(at(j + 1), Some('#' | '"')) {
            let mut hashes = 0;
            let mut k = j + 1;
            while at(k) == Some('#') {
                hashes += 1;
                k += 1;
            }
            if at(k) == Some('"') {
                k += 1;
                while k < chars.len() {
                    if chars[k] == '"' && (1..=hashes).all(|h| at(k + h) == Some('#')) {
                        return Some(k + 1 + hashes);
                    }
                    k += 1;
                }
                return Some(k);
            }
        }
    }
    match at(j) {
        Some('"') if j == i || !ident_before => {
            let mut k = j + 1;
            while k < chars.len() && chars[k] != '"' {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            Some((k + 1).min(chars.len()))
        }
        Some('\'') => {
            // A char literal closes within a few chars (`'a'`, `'\n'`, `'\u{1F600}'`);
            // otherwise it is a lifetime or a label.
            if at(j + 1) == Some('\\') {
                // The escaped char (itself maybe a quote) is at `j + 2`.
                let close = (j + 3..chars.len()).find(|&k| chars[k] == '\'')?;
                Some(close + 1)
            } else if at(j + 2) == Some('\'') {
                Some(j + 3)
            } else {
                None
            }
        }
        _ => None,
    }
}

#[derive(Default)]
struct LinePrinter {
    out: String,
    first_line: Option<usize>,
    /// Position of the end of `out`: line relative to `first_line`, 0-based column.
    current_line: usize,
    current_column: usize,
    /// The last token was a punct joined to the next one (`+` of `+=`): no space.
    joint: bool,
}

impl LinePrinter {
    fn move_to(&mut self, position: proc_macro2::LineColumn) {
        let first = *self.first_line.get_or_insert(position.line);
        let target = position.line.saturating_sub(first);
        if target > self.current_line {
            for _ in self.current_line..target {
                self.out.push('\n');
            }
            self.current_line = target;
            self.current_column = 0;
        }
        if position.column > self.current_column && !self.joint {
            let pad = position.column - self.current_column;
            self.out.extend(std::iter::repeat_n(' ', pad));
            self.current_column = position.column;
        } else if !self.out.is_empty() && !self.joint && position.column < self.current_column {
            self.push_text(" ");
        }
        self.joint = false;
    }

    fn push_text(&mut self, text: &str) {
        self.out.push_str(text);
        match text.rfind('\n') {
            Some(last) => {
                self.current_line += text.matches('\n').count();
                self.current_column = text[last + 1..].chars().count();
            }
            None => self.current_column += text.chars().count(),
        }
    }

    fn stream(&mut self, tokens: proc_macro2::TokenStream) {
        use proc_macro2::{Delimiter, TokenTree};
        for tree in tokens {
            match tree {
                TokenTree::Group(group) => {
                    let (open, close) = match group.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    self.move_to(group.span_open().start());
                    self.push_text(open);
                    self.stream(group.stream());
                    self.move_to(group.span_close().start());
                    self.push_text(close);
                }
                TokenTree::Punct(punct) => {
                    self.move_to(punct.span().start());
                    self.push_text(punct.as_char().encode_utf8(&mut [0; 4]));
                    // Keep `+=`, `..=`, `->` together: the next punct follows directly.
                    self.joint = punct.spacing() == proc_macro2::Spacing::Joint;
                }
                other => {
                    self.move_to(other.span().start());
                    self.push_text(&other.to_string());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{line_starts, render_from_text, render_preserving_lines, render_tokens_from_file};
    use quote::ToTokens;

    /// Every `#[kernel]` / `#[device]` fn of `file` (in modules too), as the macro
    /// renders it: attributes and visibility dropped.
    fn attributed_fns(file: &syn::File) -> Vec<syn::ItemFn> {
        fn walk(items: &[syn::Item], out: &mut Vec<syn::ItemFn>) {
            for item in items {
                match item {
                    syn::Item::Fn(f) => {
                        let attributed = f.attrs.iter().any(|a| {
                            let last = a.path().segments.last().map(|s| s.ident.to_string());
                            matches!(last.as_deref(), Some("kernel" | "device"))
                        });
                        if attributed {
                            let mut bare = f.clone();
                            bare.attrs.clear();
                            bare.vis = syn::Visibility::Inherited;
                            out.push(bare);
                        }
                    }
                    syn::Item::Mod(m) => {
                        if let Some((_, items)) = &m.content {
                            walk(items, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&file.items, &mut out);
        out
    }

    /// Each token (a delimiter's name for a group's ends; a punct's spacing left out,
    /// which syn's printing does not keep) and its start, its line counted from
    /// `first_line`.
    fn positions(
        tokens: proc_macro2::TokenStream,
        first_line: usize,
        out: &mut Vec<(String, usize, usize)>,
    ) {
        use proc_macro2::TokenTree;
        for tree in tokens {
            let start = tree.span().start();
            let line = start.line + 1 - first_line;
            match tree {
                TokenTree::Group(group) => {
                    let text = format!("{:?}", group.delimiter());
                    out.push((text.clone(), line, start.column));
                    positions(group.stream(), first_line, out);
                    let close = group.span_close().start();
                    out.push((text, close.line + 1 - first_line, close.column));
                }
                TokenTree::Punct(p) => out.push((p.as_char().to_string(), line, start.column)),
                other => out.push((other.to_string(), line, start.column)),
            }
        }
    }

    /// For every attributed function of this repository's examples, tests and benches,
    /// the text renderer's text holds the function's tokens, each where it was in the
    /// file (lines counted from the first token's): what device-side panics report.
    #[test]
    fn the_text_renderer_keeps_every_token_and_its_position() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        let mut dirs = vec![
            root.join("examples"),
            root.join("tests"),
            root.join("bench"),
        ];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        let (mut compared, mut doc_comments) = (0, 0);
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(file) = syn::parse_file(&text) else {
                continue;
            };
            let starts = line_starts(&text);
            let mut all = Vec::new();
            positions(text.parse().unwrap(), 1, &mut all);
            for f in attributed_fns(&file) {
                let tokens = f.to_token_stream();
                let (first, last) = (
                    tokens.clone().into_iter().next().unwrap().span().start(),
                    tokens.clone().into_iter().last().unwrap().span().end(),
                );
                let Some((rendered, first_line)) =
                    render_tokens_from_file(&text, |line| starts.get(line - 1).copied(), &tokens)
                else {
                    doc_comments += 1;
                    continue;
                };
                let what = format!("{}: {}", path.display(), f.sig.ident);
                assert_eq!(first_line as usize, first.line, "{what}");
                let reread: proc_macro2::TokenStream = rendered.parse().expect(&what);
                // The file's own tokens there (syn's reprint of the item would not do:
                // it splits the lexer's `-1` literal in two at one position).
                let (mut want, mut got) = (Vec::new(), Vec::new());
                // `all` is in the file's order.
                let at = |t: &(String, usize, usize)| (t.1, t.2);
                let begin = all.partition_point(|t| at(t) < (first.line, first.column));
                let end = all.partition_point(|t| at(t) < (last.line, last.column));
                for (token, line, column) in &all[begin..end] {
                    want.push((token.clone(), line + 1 - first.line, *column));
                }
                positions(reread, 1, &mut got);
                assert_eq!(got, want, "{what}");
                assert!(!rendered.lines().any(|l| l.ends_with(' ')), "{what}");
                compared += 1;
            }
        }
        assert!(
            compared > 300,
            "{compared} compared, {doc_comments} with doc comments"
        );
    }

    #[test]
    fn comments_literals_and_tabs_render_as_tokens_do() {
        let original = "fn k(a: &mut [f32]) {\t// a comment }\n  let s = \"a  // b\\\"  \\n\";   \n  let c = '\\''; let d = '\"'; /* x\n /* nested */ y */ let r = r#\"  }\"# ;\n  let b = b'/'; 'outer: loop { break 'outer; }\n}";
        let tokens: proc_macro2::TokenStream = syn::parse_str(original).unwrap();
        let (slow, _) = render_preserving_lines(tokens);
        assert_eq!(
            render_from_text(original, 0).as_deref(),
            Some(slow.as_str())
        );
        for doc in [
            "fn k() { /// d\n let x = 1; }",
            "fn k() { /** d */ let x = 1; }",
        ] {
            assert_eq!(render_from_text(doc, 0), None, "{doc}");
        }
        let not_doc = "fn k() { //// x\n /**/ /*** y */ let x = 1; }";
        let (slow, _) = render_preserving_lines(syn::parse_str(not_doc).unwrap());
        assert_eq!(render_from_text(not_doc, 0).as_deref(), Some(slow.as_str()));
    }

    #[test]
    fn rendering_keeps_lines_and_columns() {
        let original = "fn k(a: &mut [f32]) {\n    let i = grid(1);\n    a[i] += 2.0;\n}";
        let tokens: proc_macro2::TokenStream = syn::parse_str(original).unwrap();
        let (text, first) = render_preserving_lines(tokens);
        assert_eq!(first, 1);
        assert_eq!(text, original);
    }

    #[test]
    fn rendering_starts_at_the_first_tokens_line() {
        let original = "\n\n  fn k() {\n  let x = 1 ;}";
        let tokens: proc_macro2::TokenStream = syn::parse_str(original).unwrap();
        let (text, first) = render_preserving_lines(tokens);
        assert_eq!(first, 3);
        assert_eq!(text, "  fn k() {\n  let x = 1 ;}");
        let reparsed: syn::ItemFn = syn::parse_str(&text).unwrap();
        assert_eq!(reparsed.sig.ident.span().start().column, 5);
    }

    /// Reports name an instantiation as a launch writes it, so two instantiations of
    /// one kernel read apart; a non-generic kernel by its name.
    #[test]
    fn a_source_is_written_as_a_launch_names_it() {
        use super::{FnSource, GenericArg, SourceKind};
        use crate::ir::{FunctionOptions, ScalarType};
        static TEMPLATE: FnSource = FnSource::generated(
            SourceKind::Kernel,
            "axpy",
            "fn axpy<T: Float, const N: usize>(a: T) {}",
            "src/lib.rs",
            1,
            FunctionOptions::DEFAULT,
            false,
        );
        assert_eq!(TEMPLATE.written_name(), "axpy");
        static ARGS: [GenericArg; 2] = [GenericArg::Type(ScalarType::F64), GenericArg::Const(16)];
        assert_eq!(
            TEMPLATE.instantiate(&ARGS).written_name(),
            "axpy::<f64, 16>"
        );
    }
}
