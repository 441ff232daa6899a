//! Stand-ins for the barriers and fences. The twin runs one simulated thread at a time,
//! so a barrier sees only the calling thread: `sync_threads_count(p)` is `p as u32`,
//! `sync_threads_and(p)` and `sync_threads_or(p)` are `p`. A simulator that runs whole
//! blocks intercepts the IR's barriers instead (they carry `Effect::Barrier`).

/// `__syncthreads_count(pred)`: waits for the block, then counts the threads whose
/// `pred` was true.
pub fn sync_threads_count(pred: bool) -> u32 {
    pred as u32
}

/// `__syncthreads_and(pred)`: waits for the block, then whether every thread's `pred`
/// was true.
pub fn sync_threads_and(pred: bool) -> bool {
    pred
}

/// `__syncthreads_or(pred)`: waits for the block, then whether any thread's `pred` was
/// true.
pub fn sync_threads_or(pred: bool) -> bool {
    pred
}

/// `__syncwarp(mask)`: waits for the lanes of the warp named in `mask` (a set bit per
/// lane; the calling lane must be in it).
pub fn sync_warp(mask: u32) {
    let _ = mask;
}

/// `__threadfence_block()`: this thread's writes before it are seen before its writes
/// after it by every thread of the block.
pub fn threadfence_block() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// `__threadfence()`: as `threadfence_block`, for every thread of the device.
pub fn threadfence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// `__threadfence_system()`: as `threadfence`, also for the host and other devices.
pub fn threadfence_system() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}
