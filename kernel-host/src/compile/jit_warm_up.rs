//! The driver's PTX JIT made ready while a GPU's context is created (issue 27). A
//! process's first JIT compile costs ~3–6 ms more than its later ones on the H200's
//! host: the JIT library's first use, and fresh memory for the calling thread's
//! allocator arena (page faults that a second thread pays again; one arena for all
//! threads, `GLIBC_TUNABLES=glibc.malloc.arena_max=1`, removed the second thread's).
//! `cuLibraryLoadData` compiles PTX without a context, so the thread opening the GPU
//! (the one that usually launches first) compiles one small module while another
//! thread creates the context (`device::open_gpu::OnTheOpeningThread`): the process's
//! first real compile then finds the JIT warm, and the warm-up ends before the context
//! does, so opening the GPU takes no longer. Measured with
//! `bench/probes/jit_first_use_probe.c` (`bench/results/2026-11-30-h200-s49-jit-first-use.txt`).
//!
//! The module fails at the JIT's last step, its link: it calls a function declared
//! and defined nowhere. A compile that fails leaves nothing in the driver's JIT cache
//! (`~/.nv/ComputeCache`), so every process warms up (a module that compiled would be
//! found in the cache from the second process on and warm nothing), and no process
//! adds an entry. Skipped where no JIT is likely to follow: a primary context that
//! already exists (opening the GPU is then quick, and the warm-up would add to it), or
//! a binary built ahead of time with machine code for this GPU (`compile::aot`).
//! `CUDAJIT_DRIVER_JIT_WARM_UP=0` turns it off.

use std::sync::Mutex;
use std::time::Instant;

use cudarc::driver::sys;

use crate::device::open_gpu;

/// The variable that turns the warm-up off (`0`); it is on otherwise.
pub const DRIVER_JIT_WARM_UP_VARIABLE: &str = "CUDAJIT_DRIVER_JIT_WARM_UP";

/// A kernel with a launch's usual shape (three arrays and a length, a bounds check, a
/// call on the failing side, as a checked kernel's panic) that calls
/// `cudajit_warm_up_unresolved`, which nothing defines: the JIT compiles it through and
/// fails it at the link. PTX ISA 7.0 for `sm_50`, which every driver with
/// `cuLibraryLoadData` (CUDA 12) JIT-compiles for any GPU cudajit runs on.
pub(crate) const WARM_UP_PTX: &str = "\
.version 7.0
.target sm_50
.address_size 64
.extern .func cudajit_warm_up_unresolved ();
.visible .entry cudajit_jit_warm_up(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 n)
{
\t.reg .pred %p<2>;
\t.reg .f32 %f<4>;
\t.reg .b32 %r<5>;
\t.reg .b64 %rd<12>;
\tld.param.u64 %rd1, [a];
\tld.param.u64 %rd2, [b];
\tld.param.u64 %rd3, [c];
\tld.param.u64 %rd4, [n];
\tmov.u32 %r1, %ctaid.x;
\tmov.u32 %r2, %ntid.x;
\tmov.u32 %r3, %tid.x;
\tmad.lo.s32 %r4, %r1, %r2, %r3;
\tcvt.u64.u32 %rd5, %r4;
\tsetp.ge.u64 %p1, %rd5, %rd4;
\t@%p1 bra FAIL;
\tshl.b64 %rd6, %rd5, 2;
\tcvta.to.global.u64 %rd7, %rd1;
\tadd.s64 %rd8, %rd7, %rd6;
\tld.global.f32 %f1, [%rd8];
\tcvta.to.global.u64 %rd9, %rd2;
\tadd.s64 %rd10, %rd9, %rd6;
\tld.global.f32 %f2, [%rd10];
\tadd.f32 %f3, %f1, %f2;
\tcvta.to.global.u64 %rd11, %rd3;
\tadd.s64 %rd11, %rd11, %rd6;
\tst.global.f32 [%rd11], %f3;
\tret;
FAIL:
\tcall.uni cudajit_warm_up_unresolved, ();
\tret;
}
";

