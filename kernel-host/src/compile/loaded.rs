//! A kernel loaded into one device's context ([`LoadedKernel`]): its functions (and the
//! copy without launch-proven checks, loaded with it or compiled at its second proving
//! launch: `Deferred`), what launches ask of it (parameters, static
//! shared memory, the dynamic shared memory allowance, occupancy answers) and its
//! `CUmodule`. The cache (`crate::compile::cache`) keeps them; the JIT
//! (`crate::compile::jit`) makes them.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use cudarc::driver::{result, sys};
use kernel_device::back::nvvm::launch_proof::{LaunchCondition, LaunchProof};
use kernel_device::ir::Type;
use kernel_device::source::FnSource;

use crate::device::Device;
use crate::error::{DriverResultExt, Result};

/// A kernel's first launch, for its first compile: whether the launch proves a launch
/// proof's conditions (`None`: not a launch, or a launch inside a graph capture, which
/// compiles the checked kernel first). See `crate::compile::jit::load`.
pub(crate) type FirstLaunch<'a> = Option<&'a dyn Fn(&[LaunchCondition]) -> bool>;

/// A kernel loaded into one device's context.
pub(crate) struct LoadedKernel {
    /// The function loaded first: the bounds-checked kernel, or its proven copy where
    /// the first compile left the kernel out (`checked_later`). What the driver's
    /// attributes are asked of (the two have the same shared memory).
    pub(crate) function: sys::CUfunction,
    pub(crate) name: String,
    /// The kernel's parameters as the compiler typed them, for argument checks.
    pub(crate) params: Vec<Type>,
    /// The kernel calls `grid_sync()`: launch it with `cuLaunchCooperativeKernel`.
    pub(crate) cooperative: bool,
    /// The kernel's copy without the bounds checks its launches can prove, if it has
    /// one (see `kernel_device::back::nvvm::launch_proof`): set at load when the
    /// module holds it, else once `deferred` compiled it (`None` inside: no copy).
    proven_copy: OnceLock<Option<ProvenCopy>>,
    /// The copy left out of the first compile (`crate::compile::deferred`).
    deferred: Option<Deferred>,
    /// The bounds-checked kernel left out of the first compile, whose launch the copy
    /// served; `None` where `function` is the checked kernel.
    checked_later: Option<CheckedLater>,
    pub(crate) occupancy: OccupancyCache,
    /// Dynamic shared memory the function has been allowed beyond the default 48 KiB.
    shared_opt_in: SharedOptIn,
    /// Static shared memory of the function (its shared arrays), in bytes.
    pub(crate) static_shared: u32,
    module: Module,
    /// The device's context generation it was loaded in: after a reset it is stale and
    /// the kernel is loaded again.
    pub(crate) generation: u64,
}

// SAFETY: a CUfunction handle may be launched from any thread with its context current.
unsafe impl Send for LoadedKernel {}
unsafe impl Sync for LoadedKernel {}

/// A kernel's copy without the checks a launch can prove, and what a launch must prove.
struct ProvenCopy {
    function: sys::CUfunction,
    conditions: Vec<LaunchCondition>,
    /// The module compiled for a deferred copy (the kernel's own module otherwise).
    _module: Option<Module>,
}

/// Whether a launch of `grid` blocks of `block` threads with `args` (one per kernel
/// parameter) proves every condition: each names slice parameters, whose lengths
/// the arguments carry.
pub(crate) fn proves(
    conditions: &[LaunchCondition],
    grid: [u32; 3],
    block: [u32; 3],
    arg_len: &impl Fn(usize) -> Option<i64>,
) -> bool {
    let len = |param: usize| arg_len(param).and_then(|len| u64::try_from(len).ok());
    conditions.iter().all(|c| c.holds(grid, block, &len))
}

