//! Device memory and what holds it: driver allocations and their stream ordering
//! (`allocation`, `pool`; the per-reader events are `crate::device::marks`), what an
//! array's memory is on each backend (`backing`), the arrays kernels take (`array`, its
//! views `view`; N-d arrays are `crate::launch::nd`), their element types (`elem`),
//! the host bytes a launch borrows (`staged`) and page-locked host buffers (`pinned`).

pub(crate) mod allocation;
pub(crate) mod array;
pub(crate) mod backing;
pub(crate) mod elem;
pub(crate) mod pinned;
pub(crate) mod pool;
pub(crate) mod staged;
pub(crate) mod view;
