//! `#[device]` methods found without their type named in the caller. A caller's
//! macro finds a method only through the struct types its body names
//! (`callees::method_probes` in kernel-macros): `let p = ps[i]; p.energy()` works when
//! `Particle` is named (a parameter type counts), but not on a value returned by a
//! device fn of another module or on a field whose type only the struct definition
//! names. The method's own macro cannot register it (an `impl` block holds only
//! associated items, and an item nested in one cannot name `Self`), so
//! `#[device] impl Particle { .. }` does: each of its methods is submitted here at
//! link time, keyed by its source (which lists its type as `Self`), and every
//! compilation unit takes the registered methods it calls (`front::unit::complete`,
//! which reads the method calls in each source's text).

use super::FnSource;

/// One method of a `#[device] impl` block (generated code only).
pub struct DeviceMethodEntry {
    pub source: &'static FnSource,
}

inventory::collect!(DeviceMethodEntry);

/// Every method the program's `#[device] impl` blocks registered.
pub fn linked() -> Vec<&'static FnSource> {
    inventory::iter::<DeviceMethodEntry>
        .into_iter()
        .map(|e| e.source)
        .collect()
}
