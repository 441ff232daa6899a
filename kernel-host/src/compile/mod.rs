//! From a kernel's source to loaded code: the per-process kernel cache (`cache`), the
//! JIT through libnvvm (`jit`, `libnvvm`) and the kernels it loads (`loaded`), the
//! simulator's lowered form of a kernel (`sim_kernel`), the on-disk cache (`disk`),
//! ahead-of-time PTX embedded at build time (`aot`, `aot_manifest`), generic kernels'
//! instances (`instances`), libnvvm warmed up when a GPU opens (`warm_up`), the
//! modules whose kernels wait for the grids they depend on (`grid_dependency`), what a
//! compiled kernel looks like (`inspect`) and its Rust lines beside its code (`annotate`).

pub mod annotate;
pub(crate) mod aot;
pub(crate) mod aot_manifest;
pub(crate) mod cache;
#[cfg(test)]
mod compile_cost;
pub(crate) mod deferred;
pub mod disk;
pub(crate) mod grid_dependency;
pub mod inspect;
pub(crate) mod instances;
pub(crate) mod jit;
pub(crate) mod jit_warm_up;
pub(crate) mod libnvvm;
pub(crate) mod loaded;
pub(crate) mod lower;
pub(crate) mod prepared;
pub(crate) mod profile;
pub(crate) mod sass;
pub(crate) mod sim_kernel;
pub(crate) mod warm_up;
pub(crate) mod while_opening;
