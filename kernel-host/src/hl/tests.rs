//! Every kernel the high-level operations write, for every numeric element type,
//! through libnvvm and ptxas for sm_90 as the GPU runtime compiles them (the tests in
//! tests/gpu/hl.rs run them on the simulator, or on a GPU in the bundle).

use kernel_device::source::FnSource;

use super::map::{map_kernel, map_kernel_of};
use super::numeric::{Builtin, Numeric};
use super::reduce::fold_kernel;
use super::scan::{CompactKernels, ScanKernels};
use super::{lookback, lookback_classic, lookback_pipelined, synth};

/// A predicate and a widening map on `t`, as a user's `#[device]` functions would be.
fn user_fns(t: &str) -> (&'static FnSource, &'static FnSource) {
    let keep = synth::device_fn(
        &format!("keep_{t}"),
        format!("fn keep_{t}(x: {t}) -> bool {{ x > (1 as {t}) }}"),
    );
    let widen = synth::device_fn(
        &format!("widen_{t}"),
        format!("fn widen_{t}(x: {t}) -> f64 {{ x as f64 }}"),
    );
    (keep, widen)
}

fn kernels_of<T: Numeric>() -> Vec<synth::Kernel> {
    let t = T::SCALAR.rust_name();
    let (keep, widen) = user_fns(t);
    let mut all = Vec::new();
    for op in [Builtin::Add, Builtin::Mul, Builtin::Min, Builtin::Max] {
        all.push(fold_kernel::<T, T>(None, op.source::<T>()));
    }
    all.push(fold_kernel::<T, f64>(
        Some(widen),
        Builtin::Add.source::<f64>(),
    ));
    let scan = ScanKernels::new::<T>(Builtin::Add.source::<T>());
    all.extend([scan.tiles, scan.carry, scan.down]);
    if lookback::handles::<T>() {
        for exclusive in [false, true] {
            let add = Builtin::Add.source::<T>();
            let items = if std::mem::size_of::<T>() == 4 {
                lookback::GPU_ITEMS_32
            } else {
                lookback::GPU_ITEMS
            };
            all.push(lookback_classic::kernel::<T>(add, items, exclusive));
            all.push(lookback::kernel::<T>(add, lookback::GPU_ITEMS, exclusive));
            if std::mem::size_of::<T>() == 4 {
                all.push(lookback_pipelined::kernel::<T>(
                    add,
                    lookback::GPU_ITEMS,
                    exclusive,
                ));
            }
        }
    }
    let compact = CompactKernels::new(t, keep);
    all.extend([compact.flags, compact.count, compact.scatter]);
    all.push(map_kernel(&[t], "f64", widen));
    all.push(map_kernel(&[t, t], t, Builtin::Max.source::<T>()));
    // A broadcast scalar on either side.
    all.push(map_kernel_of(
        &[(t, true), (t, false)],
        t,
        Builtin::Add.source::<T>(),
    ));
    all.push(map_kernel_of(
        &[(t, false), (t, true)],
        t,
        Builtin::Add.source::<T>(),
    ));
    all
}

