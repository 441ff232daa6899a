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
    use super::render_preserving_lines;

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
}
