//! The instantiations of one generic kernel (`axpy::<f32>`, `axpy::<f64>`): one
//! [`GenericKernels`] static per generic kernel (emitted by `#[kernel]`) maps each
//! instantiation's arguments to its own source and [`KernelCache`], created on its
//! first launch and kept for the process. From there an instantiation is an ordinary
//! kernel: compiled once per device, stored on disk under the key of its own NVVM IR
//! (which differs per instantiation), found in the AOT table the same way.
//!
//! The hot path (every later launch) is a read lock and a scan of a few entries,
//! compared by address first (the launcher's argument list is a constant, so the
//! same call site passes the same slice).

use std::sync::RwLock;

use kernel_device::source::{FnSource, GenericArg};

use crate::compile::cache::KernelCache;

/// Per-generic-kernel table of instantiations. Built only by generated code, as a
/// `static`.
pub struct GenericKernels {
    entries: RwLock<Vec<Instance>>,
}

#[derive(Clone, Copy)]
struct Instance {
    args: &'static [GenericArg],
    source: &'static FnSource,
    cache: &'static KernelCache,
}

impl GenericKernels {
    #[allow(clippy::new_without_default)] // only ever a `static`
    pub const fn new() -> Self {
        GenericKernels {
            entries: RwLock::new(Vec::new()),
        }
    }

    /// The source and cache of `template` instantiated with `args`, made on first use.
    pub fn get(
        &'static self,
        template: &'static FnSource,
        args: &'static [GenericArg],
    ) -> (&'static FnSource, &'static KernelCache) {
        {
            let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
            if let Some(found) = find(&entries, args) {
                return (found.source, found.cache);
            }
        }
        self.insert(template, args)
    }

    #[cold]
    fn insert(
        &'static self,
        template: &'static FnSource,
        args: &'static [GenericArg],
    ) -> (&'static FnSource, &'static KernelCache) {
        let mut entries = self.entries.write().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = find(&entries, args) {
            return (found.source, found.cache);
        }
        // Leaked on purpose: they live as long as the static that owns them.
        let instance = Instance {
            args,
            source: template.instantiate(args),
            cache: Box::leak(Box::new(KernelCache::new())),
        };
        entries.push(instance);
        (instance.source, instance.cache)
    }

    /// The instantiations launched so far, as their argument lists.
    pub fn launched(&self) -> Vec<&'static [GenericArg]> {
        let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
        entries.iter().map(|e| e.args).collect()
    }
}

fn find(entries: &[Instance], args: &[GenericArg]) -> Option<Instance> {
    entries
        .iter()
        .find(|e| std::ptr::eq(e.args, args))
        .or_else(|| entries.iter().find(|e| e.args == args))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_device::ir::ScalarType;
    use kernel_device::source::SourceKind;

    static TEMPLATE: FnSource = FnSource {
        name: "axpy",
        kind: SourceKind::Kernel,
        text: "fn axpy<T: Float>(a: T, x: &[T], y: &mut [T]) {}",
        file: "x.rs",
        line: 1,
        options: kernel_device::ir::FunctionOptions::DEFAULT,
        deps: &[],
        consts: &[],
        structs: &[],
        instance: &[],
    };

    #[test]
    fn one_entry_per_instantiation_equal_slices_share_it() {
        static TABLE: GenericKernels = GenericKernels::new();
        static F32: [GenericArg; 1] = [GenericArg::Type(ScalarType::F32)];
        let f64_args: &'static [GenericArg] =
            Box::leak(Box::new([GenericArg::Type(ScalarType::F64)]));
        let (a, cache_a) = TABLE.get(&TEMPLATE, &F32);
        let (b, cache_b) = TABLE.get(&TEMPLATE, f64_args);
        // The same instantiation from another call site (another slice, equal args).
        let again: &'static [GenericArg] = Box::leak(Box::new([GenericArg::Type(ScalarType::F32)]));
        let (c, cache_c) = TABLE.get(&TEMPLATE, again);
        assert_eq!(a.instance, &F32[..]);
        assert_eq!(b.instance, f64_args);
        assert!(std::ptr::eq(a, c) && std::ptr::eq(cache_a, cache_c));
        assert!(!std::ptr::eq(cache_a, cache_b));
        assert_eq!(a.text, TEMPLATE.text);
        assert_eq!(TABLE.launched().len(), 2);
    }

    /// The bar: a later launch of an instantiation costs under 10 µs more host time
    /// than a non-generic kernel's; this lookup is all it adds. A measurement, not a
    /// test: `cargo test -p kernel-host --release --lib lookup_cost -- --ignored
    /// --nocapture` prints it.
    #[test]
    #[ignore = "a measurement: run with --ignored --nocapture"]
    fn lookup_cost() {
        static TABLE: GenericKernels = GenericKernels::new();
        let args: Vec<&'static [GenericArg]> = [ScalarType::F32, ScalarType::F64, ScalarType::I32]
            .into_iter()
            .map(|t| {
                let args: &'static [GenericArg] =
                    Box::leak(Box::new([GenericArg::Type(t), GenericArg::Const(16)]));
                args
            })
            .collect();
        for a in &args {
            TABLE.get(&TEMPLATE, a);
        }
        let rounds = 200_000;
        let start = std::time::Instant::now();
        for i in 0..rounds {
            let (source, _) = TABLE.get(&TEMPLATE, std::hint::black_box(args[i % 3]));
            std::hint::black_box(source);
        }
        let per = start.elapsed().as_secs_f64() / rounds as f64;
        println!(
            "generic instantiation lookup: {:.1} ns per launch",
            per * 1e9
        );
    }
}
