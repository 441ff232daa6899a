//! The CUDA driver's PTX JIT made ready while libnvvm compiles the process's first
//! kernel (issue 27). The first `cuModuleLoadData` of PTX pays a one-off cost on top
//! of the kernel's own PTX-to-machine-code compile, and on the H200 (driver 580) much
//! of it belongs to the thread that loads: a tiny module loaded first on the same
//! thread took the next load from 24-28 ms to 13-19 ms, loaded on another thread only
//! to 23 ms (`bench/results/2026-11-30-h200-4cc67a6-first27-probe.txt`). So a scoped thread
//! loads a tiny module while libnvvm compiles on the calling thread, and then loads the
//! kernel's module itself, on the thread the JIT is warm on. It is joined before the
//! launch continues: no driver work of it is in flight once the caller can exit (what
//! `crate::compile::warm_up` requires of libnvvm's). Once per process; on by default,
//! `CUDAJIT_DRIVER_JIT_WARM_UP=0` turns it off.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Instant;

use cudarc::driver::sys;

use crate::compile::profile::FirstLaunchTimer;
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

/// Whether this call is the process's first compile with the warm-up on (it claims it).
pub(crate) fn claim() -> bool {
    let off = std::env::var(DRIVER_JIT_WARM_UP_VARIABLE).is_ok_and(|v| v.trim() == "0");
    !off && !CLAIMED.swap(true, Ordering::Relaxed)
}

/// What a compile hands the loading thread: the PTX and the first launch's timer.
type Handed = (String, FirstLaunchTimer);
/// What the loading thread hands back: the same, and the load's result.
type Loaded<M, E> = (String, FirstLaunchTimer, Result<M, E>);

/// `compile` (libnvvm, on the calling thread) then `load` of the PTX it made. With
/// `start`, the loading runs on a scoped thread that first runs `warm_up` (meanwhile
/// the compile runs), and is joined before this returns; otherwise both run here.
/// `lost` is the error when that thread panicked.
pub(crate) fn compile_then_load<R, M, E>(
    start: bool,
    timer: &mut FirstLaunchTimer,
    warm_up: impl FnOnce() + Send,
    compile: impl FnOnce(&mut FirstLaunchTimer) -> Result<(String, R), E>,
    load: impl FnOnce(&str, &mut FirstLaunchTimer) -> Result<M, E> + Send,
    lost: impl FnOnce() -> E,
) -> Result<(String, R, M), E>
where
    M: Send,
    E: Send,
{
    if !start {
        let (ptx, rest) = compile(timer)?;
        let module = load(&ptx, timer)?;
        return Ok((ptx, rest, module));
    }
    // Taken by the thread, or by this one when no thread can be had.
    let load = Mutex::new(Some(load));
    std::thread::scope(|scope| {
        let (hand, handed) = mpsc::channel::<Handed>();
        let load_there = &load;
        let loader = std::thread::Builder::new()
            .name("cudajit-driver-jit".into())
            .spawn_scoped(scope, move || -> Option<Loaded<M, E>> {
                warm_up();
                // Nothing comes when the compile failed (the sender is dropped).
                let (ptx, mut timer) = handed.recv().ok()?;
                let load = load_there.lock().ok()?.take()?;
                let loaded = load(&ptx, &mut timer);
                Some((ptx, timer, loaded))
            });
        let compiled = compile(timer);
        let Ok(loader) = loader else {
            // No thread to be had: loaded here.
            let (ptx, rest) = compiled?;
            let load = load
                .lock()
                .ok()
                .and_then(|mut l| l.take())
                .ok_or_else(lost)?;
            let module = load(&ptx, timer)?;
            return Ok((ptx, rest, module));
        };
        let (ptx, rest) = match compiled {
            Ok(done) => done,
            Err(error) => {
                drop(hand);
                let _ = loader.join();
                return Err(error);
            }
        };
        let lent = std::mem::replace(timer, FirstLaunchTimer::off());
        // The receiver lives until the thread ends, and it ends only after receiving.
        let _ = hand.send((ptx, lent));
        match loader.join() {
            Ok(Some((ptx, returned, loaded))) => {
                *timer = returned;
                Ok((ptx, rest, loaded?))
            }
            _ => Err(lost()),
        }
    })
}

