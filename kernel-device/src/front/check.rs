//! Diagnostics for constructs outside the kernel subset: each names the construct and
//! says what to write instead. Kept in one place so the wording stays consistent.

use crate::diag::Diagnostic;
use crate::ir::BinaryOp;
use syn::spanned::Spanned;

/// `+=` and friends → the arithmetic operator they apply.
pub fn compound_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinaryOp::Add,
        syn::BinOp::SubAssign(_) => BinaryOp::Sub,
        syn::BinOp::MulAssign(_) => BinaryOp::Mul,
        syn::BinOp::DivAssign(_) => BinaryOp::Div,
        syn::BinOp::RemAssign(_) => BinaryOp::Rem,
        syn::BinOp::BitAndAssign(_) => BinaryOp::BitAnd,
        syn::BinOp::BitOrAssign(_) => BinaryOp::BitOr,
        syn::BinOp::BitXorAssign(_) => BinaryOp::BitXor,
        syn::BinOp::ShlAssign(_) => BinaryOp::Shl,
        syn::BinOp::ShrAssign(_) => BinaryOp::Shr,
        _ => return None,
    })
}

pub fn macro_diag(mac: &syn::Macro) -> Diagnostic {
    let name = mac
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let span = mac.path.span();
    match name.as_str() {
        "vec" | "format" => super::types::heap_diag(&format!("{name}!"), span),
        // print: `println!` and friends are lowered (`front::print`); these are not.
        "dbg" | "write" | "writeln" => Diagnostic::new(
            span,
            format!("`{name}!` is not supported in kernels: kernels have no writers or `Debug` values to return"),
        )
        .with_hint("print with `println!(\"{:?}\", value)` (or `eprintln!`)"),
        _ => Diagnostic::new(span, format!("macro `{name}!` is not supported in kernels"))
            .with_hint("macros cannot be expanded in device code; write the code out or use a `#[device]` function"),
    }
}

pub fn deref_diag(span: proc_macro2::Span) -> Diagnostic {
    Diagnostic::new(
        span,
        "the dereference operator `*` is not supported in kernels: there are no pointers or references to follow",
    )
    .with_hint("kernels take slices; read and write elements with `s[i]`")
}

pub fn item_in_body(item: &syn::Item) -> Diagnostic {
    let (span, what, hint) = match item {
        syn::Item::Fn(f) => (
            f.sig.ident.span(),
            "nested functions are not supported in kernels",
            "move it out and mark it `#[device]`",
        ),
        syn::Item::Use(u) => (
            u.use_token.span,
            "`use` inside a kernel body is not supported",
            "write the full path (`std::f32::consts::PI`) or put the `use` outside the function",
        ),
        syn::Item::Const(c) => (
            c.const_token.span,
            "`const` items inside a kernel body are not yet supported",
            "use a `let` binding or a literal",
        ),
        syn::Item::Static(s) => (
            s.static_token.span,
            "`static` items are not supported in kernels",
            "pass the data as a slice parameter",
        ),
        syn::Item::Struct(s) => (
            s.struct_token.span,
            "structs are not yet supported in kernels",
            "use scalars and tuples",
        ),
        syn::Item::Enum(e) => (
            e.enum_token.span,
            "enums are not yet supported in kernels",
            "use integer constants",
        ),
        other => (
            other.span(),
            "items inside a kernel body are not supported",
            "move the item outside the function",
        ),
    };
    Diagnostic::new(span, what).with_hint(hint)
}

/// The diagnostic for an expression form the subset does not have.
pub fn unsupported_expr(expr: &syn::Expr) -> Diagnostic {
    let d = |span, msg: &str, hint: &str| Diagnostic::new(span, msg).with_hint(hint);
    match expr {
        syn::Expr::Closure(c) => d(
            c.or1_token.span,
            "closures are not supported in kernels",
            "write a `#[device]` function and call it",
        ),
        syn::Expr::Async(a) => d(
            a.async_token.span,
            "`async` blocks are not supported in kernels",
            "kernels run synchronously on each GPU thread; remove `async`",
        ),
        syn::Expr::Await(a) => d(
            a.await_token.span,
            "`.await` is not supported in kernels",
            "kernels run synchronously on each GPU thread; remove `.await`",
        ),
        syn::Expr::Try(t) => d(
            t.question_token.span,
            "the `?` operator is not supported in kernels",
            "device functions return plain values; check conditions with `if`",
        ),
        syn::Expr::TryBlock(t) => d(
            t.try_token.span,
            "`try` blocks are not supported in kernels",
            "check conditions with `if`",
        ),
        syn::Expr::Unsafe(u) => d(
            u.unsafe_token.span,
            "`unsafe` blocks are not supported in kernels",
            "kernels are written in safe Rust; slices are bounds-checked unless `#[kernel(boundscheck = false)]`",
        ),
        syn::Expr::Reference(r) => d(
            r.and_token.span,
            "references are only supported to arrays and sub-slices in kernel bodies",
            "pass slices straight through (`f(a)`, not `f(&a)`), borrow part of one with `&a[i..j]`, borrow arrays with `&arr` / `&mut tile[r]`, and read scalars by value",
        ),
        syn::Expr::RawAddr(r) => d(
            r.and_token.span,
            "raw pointers are not supported in kernels",
            "use slice parameters",
        ),
        syn::Expr::Range(r) => d(
            r.span(),
            "ranges are only supported as the iterator of a `for` loop in kernels",
            "write `for i in a..b { .. }`, or borrow a sub-slice: `&s[a..b]`",
        ),
        syn::Expr::Let(l) => d(
            l.let_token.span,
            "`let` is only supported alone in an `if let` / `while let` condition in kernels (no `let` chains)",
            "nest the conditions: `if let P = x { if cond { .. } }`, or use `match` with a guard (`P if cond =>`)",
        ),
        syn::Expr::Yield(y) => d(y.yield_token.span, "`yield` is not supported in kernels", "remove it"),
        syn::Expr::Const(c) => d(
            c.const_token.span,
            "`const` blocks are not supported in kernels",
            "use a literal",
        ),
        syn::Expr::Infer(i) => d(
            i.span(),
            "`_` cannot be used as a value",
            "write an expression",
        ),
        syn::Expr::Macro(m) => macro_diag(&m.mac),
        syn::Expr::While(w) => d(
            w.while_token.span,
            "a `while` loop cannot be used as a value",
            "use it as a statement",
        ),
        syn::Expr::ForLoop(f) => d(
            f.for_token.span,
            "a `for` loop cannot be used as a value",
            "use it as a statement",
        ),
        syn::Expr::Assign(a) => d(
            a.eq_token.span,
            "an assignment cannot be used as a value in kernels",
            "assign in a statement of its own",
        ),
        other => d(
            other.span(),
            "this expression is not supported in kernels",
            "see the kernel subset in cudajit's documentation",
        ),
    }
}
