//! Diagnostics: a message at a token, with an optional hint saying what to do instead.
//! The macro turns them into `compile_error!`s at the exact span (rust-analyzer shows
//! them); the run-time compiler turns them into `CompileError` text with `file:line`.

use proc_macro2::Span;

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    /// What to write instead ("use `x.sqrt()`", "pass a `&[f32]`").
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            span,
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The message and hint as one text, as shown to the user.
    pub fn text(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}\n  = help: {}", self.message, hint),
            None => self.message.clone(),
        }
    }

    pub fn to_syn_error(&self) -> syn::Error {
        syn::Error::new(self.span, self.text())
    }
}

/// Combines several diagnostics into one `syn::Error` (they are all reported).
pub fn combine(diagnostics: &[Diagnostic]) -> Option<syn::Error> {
    let mut iter = diagnostics.iter();
    let mut error = iter.next()?.to_syn_error();
    for d in iter {
        error.combine(d.to_syn_error());
    }
    Some(error)
}

/// Token text with the spaces `to_string` puts inside types removed (`Vec<f32>`), for
/// quoting the user's code in a message.
pub fn pretty(tokens: &impl quote::ToTokens) -> String {
    let text = tokens.to_token_stream().to_string();
    text.replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
        .replace(" ,", ",")
        .replace("[ ", "[")
        .replace(" ]", "]")
}