#[test]
fn every_kernel_compiles_for_sm_90_without_spills() {
    if crate::compile::libnvvm::shared().is_err() {
        eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
        return;
    }
    let mut kernels = Vec::new();
    kernels.extend(kernels_of::<i8>());
    kernels.extend(kernels_of::<i16>());
    kernels.extend(kernels_of::<i32>());
    kernels.extend(kernels_of::<i64>());
    kernels.extend(kernels_of::<isize>());
    kernels.extend(kernels_of::<u8>());
    kernels.extend(kernels_of::<u16>());
    kernels.extend(kernels_of::<u32>());
    kernels.extend(kernels_of::<u64>());
    kernels.extend(kernels_of::<usize>());
    kernels.extend(kernels_of::<f32>());
    kernels.extend(kernels_of::<f64>());
    let mut failures = Vec::new();
    for kernel in &kernels {
        match crate::compile::inspect::inspect(kernel.source, "compute_90") {
            Ok(inspection) => {
                if let Some(r) = inspection.resources {
                    if r.spill_store_bytes > 0 || r.local_bytes > 0 {
                        failures.push(format!(
                            "{}: spills or local memory: {r:?}",
                            kernel.source.name
                        ));
                    }
                }
            }
            Err(e) => failures.push(format!(
                "{}: {e}\n{}",
                kernel.source.name, kernel.source.text
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn kernels_are_made_once_per_operation_and_type() {
    let a = fold_kernel::<f32, f32>(None, Builtin::Add.source::<f32>());
    let b = fold_kernel::<f32, f32>(None, Builtin::Add.source::<f32>());
    let c = fold_kernel::<f64, f64>(None, Builtin::Add.source::<f64>());
    assert!(std::ptr::eq(a.source, b.source) && std::ptr::eq(a.cache, b.cache));
    assert!(!std::ptr::eq(a.source, c.source));
    assert!(a.source.text.contains("cj_builtin_add_f32(") && a.source.deps.len() == 1);
}

/// The single-pass f32 scan's resources for sm_90 (printed, and the default's PTX
/// written to `$CUDAJIT_DUMP_SCAN_PTX` when set): registers decide how many tiles an SM
/// keeps in flight, which is what hides the look-back's waits. Every tile size the
/// benchmark tries fits eight blocks per SM without spills.
#[test]
fn lookback_scan_keeps_eight_blocks_per_sm() {
    if crate::compile::libnvvm::shared().is_err() {
        eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
        return;
    }
    let add = Builtin::Add.source::<f32>();
    // Layout 1: eight blocks per SM (32 registers); the classic kernel (no launch
    // bounds) at the tile sizes the benchmark tries.
    let layout1 = |items| lookback::kernel::<f32>(add, items, false);
    let cases = [
        (layout1(lookback::GPU_ITEMS), 32),
        (layout1(8), 32),
        (layout1(12), 32),
        (layout1(24), 32),
        (
            lookback_classic::kernel::<f32>(add, lookback::GPU_ITEMS, false),
            32,
        ),
        (lookback_classic::kernel::<f32>(add, 24, false), 32),
        (lookback_classic::kernel::<f32>(add, 28, false), 40),
        (lookback_classic::kernel::<f32>(add, 32, false), 40),
        (
            lookback_classic::kernel::<f64>(Builtin::Add.source::<f64>(), 20, false),
            40,
        ),
    ];
    for (kernel, registers) in cases {
        let inspection = crate::compile::inspect::inspect(kernel.source, "compute_90").unwrap();
        if let Ok(path) = std::env::var("CUDAJIT_DUMP_SCAN_PTX") {
            std::fs::write(format!("{path}.{}", kernel.source.name), &inspection.ptx).unwrap();
        }
        let Some(r) = inspection.resources else {
            eprintln!("skipped: no ptxas to count registers");
            return;
        };
        eprintln!("{}: {r:?}", kernel.source.name);
        assert!(
            r.registers_per_thread <= registers && r.local_bytes == 0 && r.spill_store_bytes == 0,
            "{}: {r:?}",
            kernel.source.name
        );
    }
    // The pipelined kernel: two tile buffers, six blocks per SM (40 registers).
    let kernel = lookback_pipelined::kernel::<f32>(add, lookback::GPU_ITEMS, false);
    let inspection = crate::compile::inspect::inspect(kernel.source, "compute_90").unwrap();
    if let Ok(path) = std::env::var("CUDAJIT_DUMP_SCAN_PTX") {
        std::fs::write(format!("{path}.pipelined"), &inspection.ptx).unwrap();
    }
    if let Some(r) = inspection.resources {
        eprintln!("{}: {r:?}", kernel.source.name);
        assert!(
            r.registers_per_thread <= 40
                && r.local_bytes == 0
                && r.spill_store_bytes == 0
                && r.shared_bytes <= 48 * 1024,
            "{r:?}"
        );
    }
}

/// The reduction kernels over a `#[derive(DeviceCopy)]` struct (an argmax's value and
/// index, kept in shared memory field by field) and with an indexed map compile for
/// sm_90 without spills. The struct item and the user's functions are written here as
/// the macros would embed them.
#[test]
fn struct_reductions_compile_for_sm_90() {
    use super::reduce::{fold_kernel_of, ElemText, MapForm};
    use kernel_device::ir::layout::{StructDef, StructField};
    use kernel_device::ir::{ScalarType, Type};
    use kernel_device::source::StructItem;
    use std::sync::Arc;

    if crate::compile::libnvvm::shared().is_err() {
        eprintln!("skipped: no libnvvm (set CUDAJIT_NVVM_PATH)");
        return;
    }
    fn pair() -> Type {
        let field = |name: &str, s| StructField {
            name: name.into(),
            ty: Type::Scalar(s),
        };
        Type::Struct(Arc::new(StructDef {
            name: "ValueIndex".into(),
            fields: vec![
                field("value", ScalarType::F32),
                field("index", ScalarType::U32),
            ],
        }))
    }
    static STRUCTS: [StructItem; 1] = [StructItem {
        name: "ValueIndex",
        def: &pair,
        enum_def: &|| None,
    }];
    let user_fn = |name: &'static str, text: &'static str| -> &'static FnSource {
        Box::leak(Box::new(FnSource {
            name,
            kind: kernel_device::source::SourceKind::Device,
            text,
            file: "hl/tests.rs",
            line: 1,
            options: kernel_device::ir::FunctionOptions::DEFAULT,
            deps: &[],
            consts: &[],
            instance: &[],
            structs: &STRUCTS,
        }))
    };
    let tag = user_fn(
        "tag",
        "fn tag(i: usize, x: f32) -> ValueIndex { ValueIndex { value: x, index: i as u32 } }",
    );
    let larger = user_fn(
        "larger",
        "fn larger(a: ValueIndex, b: ValueIndex) -> ValueIndex { \
         if b.value > a.value || (b.value == a.value && b.index < a.index) { b } else { a } }",
    );
    let elem = ElemText {
        name: "ValueIndex".into(),
        fields: Some(vec![("value".into(), "f32"), ("index".into(), "u32")]),
        structs: &STRUCTS,
    };
    let kernels = [
        fold_kernel_of("f32", &elem, Some((tag, MapForm::Indexed)), larger),
        fold_kernel_of("ValueIndex", &elem, None, larger),
    ];
    for kernel in kernels {
        let inspection = crate::compile::inspect::inspect(kernel.source, "compute_90")
            .unwrap_or_else(|e| panic!("{e}\n{}", kernel.source.text));
        if let Some(r) = inspection.resources {
            assert!(r.spill_store_bytes == 0 && r.local_bytes == 0, "{r:?}");
        }
    }
}