/// A launch-proven copy not compiled yet: compiled (with the whole module) at the
/// second launch that proves its conditions, so that a kernel launched once pays one
/// compile, and one launched again gets the copy from its second proving launch on.
pub(crate) struct Deferred {
    source: &'static FnSource,
    /// Compiles and loads the whole module, and finds the copy's function in it (the
    /// JIT's, passed in so that this module does not import the JIT, which imports it).
    compile: CompileCopy,
    symbol: String,
    conditions: Vec<LaunchCondition>,
    /// Launches so far that the copy would have served.
    proving_launches: AtomicU32,
    /// Held while compiling, so that the copy is compiled once.
    compiling: Mutex<()>,
}

/// The bounds-checked kernel of a module compiled with only its launch-proven copy
/// (the first launch proved the copy's conditions): compiled with the whole module at
/// the first launch the copy cannot serve, which waits for it (it cannot run the copy).
pub(crate) struct CheckedLater {
    source: &'static FnSource,
    compile: CompileCopy,
    /// The checked kernel's function and the module compiled for it.
    loaded: OnceLock<(sys::CUfunction, Module)>,
    /// Held while compiling, so that the kernel is compiled once.
    compiling: Mutex<()>,
}

impl CheckedLater {
    pub(crate) fn new(source: &'static FnSource, compile: CompileCopy) -> CheckedLater {
        CheckedLater {
            source,
            compile,
            loaded: OnceLock::new(),
            compiling: Mutex::new(()),
        }
    }
}

