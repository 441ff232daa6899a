//! What executes a device's work: the CUDA driver or the CPU simulator (`sim`).

pub(crate) mod sim;
