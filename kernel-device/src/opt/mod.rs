//! The optimisation stage, between [`crate::valid`] and [`crate::back`]: it takes a
//! validated module and returns what the backends print and run. Today it owns the
//! analyses that decide which bounds checks never fail:
//!
//! - [`ranges`]: value ranges of unsigned expressions, computed once per function
//!   (the NVVM writer reads them to leave out checks that always pass, and to decide
//!   a versioned run's or loop's guard);
//! - [`launch_proof`]: the checks of a kernel that its launch's grid and block prove,
//!   kept as module data ([`Optimised::launch_proofs`]) that the writer prints as a
//!   second copy of the kernel and the host evaluates before each launch.
//!
//! The writers consume an [`Optimised`] module; none of them builds an analysis.

pub mod effects;
pub mod launch_proof;
pub mod ranges;

#[cfg(test)]
mod tests;

use std::collections::HashSet;

use crate::ir::{Expr, Function, FunctionKind, Handle, Module};
use launch_proof::{LaunchProof, LAUNCH_PROVEN_SUFFIX};
use ranges::Ranges;

/// A validated module with what the optimiser decided about it.
pub struct Optimised<'m> {
    pub module: &'m Module,
    /// The block every kernel of the module is launched with (`#[kernel(block_dim =
    /// ..)]`), when they all name the same: `block_dim()` is then a constant and
    /// `thread_idx()` below it, in every function of the module.
    pub block_dim: Option<[u32; 3]>,
    /// The value ranges of each function, in arena order.
    ranges: Vec<Ranges<'m>>,
    /// The kernels that get a copy without the checks their launches prove.
    pub launch_proofs: Vec<ProvenCopy>,
}

/// A kernel's copy without the bounds checks its launches prove.
#[derive(Clone, Debug)]
pub struct ProvenCopy {
    pub kernel: Handle<Function>,
    /// What the host evaluates before a launch to choose the copy.
    pub proof: LaunchProof,
    /// The index expressions whose checks the copy leaves out.
    pub proven: HashSet<Handle<Expr>>,
}

impl<'m> Optimised<'m> {
    /// The value ranges of `function`'s expressions.
    pub fn ranges(&self, function: Handle<Function>) -> &Ranges<'m> {
        &self.ranges[function.index()]
    }

    /// The launch-proven copy of `kernel`, if it has one.
    pub fn proven_copy(&self, kernel: Handle<Function>) -> Option<&ProvenCopy> {
        self.launch_proofs.iter().find(|p| p.kernel == kernel)
    }
}

/// Runs every analysis of the optimiser over `module` (validated), once per function.
pub fn optimise(module: &Module) -> Optimised<'_> {
    let block_dim = ranges::required_block(module);
    let ranges: Vec<Ranges<'_>> = module
        .functions
        .iter()
        .map(|(_, function)| Ranges::new(function, block_dim))
        .collect();
    // A grid-syncing kernel keeps one copy: its co-residency is checked per function.
    let cooperative = module.needs_cooperative_launch();
    let mut launch_proofs = Vec::new();
    for (handle, function) in module.functions.iter() {
        if function.kind != FunctionKind::Kernel || !function.options.bounds_check || cooperative {
            continue;
        }
        let Some((conditions, proven)) = launch_proof::plan(function, &ranges[handle.index()])
        else {
            continue;
        };
        launch_proofs.push(ProvenCopy {
            kernel: handle,
            proof: LaunchProof {
                kernel: function.name.clone(),
                symbol: format!("{}{LAUNCH_PROVEN_SUFFIX}", function.name),
                conditions,
            },
            proven,
        });
    }
    Optimised {
        module,
        block_dim,
        ranges,
        launch_proofs,
    }
}
