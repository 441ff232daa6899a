//! The optimisation stage, between [`crate::valid`] and [`crate::back`]: it takes a
//! validated module and returns the module every backend consumes, the simulator
//! included, with what it decided:
//!
//! - [`loop_remainders`]: `kt % 3` of a loop variable kept as a counter that steps
//!   with the loop (a pipeline's stage), first, so every later stage sees plain locals;
//! - [`ranges`]: value ranges of unsigned expressions, computed once per function
//!   ([`Optimised::ranges`]), with what the launch's block and a read's branch tell
//!   ([`range_context`]);
//! - [`elide`]: the indices into arrays that the ranges prove in bounds, recorded in the
//!   IR ([`crate::ir::Function::unchecked_indices`]) so that no backend checks them;
//! - [`launch_proof`]: the checks of a kernel that its launch's grid and block prove,
//!   kept as module data ([`Optimised::launch_proofs`]) that the writer prints as a
//!   second copy of the kernel and the host evaluates before each launch;
//! - [`check_plan`]: which checks of a straight-line run or a loop a guard can decide
//!   up front, and which indices a loop's end proves ([`check_plan::indices_below_loop_end`],
//!   recorded in `unchecked_indices`);
//! - [`version`]: those plans built into the IR as versioned statements (a guard, a fast
//!   copy, the code as written), with the loops' unroll hints ([`unroll`]);
//! - [`prefetch`]: which `if`s the NVVM writer writes as predicated loads;
//! - [`align`]: which terms of a `cp_async` index leave its alignment alone, so that
//!   the writer tests only the others;
//! - [`terms`]: the one splitter of an index into its additive terms, read by `align`
//!   and by the NVVM writer's shared tile addresses;
//! - [`effects`]: what the optimiser may do with an intrinsic call, from the intrinsic
//!   table's `Effect` column.

pub mod align;
pub mod check_plan;
pub mod effects;
pub mod elide;
pub mod launch_proof;
pub mod loop_remainders;
pub mod prefetch;
pub mod range_context;
pub mod ranges;
pub mod terms;
pub mod unroll;
pub mod version;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_align;
#[cfg(test)]
mod tests_copy_guard;
#[cfg(test)]
mod tests_epilogue;
#[cfg(test)]
mod tests_merge;
#[cfg(test)]
mod tests_range_context;
#[cfg(test)]
mod tests_remainders;
#[cfg(test)]
mod tests_tiles;
#[cfg(test)]
mod tests_u32_bound;
#[cfg(test)]
mod tests_version;

use std::collections::HashSet;

use crate::ir::{Expr, Function, FunctionKind, Handle, Module, Stmt};
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
pub struct ProvenCopy {
    pub kernel: Handle<Function>,
    /// What the host evaluates before a launch to choose the copy.
    pub proof: LaunchProof,
    /// The index expressions (of the kernel) whose checks the copy leaves out.
    pub proven: HashSet<Handle<Expr>>,
    /// The copy, optimised: the kernel with the proven indices unchecked.
    pub function: Function,
    /// The copy's value ranges.
    ranges: RangeFacts,
}

impl std::fmt::Debug for ProvenCopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProvenCopy")
            .field("kernel", &self.kernel)
            .field("proof", &self.proof)
            .field("proven", &self.proven)
            .finish_non_exhaustive()
    }
}

impl ProvenCopy {
    pub fn ranges(&self) -> Ranges<'_> {
        self.ranges.of(&self.function)
    }
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
    let block = range_context::BlockFacts::of_module(&module);
    let block_dim = block.dims;
    let handles: Vec<Handle<Function>> = module.functions.iter().map(|(h, _)| h).collect();
    for handle in &handles {
        loop_remainders::rewrite(&mut module.functions[*handle], block_dim);
    }
    let facts: Vec<RangeFacts> = module
        .functions
        .iter()
        .map(|(_, function)| RangeFacts::for_block(function, block))
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
    for (handle, indices) in handles.iter().zip(elided) {
        module.functions[*handle].unchecked_indices.extend(indices);
    }
    let planned = plan_launch_proofs(&module, &facts);
    // Indices a loop's end proves: unchecked, and planned by no guard.
    let loop_ends: Vec<HashSet<Handle<Expr>>> = handles
        .iter()
        .map(|h| indices_below_loop_ends(&module.functions[*h]))
        .collect();
    for (handle, indices) in handles.iter().zip(&loop_ends) {
        module.functions[*handle]
            .unchecked_indices
            .extend(indices.iter().copied());
    }
    let unversioned = module.clone();
    let mut launch_proofs = Vec::new();
    for (kernel, proof, proven) in planned {
        let mut function = unversioned.functions[kernel].clone();
        function.unchecked_indices.extend(proven.iter().copied());
        let ranges = facts[kernel.index()].clone();
        let decided = proven.union(&loop_ends[kernel.index()]).copied().collect();
        version::version_function(&unversioned, &ranges, &mut function, decided);
        launch_proofs.push(ProvenCopy {
            kernel,
            proof,
            proven,
            function,
            ranges,
        });
    }
    for (handle, decided) in handles.into_iter().zip(loop_ends) {
        let function = &mut module.functions[handle];
        version::version_function(&unversioned, &facts[handle.index()], function, decided);
    }
    Optimised {
        module,
        block_dim,
        ranges: facts,
        launch_proofs,
    }
}

/// The indices that the end of a `for` loop of `func` proves in bounds (see
/// [`check_plan::indices_below_loop_end`]).
fn indices_below_loop_ends(func: &Function) -> HashSet<Handle<Expr>> {
    let mut proven = HashSet::new();
    crate::ir::visit::stmts_in_function(func, &mut |stmt| {
        if let Stmt::ForRange {
            var,
            end,
            inclusive,
            body,
            ..
        } = stmt
        {
            proven.extend(check_plan::indices_below_loop_end(
                func, *var, *end, *inclusive, body,
            ));
        }
    });
    proven
}

type PlannedProof = (Handle<Function>, LaunchProof, HashSet<Handle<Expr>>);

fn plan_launch_proofs(module: &Module, facts: &[RangeFacts]) -> Vec<PlannedProof> {
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
        let proof = LaunchProof {
            kernel: function.name.clone(),
            symbol: format!("{}{LAUNCH_PROVEN_SUFFIX}", function.name),
            conditions,
        };
        launch_proofs.push((handle, proof, proven));
    }
    launch_proofs
}
