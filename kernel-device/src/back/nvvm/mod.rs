//! NVVM IR (LLVM 7.0.1 legacy dialect) writer. (Stub: being written.)
use crate::ir;

#[derive(Clone, Debug)]
pub struct Options {
    /// `!nvvmir.version` (major, minor, debug major, debug minor), from libnvvm.
    pub ir_version: (u32, u32, u32, u32),
}

impl Default for Options {
    fn default() -> Self {
        Options { ir_version: (2, 0, 3, 2) }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanicSite {
    pub id: u32,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
#[error("NVVM IR backend: {0}")]
pub struct Error(pub String);

pub struct Output {
    pub text: String,
    pub panic_sites: Vec<PanicSite>,
}

pub fn write_string(_module: &ir::Module, _options: &Options) -> Result<Output, Error> {
    Err(Error("not written yet".into()))
}
