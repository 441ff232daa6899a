//! Backends: typed IR → target text. Only NVVM IR for now.
pub mod nvvm;
