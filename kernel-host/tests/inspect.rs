//! Inspection without a GPU: a kernel's NVVM IR and PTX through libnvvm, and its
//! resources through `ptxas -v` (both set up by `cargo xtask test`; skipped otherwise).
//! The kernel's shared array has a fresh random size each run, so the reported static
//! shared memory is checked against a number the test alone knows.

use kernel_host::__private::{FnSource, SourceKind};
use kernel_host::inspect::inspect;

#[test]
fn nvvm_ir_ptx_and_resources_of_a_kernel() {
    if std::env::var_os("CUDAJIT_NVVM_PATH").is_none() {
        eprintln!("skipped: CUDAJIT_NVVM_PATH is not set (cargo xtask test sets it)");
        return;
    }
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let elements = 64 + seed % 2000;
    let name = format!("staged_{elements}");
    let text = format!(
        "fn {name}(x: &mut [f32]) {{\n    let s: &mut [f32; {elements}] = shared_array();\n    \
         let t = thread_idx().x as usize;\n    s[t] = x[t];\n    sync_threads();\n    \
         x[t] = s[{elements} - 1 - t];\n}}"
    );
    let source: &'static FnSource = Box::leak(Box::new(FnSource {
        name: Box::leak(name.clone().into_boxed_str()),
        kind: SourceKind::Kernel,
        text: Box::leak(text.into_boxed_str()),
        file: file!(),
        line: line!(),
        options: kernel_device::ir::FunctionOptions::DEFAULT,
        deps: &[],
        consts: &[],
        structs: &[],
        instance: &[],
    }));
    let inspection = inspect(source, "compute_90").unwrap();
    assert_eq!(inspection.kernel, name);
    assert!(
        inspection.nvvm_ir.contains(&format!("@{name}(")),
        "{}",
        inspection.nvvm_ir
    );
    assert!(inspection
        .nvvm_ir
        .contains(&format!("[{elements} x float]")));
    assert!(
        inspection.ptx.contains(".target sm_90"),
        "{}",
        inspection.ptx
    );
    assert!(
        inspection.ptx.contains(&format!(".entry {name}(")),
        "{}",
        inspection.ptx
    );
    if std::env::var_os("CUDAJIT_PTXAS").is_none() {
        eprintln!("skipped: resources: CUDAJIT_PTXAS is not set");
        return;
    }
    let resources = inspection.resources.expect("ptxas resources");
    assert_eq!(resources.shared_bytes, 4 * elements);
    assert!(
        (1..=255).contains(&resources.registers_per_thread),
        "{resources}"
    );
}
