//! `#[device]` methods found without their type named in the caller. A caller's
//! macro finds a method only through the struct types its body names
//! (`callees::method_probes` in kernel-macros): `let p = ps[i]; p.energy()` works when
//! `Particle` is named (a parameter type counts), but not on a value returned by a
//! device fn of another module or on a field whose type only the struct definition
//! names. The method's own macro cannot register it (an `impl` block holds only
//! associated items, and an item nested in one cannot name `Self`), so
//! `#[device] impl Particle { .. }` does: each of its methods is submitted here at
//! link time, keyed by its source (which lists its type as `Self`), and every
//! compilation unit takes the registered methods it calls ([`complete`]).

use super::FnSource;
use crate::front::methods::method_calls;

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

/// `unit` (its root first) with every device function it reaches, breadth-first over
/// the sources' deps, then each registered method whose name the unit calls
/// (`x.name(..)` or `T::name(..)`) and its own callees, until nothing is added.
/// Registered methods come in a fixed order (name, file, line), so the ahead-of-time
/// build (`offline`, with the scanned file's blocks as `registered`) writes the same
/// unit as the run time. A method whose type the call does not reach only adds an
/// unused function: the frontend picks by the receiver's type.
pub fn complete(
    mut unit: Vec<&'static FnSource>,
    registered: &[&'static FnSource],
) -> Vec<&'static FnSource> {
    let mut next = 0;
    let mut called_from = 0;
    let mut called: Vec<String> = Vec::new();
    loop {
        while next < unit.len() {
            for dep in unit[next].deps {
                if dep.text.is_empty() {
                    continue;
                }
                if !unit.iter().any(|s| s.same_definition(dep)) {
                    unit.push(dep);
                }
            }
            next += 1;
        }
        if registered.is_empty() {
            return unit;
        }
        for source in &unit[called_from..] {
            called.extend(called_names(source));
        }
        called_from = unit.len();
        let mut added: Vec<&'static FnSource> = registered
            .iter()
            .copied()
            .filter(|m| called.iter().any(|n| n == m.name))
            // By place: the same method scanned from its file (`offline`) and
            // registered by its macro render their text differently.
            .filter(|m| !unit.iter().any(|s| same_place(s, m)))
            .collect();
        if added.is_empty() {
            return unit;
        }
        added.sort_by(|a, b| (a.name, a.file, a.line).cmp(&(b.name, b.file, b.line)));
        added.dedup_by(|a, b| same_place(a, b));
        unit.extend(added);
    }
}

fn same_place(a: &FnSource, b: &FnSource) -> bool {
    a.name == b.name && a.file == b.file && a.line == b.line && a.instance == b.instance
}

/// The method names `source` calls, as `x.name(..)` or `T::name(..)`.
fn called_names(source: &FnSource) -> Vec<String> {
    let Ok(item) = syn::parse_str::<syn::ItemFn>(source.text) else {
        return Vec::new();
    };
    let calls = method_calls(&item);
    calls
        .names
        .iter()
        .chain(calls.paths.iter().map(|(_, n)| n))
        .map(|n| n.to_string())
        .collect()
}
