//! libnvvm compiling on several threads at once through one `Nvvm` (no lock of ours
//! since issue 27's compiles while a GPU opens): each module's PTX is the one it gets
//! alone.

use super::{test_toolchain, CompileOptions};

/// A kernel `k<n>` that stores `sin(a[i] + b[i]) * n` (libdevice linked in, as a kernel
/// calling a math function has it), in the IR version `ir` names.
fn module(n: usize, ir: (u32, u32, u32, u32)) -> String {
    format!(
        r#"target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @__nv_sinf(float)

define void @k{n}(float* %a, float* %b, float* %c, i64 %len) {{
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %tid to i64
  %inb = icmp ult i64 %i, %len
  br i1 %inb, label %body, label %exit
body:
  %pa = getelementptr float, float* %a, i64 %i
  %pb = getelementptr float, float* %b, i64 %i
  %pc = getelementptr float, float* %c, i64 %i
  %va = load float, float* %pa
  %vb = load float, float* %pb
  %s = fadd float %va, %vb
  %t = call float @__nv_sinf(float %s)
  %u = fmul float %t, {n}.0
  store float %u, float* %pc
  br label %exit
exit:
  ret void
}}

!nvvm.annotations = !{{!0}}
!0 = !{{void (float*, float*, float*, i64)* @k{n}, !"kernel", i32 1}}
!nvvmir.version = !{{!1}}
!1 = !{{i32 {}, i32 {}, i32 {}, i32 {}}}
"#,
        ir.0, ir.1, ir.2, ir.3
    )
}

#[test]
fn compiles_on_several_threads_at_once_give_each_module_its_own_ptx() {
    let Some((nvvm, _)) = test_toolchain() else {
        return;
    };
    let options = CompileOptions::default();
    let modules: Vec<String> = (1..=8).map(|n| module(n, nvvm.ir_version())).collect();
    let alone: Vec<String> = modules
        .iter()
        .map(|m| nvvm.compile(m, &options).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    for (n, ptx) in alone.iter().enumerate() {
        assert!(ptx.contains(&format!(".entry k{}(", n + 1)), "{ptx}");
    }
    let at_once: Vec<Vec<String>> = std::thread::scope(|scope| {
        let threads: Vec<_> = modules
            .iter()
            .map(|m| {
                let (nvvm, options) = (&nvvm, &options);
                scope.spawn(move || {
                    (0..3)
                        .map(|_| nvvm.compile(m, options).unwrap_or_else(|e| panic!("{e}")))
                        .collect()
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for (n, (ptxs, expected)) in at_once.iter().zip(&alone).enumerate() {
        for ptx in ptxs {
            assert_eq!(ptx, expected, "k{}", n + 1);
        }
    }
}
