//! The rules of the shared-memory mbarriers (PTX `mbarrier.*`, the transaction-count
//! and `try_wait` forms sm_90), once for every stage: their rows of the intrinsic
//! table, the architecture each needs (`proc::target` chooses from it), the run-time check of a barrier's place (the
//! NVVM writer prints it, the simulator evaluates it), and the barrier's state machine,
//! which the simulator runs. The user's guide is `docs/hopper.md`.
//!
//! A barrier is the `u64` at `bars[index]` of a shared slice (`shared_array::<[u64; N]>()`):
//! the place is an atomic's (operands 0 and 1), so every stage treats an mbarrier
//! operation as an atomic on that element.

use super::intrinsics::{Effect, Form, IntrinsicDef, Param, Ret, Signature};
use super::target::TargetNeed;
use crate::ir::{Intrinsic, MbarrierOp, ScalarType};

use ScalarType as S;

/// The element type of a barrier slice.
const BARRIER_WORD: &[ScalarType] = &[S::U64];
const PLACE: Effect = Effect::Atomic { slice: 0, index: 1 };
const AT: &[Param] = &[Param::MutSliceOfT, Param::Scalar(S::Usize)];
const AT_WITH_U32: &[Param] = &[
    Param::MutSliceOfT,
    Param::Scalar(S::Usize),
    Param::Scalar(S::U32),
];

const fn on_barrier(
    name: &'static str,
    op: MbarrierOp,
    params: &'static [Param],
    ret: Ret,
) -> IntrinsicDef {
    IntrinsicDef {
        name,
        form: Form::Call,
        intrinsic: Intrinsic::Mbarrier(op),
        sig: Signature {
            types: BARRIER_WORD,
            params,
            ret,
        },
        effect: PLACE,
        nvvm: "",
    }
}

pub static MBARRIER_INTRINSICS: &[IntrinsicDef] = &[
    on_barrier("mbarrier_init", MbarrierOp::Init, AT_WITH_U32, Ret::Unit),
    on_barrier(
        "mbarrier_arrive",
        MbarrierOp::Arrive,
        AT,
        Ret::Scalar(S::U64),
    ),
    on_barrier(
        "mbarrier_arrive_expect_tx",
        MbarrierOp::ArriveExpectTx,
        AT_WITH_U32,
        Ret::Scalar(S::U64),
    ),
    on_barrier(
        "mbarrier_complete_tx",
        MbarrierOp::CompleteTx,
        AT_WITH_U32,
        Ret::Unit,
    ),
    on_barrier(
        "mbarrier_try_wait_parity",
        MbarrierOp::TryWaitParity,
        AT_WITH_U32,
        Ret::Scalar(S::Bool),
    ),
    IntrinsicDef {
        name: "fence_mbarrier_init",
        form: Form::Call,
        intrinsic: Intrinsic::Mbarrier(MbarrierOp::FenceInit),
        sig: Signature {
            types: &[],
            params: &[],
            ret: Ret::Unit,
        },
        effect: Effect::Fence,
        nvvm: "",
    },
];

/// What an mbarrier operation needs. Every form cudajit writes is sm_90's
/// (`.shared::cta`, `expect_tx`, `try_wait.parity`), none is sm_90a-only; wgmma, TMA
/// multicast and `setmaxnreg` will be rows with `arch_specific: true`.
pub fn target_need(op: MbarrierOp) -> TargetNeed {
    let feature = match op {
        MbarrierOp::Init => "`mbarrier.init.shared::cta`",
        MbarrierOp::Arrive => "`mbarrier.arrive.shared::cta`",
        MbarrierOp::ArriveExpectTx => "`mbarrier.arrive.expect_tx`",
        MbarrierOp::CompleteTx => "`mbarrier.complete_tx`",
        MbarrierOp::TryWaitParity => "`mbarrier.try_wait.parity`",
        MbarrierOp::FenceInit => "`fence.mbarrier_init`",
    };
    TargetNeed {
        feature,
        min_arch: 90,
        arch_specific: false,
    }
}

/// What the intrinsics of `module` need of the target, one need per feature.
pub fn module_needs(module: &crate::ir::Module) -> Vec<TargetNeed> {
    let mut needs: Vec<TargetNeed> = Vec::new();
    for (_, f) in module.functions.iter() {
        for (_, e) in f.exprs.iter() {
            if let crate::ir::ExprKind::Intrinsic {
                intrinsic: Intrinsic::Mbarrier(op),
                ..
            } = e.kind
            {
                let need = target_need(op);
                if !needs.contains(&need) {
                    needs.push(need);
                }
            }
        }
    }
    needs
}