/// The warm-up module loaded into `device`'s context and unloaded again.
pub(crate) fn load_and_unload(device: &Device) {
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
    use std::thread::ThreadId;
    use std::time::Duration;

    type Seen = Mutex<Vec<(&'static str, ThreadId)>>;

    fn note(seen: &Seen, what: &'static str) {
        seen.lock()
            .unwrap()
            .push((what, std::thread::current().id()));
    }

    /// Started: the warm-up and the load run on one thread that is not the caller's,
    /// the compile on the caller's meanwhile; the load gets the compile's PTX after
    /// the warm-up, and its module and the timer come back.
    #[test]
    fn the_load_runs_after_the_warm_up_on_its_thread() {
        let seen = Seen::default();
        let warm_ended = AtomicBool::new(false);
        let mut timer = FirstLaunchTimer::off();
        let (ptx, rest, module) = compile_then_load(
            true,
            &mut timer,
            || {
                note(&seen, "warm");
                std::thread::sleep(Duration::from_millis(30));
                warm_ended.store(true, Ordering::SeqCst);
            },
            |_| {
                note(&seen, "compile");
                // The compile does not wait for the warm-up.
                Ok::<_, String>(("ptx text".to_string(), !warm_ended.load(Ordering::SeqCst)))
            },
            |ptx: &str, _: &mut FirstLaunchTimer| {
                note(&seen, "load");
                assert!(
                    warm_ended.load(Ordering::SeqCst),
                    "loaded before the warm-up ended"
                );
                Ok(format!("module of {ptx}"))
            },
            || "lost".to_string(),
        )
        .unwrap();
        assert_eq!(ptx, "ptx text");
        assert!(rest, "the compile waited for the warm-up");
        assert_eq!(module, "module of ptx text");
        let seen = seen.into_inner().unwrap();
        let thread_of = |what| seen.iter().find(|(w, _)| *w == what).unwrap().1;
        let caller = std::thread::current().id();
        assert_eq!(thread_of("compile"), caller);
        assert_ne!(thread_of("warm"), caller);
        assert_eq!(thread_of("load"), thread_of("warm"));
    }

    /// A failed compile: its error, no load, and the thread joined.
    #[test]
    fn a_failed_compile_loads_nothing() {
        let loads = AtomicUsize::new(0);
        let warm_ended = AtomicBool::new(false);
        let mut timer = FirstLaunchTimer::off();
        let result = compile_then_load(
            true,
            &mut timer,
            || {
                std::thread::sleep(Duration::from_millis(20));
                warm_ended.store(true, Ordering::SeqCst);
            },
            |_| Err::<(String, ()), _>("libnvvm said no".to_string()),
            |_: &str, _: &mut FirstLaunchTimer| {
                loads.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
            || "lost".to_string(),
        );
        assert_eq!(result.unwrap_err(), "libnvvm said no");
        assert_eq!(loads.load(Ordering::SeqCst), 0);
        assert!(
            warm_ended.load(Ordering::SeqCst),
            "returned before the thread ended"
        );
    }

    /// A failed load is the caller's error; not started, all runs on the caller's
    /// thread and no warm-up runs.
    #[test]
    fn load_errors_come_back_and_without_a_start_all_runs_here() {
        let mut timer = FirstLaunchTimer::off();
        let failed = compile_then_load(
            true,
            &mut timer,
            || {},
            |_| Ok::<_, String>(("p".to_string(), ())),
            |_: &str, _: &mut FirstLaunchTimer| Err::<(), _>("driver refused".to_string()),
            || "lost".to_string(),
        );
        assert_eq!(failed.unwrap_err(), "driver refused");
        let caller = std::thread::current().id();
        let warmed = AtomicBool::new(false);
        let (_, _, loaded_on) = compile_then_load(
            false,
            &mut timer,
            || warmed.store(true, Ordering::SeqCst),
            |_| Ok::<_, String>(("p".to_string(), std::thread::current().id())),
            |_: &str, _: &mut FirstLaunchTimer| Ok(std::thread::current().id()),
            || "lost".to_string(),
        )
        .unwrap();
        assert_eq!(loaded_on, caller);
        assert!(!warmed.load(Ordering::SeqCst));
    }

    /// Threads racing their first compiles: one claim wins, so one warm-up runs, and
    /// each caller gets its own module back.
    #[test]
    fn racing_first_compiles_warm_up_once() {
        let claimed = AtomicBool::new(false);
        let warm_ups = AtomicUsize::new(0);
        let modules: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let (claimed, warm_ups) = (&claimed, &warm_ups);
                    scope.spawn(move || {
                        let start = !claimed.swap(true, Ordering::Relaxed);
                        let mut timer = FirstLaunchTimer::off();
                        compile_then_load(
                            start,
                            &mut timer,
                            || {
                                warm_ups.fetch_add(1, Ordering::SeqCst);
                            },
                            |_| Ok::<_, String>((format!("ptx {i}"), ())),
                            |ptx: &str, _: &mut FirstLaunchTimer| Ok(format!("module of {ptx}")),
                            || "lost".to_string(),
                        )
                        .unwrap()
                        .2
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(warm_ups.load(Ordering::SeqCst), 1);
        let want: Vec<String> = (0..8).map(|i| format!("module of ptx {i}")).collect();
        assert_eq!(modules, want);
    }
}
