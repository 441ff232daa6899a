//! Validator: rules the IR must obey before code generation. (Stub: being written.)
use crate::ir;

#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct ValidationError {
    pub message: String,
}

pub fn validate(_module: &ir::Module) -> Result<(), Vec<ValidationError>> {
    Ok(())
}
