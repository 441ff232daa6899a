//! Compilation units: a kernel's [`FnSource`] with every device function it reaches.
//! Gathering one reads each source's text for the methods it calls, which is the
//! front end's work, so `FnSource::unit` is defined here rather than in `source`.

use super::methods::method_calls;
use crate::source::{registry, FnSource};

impl FnSource {
    /// This function and every device function it reaches, each once, the root first.
    /// Cycles (recursion) are tolerated here and rejected by the validator. A method a
    /// caller looked for on a struct without one (`FnSource::NOT_A_DEVICE_FUNCTION`,
    /// empty) is left out. The methods of `#[device] impl` blocks the unit calls come
    /// after what the deps reach ([`complete`]).
    pub fn unit(&'static self) -> Vec<&'static FnSource> {
        complete(vec![self], &registry::linked())
    }
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