/// What the warm-up did, for the bench's report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DriverJitWarmUp {
    /// Its wall time on the opening thread (it ends when the library load returns,
    /// which waits for the context being created).
    pub ms: f64,
    /// `cuLibraryLoadData`'s result code (0 under lazy module loading, which reports
    /// the failed link when a kernel is asked for; `CUDA_ERROR_INVALID_PTX` eagerly).
    pub load_result: i32,
}

static REPORT: Mutex<Option<DriverJitWarmUp>> = Mutex::new(None);
static CLAIMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

inventory::submit! {
    open_gpu::OnTheOpeningThread(warm_up_for)
}

/// The warm-up for GPU `ordinal`, once per process, unless turned off or not needed.
fn warm_up_for(ordinal: usize) -> Option<open_gpu::OpeningThreadWork> {
    if crate::switches::turned_off(DRIVER_JIT_WARM_UP_VARIABLE)
        || open_gpu::primary_context_exists(ordinal)
        || open_gpu::capability_before_context(ordinal)
            .is_some_and(crate::compile::aot::has_machine_code_for)
        || CLAIMED.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        return None;
    }
    Some(Box::new(warm_up))
}

/// Loads (and unloads) [`WARM_UP_PTX`] as a library; a failure of any kind only loses
/// the warm-up (a driver without `cuLibraryLoadData` panics in cudarc's loader: caught).
fn warm_up() {
    let started = Instant::now();
    let load_result = std::panic::catch_unwind(|| {
        let text = std::ffi::CString::new(WARM_UP_PTX).expect("no NUL in the warm-up PTX");
        let mut library: sys::CUlibrary = std::ptr::null_mut();
        // SAFETY: `text` is NUL-terminated PTX that outlives the call; no options.
        let status = unsafe {
            sys::cuLibraryLoadData(
                &mut library,
                text.as_ptr().cast(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            )
        };
        if status == sys::CUresult::CUDA_SUCCESS && !library.is_null() {
            // Unloaded as it drops: used by nothing else.
            drop(crate::compile::loaded::Library(library));
        }
        status as i32
    });
    let report = DriverJitWarmUp {
        ms: started.elapsed().as_secs_f64() * 1e3,
        load_result: load_result.unwrap_or(-1),
    };
    *REPORT.lock().unwrap_or_else(|p| p.into_inner()) = Some(report);
}

/// The warm-up of this process, if one ran.
pub fn driver_jit_warm_up_report() -> Option<DriverJitWarmUp> {
    *REPORT.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ptxas, as the driver's JIT, compiles the warm-up kernel through and fails it at
    /// the link, on the unresolved call alone: the same PTX without the call assembles.
    #[test]
    fn the_warm_up_ptx_fails_only_at_its_link() {
        let libnvvm = kernel_device::nvvm::Nvvm::locate()
            .map(|(library, _)| library)
            .unwrap_or_default();
        let Some(ptxas) = crate::compile::inspect::ptxas_path(&libnvvm) else {
            eprintln!("skipped: no ptxas (set CUDAJIT_PTXAS)");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let assemble = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            std::process::Command::new(&ptxas)
                .args(["-arch=sm_90", "-o"])
                .arg(dir.path().join(format!("{name}.cubin")))
                .arg(&path)
                .output()
                .expect("ptxas runs")
        };
        let failed = assemble("warm_up.ptx", WARM_UP_PTX);
        let log = String::from_utf8_lossy(&failed.stderr);
        assert!(!failed.status.success(), "the warm-up PTX linked: {log}");
        assert!(
            log.contains("Unresolved extern function 'cudajit_warm_up_unresolved'"),
            "{log}"
        );
        let resolved = WARM_UP_PTX
            .replace(".extern .func cudajit_warm_up_unresolved ();\n", "")
            .replace("\tcall.uni cudajit_warm_up_unresolved, ();\n", "");
        let linked = assemble("resolved.ptx", &resolved);
        assert!(
            linked.status.success(),
            "{}",
            String::from_utf8_lossy(&linked.stderr)
        );
    }
}
