//! Kernels compiled ahead of their first launch (by `crate::compile::while_opening`,
//! while a GPU's context is created), kept until a first launch takes them
//! (`crate::compile::jit::load`): a module held as a library, which any context of a GPU
//! of the same compute capability takes without compiling.

use std::sync::Mutex;

use kernel_device::source::FnSource;
use kernel_device::CompiledUnit;

use crate::compile::disk::PendingEntry;
use crate::compile::libnvvm;
use crate::compile::loaded::Library;

/// A kernel's whole module compiled ahead, until a first launch takes it.
pub(crate) struct Prepared {
    pub(crate) ptx: String,
    pub(crate) unit: CompiledUnit,
    /// Its place in the disk cache, when libnvvm compiled it (stored once a launch
    /// takes it).
    pub(crate) disk_entry: Option<PendingEntry>,
    pub(crate) library: Library,
}

struct Entry {
    source: &'static FnSource,
    capability: (u32, u32),
    options: libnvvm::Options,
    prepared: Prepared,
}

static PREPARED: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Keeps `prepared`, compiled from `source` with `options` for a GPU of `capability`.
pub(crate) fn keep(
    source: &'static FnSource,
    capability: (u32, u32),
    options: libnvvm::Options,
    prepared: Prepared,
) {
    PREPARED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Entry {
            source,
            capability,
            options,
            prepared,
        });
}

/// `source`'s kernel compiled ahead for a GPU of `capability`, if it was and the
/// options a compile would use now are the ones it was compiled with (the environment
/// may have changed them since); taken, so that one launch uses it.
pub(crate) fn take(source: &'static FnSource, capability: (u32, u32)) -> Option<Prepared> {
    let mut prepared = PREPARED.lock().unwrap_or_else(|p| p.into_inner());
    let at = prepared
        .iter()
        .position(|entry| std::ptr::eq(entry.source, source) && entry.capability == capability)?;
    let entry = prepared.swap_remove(at);
    drop(prepared);
    let arch =
        kernel_device::proc::target::choose_arch(&entry.prepared.unit.target_needs, capability);
    let current = arch.map(|arch| crate::compile::lower::runtime_options(source, arch));
    (current.as_ref() == Ok(&entry.options)).then_some(entry.prepared)
}
