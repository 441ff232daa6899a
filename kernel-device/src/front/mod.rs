//! Frontend: syn → typed IR. (Stub: being written.)
use crate::{diag::Diagnostic, ir, source::{FnSource, SourceKind}};

/// A frontend error located in the user's file (run-time form of a `Diagnostic`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)
    }
}

/// Builds one module from a kernel's compilation unit (`FnSource::unit`).
pub fn lower_sources(_sources: &[&FnSource]) -> Result<ir::Module, Vec<SourceError>> {
    todo!()
}

/// Macro-time check of one function in isolation (callees' signatures unknown).
pub fn check_item(_item: &syn::ItemFn, _kind: SourceKind) -> Vec<Diagnostic> {
    Vec::new()
}
