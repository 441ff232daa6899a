//! Lanes of one warp that make progress independently, as Volta's independent thread
//! scheduling lets them: when some lanes of a warp have left a loop and wait for the
//! others to reconverge while those others spin without anything changing (a per-lane
//! spin lock whose holder waits outside the loop to release it), the spinning lanes
//! are parked, the lanes that left run the rest of the enclosing block first, and the
//! parked lanes then run the loop again and the rest after it.
//!
//! Any order of diverged paths is one the GPU may run, so parking never invents a
//! behaviour; it only happens when the loop provably came back to the same state
//! (same frame, no memory changed by scheduled warps) [`SPLIT_CHECK`] iterations
//! apart, so loops that merely differ in trip count between lanes stay in lockstep.
//! The split lasts to the end of the enclosing block: a barrier or warp collective
//! there finds the warp's lanes apart (reported as divergence, where the GPU's
//! compiler would have reconverged them first).

use super::fault::R;
use super::warp::{Frame, Warp};
use crate::ir::{Block, ExprKind, Stmt};

/// Loop iterations between two looks at whether the spinning lanes' state changed.
pub const SPLIT_CHECK: u32 = 8;

/// One loop's record for [`Warp::should_park`].
#[derive(Default)]
pub struct SplitCheck {
    iterations: u32,
    last: Option<(u64, u64)>,
}

impl Warp<'_, '_> {
    /// Runs `block` from statement `start` for the lanes of `mask` (its tail too);
    /// returns the lanes that reached its end.
    pub fn exec_from(&mut self, fr: &mut Frame, block: &Block, start: usize, mask: u32) -> R<u32> {
        let mut mask = mask;
        for (k, stmt) in block.stmts.iter().enumerate().skip(start) {
            if mask == 0 {
                return Ok(0);
            }
            self.park_ok = self.parkable(fr, stmt);
            mask = self.exec_stmt(fr, stmt, mask)?;
            self.park_ok = false;
            if self.parked != 0 {
                let parked = std::mem::take(&mut self.parked) & !self.panicked;
                let ahead = self.exec_from(fr, block, k + 1, mask)?;
                let behind = self.exec_from(fr, block, k, parked)?;
                return Ok(ahead | behind);
            }
        }
        if let Some(tail) = block.tail {
            if mask != 0 {
                mask = self.eval(fr, tail, mask)?;
            }
        }
        Ok(mask)
    }

    /// Whether `stmt` is a loop that may split its lanes: a `while`, or a `loop` as a
    /// statement of its own (running it again for some lanes re-runs nothing else).
    fn parkable(&self, fr: &Frame, stmt: &Stmt) -> bool {
        match stmt {
            Stmt::While { .. } => true,
            Stmt::Expr(e) => matches!(self.func(fr.func).exprs[*e].kind, ExprKind::Loop { .. }),
            _ => false,
        }
    }

    /// At a loop's back-edge: whether the lanes of `live` (going round again) should
    /// be parked because lanes in `left` left the loop and wait for them while they
    /// spin without progress.
    pub fn should_park(&self, fr: &Frame, check: &mut SplitCheck, live: u32, left: u32) -> bool {
        if left == 0 || live == 0 {
            check.iterations = 0;
            return false;
        }
        check.iterations += 1;
        if !check.iterations.is_multiple_of(SPLIT_CHECK) {
            return false;
        }
        let now = (
            self.frame_hash(fr, live),
            self.launch.epoch.load(std::sync::atomic::Ordering::Relaxed),
        );
        let same = check.last == Some(now);
        check.last = Some(now);
        same
    }
}
