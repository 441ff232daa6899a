//! Stand-ins for the warp operations. The twin runs one simulated thread at a time, so
//! its warp is that one lane: a shuffle reads the lane's own value, a vote or a match
//! sees one predicate or value, a reduction is the value itself. A simulator that runs
//! whole warps intercepts the IR's warp operations instead (`Effect::Warp`).

use super::{block_dim, thread_idx};

/// Values a shuffle, a match or a warp reduction moves: the 32- and 64-bit scalars.
pub trait WarpWord: Copy {}
impl WarpWord for i32 {}
impl WarpWord for u32 {}
impl WarpWord for i64 {}
impl WarpWord for u64 {}
impl WarpWord for isize {}
impl WarpWord for usize {}
impl WarpWord for f32 {}
impl WarpWord for f64 {}

/// Values a warp reduction combines (all `WarpWord`s).
pub trait WarpReduce: WarpWord {}
impl<T: WarpWord> WarpReduce for T {}

/// The thread's lane within its warp (0..32): its linear index in the block mod 32.
pub fn lane_id() -> u32 {
    let (t, d) = (thread_idx(), block_dim());
    let linear = t.x as u64 + t.y as u64 * d.x as u64 + t.z as u64 * d.x as u64 * d.y as u64;
    (linear % 32) as u32
}

/// Threads per warp: 32 on every CUDA GPU.
pub fn warp_size() -> u32 {
    32
}

/// The bits of the lanes below this one (`%lanemask_lt`).
pub fn lanemask_lt() -> u32 {
    (1u32 << lane_id()) - 1
}

/// The lanes of the warp executing this call (`__activemask()`).
pub fn active_mask() -> u32 {
    1 << lane_id()
}

/// `__shfl_sync(mask, value, src_lane)`: `value` as held by lane `src_lane % 32`.
pub fn shfl_sync<T: WarpWord>(mask: u32, value: T, src_lane: u32) -> T {
    let _ = (mask, src_lane);
    value
}

/// `__shfl_up_sync(mask, value, delta)`: `value` of lane `lane - delta` (the own value
/// where that is below lane 0).
pub fn shfl_up_sync<T: WarpWord>(mask: u32, value: T, delta: u32) -> T {
    let _ = (mask, delta);
    value
}

/// `__shfl_down_sync(mask, value, delta)`: `value` of lane `lane + delta` (the own value
/// where that is above lane 31).
pub fn shfl_down_sync<T: WarpWord>(mask: u32, value: T, delta: u32) -> T {
    let _ = (mask, delta);
    value
}

/// `__shfl_xor_sync(mask, value, lane_mask)`: `value` of lane `lane ^ lane_mask`.
pub fn shfl_xor_sync<T: WarpWord>(mask: u32, value: T, lane_mask: u32) -> T {
    let _ = (mask, lane_mask);
    value
}

/// `__all_sync(mask, pred)`: whether `pred` is true in every lane of `mask`.
pub fn all_sync(mask: u32, pred: bool) -> bool {
    let _ = mask;
    pred
}

/// `__any_sync(mask, pred)`: whether `pred` is true in any lane of `mask`.
pub fn any_sync(mask: u32, pred: bool) -> bool {
    let _ = mask;
    pred
}

/// `__uni_sync(mask, pred)`: whether `pred` is the same in every lane of `mask`.
pub fn eq_sync(mask: u32, pred: bool) -> bool {
    let _ = (mask, pred);
    true
}

/// `__ballot_sync(mask, pred)`: the bits of the lanes of `mask` whose `pred` is true.
pub fn ballot_sync(mask: u32, pred: bool) -> u32 {
    ((pred as u32) << lane_id()) & mask
}

/// `__match_any_sync(mask, value)`: the lanes of `mask` holding the same `value`.
pub fn match_any_sync<T: WarpWord>(mask: u32, value: T) -> u32 {
    let _ = value;
    (1 << lane_id()) & mask
}

/// `__match_all_sync(mask, value, &pred)`: `(mask, true)` if every lane of `mask` holds
/// the same `value`, else `(0, false)`.
pub fn match_all_sync<T: WarpWord>(mask: u32, value: T) -> (u32, bool) {
    let _ = value;
    (mask, true)
}

/// The wrapping sum of `value` over the 32 lanes of the warp, in every lane (all lanes
/// must call it).
pub fn warp_reduce_sum<T: WarpReduce>(value: T) -> T {
    value
}

/// The minimum of `value` over the warp (std's `min`: NaN-ignoring for floats).
pub fn warp_reduce_min<T: WarpReduce>(value: T) -> T {
    value
}

/// The maximum of `value` over the warp (std's `max`: NaN-ignoring for floats).
pub fn warp_reduce_max<T: WarpReduce>(value: T) -> T {
    value
}
