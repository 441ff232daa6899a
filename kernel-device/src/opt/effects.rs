//! What the optimiser may do with an intrinsic call, read from the intrinsic table's
//! `Effect` column (`proc::intrinsics`) rather than from lists of names: a new row is
//! classified by its effect and signature, and nothing here needs editing for it.

use crate::ir::Intrinsic;
use crate::proc::intrinsics::{effect, signature, Effect, Ret};

/// A value of the thread's own launch state (`thread_idx().x`, `grid(1)`, `lane_id()`):
/// pure, no operands, an integer. It is the same at every point of the thread's run, so
/// a guard may compute it ahead of the code that reads it, and a load may be
/// speculated on it.
pub fn is_thread_constant(i: Intrinsic) -> bool {
    let sig = signature(i);
    effect(i) == Effect::Pure
        && sig.params.is_empty()
        && matches!(sig.ret, Ret::Scalar(s) if s.is_integer())
}

/// Whether a call may be written twice, in a versioned run's fast and checked copies,
/// of which each thread runs one: nothing that waits for or exchanges values with other
/// threads (barriers, fences, warp operations), whose two copies would be different
/// instructions that threads of one block or warp could split between.
pub fn may_be_duplicated(i: Intrinsic) -> bool {
    // async copies: `Memory` calls are each thread's own (one copy of the two runs).
    matches!(
        effect(i),
        Effect::Pure | Effect::Atomic { .. } | Effect::Memory
    )
}

/// Whether a call involves other threads in a way a loop's per-block guard cannot
/// split: warp operations, the grid barrier and block barriers that compute a value
/// (`sync_threads_count`) or wait on a warp's mask. The plain `sync_threads()` is not:
/// a versioned loop keeps it in both copies, met by the same threads.
pub fn is_collective(i: Intrinsic) -> bool {
    match effect(i) {
        Effect::Warp | Effect::GridBarrier | Effect::ClusterBarrier => true,
        Effect::Barrier => i != Intrinsic::SyncThreads,
        Effect::Pure | Effect::Fence | Effect::Atomic { .. } | Effect::Memory => false,
    }
}

/// Whether a call is a warp operation (`Effect::Warp`: shuffles, votes, `ldmatrix`,
/// `mma`): its lanes must meet in one instruction, which a loop's per-block guard
/// keeps (every thread of the block runs the same copy), a per-thread guard does not.
pub fn is_warp_collective(i: Intrinsic) -> bool {
    effect(i) == Effect::Warp
}
