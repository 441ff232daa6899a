//! libnvvm and ptxas, for real: the reference kernel, error reporting, versions.

mod common;

use kernel_device::nvvm::{CompileOptions, Nvvm, NvvmError};

const REFERENCE: &str = include_str!("data/vecadd.nvvm.ll");

#[test]
fn reference_vecadd_compiles_and_assembles() {
    let Some((nvvm, ptxas)) = common::toolchain() else {
        return;
    };
    let ptx = common::compile_and_assemble(&nvvm, &ptxas, "reference", REFERENCE);
    assert!(ptx.contains(".visible .entry vecadd("), "{ptx}");
    assert!(ptx.contains(".target sm_90"), "{ptx}");
}

#[test]
fn versions_are_reported() {
    let Some((nvvm, _)) = common::toolchain() else {
        return;
    };
    let (major, _) = nvvm.version();
    assert!(major >= 2, "{:?}", nvvm.version());
    let (ir_major, _, dbg_major, _) = nvvm.ir_version();
    assert!(ir_major >= 2 && dbg_major >= 3, "{:?}", nvvm.ir_version());
    assert!(nvvm.libdevice_path().ends_with("libdevice.10.bc"));
}

#[test]
fn invalid_ir_is_a_verify_error_with_the_log() {
    let Some((nvvm, _)) = common::toolchain() else {
        return;
    };
    let bad = REFERENCE.replace("fadd float %va, %vb", "fadd float %va, %nope");
    match nvvm.compile(&bad, &CompileOptions::default()) {
        Err(NvvmError::Verify { log }) => assert!(log.contains("nope"), "{log}"),
        other => panic!("expected a verify error, got {other:?}"),
    }
}

/// IR that libnvvm's compile accepts without a word (it drops a shared variable's
/// initialiser) but its verifier rejects: the verifier, which runs beside the compile,
/// still fails the compile, whatever the compile made of it.
#[test]
fn ir_only_the_verifier_rejects_still_fails_the_compile() {
    let Some((nvvm, _)) = common::toolchain() else {
        return;
    };
    let (major, minor, debug_major, debug_minor) = nvvm.ir_version();
    let initialised_shared = format!("target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"
target triple = \"nvptx64-nvidia-cuda\"
@shared_with_init = addrspace(3) global i32 5, align 4
define void @k() {{
entry:
  store i32 1, i32 addrspace(3)* @shared_with_init
  ret void
}}
!nvvm.annotations = !{{!0}}
!0 = !{{void ()* @k, !\"kernel\", i32 1}}
!nvvmir.version = !{{!1}}
!1 = !{{i32 {major}, i32 {minor}, i32 {debug_major}, i32 {debug_minor}}}
");
    match nvvm.compile(&initialised_shared, &CompileOptions::default()) {
        Err(NvvmError::Verify { log }) => {
            assert!(
                log.contains("Shared variables can't be initialized"),
                "{log}"
            )
        }
        other => panic!("expected a verify error, got {other:?}"),
    }
}

#[test]
fn options_reach_libnvvm() {
    let Some((nvvm, ptxas)) = common::toolchain() else {
        return;
    };
    let fast = CompileOptions {
        fast_math: true,
        line_info: true,
        opt_level: 0,
        ..Default::default()
    };
    let ptx = nvvm
        .compile(REFERENCE, &fast)
        .unwrap_or_else(|e| panic!("{e}"));
    common::assemble(&ptxas, "fastmath", &ptx);
    let bad_arch = CompileOptions {
        arch: "compute_1".into(),
        ..Default::default()
    };
    assert!(nvvm.compile(REFERENCE, &bad_arch).is_err());
}

#[test]
fn compiles_from_several_threads() {
    let Some((nvvm, _)) = common::toolchain() else {
        return;
    };
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| nvvm.compile(REFERENCE, &CompileOptions::default()).unwrap());
        }
    });
}

#[test]
fn missing_library_lists_the_search() {
    let err = Nvvm::load_from(std::path::Path::new("/nonexistent/libnvvm.so")).unwrap_err();
    assert!(matches!(err, NvvmError::Load { .. }), "{err}");
    let text = NvvmError::NotFound {
        searched: vec!["/a/libnvvm.so".into()],
    }
    .to_string();
    assert!(
        text.contains("/a/libnvvm.so") && text.contains("pip install nvidia-nvvm==13.0.88"),
        "{text}"
    );
    assert!(text.contains("cargo xtask test"), "{text}");
}

fn assert_send_sync<T: Send + Sync>() {}
#[test]
fn nvvm_is_send_and_sync() {
    assert_send_sync::<Nvvm>();
}
