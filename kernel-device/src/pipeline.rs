//! The stages glued together: a kernel's `FnSource` → NVVM IR text ready for libnvvm.

use crate::back::nvvm as nvvm_back;
use crate::source::FnSource;
use crate::{front, ir, opt, valid};

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The source is outside the subset or ill-typed. The macro normally catches this
    /// at `cargo check`; here it can still happen across items (a device function's
    /// signature seen only now).
    #[error("{}", join_lines(.0))]
    Front(Vec<front::SourceError>),
    #[error("{}", join_lines(.0))]
    Valid(Vec<valid::ValidationError>),
    #[error(transparent)]
    Back(#[from] nvvm_back::Error),
}

fn join_lines<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the runtime needs to load and launch one kernel.
#[derive(Clone, Debug)]
pub struct CompiledUnit {
    pub kernel_name: String,
    /// The NVVM IR module (kernel + reachable device functions).
    pub nvvm_ir: String,
    /// Where each device-side panic id came from.
    pub panic_sites: Vec<nvvm_back::PanicSite>,
    /// The kernel's parameter types, in order (slices become pointer + length).
    pub params: Vec<ir::Type>,
    /// The kernel (or a device function it reaches) calls `grid_sync()`: it must be
    /// launched with `cuLaunchCooperativeKernel`, all blocks co-resident.
    pub cooperative: bool,
    /// The kernel's copy without the bounds checks a launch can prove, and the
    /// conditions under which the host launches it instead.
    pub launch_proof: Option<nvvm_back::launch_proof::LaunchProof>,
    // print
    /// The unit's print formats: the host decodes the print buffer with them.
    pub prints: crate::ir::format::FormatTable,
    // Hopper
    /// What the unit's features ask of the target (`proc::target::choose_arch`
    /// picks the libnvvm architecture from them, `compute_90a` where one is sm_90a's).
    pub target_needs: Vec<crate::proc::target::TargetNeed>,
}

/// Parses, type-checks, validates and optimises a kernel and every device function it
/// reaches: the module every backend consumes (the simulator runs this one).
pub fn lower_unit(kernel: &'static FnSource) -> Result<ir::Module, CompileError> {
    Ok(optimised_unit(kernel)?.module)
}

/// [`lower_unit`]'s module with what the optimiser planned for the writer: written
/// by [`write_unit`] as many times as a caller needs IR for (the runtime writes the
/// caches' key IR and the target's from one front-end run).
pub fn optimised_unit(kernel: &'static FnSource) -> Result<opt::Optimised, CompileError> {
    let module = front::lower_sources(&kernel.unit()).map_err(CompileError::Front)?;
    valid::validate(&module).map_err(CompileError::Valid)?;
    Ok(opt::optimise(module))
}

/// Lowers a kernel's compilation unit all the way to NVVM IR text.
pub fn nvvm_ir_for_kernel(
    kernel: &'static FnSource,
    options: &nvvm_back::Options,
) -> Result<CompiledUnit, CompileError> {
    write_unit(kernel, &optimised_unit(kernel)?, options)
}

/// `kernel`'s unit, optimised by [`optimised_unit`], written as NVVM IR with `options`.
pub fn write_unit(
    kernel: &'static FnSource,
    optimised: &opt::Optimised,
    options: &nvvm_back::Options,
) -> Result<CompiledUnit, CompileError> {
    let output = nvvm_back::write_optimised(optimised, options)?;
    let module = &optimised.module;
    let params = module.param_types(kernel.name);
    let launch_proof = output
        .launch_proofs
        .into_iter()
        .find(|p| p.kernel == kernel.name);
    Ok(CompiledUnit {
        kernel_name: kernel.name.to_string(),
        nvvm_ir: output.text,
        panic_sites: output.panic_sites,
        launch_proof,
        params,
        cooperative: module.needs_cooperative_launch(),
        prints: module.prints.clone(),
        // Hopper (and, chained, Hopper: wgmma)
        target_needs: crate::proc::mbarrier::module_needs(module)
            .into_iter()
            .chain(crate::proc::wgmma::module_needs(module))
            // Hopper: TMA
            .chain(crate::proc::tma_intrinsics::module_needs(module))
            // Hopper: clusters
            .chain(crate::proc::cluster::module_needs(module))
            .collect(),
    })
}
