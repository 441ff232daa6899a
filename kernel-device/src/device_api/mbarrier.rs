//! Stand-ins for the shared-memory mbarriers (PTX `mbarrier.*`, sm_90). The guide with
//! a producer/consumer pipeline is `docs/hopper.md`.
//!
//! A barrier is the `u64` at `bars[index]` of a shared array
//! (`shared_array::<[u64; N]>()`). The twin runs one thread, so here the word holds the
//! simulator's encoding of the state (`proc::mbarrier::BarrierState`) and the
//! operations run its state machine: a lone thread sees what the GPU would show it.

use crate::proc::mbarrier::BarrierState;

fn state_of(bars: &[u64], index: usize) -> BarrierState {
    BarrierState::decode(bars[index]).expect("an mbarrier used before `mbarrier_init`")
}

/// `mbarrier.init.shared::cta.b64`: `count` (1 to 2^20 - 1) arrivals complete each
/// phase. One thread initialises, then `fence_mbarrier_init()` and `sync_threads()`
/// before any thread uses the barrier.
pub fn mbarrier_init(bars: &mut [u64], index: usize, count: u32) {
    bars[index] = BarrierState::new(count).encode();
}

/// `mbarrier.arrive.shared::cta.b64`: one arrival (releasing this thread's writes to
/// whoever waits for the phase); the token is the phase's parity.
pub fn mbarrier_arrive(bars: &mut [u64], index: usize) -> u64 {
    let state = state_of(bars, index);
    bars[index] = state
        .arrive()
        .expect("more arrivals than the barrier's count")
        .encode();
    u64::from(state.phase)
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64`: `bytes` more transaction bytes must
/// complete (`mbarrier_complete_tx`, a TMA copy) before the phase does; then one arrival.
pub fn mbarrier_arrive_expect_tx(bars: &mut [u64], index: usize, bytes: u32) -> u64 {
    let state = state_of(bars, index).expect_tx(bytes);
    bars[index] = state
        .arrive()
        .expect("more arrivals than the barrier's count")
        .encode();
    u64::from(state.phase)
}

/// `mbarrier.complete_tx.shared::cta.b64`: `bytes` of the expected transactions
/// completed (releasing this thread's writes).
pub fn mbarrier_complete_tx(bars: &mut [u64], index: usize, bytes: u32) {
    bars[index] = state_of(bars, index).complete_tx(bytes).encode();
}

/// `mbarrier.try_wait.parity.shared::cta.b64`: whether the phase of parity
/// `parity & 1` has completed (acquiring what its arrivals released). Phases alternate
/// 0, 1, 0, ...: a loop's `k`-th use of a barrier waits for parity `k % 2`. Spin with
/// `while !mbarrier_try_wait_parity(bars, i, parity) {}`.
pub fn mbarrier_try_wait_parity(bars: &mut [u64], index: usize, parity: u32) -> bool {
    state_of(bars, index).phase_done(parity)
}

/// `fence.mbarrier_init.release.cluster`: this thread's `mbarrier_init`s become visible
/// to the cluster's other threads (with the `sync_threads()` that follows).
pub fn fence_mbarrier_init() {}