/// The panic of an mbarrier operation whose place is not in shared memory (the
/// bounds check is the index's, `ir::checks::INDEX_MESSAGE`).
pub const SPACE_MESSAGE: &str =
    "an mbarrier must be in shared memory: element {0} of a slice of {1} is not";

/// A barrier's state as the simulator keeps it, in the barrier's own `u64` (so that it
/// lives and dies with the block's shared memory, and a spinning waiter sees it
/// change). The hardware's encoding is opaque; this one is the simulator's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierState {
    /// Arrivals that complete a phase (`mbarrier_init`'s count).
    pub expected: u32,
    /// Arrivals still missing in the current phase.
    pub pending: u32,
    /// Transaction bytes expected and not yet completed in the current phase (negative
    /// when completions ran ahead of the expectation, as PTX allows).
    pub tx: i32,
    /// The current (incomplete) phase's parity.
    pub phase: u32,
}

/// The largest arrival count PTX accepts (`2^20 - 1`).
pub const MAX_ARRIVALS: u32 = (1 << 20) - 1;
const INIT_BIT: u64 = 1 << 63;
const PHASE_BIT: u64 = 1 << 62;
const FIELD: u64 = (1 << 20) - 1;
const TX_BITS: u32 = 22;

impl BarrierState {
    pub fn new(count: u32) -> BarrierState {
        BarrierState {
            expected: count,
            pending: count,
            tx: 0,
            phase: 0,
        }
    }

    /// `None`: the word holds no initialised barrier.
    pub fn decode(word: u64) -> Option<BarrierState> {
        if word & INIT_BIT == 0 {
            return None;
        }
        let tx_raw = ((word >> 40) & ((1 << TX_BITS) - 1)) as u32;
        // Sign-extend the 22-bit field.
        let tx = ((tx_raw << (32 - TX_BITS)) as i32) >> (32 - TX_BITS);
        Some(BarrierState {
            expected: (word & FIELD) as u32,
            pending: ((word >> 20) & FIELD) as u32,
            tx,
            phase: u32::from(word & PHASE_BIT != 0),
        })
    }

    pub fn encode(self) -> u64 {
        let tx = u64::from(self.tx as u32) & ((1 << TX_BITS) - 1);
        INIT_BIT
            | if self.phase & 1 == 1 { PHASE_BIT } else { 0 }
            | (tx << 40)
            | ((u64::from(self.pending) & FIELD) << 20)
            | (u64::from(self.expected) & FIELD)
    }

    /// Adds `bytes` to the expected transactions (`expect_tx`).
    pub fn expect_tx(mut self, bytes: u32) -> BarrierState {
        self.tx = self.tx.saturating_add(bytes as i32);
        self
    }

    /// One arrival; `None` when the phase has no arrival left to take (more arrivals
    /// than the count). The phase completes (flips) when no arrival and no transaction
    /// byte is missing.
    pub fn arrive(mut self) -> Option<BarrierState> {
        self.pending = self.pending.checked_sub(1)?;
        Some(self.completed())
    }

    /// `bytes` of transactions completed.
    pub fn complete_tx(mut self, bytes: u32) -> BarrierState {
        self.tx = self.tx.saturating_sub(bytes as i32);
        self.completed()
    }

    fn completed(mut self) -> BarrierState {
        if self.pending == 0 && self.tx == 0 {
            self.pending = self.expected;
            self.phase ^= 1;
        }
        self
    }

    /// PTX `try_wait.parity`: the phase of parity `parity` has completed, i.e. the
    /// current phase has the other parity.
    pub fn phase_done(self, parity: u32) -> bool {
        self.phase != parity & 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_phases_complete_on_arrivals_and_bytes() {
        let s = BarrierState::new(3);
        assert_eq!(BarrierState::decode(s.encode()), Some(s));
        assert_eq!(BarrierState::decode(0), None);
        let neg = BarrierState { tx: -5, ..s };
        assert_eq!(BarrierState::decode(neg.encode()), Some(neg));
        // Two of three arrivals: phase 0 still open.
        let s = s.arrive().unwrap().arrive().unwrap();
        assert!(!s.phase_done(0) && s.phase_done(1));
        // The third, with 64 bytes expected: still open until they complete.
        let s = s.expect_tx(64).arrive().unwrap();
        assert_eq!((s.pending, s.tx, s.phase), (0, 64, 0));
        assert_eq!(s.arrive(), None, "a fourth arrival has nothing to take");
        let s = s.complete_tx(32);
        assert!(!s.phase_done(0));
        let s = s.complete_tx(32);
        assert!(s.phase_done(0) && !s.phase_done(1));
        assert_eq!((s.pending, s.tx, s.phase), (3, 0, 1));
    }
}
