//! The optimisation stage, between [`crate::valid`] and [`crate::back`]: it takes a
//! validated module and returns the module every backend consumes, the simulator
//! included, with what it decided:
//!
//! - [`ranges`]: value ranges of unsigned expressions, computed once per function
//!   ([`Optimised::ranges`]);
//! - [`elide`]: the indices into arrays that the ranges prove in bounds, recorded in the
//!   IR ([`crate::ir::Function::unchecked_indices`]) so that no backend checks them;
//! - [`launch_proof`]: the checks of a kernel that its launch's grid and block prove,
//!   kept as module data ([`Optimised::launch_proofs`]) that the writer prints as a
//!   second copy of the kernel and the host evaluates before each launch;
//! - [`check_plan`]: which checks of a straight-line run or a loop a guard can decide
//!   up front (the NVVM writer still asks it while writing, run by run: the next step
//!   is to record its plans in the IR as versioned statements);
//! - [`effects`]: what the optimiser may do with an intrinsic call, from the intrinsic
//!   table's `Effect` column.

pub mod check_plan;
pub mod effects;
pub mod elide;
pub mod launch_proof;
pub mod ranges;

#[cfg(test)]
mod tests;

use std::collections::HashSet;

use crate::ir::{Expr, Function, FunctionKind, Handle, Module};
use launch_proof::{LaunchProof, LAUNCH_PROVEN_SUFFIX};
use ranges::{RangeFacts, Ranges};

/// A validated module, optimised, with what the optimiser learned about it.
pub struct Optimised {
    /// The optimised module: what every backend consumes.
    pub module: Module,
    /// The block every kernel of the module is launched with (`#[kernel(block_dim =
    /// ..)]`), when they all name the same: `block_dim()` is then a constant and
    /// `thread_idx()` below it, in every function of the module.
    pub block_dim: Option<[u32; 3]>,
    /// The value ranges of each function, in arena order.
    ranges: Vec<RangeFacts>,
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

impl Optimised {
    /// The value ranges of `function`'s expressions.
    pub fn ranges(&self, function: Handle<Function>) -> Ranges<'_> {
        self.ranges[function.index()].of(&self.module.functions[function])
    }

    /// The launch-proven copy of `kernel`, if it has one.
    pub fn proven_copy(&self, kernel: Handle<Function>) -> Option<&ProvenCopy> {
        self.launch_proofs.iter().find(|p| p.kernel == kernel)
    }
}

/// Optimises `module` (validated): every analysis runs once per function.
pub fn optimise(mut module: Module) -> Optimised {
    let block_dim = ranges::required_block(&module);
    let facts: Vec<RangeFacts> = module
        .functions
        .iter()
        .map(|(_, function)| RangeFacts::new(function, block_dim))
        .collect();
    // Decided with the module as it came (the facts' memo is keyed by expression
    // handles, which marking checks does not change), then recorded in it.
    let elided: Vec<HashSet<Handle<Expr>>> = module
        .functions
        .iter()
        .map(|(h, function)| {
            elide::proven_array_indices(&module, function, facts[h.index()].of(function))
        })
        .collect();
    let handles: Vec<Handle<Function>> = module.functions.iter().map(|(h, _)| h).collect();
    for (handle, indices) in handles.into_iter().zip(elided) {
        module.functions[handle].unchecked_indices.extend(indices);
    }
    let launch_proofs = plan_launch_proofs(&module, &facts);
    Optimised {
        module,
        block_dim,
        ranges: facts,
        launch_proofs,
    }
}

fn plan_launch_proofs(module: &Module, facts: &[RangeFacts]) -> Vec<ProvenCopy> {
    // A grid-syncing kernel keeps one copy: its co-residency is checked per function.
    if module.needs_cooperative_launch() {
        return Vec::new();
    }
    let mut launch_proofs = Vec::new();
    for (handle, function) in module.functions.iter() {
        if function.kind != FunctionKind::Kernel || !function.options.bounds_check {
            continue;
        }
        let ranges = facts[handle.index()].of(function);
        let Some((conditions, proven)) = launch_proof::plan(function, &ranges) else {
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
    launch_proofs
}