/// How a deferred copy (or checked kernel) is compiled: `(source, device, symbol)` to
/// the loaded whole module and the function `symbol` in it
/// (`crate::compile::jit::load_deferred_copy`).
pub(crate) type CompileCopy =
    fn(&'static FnSource, &Device, &str) -> Result<(Module, sys::CUfunction)>;

impl Deferred {
    pub(crate) fn new(
        source: &'static FnSource,
        proof: LaunchProof,
        compile: CompileCopy,
    ) -> Deferred {
        Deferred {
            source,
            compile,
            symbol: proof.symbol,
            conditions: proof.conditions,
            proving_launches: AtomicU32::new(0),
            compiling: Mutex::new(()),
        }
    }
}

/// The function `symbol` of `module` (loaded in the current context).
pub(crate) fn get_function(module: &Module, kernel: &str, symbol: &str) -> Result<sys::CUfunction> {
    let c_name = std::ffi::CString::new(symbol).map_err(|_| crate::Error::Compile {
        kernel: kernel.to_string(),
        message: "kernel name contains a NUL byte".into(),
    })?;
    // SAFETY: the module is loaded in the current context.
    unsafe { result::module::get_function(module.raw, c_name) }.call("cuModuleGetFunction")
}

impl LoadedKernel {
    pub(crate) fn new(
        module: Module,
        name: String,
        params: Vec<Type>,
        cooperative: bool,
        launch_proof: Option<LaunchProof>,
        deferred: Option<Deferred>,
        checked_later: Option<CheckedLater>,
    ) -> Result<Self> {
        let device = module.device.clone();
        let _guard = device.bind()?;
        let first = match (&checked_later, &launch_proof) {
            (Some(_), Some(proof)) => proof.symbol.as_str(),
            _ => name.as_str(),
        };
        let function = get_function(&module, &name, first)?;
        let proven_copy = OnceLock::new();
        match launch_proof {
            Some(proof) => {
                let _ = proven_copy.set(Some(ProvenCopy {
                    function: get_function(&module, &name, &proof.symbol)?,
                    conditions: proof.conditions,
                    _module: None,
                }));
            }
            None if deferred.is_none() => {
                let _ = proven_copy.set(None);
            }
            None => {}
        }
        // SAFETY: the function was just loaded in the current context.
        let static_shared = unsafe {
            result::function::get_function_attribute(
                function,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            )
        }
        .call("cuFuncGetAttribute")?;
        Ok(LoadedKernel {
            function,
            name,
            params,
            cooperative,
            proven_copy,
            deferred,
            checked_later,
            occupancy: Default::default(),
            shared_opt_in: SharedOptIn::default(),
            static_shared: u32::try_from(static_shared).unwrap_or(0),
            generation: module.device.generation(),
            module,
        })
    }

    /// Whether [`function_for`](Self::function_for) is a pure function of its shape
    /// and lengths from now on: the proven copy is compiled, or known not to exist
    /// (before that, launches are counted towards its deferred compile). A checked
    /// kernel still to compile (`checked_later`) does not unsettle it: the launches
    /// that need it get it, compiled then, and every later one the same function. What
    /// the launch memo (`crate::launch::memo`) waits for before it remembers a choice.
    pub(crate) fn function_settled(&self) -> bool {
        self.proven_copy.get().is_some()
    }

    /// The function a launch of `grid` blocks of `block` threads runs, whose argument
    /// `i` (a slice) has `arg_len(i)` elements: the copy without the launch-proven
    /// checks when the launch proves every one of them.
    ///
    /// A deferred copy is compiled here, at the second launch it would serve, when
    /// `may_compile` (not while a graph is captured); a failed compile leaves the
    /// checked kernel, which computes the same results. A checked kernel left out of
    /// the first compile is compiled here at the first launch the copy does not serve,
    /// in a capture too (the launch cannot run without it; an `Err` if the compile
    /// fails): the module's load and its tag's copy touch only the legacy NULL stream,
    /// which a capture's non-blocking stream is not ordered with.
    #[inline]
    pub(crate) fn function_for(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        arg_len: impl Fn(usize) -> Option<i64>,
        may_compile: bool,
    ) -> Result<sys::CUfunction> {
        match self.proven_copy.get() {
            Some(Some(copy)) if proves(&copy.conditions, grid, block, &arg_len) => {
                Ok(copy.function)
            }
            Some(_) => match &self.checked_later {
                None => Ok(self.function),
                Some(later) => self.checked_function(later),
            },
            None => Ok(self.function_deferred(grid, block, &arg_len, may_compile)),
        }
    }

    /// The checked kernel the first compile left out, compiled now if it is not yet.
    #[cold]
    fn checked_function(&self, later: &CheckedLater) -> Result<sys::CUfunction> {
        if let Some((function, _)) = later.loaded.get() {
            return Ok(*function);
        }
        let _compiling = later.compiling.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((function, _)) = later.loaded.get() {
            return Ok(*function);
        }
        let (module, function) = (later.compile)(later.source, &self.module.device, &self.name)?;
        // Published under the allowance's lock with the allowance applied (see
        // `allow_shared`), as a deferred copy is.
        let mut applied = Ok(());
        self.shared_opt_in.with_granted(|granted| {
            if granted > 0 {
                applied = set_shared_allowance(function, granted);
            }
            if applied.is_ok() {
                let _ = later.loaded.set((function, module));
            }
        });
        applied.map(|()| function)
    }

    #[cold]
    fn function_deferred(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        arg_len: &impl Fn(usize) -> Option<i64>,
        may_compile: bool,
    ) -> sys::CUfunction {
        let Some(deferred) = &self.deferred else {
            return self.function;
        };
        if !may_compile || !proves(&deferred.conditions, grid, block, arg_len) {
            return self.function;
        }
        // The first proving launch runs the checked kernel: a kernel launched once
        // never pays for its copy.
        if deferred.proving_launches.fetch_add(1, Ordering::Relaxed) == 0 {
            return self.function;
        }
        // One thread compiles; launches in others meanwhile run the checked kernel
        // rather than wait for it.
        let _compiling = match deferred.compiling.try_lock() {
            Ok(held) => held,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return self.function,
        };
        if self.proven_copy.get().is_none() {
            let device = &self.module.device;
            let compiled = (deferred.compile)(deferred.source, device, &deferred.symbol).ok();
            // Published under the allowance's lock with the allowance applied, so
            // that a raise before or after covers the copy too (see `allow_shared`).
            self.shared_opt_in.with_granted(|granted| {
                let copy = compiled.and_then(|(module, function)| {
                    if granted > 0 && set_shared_allowance(function, granted).is_err() {
                        return None;
                    }
                    Some(ProvenCopy {
                        function,
                        conditions: deferred.conditions.clone(),
                        _module: Some(module),
                    })
                });
                let _ = self.proven_copy.set(copy);
            });
        }
        match self.proven_copy.get() {
            Some(Some(copy)) => copy.function,
            _ => self.function,
        }
    }

    /// Raises `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to at least `bytes`.
    pub(crate) fn allow_shared(&self, bytes: u32) -> Result<()> {
        self.shared_opt_in.raise(bytes, |bytes| {
            // Read under the allowance's lock: a deferred copy published meanwhile got
            // the allowance before this raise.
            let copy = self
                .proven_copy
                .get()
                .and_then(|c| c.as_ref())
                .map(|c| c.function);
            let checked = self
                .checked_later
                .as_ref()
                .and_then(|later| later.loaded.get())
                .map(|(function, _)| *function);
            for function in std::iter::once(self.function).chain(copy).chain(checked) {
                set_shared_allowance(function, bytes)?;
            }
            Ok(())
        })
    }

    /// Registers, shared and local memory and the largest block, as the driver reports
    /// them for the loaded function (for `CUDAJIT_DUMP`).
    pub(crate) fn describe_resources(&self) -> String {
        use sys::CUfunction_attribute as A;
        let attribute = |attribute| {
            // SAFETY: live function of the current context.
            unsafe { result::function::get_function_attribute(self.function, attribute) }
                .map_or_else(|e| format!("unknown ({e:?})"), |v| v.to_string())
        };
        format!(
            "kernel {}
registers per thread: {}
static shared bytes: {}
local bytes per thread: {}
largest block: {} threads
",
            self.name,
            attribute(A::CU_FUNC_ATTRIBUTE_NUM_REGS),
            attribute(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
            attribute(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
            attribute(A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        )
    }

    #[allow(dead_code)] // for diagnostics and future per-device checks
    pub(crate) fn device(&self) -> &Device {
        &self.module.device
    }
}

/// Sets `function`'s dynamic shared memory allowance to `bytes`.
fn set_shared_allowance(function: sys::CUfunction, bytes: u32) -> Result<()> {
    // SAFETY: live function of the current context.
    unsafe {
        result::function::set_function_attribute(
            function,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }
    .call("cuFuncSetAttribute")
}

/// A function's dynamic shared memory allowance. Raised under a lock and never lowered:
/// two threads racing to raise it unlocked could set 100 KiB and then 64 KiB, leaving
/// the 100 KiB launch to fail (issue 10). Once raised far enough, a launch checks it
/// with one atomic load and makes no driver call.
#[derive(Default)]
pub(crate) struct SharedOptIn {
    granted: AtomicU32,
    raising: Mutex<()>,
}

impl SharedOptIn {
    /// Runs `f` with the allowance granted so far, no raise running meanwhile.
    pub(crate) fn with_granted(&self, f: impl FnOnce(u32)) {
        let _raising = self.raising.lock().unwrap_or_else(|p| p.into_inner());
        f(self.granted.load(Ordering::Acquire));
    }

    /// Ensures the allowance is at least `bytes`, calling `set` with the new allowance
    /// when it must grow. When this returns `Ok`, the function allows `bytes`.
    pub(crate) fn raise(&self, bytes: u32, set: impl FnOnce(u32) -> Result<()>) -> Result<()> {
        if self.granted.load(Ordering::Acquire) >= bytes {
            return Ok(());
        }
        let _raising = self.raising.lock().unwrap_or_else(|p| p.into_inner());
        // Only a larger value is ever set: whoever raised meanwhile raised past us or
        // below us, and the value below is then raised here.
        if self.granted.load(Ordering::Acquire) >= bytes {
            return Ok(());
        }
        set(bytes)?;
        self.granted.store(bytes, Ordering::Release);
        Ok(())
    }
}

/// A loaded `CUmodule`, unloaded on drop.
pub(crate) struct Module {
    pub(crate) raw: sys::CUmodule,
    pub(crate) device: Device,
    /// The library the module is the context's copy of (`jit::module_from_library`):
    /// the library owns the module, and unloading it unloads the module.
    pub(crate) library: Option<Library>,
}

impl Drop for Module {
    fn drop(&mut self) {
        if let Ok(_guard) = self.device.bind() {
            // What the module's kernels printed is written, and its buffers freed.
            crate::print::release(self.raw);
            crate::compile::grid_dependency::note_unloaded(self.raw);
            if self.library.is_none() {
                // SAFETY: loaded by `jit::load_module`, unloaded only here.
                let _ = unsafe { result::module::unload(self.raw) };
            }
        }
        // The library (if any) is unloaded as the field drops: no context needed.
    }
}

/// A loaded library (`jit::load_library`): machine code compiled without a context,
/// whose module each context takes. Unloaded when dropped.
pub(crate) struct Library(pub(crate) sys::CUlibrary);

// SAFETY: a library handle is a process-wide driver object, usable from any thread;
// it is unloaded once, by its one owner.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: loaded by `jit::load_library`, unloaded only here.
        let _ = unsafe { sys::cuLibraryUnload(self.0) };
    }
}

/// Remembered occupancy answers of one kernel, keyed by (threads per block, dynamic
/// shared bytes), so repeated cooperative launches make no extra driver call.
#[derive(Default)]
pub(crate) struct OccupancyCache {
    answers: Mutex<Vec<(u32, u32, u32)>>,
}

/// Each kernel is launched with few distinct shapes; beyond this many, ask again.
const REMEMBERED_SHAPES: usize = 16;

impl OccupancyCache {
    pub(crate) fn blocks_per_sm(
        &self,
        kernel: &LoadedKernel,
        threads: u32,
        shared_bytes: u32,
    ) -> Result<u32> {
        let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&(_, _, blocks)) = answers
            .iter()
            .find(|(t, s, _)| *t == threads && *s == shared_bytes)
        {
            return Ok(blocks);
        }
        // SAFETY: `function` is live in the current context (bound by the caller).
        let blocks = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(
                kernel.function,
                threads as i32,
                shared_bytes as usize,
            )
        }
        .call("cuOccupancyMaxActiveBlocksPerMultiprocessor")?
        .max(0) as u32;
        if answers.len() < REMEMBERED_SHAPES {
            answers.push((threads, shared_bytes, blocks));
        }
        Ok(blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Threads raising one allowance to random sizes at once: the (simulated) function
    /// attribute only grows, and covers each request when its `raise` returns.
    #[test]
    fn shared_opt_in_only_grows_under_a_race() {
        let opt_in = SharedOptIn::default();
        let attribute = Mutex::new(0u32);
        let mut seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
            | 1;
        let requests: Vec<Vec<u32>> = (0..8)
            .map(|_| {
                (0..200)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 17;
                        seed ^= seed << 5;
                        48 * 1024 + seed % (180 * 1024)
                    })
                    .collect()
            })
            .collect();
        std::thread::scope(|s| {
            for thread_requests in &requests {
                let (opt_in, attribute) = (&opt_in, &attribute);
                s.spawn(move || {
                    for &bytes in thread_requests {
                        opt_in
                            .raise(bytes, |new| {
                                let mut a = attribute.lock().unwrap();
                                assert!(new > *a, "lowered from {} to {new}", *a);
                                // Widen the race window the old unlocked code lost.
                                std::thread::yield_now();
                                *a = new;
                                Ok(())
                            })
                            .unwrap();
                        let now = *attribute.lock().unwrap();
                        assert!(now >= bytes, "allowed {now} after raising to {bytes}");
                    }
                });
            }
        });
        let largest = requests.iter().flatten().max().copied().unwrap();
        assert_eq!(*attribute.lock().unwrap(), largest);
    }

    #[test]
    fn a_failed_raise_is_retried() {
        let opt_in = SharedOptIn::default();
        let failed = opt_in.raise(70_000, |_| {
            Err(crate::Error::Driver {
                call: "cuFuncSetAttribute",
                message: "test".into(),
            })
        });
        assert!(failed.is_err());
        let mut called = false;
        opt_in
            .raise(70_000, |_| {
                called = true;
                Ok(())
            })
            .unwrap();
        assert!(called);
    }
}
