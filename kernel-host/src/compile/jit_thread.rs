//! The driver JIT's warmed thread (issue 27). The driver's PTX JIT costs the first
//! module a thread loads 4–10 ms more than the ones after it, and a second thread pays
//! it again (`bench/probes/jit_probe.py`: a first module 18.4 ms on a fresh thread, 9.0
//! ms on one that loaded an empty kernel first; warming another thread does not help
//! the caller). So once a GPU is open, one thread loads an empty kernel (the warm-up:
//! the driver's PTX compiler needs a context, so this cannot hide behind the context's
//! creation as libnvvm's warm-up does), then takes the module loads of first launches
//! while it is free; a load that finds it busy with another thread's is made by its
//! caller, as before. A first launch that comes while the warm-up runs waits for it:
//! what is left of it costs less than a cold thread's first JIT.
//!
//! Exit: a process that exits while a thread is inside a compiler whose static
//! destructors `exit` runs can crash (libnvvm did: `warm_up`). So the driver's JIT
//! library is loaded here before anything else (its destructors registered first, so
//! run last), and an `atexit` handler registered after it waits for the warm-up and
//! for a load in flight, and keeps new ones off this thread: whatever `exit` tears
//! down, this thread is not inside it. Without that library (another driver layout)
//! there is no warm thread. On by default; `CUDAJIT_JIT_WARM_UP=0` turns it off.

use std::ffi::c_void;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, Instant};

use cudarc::driver::sys;

use crate::device::Device;

/// The variable that turns the warm thread off (`0`); it is on otherwise.
pub const JIT_WARM_UP_VARIABLE: &str = "CUDAJIT_JIT_WARM_UP";

/// The driver's PTX compiler, which libcuda loads at its first JIT.
const JIT_LIBRARY: &str = "libnvidia-ptxjitcompiler.so.1";

/// How long a first launch (or `exit`) waits for the warm-up at most: it takes 10–25
/// ms on the H200's host; a stuck one must not hang the caller.
const WARM_UP_WAIT: Duration = Duration::from_secs(2);

/// How long `exit` waits for a load in flight at most.
const LOAD_WAIT: Duration = Duration::from_secs(10);

/// One `cuModuleLoadDataEx` for another thread: its context, image and option arrays,
/// as addresses (they are the caller's, alive and untouched until it has the reply,
/// which it waits for).
struct Job {
    ctx: usize,
    image: usize,
    count: u32,
    options: usize,
    values: usize,
    reply: SyncSender<(sys::CUresult, usize)>,
}

struct WarmThread {
    /// Held for a load from the hand-off to the reply: one at a time.
    jobs: Mutex<SyncSender<Job>>,
    /// The warm-up's time (ms) once it ended.
    warm_up: Mutex<Option<f64>>,
    ended: Condvar,
}

static WARM_THREAD: OnceLock<WarmThread> = OnceLock::new();

inventory::submit! {
    crate::device::open_gpu::WhenAGpuIsOpen(start)
}

/// Starts the warm thread with `device`'s context (once per process, unless turned
/// off or the driver's JIT library cannot be loaded first).
fn start(device: &Device) {
    if std::env::var(JIT_WARM_UP_VARIABLE).is_ok_and(|v| v.trim() == "0")
        || WARM_THREAD.get().is_some()
    {
        return;
    }
    // SAFETY: loading the driver's own JIT library runs its initialisers, which libcuda
    // would run at its first JIT anyway.
    let Ok(library) = (unsafe { libloading::Library::new(JIT_LIBRARY) }) else {
        return;
    };
    // Never unloaded: libcuda uses it from now on.
    std::mem::forget(library);
    let (jobs, queue) = sync_channel(0);
    let thread = WarmThread {
        jobs: Mutex::new(jobs),
        warm_up: Mutex::new(None),
        ended: Condvar::new(),
    };
    if WARM_THREAD.set(thread).is_err() {
        return;
    }
    // SAFETY: registers a function that takes no arguments and never unwinds.
    unsafe { libc::atexit(quiet_before_exit) };
    let device = device.clone();
    let spawned = std::thread::Builder::new()
        .name("cudajit-jit".into())
        .spawn(move || serve(device, queue));
    if spawned.is_err() {
        ended(0.0);
    }
}

/// The thread: the warm-up, then each load handed to it, until the process ends.
fn serve(device: Device, queue: Receiver<Job>) {
    let started = Instant::now();
    warm_up(&device);
    drop(device);
    ended(started.elapsed().as_secs_f64() * 1e3);
    for job in queue {
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: the caller's context, image and option arrays stay alive and
        // unchanged until it has the reply (`load` waits for it); the arrays have
        // `count` entries each.
        let status = unsafe {
            match sys::cuCtxSetCurrent(job.ctx as sys::CUcontext) {
                sys::CUresult::CUDA_SUCCESS => sys::cuModuleLoadDataEx(
                    &mut module,
                    job.image as *const c_void,
                    job.count,
                    job.options as *mut sys::CUjit_option,
                    job.values as *mut *mut c_void,
                ),
                failed => failed,
            }
        };
        let _ = job.reply.send((status, module as usize));
    }
}

