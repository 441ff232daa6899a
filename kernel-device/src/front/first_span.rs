//! The span syn's `Spanned::span` gives an expression, found without printing it (issue
//! 27: the macro's cost in `cargo check`). Where spans cannot be joined (a proc macro
//! on stable Rust), syn's answer is the span of the expression's first token, which it
//! finds by printing the whole expression: the front end asks this for most
//! expressions it lowers. [`FirstSpan::first_span`] reads that token from the syntax
//! tree instead, for the common forms; elsewhere (attributes, other forms, or spans that
//! join, as outside a proc macro) it asks syn, so the answer is always syn's.

use proc_macro2::Span;
use syn::spanned::Spanned;

pub(crate) trait FirstSpan: Spanned {
    /// The first token's span, where it is read from the tree without printing.
    fn first_token(&self) -> Option<Span>;

    /// What `self.span()` answers.
    fn first_span(&self) -> Span {
        match self.first_token() {
            // Spans that do not join: syn's answer is the first token's.
            Some(first) if first.join(first).is_none() => first,
            _ => self.span(),
        }
    }
}

impl FirstSpan for syn::Expr {
    fn first_token(&self) -> Option<Span> {
        use syn::Expr;
        match self {
            Expr::Binary(b) => b.first_token(),
            Expr::If(i) => i.first_token(),
            Expr::Path(p) => p.first_token(),
            Expr::MethodCall(m) => m.first_token(),
            Expr::Assign(a) => a.first_token(),
            Expr::Lit(l) if l.attrs.is_empty() => Some(l.lit.span()),
            Expr::Call(c) if c.attrs.is_empty() => c.func.first_token(),
            Expr::Index(i) if i.attrs.is_empty() => i.expr.first_token(),
            Expr::Field(f) if f.attrs.is_empty() => f.base.first_token(),
            Expr::Cast(c) if c.attrs.is_empty() => c.expr.first_token(),
            Expr::Paren(p) if p.attrs.is_empty() => Some(p.paren_token.span.open()),
            _ => None,
        }
    }
}

impl FirstSpan for syn::ExprBinary {
    fn first_token(&self) -> Option<Span> {
        self.attrs.is_empty().then(|| self.left.first_token())?
    }
}

impl FirstSpan for syn::ExprIf {
    fn first_token(&self) -> Option<Span> {
        self.attrs.is_empty().then_some(self.if_token.span)
    }
}

impl FirstSpan for syn::ExprMethodCall {
    fn first_token(&self) -> Option<Span> {
        self.attrs.is_empty().then(|| self.receiver.first_token())?
    }
}

impl FirstSpan for syn::ExprAssign {
    fn first_token(&self) -> Option<Span> {
        self.attrs.is_empty().then(|| self.left.first_token())?
    }
}

impl FirstSpan for syn::ExprPath {
    fn first_token(&self) -> Option<Span> {
        if !self.attrs.is_empty() || self.qself.is_some() {
            return None;
        }
        match &self.path.leading_colon {
            Some(colons) => Some(colons.spans[0]),
            None => self.path.segments.first().map(|s| s.ident.span()),
        }
    }
}

impl FirstSpan for syn::ExprCall {
    fn first_token(&self) -> Option<Span> {
        self.attrs.is_empty().then(|| self.func.first_token())?
    }
}

impl FirstSpan for syn::ExprIndex {
    fn first_token(&self) -> Option<Span> {
        self.attrs.is_empty().then(|| self.expr.first_token())?
    }
}

impl FirstSpan for syn::ExprCast {
    fn first_token(&self) -> Option<Span> {
        self.attrs.is_empty().then(|| self.expr.first_token())?
    }
}

impl FirstSpan for syn::Path {
    fn first_token(&self) -> Option<Span> {
        match &self.leading_colon {
            Some(colons) => Some(colons.spans[0]),
            None => self.segments.first().map(|s| s.ident.span()),
        }
    }
}

impl FirstSpan for syn::Type {
    fn first_token(&self) -> Option<Span> {
        use syn::Type;
        match self {
            Type::Path(p) if p.qself.is_none() => p.path.first_token(),
            Type::Reference(r) => Some(r.and_token.span),
            Type::Slice(s) => Some(s.bracket_token.span.open()),
            Type::Array(a) => Some(a.bracket_token.span.open()),
            Type::Tuple(t) => Some(t.paren_token.span.open()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FirstSpan;
    use quote::ToTokens;

    /// The first printed token's position, what syn's `span()` reads where spans do
    /// not join.
    fn printed_first(expr: &syn::Expr) -> proc_macro2::LineColumn {
        let first = expr.to_token_stream().into_iter().next().expect("a token");
        first.span().start()
    }

    #[test]
    fn the_first_token_read_from_the_tree_is_the_first_one_printed() {
        let body: syn::Block = syn::parse_str(
            "{\n  a[i] + b;\n  (x).y * 2.0;\n  if c { 1 } else { 2 };\n  ::core::f32::MAX;\n  \
             p.q(1).r[2] as f64;\n  f(x) - g;\n  v = w;\n  s.t;\n  3 + 4;\n  #[allow(unused)] z;\n  \
             <T as Q>::C;\n  -x * y;\n}",
        )
        .unwrap();
        let mut read = 0;
        for stmt in &body.stmts {
            let syn::Stmt::Expr(expr, _) = stmt else {
                panic!("an expression statement")
            };
            match expr.first_token() {
                Some(first) => {
                    read += 1;
                    assert_eq!(
                        first.start(),
                        printed_first(expr),
                        "{}",
                        expr.to_token_stream()
                    );
                }
                // Attributes, qualified paths and unary operators are left to syn.
                None => assert!(matches!(
                    expr,
                    syn::Expr::Path(_) | syn::Expr::Unary(_) | syn::Expr::Binary(_)
                )),
            }
            // Whatever the form, the answer is syn's.
            assert_eq!(
                expr.first_span().start(),
                syn::spanned::Spanned::span(expr).start()
            );
        }
        assert_eq!(read, 9, "the common forms are read from the tree");
    }

    #[test]
    fn calls_indexes_casts_paths_and_types_answer_as_syn_does() {
        let exprs = [
            "f(x)",
            "a::b(1)",
            "v[i + 1]",
            "x.y[0]",
            "(a + b) as f32",
            "x as u8",
        ];
        for text in exprs {
            let expr: syn::Expr = syn::parse_str(text).unwrap();
            let first = match &expr {
                syn::Expr::Call(c) => c.first_token(),
                syn::Expr::Index(i) => i.first_token(),
                syn::Expr::Cast(c) => c.first_token(),
                other => panic!("{}", other.to_token_stream()),
            };
            assert_eq!(first.expect("read").start(), printed_first(&expr), "{text}");
        }
        for text in [
            "f32",
            "::core::f32",
            "&mut [f32]",
            "[u8; 4]",
            "(u32, f32)",
            "Vec<u8>",
        ] {
            let ty: syn::Type = syn::parse_str(text).unwrap();
            let printed = ty
                .to_token_stream()
                .into_iter()
                .next()
                .unwrap()
                .span()
                .start();
            assert_eq!(ty.first_token().expect("read").start(), printed, "{text}");
            if let syn::Type::Path(p) = &ty {
                assert_eq!(
                    p.path.first_token().expect("read").start(),
                    printed,
                    "{text}"
                );
            }
        }
    }
}
