//! cudajit's compiler and device API.
//!
//! Stages, in the layout of naga: [`front`] (syn → typed [`ir`]), [`valid`] (rules the
//! IR must obey; the rules every stage shares, such as the one table of intrinsics, are
//! in [`proc`]), [`back`] (IR → NVVM IR text), then [`nvvm`] (libnvvm, loaded at run
//! time, NVVM IR + libdevice → PTX). [`source`] is how kernels travel from the macro to
//! the run-time compiler, and [`offline`] builds the same sources from a file's text; [`device_api`] holds the typed stand-ins for intrinsics that
//! the rustc-checked twin of each kernel body calls.
//!
//! This crate does no I/O and loads no library except in [`nvvm`], so the proc macro
//! can use everything else at compile time.

pub mod back;
pub mod device_api;
pub mod diag;
pub mod fp8;
pub mod front;
pub mod ir;
pub mod nvvm;
pub mod offline;
pub mod opt;
pub mod proc;
pub mod source;
pub mod valid;

mod pipeline;
/// The crates behind the half types and complex numbers kernels use (re-exported by
/// the `cudajit` facade).
pub use fp8::e4m3;
pub use half;
pub use num_complex;
pub use pipeline::{
    lower_unit, nvvm_ir_for_kernel, optimised_unit, write_unit, CompileError, CompiledUnit,
};
