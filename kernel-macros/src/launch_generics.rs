//! `launch!(k::<..>[..](..))`'s check of the generic arguments it names: a const generic
//! argument taken from a run-time value (`let n = 4; launch!(k::<n>[..](..))`, or
//! `k::<{ n }>`) is reported in cudajit's words, at `n`, instead of rustc's E0435 /
//! E0747 naming generated items.
//!
//! Where every generic argument is concrete (a scalar type such as `f32`, or a literal),
//! the launch also registers its instantiation, as `instantiate!` does, so that it is
//! compiled while a GPU opens instead of at its first launch (issue 27). An argument
//! that may be the enclosing function's generic parameter (`T`, `N`) registers nothing:
//! the registration is an item, which cannot name those.
//!
//! A heuristic, as `launch!` cannot ask rustc whether a name is a local: it sees only
//! tokens. Types are `UpperCamelCase` or one of the lowercase scalar types, and
//! constants `UPPER_CASE` (the `non_upper_case_globals` lint, and `#[kernel]` refuses a
//! lowercase const parameter), so a lowercase name that is neither a scalar type nor
//! called, a method or a path segment is almost certainly a `let` binding. Anything
//! else passes through unchanged for rustc to check.

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use quote::quote_spanned;

/// Lowercase names that are types (or keywords and values a const expression may
/// contain), never a run-time local.
const NOT_LOCALS: &[&str] = &[
    "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
    "u128", "usize", "f16", "f32", "f64", "f128", "bf16", "e4m3", "true", "false", "as", "if",
    "else", "match", "const", "self", "crate", "super", "let", "in", "loop", "while", "for",
    "break", "continue", "return", "_",
];

/// `[g1, g2, ..] ($crate) kernel::path => launch-expression`: the launch (with its
/// instantiation registered where every argument is concrete), or one
/// `compile_error!` at the first generic argument that is a run-time value.
pub fn check(input: TokenStream) -> TokenStream {
    let mut tokens = input.into_iter();
    let (Some(TokenTree::Group(generics)), Some(TokenTree::Group(krate))) =
        (tokens.next(), tokens.next())
    else {
        return quote::quote!(::core::compile_error!("malformed `launch!` expansion"));
    };
    // The kernel's path up to `=>`; its last name is the one the help shows.
    let mut kernel = String::from("k");
    let mut path = TokenStream::new();
    for tt in tokens.by_ref() {
        match &tt {
            TokenTree::Ident(id) => kernel = id.to_string(),
            TokenTree::Punct(p) if p.as_char() == '=' => break,
            _ => {}
        }
        path.extend([tt]);
    }
    // Skip the `>` of `=>`.
    let rest: TokenStream = tokens.skip(1).collect();
    let args = split_commas(generics.stream());
    for arg in &args {
        if let Some((name, span)) = run_time_local(arg) {
            let message = format!(
                "`{name}` is a run-time value: a kernel's const generic argument must be known at compile time\n  = help: pass a literal (`4`), a `const` item (`const N: usize = 4;`, then `{kernel}::<N>`) or a const expression over them (`{{ N * 2 }}`); for a value known only at run time, make it a kernel parameter instead of a const generic (`fn {kernel}(.., {name}: usize)`)"
            );
            return quote_spanned!(span=> ::core::compile_error!(#message));
        }
    }
    let krate = krate.stream();
    let Some(instance) = args
        .iter()
        .map(|arg| concrete_arg(arg, &krate))
        .collect::<Option<Vec<_>>>()
    else {
        return rest;
    };
    // The instantiation's arguments as `__cudajit_instance` would list them, written
    // out: the registration names no bound, so a wrong instantiation is the launch's
    // one error.
    quote::quote!({
        #krate::__private::inventory::submit! {
            #krate::__private::RegisteredKernel(
                || #path::__cudajit_named_instance(const { &[#(#instance),*] })
            )
        }
        #rest
    })
}

/// A generic argument that cannot be a generic parameter of the launch's function, as
/// the `GenericArg` it is: a scalar type (`f32`), an integer literal (`16`, `-1`).
fn concrete_arg(arg: &[TokenTree], krate: &TokenStream) -> Option<TokenStream> {
    let integer = |literal: &proc_macro2::Literal| {
        literal
            .to_string()
            .starts_with(|c: char| c.is_ascii_digit())
    };
    match arg {
        [TokenTree::Ident(id)] => {
            let scalar = kernel_device::ir::ScalarType::from_rust_name(&id.to_string())?;
            let variant = proc_macro2::Ident::new(&format!("{scalar:?}"), Span::call_site());
            Some(quote::quote!(
                #krate::__private::GenericArg::Type(#krate::__private::ScalarType::#variant)
            ))
        }
        [TokenTree::Literal(literal)] if integer(literal) => Some(quote::quote!(
            #krate::__private::GenericArg::Const(#literal as i128)
        )),
        [TokenTree::Punct(minus), TokenTree::Literal(literal)]
            if minus.as_char() == '-' && integer(literal) =>
        {
            Some(quote::quote!(#krate::__private::GenericArg::Const(-#literal as i128)))
        }
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::None => {
            concrete_arg(&g.stream().into_iter().collect::<Vec<_>>(), krate)
        }
        _ => None,
    }
}

fn split_commas(stream: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut args = vec![Vec::new()];
    for tt in stream {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => args.push(Vec::new()),
            _ => args.last_mut().expect("one at least").push(tt),
        }
    }
    args.retain(|a| !a.is_empty());
    args
}

/// The generic argument's run-time local, if it names one: the argument itself (`n`),
/// or a free lowercase name inside a `{ .. }` const expression (`{ n * 2 }`).
fn run_time_local(arg: &[TokenTree]) -> Option<(String, Span)> {
    match arg {
        [TokenTree::Ident(id)] => {
            is_local_name(&id.to_string()).then(|| (id.to_string(), id.span()))
        }
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Brace => {
            free_local(&g.stream().into_iter().collect::<Vec<_>>())
        }
        // A `macro_rules!` fragment passed through keeps its tokens in a none-delimited group.
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::None => {
            run_time_local(&g.stream().into_iter().collect::<Vec<_>>())
        }
        _ => None,
    }
}

/// A lowercase name used as a value in an expression: not a method (`.min`), a path
/// segment (`usize::MAX`, `mem::size_of`), a call (`f(..)`), a macro (`m!`) or the type
/// of an `as` cast.
fn free_local(tokens: &[TokenTree]) -> Option<(String, Span)> {
    for (i, tt) in tokens.iter().enumerate() {
        match tt {
            TokenTree::Group(g) if g.delimiter() != Delimiter::Bracket => {
                if let Some(found) = free_local(&g.stream().into_iter().collect::<Vec<_>>()) {
                    return Some(found);
                }
            }
            TokenTree::Ident(id) => {
                let name = id.to_string();
                let before = i.checked_sub(1).map(|j| &tokens[j]);
                let after = tokens.get(i + 1);
                let punct = |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
                let after_path = punct(before, ':') || punct(before, '.') || punct(before, '\'');
                let before_path = matches!(after, Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
                    || punct(after, '!')
                    || matches!(after, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                if is_local_name(&name) && !after_path && !before_path {
                    return Some((name, id.span()));
                }
            }
            _ => {}
        }
    }
    None
}

fn is_local_name(name: &str) -> bool {
    let name = name.strip_prefix("r#").unwrap_or(name);
    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name.chars().any(|c| c.is_ascii_lowercase())
        && !NOT_LOCALS.contains(&name)
}
