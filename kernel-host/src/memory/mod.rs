//! Device memory and what holds it: driver allocations and their stream ordering
//! (`allocation`, `marks`, `pool`), the arrays kernels take (`array`, its views `view`,
//! N-d arrays `nd`) and page-locked host buffers (`pinned`).

pub(crate) mod allocation;
pub(crate) mod array;
pub(crate) mod elem;
pub(crate) mod marks;
pub(crate) mod nd;
pub(crate) mod pinned;
pub(crate) mod pool;
pub(crate) mod staged;
pub(crate) mod view;
