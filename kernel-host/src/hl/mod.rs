//! High-level operations over whole arrays without writing a kernel (issue 12):
//! reductions ([`reduce`], [`map_reduce`], [`sum`], [`product`], [`min`], [`max`]) and
//! reductions along one axis of a 2-D/3-D array ([`reduce_axis`], [`sum_axis`], ...),
//! scans ([`inclusive_scan`], [`exclusive_scan`]) and stream compaction ([`compact`])
//! from the user's `#[device]` functions, and elementwise maps ([`map`], [`map2`]:
//! what `#[vectorize]`-style ufuncs are in other GPU languages).
//!
//! The runtime writes each operation's kernel as text calling the user's function by
//! name, with the function's own embedded source as its dependency (`synth`), so it
//! compiles through the same pipeline and runs unchanged on a GPU and on the CPU
//! simulator. Each kernel is made once per (operation, functions, element types) and
//! cached like a written one. Every operation has an `_on(&stream, ..)` form.
//!
//! Inputs are host slices (copied to the device for the call) or `DeviceArray`s (used
//! in place). Results of scans and maps are new `DeviceArray`s.

mod axis;
mod lookback;
#[doc(hidden)]
pub use lookback::{set_scan_blocks_per_sm, set_scan_items_per_thread, set_scan_layout};
mod lookback_classic;
mod lookback_pipelined;
mod lookback_text;
mod map;
mod nd_inputs;
mod numeric;
mod operand;
mod reduce;
mod reduce_indexed;
mod scan;
mod scan_text;
mod scratch;
mod synth;
#[cfg(test)]
mod tests;

pub use axis::{
    max_axis, max_axis_on, min_axis, min_axis_on, product_axis, product_axis_on, reduce_axis,
    reduce_axis_on, sum_axis, sum_axis_on, AxisInput,
};
pub use map::{map, map2, map2_into, map2_into_on, map2_on, map_into, map_into_on, map_on};
pub use numeric::Numeric;
pub(crate) use operand::{length_mismatch, Target};
pub use operand::{DeviceFn, Input, IntoDeviceFn, Staged};
pub use reduce::{
    map_reduce, map_reduce_on, max, max_into, max_into_on, max_on, min, min_into, min_into_on,
    min_on, product, product_into, product_into_on, product_on, reduce, reduce_into,
    reduce_into_on, reduce_on, sum, sum_into, sum_into_on, sum_on,
};
pub use reduce_indexed::{map_reduce_indexed, map_reduce_indexed_on, ReduceValue};
pub use scan::{
    compact, compact_on, exclusive_scan, exclusive_scan_into, exclusive_scan_into_on,
    exclusive_scan_on, inclusive_scan, inclusive_scan_into, inclusive_scan_into_on,
    inclusive_scan_on,
};
