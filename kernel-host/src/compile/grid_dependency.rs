//! Which loaded modules have kernels that begin by waiting for the grids they depend
//! on (`griddepcontrol.wait`, the NVVM writer's kernel prologue on sm_90 and later:
//! `kernel_device::back::nvvm::prologue`). Only such a kernel may run as a
//! programmatic dependent of the kernel before it, whose launch overlaps that kernel's
//! end (`crate::launch::graph`): the wait is what keeps its memory accesses after the
//! earlier kernel's. PTX from anywhere (AOT, an older disk cache entry, another
//! target) is judged by what it holds, not by how it was made.

use std::collections::BTreeSet;
use std::sync::Mutex;

use cudarc::driver::sys;

/// The modules (`CUmodule` addresses) whose every kernel waits, while loaded.
static WAITING_MODULES: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

fn modules() -> std::sync::MutexGuard<'static, BTreeSet<usize>> {
    WAITING_MODULES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether every kernel of `ptx` waits for its prerequisite grids before its first
/// instruction that touches memory: as many waits as entries (the writer puts one at
/// the top of each kernel and nowhere else).
pub(crate) fn every_kernel_waits(ptx: &str) -> bool {
    let mut entries = 0usize;
    let mut waits = 0usize;
    for line in ptx.lines().map(str::trim_start) {
        if line.starts_with(".visible .entry ") || line.starts_with(".entry ") {
            entries += 1;
        } else if line.starts_with("griddepcontrol.wait") {
            waits += 1;
        }
    }
    entries > 0 && waits == entries
}

/// Notes a module just loaded from `ptx`.
pub(crate) fn note_loaded(module: sys::CUmodule, ptx: &str) {
    if every_kernel_waits(ptx) {
        modules().insert(module as usize);
    }
}

/// Forgets a module about to be unloaded (its address may be reused).
pub(crate) fn note_unloaded(module: sys::CUmodule) {
    modules().remove(&(module as usize));
}

/// Whether `function` belongs to a loaded module whose kernels wait.
pub(crate) fn waits_for_prerequisite_grids(function: sys::CUfunction) -> bool {
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local; the driver checks the handle.
    let found = unsafe { sys::cuFuncGetModule(&mut module, function) };
    found == sys::CUresult::CUDA_SUCCESS && modules().contains(&(module as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_waits_when_each_of_its_entries_does() {
        let entry = |name: &str, wait: bool| {
            format!(
                ".visible .entry {name}(\n\t.param .u64 p\n)\n{{\n{}\tret;\n}}\n",
                if wait { "\tgriddepcontrol.wait;\n" } else { "" }
            )
        };
        let head = ".version 9.0\n.target sm_90\n.address_size 64\n";
        let both = format!("{head}{}{}", entry("k", true), entry("k_copy", true));
        let one = format!("{head}{}{}", entry("k", true), entry("k_copy", false));
        assert!(every_kernel_waits(&both));
        assert!(!every_kernel_waits(&one));
        assert!(!every_kernel_waits(&format!("{head}{}", entry("k", false))));
        assert!(!every_kernel_waits(head));
    }

    /// The real writer's PTX: a kernel lowered for compute_90 waits, one lowered
    /// without a target does not (libnvvm where installed).
    #[test]
    fn the_writers_sm_90_kernels_wait() {
        use kernel_device::back::nvvm::Options;
        // The bench's checked `vecadd` (`compile_cost`).
        let source = &crate::compile::compile_cost::CHECKED;
        let Ok(nvvm) = crate::compile::libnvvm::shared() else {
            eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
            return;
        };
        let ptx_for = |arch: Option<u32>| {
            let options = Options {
                ir_version: nvvm.ir_version(),
                arch,
                ..Options::default()
            };
            let unit = crate::compile::lower::lower(source, &options).unwrap();
            let runtime = crate::compile::lower::runtime_options(source, "compute_90".into());
            nvvm.compile(&unit.nvvm_ir, &runtime).unwrap()
        };
        let sm90 = ptx_for(Some(90));
        assert!(every_kernel_waits(&sm90), "{sm90}");
        assert!(!every_kernel_waits(&ptx_for(None)));
    }
}
