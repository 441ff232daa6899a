//! Issue 7 in PTX: what libnvvm makes of exact float code (needs the toolchain; see
//! `common::toolchain`). The IR side is in the `fidelity` snapshot.

mod common;

use kernel_device::back::nvvm::Options;
use kernel_device::nvvm::CompileOptions;
use kernel_device::nvvm_ir_for_kernel;
use kernel_device::offline;

const FILE: &str = "tests/in/fidelity.rs";

fn kernel_ir(name: &str) -> String {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/in/fidelity.rs"))
            .unwrap();
    let found = offline::scan(&text, FILE).unwrap();
    let index = found
        .iter()
        .position(|f| f.item.sig.ident == name)
        .expect("kernel");
    let source = offline::kernel_source(index, &found).unwrap();
    nvvm_ir_for_kernel(source, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .nvvm_ir
}

/// How many times the kernel's body is written: once per kernel definition (the kernel,
/// and its copy without the checks a launch proves, if it has one), twice in one where
/// the NVVM writer versions its straight-line code for bounds checks (a fast copy and
/// a checked copy).
fn copies(ir: &str) -> usize {
    ir.split("\ndefine ")
        .skip(1)
        .filter(|f| f.starts_with("void @"))
        .map(|f| if f.contains("run.checked:") { 2 } else { 1 })
        .sum()
}

/// Lines of the PTX body that are `op` instructions (`fma.rn.f32`, ...).
fn count(ptx: &str, op: &str) -> usize {
    ptx.lines()
        .filter(|l| l.trim_start().starts_with(op))
        .count()
}

#[test]
fn multiply_then_add_is_not_contracted_but_mul_add_is_fused() {
    let Some((nvvm, ptxas)) = common::toolchain() else {
        return;
    };
    let ir = kernel_ir("contract");
    let ptx = common::compile_and_assemble(&nvvm, &ptxas, "contract", &ir);
    // `.rn` on mul/add also stops ptxas from fusing them later.
    assert_eq!(count(&ptx, "fma.rn.f32"), 0, "{ptx}");
    assert!(
        count(&ptx, "mul.rn.f32") >= 1 && count(&ptx, "add.rn.f32") >= 1,
        "{ptx}"
    );
    assert!(count(&ptx, "mul.rn.f64") >= 1, "{ptx}");
    // Exactly one fused op (per copy of the body): the explicit `mul_add`.
    assert_eq!(count(&ptx, "fma.rn.f64"), copies(&ir), "{ptx}");
    // `fastmath = true` may contract (the kernel docs say so).
    let fast = CompileOptions {
        fast_math: true,
        ..Default::default()
    };
    let ptx = nvvm.compile(&ir, &fast).unwrap_or_else(|e| panic!("{e}"));
    assert!(count(&ptx, "fma.rn") >= 2, "{ptx}");
}

#[test]
fn float_remainder_is_libdevice_fmod() {
    let Some((nvvm, ptxas)) = common::toolchain() else {
        return;
    };
    let ir = kernel_ir("remainders");
    assert!(!ir.contains("frem"), "{ir}");
    let n = 2 * copies(&ir);
    assert_eq!(ir.matches("call float @__nv_fmodf(").count(), n, "{ir}");
    assert_eq!(ir.matches("call double @__nv_fmod(").count(), n, "{ir}");
    common::compile_and_assemble(&nvvm, &ptxas, "remainders", &ir);
}