/// An empty kernel loaded (the driver JIT-compiles it) and unloaded, with the
/// context bound and a reset held off meanwhile.
fn warm_up(device: &Device) {
    let Ok(_guard) = device.bind() else {
        return;
    };
    let ptx = empty_kernel(device.compute_capability());
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: NUL-terminated PTX; the context is current and guarded.
    let status = unsafe { sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void) };
    if status == sys::CUresult::CUDA_SUCCESS {
        // SAFETY: loaded just above, used by nothing else.
        unsafe { sys::cuModuleUnload(module) };
    }
}

/// An empty kernel's PTX for a device of `capability`, in the oldest PTX version that
/// names its architecture (`sm_50`, which any newer device JIT-compiles, where this
/// table does not know it).
fn empty_kernel((major, minor): (u32, u32)) -> String {
    let version = match (major, minor) {
        (12, _) => Some("8.7"),
        (10, 0) => Some("8.6"),
        (9, 0) | (8, 9) => Some("7.8"),
        (8, 6) => Some("7.1"),
        (8, 0) | (7, _) => Some("7.0"),
        _ => None,
    };
    let (version, target) = match version {
        Some(version) => (version, format!("sm_{major}{minor}")),
        None => ("7.0", "sm_50".to_string()),
    };
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\n\
         .visible .entry cudajit_jit_warm_up()\n{{\n\tret;\n}}\n\0"
    )
}

fn ended(ms: f64) {
    if let Some(thread) = WARM_THREAD.get() {
        *lock(&thread.warm_up) = Some(ms);
        thread.ended.notify_all();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Waits (at most [`WARM_UP_WAIT`]) for the warm-up to end.
fn wait_for_warm_up(thread: &WarmThread) {
    let ended = lock(&thread.warm_up);
    let _ = thread
        .ended
        .wait_timeout_while(ended, WARM_UP_WAIT, |ms| ms.is_none());
}

/// `cuModuleLoadDataEx(module, image, options, values)` made on the warm thread, once
/// its warm-up ended: `Some` with the driver's status and module; `None` when there is
/// no warm thread or it is loading for another thread (the caller loads).
///
/// # Safety
/// `ctx` is a live context, current and guarded against a reset on the calling thread
/// for the call; `image` and the option arrays are what `cuModuleLoadDataEx` takes
/// (equal lengths).
pub(crate) unsafe fn load(
    ctx: sys::CUcontext,
    image: *const c_void,
    options: &mut [sys::CUjit_option],
    values: &mut [*mut c_void],
) -> Option<(sys::CUresult, sys::CUmodule)> {
    let thread = WARM_THREAD.get()?;
    wait_for_warm_up(thread);
    let jobs = match thread.jobs.try_lock() {
        Ok(jobs) => jobs,
        Err(TryLockError::Poisoned(jobs)) => jobs.into_inner(),
        Err(TryLockError::WouldBlock) => return None,
    };
    let (reply, answer) = sync_channel(1);
    jobs.send(Job {
        ctx: ctx as usize,
        image: image as usize,
        count: options.len() as u32,
        options: options.as_mut_ptr() as usize,
        values: values.as_mut_ptr() as usize,
        reply,
    })
    .ok()?;
    // Holding `jobs` until the reply: the arrays are read until then.
    let (status, module) = answer.recv().ok()?;
    Some((status, module as sys::CUmodule))
}

/// `atexit`: no warm-up or load on the warm thread while `exit` runs the destructors
/// of the libraries it uses (the JIT's, registered before this), and none after.
extern "C" fn quiet_before_exit() {
    let Some(thread) = WARM_THREAD.get() else {
        return;
    };
    wait_for_warm_up(thread);
    let deadline = Instant::now() + LOAD_WAIT;
    loop {
        match thread.jobs.try_lock() {
            Ok(jobs) => return std::mem::forget(jobs),
            Err(TryLockError::Poisoned(jobs)) => return std::mem::forget(jobs.into_inner()),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(1))
            }
            Err(TryLockError::WouldBlock) => return,
        }
    }
}

/// The warm-up's time (ms), once it ended; `None` when there was none (turned off, no
/// GPU, or the driver's JIT library was not found) or it still runs.
pub fn jit_warm_up_report() -> Option<f64> {
    WARM_THREAD.get().and_then(|thread| *lock(&thread.warm_up))
}

#[cfg(test)]
mod tests {
    use super::empty_kernel;

    #[test]
    fn the_empty_kernel_names_the_device_or_a_target_any_device_compiles() {
        let h100 = empty_kernel((9, 0));
        assert!(h100.starts_with(".version 7.8\n.target sm_90\n"), "{h100}");
        assert!(h100.ends_with("}\n\0"));
        assert!(h100.contains(".entry cudajit_jit_warm_up()"));
        assert!(empty_kernel((12, 0)).contains(".target sm_120\n"));
        let unknown = empty_kernel((11, 0));
        assert!(
            unknown.starts_with(".version 7.0\n.target sm_50\n"),
            "{unknown}"
        );
    }
}
