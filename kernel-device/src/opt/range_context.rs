//! What a read's context tells the value ranges ([`super::ranges`]) beyond its own
//! expression: the block every launch of the module has, and the branch a read sits in.
//!
//! - [`BlockFacts`]: `#[kernel(block_dim = ..)]` fixes the block's shape, and
//!   `launch_bounds = N` its size: the host refuses a larger block before any launch, on
//!   the GPU and the simulator alike (`LaunchConfig::validate`), as the driver refuses
//!   one past `.maxntid`. So `thread_idx().x < N` in every thread, and a warp
//!   specialised kernel's `thread_idx().x / 128` has as many values as it has
//!   warpgroups.
//! - [`lower_bound`] / [`lower_bound_when_false`]: `x` read inside `if x > c { .. }`
//!   is above `c`, and read in the `else` of `if x == 0 { .. } else { .. }` (or of
//!   `x < c`) is at least 1 (`c`). The consumer branch of a warp-specialised kernel is
//!   such an `else`: there `wg - 1` cannot wrap, so its tiles' indices are provable.

use crate::ir::{BinaryOp, ExprKind, Function, Handle, Literal, Local, Module};

/// What every launch of a module's kernels guarantees of its block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockFacts {
    /// The one block shape, when every kernel requires the same (`block_dim`).
    pub dims: Option<[u32; 3]>,
    /// The most threads a block has, when every kernel bounds it (`launch_bounds`).
    pub max_threads: Option<u32>,
}

impl BlockFacts {
    /// A module's facts: its kernels' common `block_dim`, and the largest of their
    /// `launch_bounds` when each has one (a device function runs under any kernel).
    pub fn of_module(module: &Module) -> Self {
        let mut max_threads = Some(0u32);
        let mut any = false;
        for (_, kernel) in module.kernels() {
            any = true;
            let bound = kernel.options.launch_bounds.map(|b| b.max_threads);
            max_threads = max_threads.zip(bound).map(|(a, b)| a.max(b));
        }
        BlockFacts {
            dims: super::ranges::required_block(module),
            max_threads: max_threads.filter(|&m| any && m > 0),
        }
    }

    /// The `[low, high)` of special register `reg` (`tid.x`): CUDA's bound or the
    /// required block's ([`super::ranges::sreg_bounds`]), and below the block's size:
    /// every `tid` is below `max_threads`, every `ntid` at most it.
    pub fn sreg_bounds(&self, reg: &str) -> Option<(i64, i64)> {
        let (low, high) = super::ranges::sreg_bounds(reg, self.dims)?;
        let limit = match (self.max_threads, reg.split('.').next()) {
            (Some(m), Some("tid")) => i64::from(m),
            (Some(m), Some("ntid")) => i64::from(m) + 1,
            _ => return Some((low, high)),
        };
        Some((low, high.min(limit)))
    }
}

/// `(x, c + 1)` when `cond` is `x > c`, `c < x`, `x >= c + 1` or `x != 0` (`c` a literal,
/// `x` an unsigned local): the least value `x` has where `cond` holds.
pub fn lower_bound(func: &Function, cond: Handle<crate::ir::Expr>) -> Option<(Handle<Local>, u64)> {
    let (op, x, c) = local_against_literal(func, cond)?;
    match op {
        BinaryOp::Gt => Some((x, c.checked_add(1)?)),
        BinaryOp::Ge => Some((x, c)),
        BinaryOp::Ne if c == 0 => Some((x, 1)),
        _ => None,
    }
}

/// `(x, c)` when `cond` is `x == 0` (`c` = 1), `x < c` or `x <= c - 1` (`c` a literal, `x`
/// an unsigned local): the least value `x` has where `cond` does not hold.
pub fn lower_bound_when_false(
    func: &Function,
    cond: Handle<crate::ir::Expr>,
) -> Option<(Handle<Local>, u64)> {
    let (op, x, c) = local_against_literal(func, cond)?;
    match op {
        BinaryOp::Lt => Some((x, c)),
        BinaryOp::Le => Some((x, c.checked_add(1)?)),
        BinaryOp::Eq if c == 0 => Some((x, 1)),
        _ => None,
    }
}

/// `cond` as `x op c` with `x` an unsigned local and `c` an integer literal, the
/// comparison turned round when the literal stands first (`c < x` is `x > c`).
fn local_against_literal(
    func: &Function,
    cond: Handle<crate::ir::Expr>,
) -> Option<(BinaryOp, Handle<Local>, u64)> {
    let ExprKind::Binary { op, lhs, rhs } = func.exprs.get(cond)?.kind else {
        return None;
    };
    let local = |h| match func.exprs.get(h)?.kind {
        ExprKind::Local(l) if func.exprs.get(h)?.ty.scalar().is_some_and(is_unsigned) => Some(l),
        _ => None,
    };
    let literal = |h| match func.exprs.get(h)?.kind {
        ExprKind::Literal(Literal::Int(bits)) => Some(bits),
        _ => None,
    };
    if let (Some(x), Some(c)) = (local(lhs), literal(rhs)) {
        return Some((op, x, c));
    }
    let turned = match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Ge => BinaryOp::Le,
        BinaryOp::Eq | BinaryOp::Ne => op,
        _ => return None,
    };
    Some((turned, local(rhs)?, literal(lhs)?))
}

fn is_unsigned(s: crate::ir::ScalarType) -> bool {
    s.is_integer() && !s.is_signed_integer()
}
