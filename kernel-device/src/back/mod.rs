//! Backends of the typed IR: NVVM IR text for libnvvm, and the CPU simulator that
//! interprets the same IR.
pub mod nvvm;
pub mod sim;
