//! How a `#[kernel]` or `#[device]` function travels from the macro to the run-time
//! compiler: the macro embeds one [`FnSource`] static per function, holding the
//! function's text and the statics of the device functions it calls, so the run-time
//! can gather a whole compilation unit (kernel + every device function it reaches)
//! across items and modules of the user's crate. [`offline`] builds the same
//! sources from a file's text, for ahead-of-time builds and snapshot tests.

mod call_graph;
mod consts;
pub mod offline;
mod offline_methods;
mod offline_structs;
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

/// A function's source as embedded by the macro. Built only by generated code.
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
    /// (`front::methods::SELF_TYPE`): that entry is what makes a source a method.
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
    /// The source of one instantiation of this (generic kernel's) source: the same
    /// text, compiled with `instance`'s arguments. Leaked: instantiations live as long
    /// as the kernel's static that caches them.
    pub fn instantiate(&'static self, instance: &'static [GenericArg]) -> &'static FnSource {
        Box::leak(Box::new(FnSource { instance, ..*self }))
    }

    /// For a `#[device]` method, its type (the struct its `impl` block is for).
    pub fn self_type(&self) -> Option<&StructItem> {
        self.structs
            .iter()
            .find(|s| s.name == crate::front::methods::SELF_TYPE)
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

    /// This function and every device function it reaches, each once, the root first.
    /// Cycles (recursion) are tolerated here and rejected by the validator. A method a
    /// caller looked for on a struct without one (`FnSource::NOT_A_DEVICE_FUNCTION`,
    /// empty) is left out. The methods of `#[device] impl` blocks the unit calls come
    /// after what the deps reach (`registry::complete`).
    pub fn unit(&'static self) -> Vec<&'static FnSource> {
        registry::complete(vec![self], &registry::linked())
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

/// The most threads a block may have on any CUDA device, and the most blocks an SM can
/// hold (sm_90): the ranges of `launch_bounds`.
const MAX_BLOCK_THREADS: u32 = 1024;
const MAX_BLOCKS_PER_SM: u32 = 32;

/// `launch_bounds = N` or `launch_bounds = (N, M)` as written in `#[kernel(..)]`: the
/// bounds, or what is wrong with them (shared by the macro, which reports it at the
/// value, and the offline scanner of `xtask build-device`).
pub fn launch_bounds_of(value: &syn::Expr) -> Result<crate::ir::LaunchBounds, String> {
    let int = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u32>().ok(),
        _ => None,
    };
    let (max_threads, min_blocks) = match value {
        syn::Expr::Tuple(t) if t.elems.len() == 2 => (int(&t.elems[0]), int(&t.elems[1])),
        syn::Expr::Paren(p) => (int(&p.expr), Some(0)),
        other => (int(other), Some(0)),
    };
    let (Some(max_threads), Some(min_blocks)) = (max_threads, min_blocks) else {
        return Err("`launch_bounds` takes an integer literal, the most threads per block, or a pair `(threads, blocks per SM)`".into());
    };
    if !(1..=MAX_BLOCK_THREADS).contains(&max_threads) {
        return Err(format!(
            "`launch_bounds` allows 1 to {MAX_BLOCK_THREADS} threads per block, not {max_threads}"
        ));
    }
    if min_blocks > MAX_BLOCKS_PER_SM {
        return Err(format!(
            "`launch_bounds` asks for at most {MAX_BLOCKS_PER_SM} resident blocks per SM, not {min_blocks}"
        ));
    }
    Ok(crate::ir::LaunchBounds {
        max_threads,
        min_blocks,
        block_dim: None,
    })
}

/// The most threads a block may have along z (x and y allow 1024).
const MAX_BLOCK_Z: u32 = 64;

/// `block_dim = 256`, `(32, 8)` or `(32, 8, 2)` as written in `#[kernel(..)]`: the
/// block shape, or what is wrong with it (shared by the macro and the offline scanner).
pub fn block_dim_of(value: &syn::Expr) -> Result<[u32; 3], String> {
    let int = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u32>().ok(),
        _ => None,
    };
    let dims: Vec<Option<u32>> = match value {
        syn::Expr::Tuple(t) if (1..=3).contains(&t.elems.len()) => {
            t.elems.iter().map(int).collect()
        }
        syn::Expr::Paren(p) => vec![int(&p.expr)],
        other => vec![int(other)],
    };
    let Some(dims) = dims.into_iter().collect::<Option<Vec<u32>>>() else {
        return Err("`block_dim` takes integer literals: the block's threads along x, and optionally y and z, as `256` or `(32, 8)`".into());
    };
    let mut block = [1u32; 3];
    block[..dims.len()].copy_from_slice(&dims);
    let limits = [MAX_BLOCK_THREADS, MAX_BLOCK_THREADS, MAX_BLOCK_Z];
    for ((axis, size), limit) in ["x", "y", "z"].iter().zip(block).zip(limits) {
        if !(1..=limit).contains(&size) {
            return Err(format!(
                "`block_dim` allows 1 to {limit} threads along {axis}, not {size}"
            ));
        }
    }
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if threads > u64::from(MAX_BLOCK_THREADS) {
        return Err(format!(
            "`block_dim` of {} x {} x {} is {threads} threads; a block has at most {MAX_BLOCK_THREADS}",
            block[0], block[1], block[2]
        ));
    }
    Ok(block)
}

/// `launch_bounds` and `block_dim` together as the kernel's [`crate::ir::LaunchBounds`]
/// (`block_dim` alone bounds the block to its size), or why they disagree.
pub fn with_block_dim(
    bounds: Option<crate::ir::LaunchBounds>,
    block_dim: Option<[u32; 3]>,
) -> Result<Option<crate::ir::LaunchBounds>, String> {
    let Some(block) = block_dim else {
        return Ok(bounds);
    };
    let threads = block.iter().product::<u32>();
    let min_blocks = match bounds {
        Some(b) if b.max_threads < threads => {
            return Err(format!(
                "`block_dim` of {} x {} x {} is {threads} threads, more than `launch_bounds` allows ({})",
                block[0], block[1], block[2], b.max_threads
            ))
        }
        Some(b) => b.min_blocks,
        None => 0,
    };
    Ok(Some(crate::ir::LaunchBounds {
        max_threads: threads,
        min_blocks,
        block_dim: Some(block),
    }))
}
