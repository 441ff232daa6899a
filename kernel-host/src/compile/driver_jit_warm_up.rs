//! The CUDA driver's PTX JIT made ready while libnvvm compiles the process's first
//! kernel (issue 27). The first `cuModuleLoadData` of PTX in a process pays a one-off
//! cost on top of the kernel's own PTX-to-machine-code compile (the driver's JIT
//! library loaded and initialised); libnvvm's compile, which must come first, takes
//! several milliseconds on the calling thread meanwhile. A scoped thread loads (and
//! unloads) a tiny module during that compile, so the one-off cost leaves the first
//! launch's path. Joined before the kernel's own module loads, it never outlives the
//! launch that started it (no driver work in flight once the caller can exit, as
//! `crate::compile::warm_up` requires of libnvvm). Once per process; on by default,
//! `CUDAJIT_DRIVER_JIT_WARM_UP=0` turns it off.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use cudarc::driver::sys;

use crate::device::Device;

/// The variable that turns the warm-up off (`0`); it is on otherwise.
pub const DRIVER_JIT_WARM_UP_VARIABLE: &str = "CUDAJIT_DRIVER_JIT_WARM_UP";

/// A kernel with one global store, so that the JIT runs its whole code generator (an
/// empty kernel skips most of it). PTX ISA 7.0 for `sm_52`: every driver cudajit
/// supports accepts it, and it compiles for every later GPU.
const WARM_UP_PTX: &std::ffi::CStr = c".version 7.0
.target sm_52
.address_size 64
.visible .entry cudajit_driver_jit_warm_up(.param .u64 out)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	st.global.u32 [%rd2], 1;
	ret;
}
";

static CLAIMED: AtomicBool = AtomicBool::new(false);

/// What the warm-up took (ms, on its own thread), for the bench's report.
static TOOK_MS: Mutex<Option<f64>> = Mutex::new(None);

/// Runs `compile` (libnvvm's compile of a kernel for `device`) with the driver's JIT
/// warmed on a thread beside it, the first time in the process; plainly otherwise.
pub(crate) fn beside_compile<T>(device: &Device, compile: impl FnOnce() -> T) -> T {
    let off = std::env::var(DRIVER_JIT_WARM_UP_VARIABLE).is_ok_and(|v| v.trim() == "0");
    run_beside(
        !off && !CLAIMED.swap(true, Ordering::Relaxed),
        || load_and_unload(device),
        compile,
    )
}

/// `work` on the calling thread, with `warm_up` on a scoped thread beside it when
/// `start`, joined before this returns.
fn run_beside<T>(start: bool, warm_up: impl FnOnce() + Send, work: impl FnOnce() -> T) -> T {
    if !start {
        return work();
    }
    std::thread::scope(|scope| {
        let warm = std::thread::Builder::new()
            .name("cudajit-driver-jit-warm-up".into())
            .spawn_scoped(scope, warm_up);
        let done = work();
        // A failed warm-up only loses its gain: the kernel's load reports real errors.
        if let Ok(thread) = warm {
            let _ = thread.join();
        }
        done
    })
}

/// The warm-up module loaded into `device`'s context and unloaded again.
fn load_and_unload(device: &Device) {
    let started = Instant::now();
    let Ok(_guard) = device.bind() else {
        return;
    };
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: NUL-terminated PTX; the context is current on this thread.
    let loaded =
        unsafe { sys::cuModuleLoadData(&mut module, WARM_UP_PTX.as_ptr() as *const c_void) };
    if loaded == sys::CUresult::CUDA_SUCCESS {
        // SAFETY: `module` was just loaded and nothing else knows it.
        unsafe { sys::cuModuleUnload(module) };
    }
    *TOOK_MS.lock().unwrap_or_else(|p| p.into_inner()) =
        Some(started.elapsed().as_secs_f64() * 1e3);
}

/// How long the process's driver JIT warm-up took (ms), if one ran.
pub fn driver_jit_warm_up_ms() -> Option<f64> {
    *TOOK_MS.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// The warm-up runs on another thread while the work runs on the caller's, and has
    /// ended when the call returns: no driver work of it outlives the launch.
    #[test]
    fn the_warm_up_runs_beside_the_work_and_ends_before_it_returns() {
        let caller = std::thread::current().id();
        let warm_thread = Mutex::new(None);
        let ended = AtomicBool::new(false);
        let work_saw_it_running = run_beside(
            true,
            || {
                *warm_thread.lock().unwrap() = Some(std::thread::current().id());
                std::thread::sleep(Duration::from_millis(30));
                ended.store(true, Ordering::SeqCst);
            },
            || {
                assert_eq!(std::thread::current().id(), caller);
                !ended.load(Ordering::SeqCst)
            },
        );
        assert!(work_saw_it_running, "the work waited for the warm-up");
        assert!(
            ended.load(Ordering::SeqCst),
            "returned before the warm-up ended"
        );
        let warm_thread = warm_thread.lock().unwrap().expect("the warm-up ran");
        assert_ne!(warm_thread, caller);
    }

    /// Not started: the work alone, and its result.
    #[test]
    fn without_a_start_only_the_work_runs() {
        let ran = AtomicBool::new(false);
        let result = run_beside(false, || ran.store(true, Ordering::SeqCst), || 7);
        assert_eq!(result, 7);
        assert!(!ran.load(Ordering::SeqCst));
    }

    /// Threads racing their first compiles: one claim wins, so the warm-up runs once,
    /// and every compile's result comes back to its own caller.
    #[test]
    fn racing_first_compiles_warm_up_once() {
        let claimed = AtomicBool::new(false);
        let warm_ups = AtomicUsize::new(0);
        let results: Vec<usize> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let (claimed, warm_ups) = (&claimed, &warm_ups);
                    scope.spawn(move || {
                        let start = !claimed.swap(true, Ordering::Relaxed);
                        run_beside(
                            start,
                            || {
                                warm_ups.fetch_add(1, Ordering::SeqCst);
                            },
                            || i * 10,
                        )
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(warm_ups.load(Ordering::SeqCst), 1);
        assert_eq!(results, (0..8).map(|i| i * 10).collect::<Vec<_>>());
    }
}
