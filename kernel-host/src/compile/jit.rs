//! First launch of a kernel on a device: source → NVVM IR (kernel-device) → PTX (from
//! the AOT table, the disk cache, or libnvvm) → loaded module with its panic record
//! installed → function. Runs once per kernel per device, under the kernel's cache lock.

use std::borrow::Cow;
use std::ffi::{c_void, CString};

use cudarc::driver::sys;
use kernel_device::back::nvvm::Options;
use kernel_device::source::FnSource;
use kernel_device::CompiledUnit;

use crate::compile::deferred::without_kernel;
use crate::compile::disk::{disk_key, DiskCache, DiskKeyParts, PendingEntry};
use crate::compile::loaded::{
    get_function, CheckedLater, Deferred, FirstLaunch, Library, LoadedKernel, Module,
};
use crate::compile::lower::{runtime_options, Lowered};
use crate::compile::prepared::{self, Prepared};
use crate::compile::profile::{FirstLaunchTimer, FirstStage};
use crate::compile::{aot, libnvvm};
use crate::device::Device;
use crate::error::{describe_driver_error, Error, Result};

// Hopper
/// The libnvvm architecture for `unit` on `device`: the device's own, `compute_90a`
/// where a feature of the unit is sm_90a's, an `Err` naming the feature and the
/// device's compute capability where the device lacks it.
fn target_arch(unit: &CompiledUnit, device: &Device) -> Result<String> {
    kernel_device::proc::target::choose_arch(&unit.target_needs, device.compute_capability())
        .map_err(|message| Error::Compile {
            kernel: unit.kernel_name.clone(),
            message,
        })
}

/// With `first_launch` proving the kernel's launch proof, a module compiled here holds
/// only the launch-proven copy that launch runs (no checked kernel, no panic helper:
/// the unchecked kernel's compile); the checked kernel comes at the first launch the
/// copy cannot serve (`crate::compile::loaded::CheckedLater`). Otherwise the copy is
/// the part left for later (`crate::compile::deferred`).
pub(crate) fn load(
    source: &'static FnSource,
    device: &Device,
    first_launch: FirstLaunch<'_>,
) -> Result<LoadedKernel> {
    let kernel = source.name;
    let mut timer = FirstLaunchTimer::start(source, "");
    if let Some(prepared) = prepared::take(source, device.compute_capability()) {
        return load_prepared(source, device, prepared, timer);
    }
    // The key is taken over the IR made with default options, so it does not depend on
    // which libnvvm is installed and `cargo xtask build-device` can compute it too. The
    // front end runs once: a compile below writes its own IR from the same module.
    let lowered = Lowered::new(source)?;
    let unit = lowered.write(&Options::default())?;
    let (key, embedded) = aot::find_for_unit(&unit, device.compute_capability());
    let first_part = match (&unit.launch_proof, first_launch) {
        (Some(proof), Some(proves)) if proves(&proof.conditions) => Part::CopyOnly,
        _ => Part::WithoutCopy,
    };
    timer.mark(FirstStage::FrontEnd);
    let options = runtime_options(source, target_arch(&unit, device)?);
    // debug info: embedded PTX has line tables only; a `-g` kernel is compiled here.
    let embedded = embedded.filter(|_| !options.debug);

    let (ptx, unit, compiled, from_disk) = match embedded {
        Some(entry) => (
            Cow::Borrowed(entry.ptx),
            unit,
            Part::Whole.compiled(None),
            false,
        ),
        None => {
            // A disk hit needs neither libnvvm loaded nor the IR written for it: the
            // toolchain is identified by its files. While they are still being hashed
            // (a toolchain new to this cache), libnvvm loads meanwhile, as a miss needs.
            let disk = DiskCache::from_env();
            let ready = disk.as_ref().and_then(libnvvm::identity_if_ready);
            let found = match (&disk, ready) {
                (_, Some(toolchain)) => {
                    find_on_disk(kernel, &options, &key, &unit, &toolchain, first_part)
                }
                // No disk cache: nothing to look up, libnvvm loads for the compile.
                (None, None) => None,
                (Some(_), None) => {
                    let nvvm = libnvvm::shared().map_err(|message| Error::Nvvm {
                        kernel: kernel.to_string(),
                        message,
                    })?;
                    timer.mark(FirstStage::LibnvvmLoad);
                    let toolchain = nvvm.identity().ok();
                    toolchain
                        .and_then(|t| find_on_disk(kernel, &options, &key, &unit, t, first_part))
                }
            };
            timer.mark(FirstStage::DiskLookup);
            match found {
                Some((ptx, compiled)) => (Cow::Owned(ptx), unit, compiled, true),
                None => {
                    let (ptx, unit, compiled) =
                        compile(&lowered, &options, &key, &mut timer, first_part)?;
                    (Cow::Owned(ptx), unit, compiled, false)
                }
            }
        }
    };

    // Embedded machine code for this device: no JIT. One the driver refuses (made by a
    // ptxas newer than it) leaves the embedded PTX to load.
    let machine_code = embedded
        .and_then(|entry| entry.sass_for(device.compute_capability()))
        .and_then(|sass| load_machine_code(device, sass, &ptx, kernel, &mut timer).ok());
    let loaded = match machine_code {
        Some(module) => Ok(module),
        None => load_module(device, &ptx, kernel, &mut timer),
    };
    let (module, ptx, mut unit, compiled) = match loaded {
        Ok(module) => (module, ptx, unit, compiled),
        // PTX from disk that this driver refuses (written by another libnvvm that the
        // search found first in that process): compiled here instead, and replaced.
        Err(_) if from_disk => {
            let (ptx, unit, compiled) = compile(&lowered, &options, &key, &mut timer, first_part)?;
            let module = load_module(device, &ptx, kernel, &mut timer)?;
            (module, Cow::Owned(ptx), unit, compiled)
        }
        Err(error) => return Err(error),
    };
    // Compiled without its launch-proven copy, the copy comes later (`deferred`); with
    // only the copy, the checked kernel does.
    let (deferred, checked_later) = match (compiled.part, unit.launch_proof.take()) {
        (Part::WithoutCopy, Some(proof)) => {
            (Some(Deferred::new(source, proof, load_deferred_copy)), None)
        }
        (Part::CopyOnly, proof) => {
            unit.launch_proof = proof;
            (None, Some(CheckedLater::new(source, load_deferred_copy)))
        }
        (_, proof) => {
            unit.launch_proof = proof;
            (None, None)
        }
    };
    timer.mark(FirstStage::ModuleLoad);
    finish_load(
        source,
        device,
        module,
        &ptx,
        unit,
        compiled.entry,
        (deferred, checked_later),
        timer,
    )
}

/// The first launch of a kernel compiled while the GPU opened
/// (`crate::compile::while_opening`): the context's module of its library, which holds
/// the whole module (the checked kernel and any launch-proven copy).
fn load_prepared(
    source: &'static FnSource,
    device: &Device,
    prepared: Prepared,
    mut timer: FirstLaunchTimer,
) -> Result<LoadedKernel> {
    let Prepared {
        ptx,
        unit,
        disk_entry,
        library,
    } = prepared;
    let module = module_from_library(device, library, &ptx)?;
    timer.mark(FirstStage::FromOpening);
    finish_load(
        source,
        device,
        module,
        &ptx,
        unit,
        disk_entry,
        (None, None),
        timer,
    )
}

/// What every first launch does once its module is in the context: panic sites and
/// print buffers installed, the kernel's functions found, and a freshly compiled
/// module stored in the disk cache (only now that the driver has accepted the PTX:
/// PTX from a libnvvm newer than the driver fails before and never becomes an entry).
#[allow(clippy::too_many_arguments)]
fn finish_load(
    source: &'static FnSource,
    device: &Device,
    module: Module,
    ptx: &str,
    unit: CompiledUnit,
    disk_entry: Option<PendingEntry>,
    (deferred, checked_later): (Option<Deferred>, Option<CheckedLater>),
    mut timer: FirstLaunchTimer,
) -> Result<LoadedKernel> {
    let kernel = source.name;
    if let Some(modules) = device.modules() {
        modules.install(module.raw, kernel, unit.panic_sites)?;
    }
    crate::print::install(device, module.raw, kernel, &unit.prints)?; // print
    let loaded = LoadedKernel::new(
        module,
        unit.kernel_name,
        unit.params,
        unit.cooperative,
        unit.launch_proof,
        deferred,
        checked_later,
    )?;
    timer.mark(FirstStage::Install);
    if let Some(pending) = disk_entry {
        pending.store(kernel, ptx);
        let entry = pending.path(kernel);
        crate::compile::inspect::dump_if_asked(
            &entry,
            source,
            &unit.nvvm_ir,
            ptx,
            &loaded.describe_resources(),
        );
        timer.mark(FirstStage::DiskStore);
    }
    timer.finish();
    Ok(loaded)
}

/// A kernel's whole module as its first launch on a GPU would find or compile it, made
/// ahead of that launch (`crate::compile::while_opening`).
pub(crate) struct WholeModule {
    /// The AOT table's, the disk cache's or libnvvm's.
    pub(crate) ptx: String,
    /// The AOT table's machine code for the GPU, which is loaded in the PTX's place.
    pub(crate) machine_code: Option<&'static [u8]>,
    pub(crate) unit: CompiledUnit,
    pub(crate) options: libnvvm::Options,
    /// Its disk cache place, when libnvvm compiled it here.
    pub(crate) disk_entry: Option<PendingEntry>,
}

/// `source`'s whole module for a GPU of `capability` as its first launch would find or
/// compile it (the AOT table's machine code or PTX, the disk cache's PTX, or libnvvm's).
/// `None` where the first launch compiles for itself (a `-g` kernel) or the module
/// would take long to make (IR longer than `longest_ir`), and on any error, which the
/// first launch then reports.
pub(crate) fn whole_module(
    source: &'static FnSource,
    capability: (u32, u32),
    longest_ir: usize,
) -> Option<WholeModule> {
    let lowered = Lowered::new(source).ok()?;
    let unit = lowered.write(&Options::default()).ok()?;
    if unit.nvvm_ir.len() > longest_ir {
        return None;
    }
    let arch = kernel_device::proc::target::choose_arch(&unit.target_needs, capability).ok()?;
    let options = runtime_options(source, arch);
    if options.debug {
        return None;
    }
    let (key, embedded) = aot::find_for_unit(&unit, capability);
    let made = |ptx: String, machine_code, unit, disk_entry| WholeModule {
        ptx,
        machine_code,
        unit,
        options: options.clone(),
        disk_entry,
    };
    if let Some(entry) = embedded {
        let machine_code = entry.sass_for(capability);
        return Some(made(entry.ptx.to_string(), machine_code, unit, None));
    }
    let nvvm = libnvvm::shared().ok()?;
    let on_disk = DiskCache::from_env()
        .zip(nvvm.identity().ok())
        .and_then(|(disk, toolchain)| {
            disk.get(
                source.name,
                &disk_key(&key_parts(&key, &options, toolchain)),
            )
        });
    if let Some(ptx) = on_disk {
        return Some(made(ptx, None, unit, None));
    }
    let mut untimed = FirstLaunchTimer::off();
    let (ptx, unit, compiled) =
        compile(&lowered, &options, &key, &mut untimed, Part::Whole).ok()?;
    Some(made(ptx, None, unit, compiled.entry))
}

/// The kernel's PTX from the disk cache for `toolchain`: the whole module, else the part
/// a process which launched the kernel once left: its first part (`first_part`), else
/// the other.
fn find_on_disk(
    kernel: &str,
    options: &libnvvm::Options,
    ir_key: &str,
    unit: &CompiledUnit,
    toolchain: &str,
    first_part: Part,
) -> Option<(String, Compiled)> {
    let disk = DiskCache::from_env()?;
    let get = |ir_key: &str| disk.get(kernel, &disk_key(&key_parts(ir_key, options, toolchain)));
    if let Some(ptx) = get(ir_key) {
        return Some((ptx, Part::Whole.compiled(None)));
    }
    if !may_defer(unit) {
        return None;
    }
    let parts = match first_part {
        Part::CopyOnly => [Part::CopyOnly, Part::WithoutCopy],
        _ => [Part::WithoutCopy, Part::CopyOnly],
    };
    parts.into_iter().find_map(|part| {
        let ptx = get(&part.key(ir_key))?;
        Some((ptx, part.compiled(None)))
    })
}

/// What a compile made (or the disk held): the whole module, the module without its
/// launch-proven copy (`crate::compile::deferred`), or with only the copy (no checked
/// kernel), each with the place to store it once the driver has accepted it: a part
/// under a key of its own ([`Part::key`]), so that a later process finds it, and the
/// whole module, once compiled, under the kernel's.
struct Compiled {
    part: Part,
    entry: Option<PendingEntry>,
}

/// Which part of a module with a launch-proven copy a compile makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Whole,
    /// The checked kernel (the copy comes later).
    WithoutCopy,
    /// The copy (the checked kernel comes later).
    CopyOnly,
}

impl Part {
    /// The IR key of the part of the module whose whole key is `ir_key`.
    fn key(self, ir_key: &str) -> String {
        match self {
            Part::Whole => ir_key.to_string(),
            Part::WithoutCopy => format!("{ir_key} without its launch-proven copy"),
            Part::CopyOnly => format!("{ir_key} with only its launch-proven copy"),
        }
    }

    fn compiled(self, entry: Option<PendingEntry>) -> Compiled {
        Compiled { part: self, entry }
    }
}

/// Whether a compile of `unit` leaves its launch-proven copy for later: it has one,
/// and `CUDAJIT_DUMP` does not ask for the whole module's dumps.
fn may_defer(unit: &CompiledUnit) -> bool {
    unit.launch_proof.is_some() && !crate::compile::inspect::dumps_asked()
}

/// PTX compiled by libnvvm (loaded now if this is the process's first compile): `part`
/// of the module where the kernel has a launch-proven copy (and the writer's layout
/// lets it be cut), else the whole module.
fn compile(
    lowered: &Lowered,
    options: &libnvvm::Options,
    key: &str,
    timer: &mut FirstLaunchTimer,
    part: Part,
) -> Result<(String, CompiledUnit, Compiled)> {
    let source = lowered.source;
    let kernel = source.name;
    let nvvm_error = |message: String| Error::Nvvm {
        kernel: kernel.to_string(),
        message,
    };
    let nvvm = libnvvm::shared().map_err(nvvm_error)?;
    timer.mark(FirstStage::LibnvvmLoad);
    // The real IR carries the installed libnvvm's `!nvvmir.version`; otherwise it is
    // the same module (same panic sites and parameters).
    // The target's architecture lets the writer use its `bf16` instructions.
    let unit = lowered.write(&Options {
        ir_version: nvvm.ir_version(),
        arch: Options::arch_number(&options.arch),
        debug: crate::compile::lower::debug_level(source),
        ..Options::default()
    })?;
    // The part leaves out the other kernel: the copy, or the checked kernel.
    let left_out = match (&unit.launch_proof, part) {
        (Some(proof), Part::WithoutCopy) => Some(&proof.symbol),
        (Some(_), Part::CopyOnly) => Some(&unit.kernel_name),
        _ => None,
    };
    let cut = left_out
        .filter(|_| may_defer(&unit))
        .and_then(|symbol| without_kernel(&unit.nvvm_ir, symbol));
    let (ir, part) = match &cut {
        Some(ir) => (ir, part),
        None => (&unit.nvvm_ir, Part::Whole),
    };
    let compiled = part.compiled(disk_slot(&nvvm, options, &part.key(key)));
    let ptx = nvvm.compile(ir, options).map_err(nvvm_error)?;
    timer.mark(FirstStage::Compile);
    Ok((ptx, unit, compiled))
}

/// A deferred launch-proven copy (`crate::compile::deferred`): the whole module
/// compiled (and stored in the disk cache, where it belongs under the kernel's key),
/// loaded beside the kernel's first one, and the copy's function in it. The context is
/// current and guarded.
fn load_deferred_copy(
    source: &'static FnSource,
    device: &Device,
    symbol: &str,
) -> Result<(Module, sys::CUfunction)> {
    let kernel = source.name;
    let mut timer = FirstLaunchTimer::start(source, " (launch-proven copy)");
    let lowered = Lowered::new(source)?;
    let unit = lowered.write(&Options::default())?;
    let key = crate::compile::disk::ir_key(&unit.nvvm_ir);
    let options = runtime_options(source, target_arch(&unit, device)?);
    timer.mark(FirstStage::FrontEnd);
    let (ptx, unit, compiled) = compile(&lowered, &options, &key, &mut timer, Part::Whole)?;
    let module = load_module(device, &ptx, kernel, &mut timer)?;
    timer.mark(FirstStage::ModuleLoad);
    if let Some(modules) = device.modules() {
        modules.install(module.raw, kernel, unit.panic_sites)?;
    }
    let function = get_function(&module, kernel, symbol)?;
    timer.mark(FirstStage::Install);
    if let Some(pending) = compiled.entry {
        pending.store(kernel, &ptx);
        timer.mark(FirstStage::DiskStore);
    }
    timer.finish();
    Ok((module, function))
}

fn key_parts<'a>(
    ir_key: &'a str,
    options: &'a libnvvm::Options,
    toolchain: &'a str,
) -> DiskKeyParts<'a> {
    DiskKeyParts {
        ir_key,
        arch: &options.arch,
        toolchain,
        opt_level: options.opt_level,
        fast_math: options.fast_math,
        line_info: options.line_info,
    }
}

/// The disk cache and this compile's key in it (by the files of the libnvvm loaded),
/// or `None` when there is no usable cache (disabled, refused, or libnvvm's files
/// cannot be read to identify it).
fn disk_slot(
    nvvm: &libnvvm::Compiler,
    options: &libnvvm::Options,
    ir_key: &str,
) -> Option<PendingEntry> {
    // A `-g` compile has IR the key (made over the default IR) does not tell apart.
    if options.debug {
        return None;
    }
    let disk = DiskCache::from_env()?;
    let toolchain = nvvm.identity().ok()?;
    let key = disk_key(&key_parts(ir_key, options, toolchain));
    Some(PendingEntry { disk, key })
}

/// Whether `ptx` has `.loc` line directives, and whether it is full debug PTX
/// (`.target sm_XX, debug`).
fn debug_directives(ptx: &str) -> (bool, bool) {
    let mut lines = false;
    for line in ptx.lines().map(str::trim_start) {
        if line.starts_with(".target") && line.contains("debug") {
            return (true, true);
        }
        lines |= line.starts_with(".loc");
    }
    (lines, false)
}

/// The variable that sets the driver JIT's optimisation level (`CU_JIT_OPTIMIZATION_LEVEL`,
/// 0–4; the driver's default, 4, otherwise): for measuring what the PTX-to-machine-code
/// step costs a first launch at each level (issue 27), not for steady use, since a lower
/// level makes slower kernels.
pub const JIT_OPT_LEVEL_VARIABLE: &str = "CUDAJIT_JIT_OPT_LEVEL";

/// Loads ahead-of-time machine code (a cubin ptxas made of `ptx`) into `device`'s
/// context, noting in `timer` how long the driver took.
fn load_machine_code(
    device: &Device,
    sass: &[u8],
    ptx: &str,
    kernel: &str,
    timer: &mut FirstLaunchTimer,
) -> Result<Module> {
    let _guard = device.bind()?;
    let started = std::time::Instant::now();
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `sass` is a whole cubin (an ELF image, which carries its own size),
    // embedded in the binary by its build; the driver validates it and only reads it.
    let status = unsafe { sys::cuModuleLoadData(&mut module, sass.as_ptr() as *const c_void) };
    timer.note(
        FirstStage::MachineCodeLoad,
        started.elapsed().as_secs_f64() * 1e6,
    );
    status.result().map_err(|e| Error::Driver {
        call: "cuModuleLoadData",
        message: format!(
            "{} (`{kernel}`'s embedded machine code)",
            describe_driver_error(e)
        ),
    })?;
    crate::compile::grid_dependency::note_loaded(module, ptx);
    Ok(Module {
        raw: module,
        device: device.clone(),
        library: None,
    })
}

/// The driver JIT's options for loading `ptx`: its error log, its wall time, and the
/// debug information and optimisation level the PTX and the environment ask for. One
/// reading for a module's load and a library's (`load_library`).
struct JitOptions {
    keys: Vec<sys::CUjit_option>,
    values: Vec<*mut c_void>,
    log: Vec<u8>,
    wall_time_at: usize,
}

impl JitOptions {
    fn for_ptx(ptx: &str) -> JitOptions {
        let mut log = vec![0u8; 16 * 1024];
        let mut keys = vec![
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // The driver reads option values as pointer-sized words (the size is passed by
        // value cast to a pointer, as the CUDA documentation prescribes). The log's heap
        // buffer does not move when the vector is moved into the struct.
        let mut values = vec![log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
        // The driver writes the JIT's wall time (ms, an f32) over this option's value.
        keys.push(sys::CUjit_option::CU_JIT_WALL_TIME);
        values.push(std::ptr::null_mut());
        let wall_time_at = values.len() - 1;
        let jit_level = std::env::var(JIT_OPT_LEVEL_VARIABLE)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|level| *level <= 4);
        // debug info: the driver's ptxas keeps the PTX's Rust lines (or full debug
        // information) in the machine code only when asked.
        let (lines, full) = debug_directives(ptx);
        if lines {
            keys.push(sys::CUjit_option::CU_JIT_GENERATE_LINE_INFO);
            values.push(1usize as *mut c_void);
        }
        if full {
            // Unoptimised machine code, as nvcc -G: every Rust line has its instructions.
            keys.push(sys::CUjit_option::CU_JIT_GENERATE_DEBUG_INFO);
            values.push(1usize as *mut c_void);
            keys.push(sys::CUjit_option::CU_JIT_OPTIMIZATION_LEVEL);
            values.push(std::ptr::null_mut());
        } else if let Some(level) = jit_level {
            keys.push(sys::CUjit_option::CU_JIT_OPTIMIZATION_LEVEL);
            values.push(level as *mut c_void);
        }
        JitOptions {
            keys,
            values,
            log,
            wall_time_at,
        }
    }

    /// The JIT's wall time in ms, as the driver wrote it (after the load).
    fn wall_ms(&self) -> f32 {
        // The f32 sits in the low bytes of the pointer-sized word (little-endian hosts).
        f32::from_bits(self.values[self.wall_time_at] as usize as u32)
    }

    /// The load's error, with the JIT's log for `kernel`.
    fn error(&self, e: cudarc::driver::DriverError, call: &'static str, kernel: &str) -> Error {
        let end = self
            .log
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.log.len());
        let log = String::from_utf8_lossy(&self.log[..end]);
        let mut message = describe_driver_error(e);
        if !log.trim().is_empty() {
            message.push_str(&format!(
                "\nPTX JIT log for `{kernel}`:\n{}",
                log.trim_end()
            ));
        }
        Error::Driver { call, message }
    }
}

fn ptx_image(ptx: &str, kernel: &str) -> Result<CString> {
    CString::new(ptx).map_err(|_| Error::Compile {
        kernel: kernel.to_string(),
        message: "PTX contains a NUL byte".into(),
    })
}

/// Loads PTX into `device`'s context, with the driver's JIT log in the error, and notes
/// in `timer` how long the driver's PTX-to-machine-code compile took (its own clock;
/// near zero when its compute cache held the module).
pub(crate) fn load_module(
    device: &Device,
    ptx: &str,
    kernel: &str,
    timer: &mut FirstLaunchTimer,
) -> Result<Module> {
    let image = ptx_image(ptx, kernel)?;
    let _guard = device.bind()?;
    let mut jit = JitOptions::for_ptx(ptx);
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: NUL-terminated PTX; option arrays of equal length; the log outlives the call.
    let status = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image.as_ptr() as *const c_void,
            jit.keys.len() as u32,
            jit.keys.as_mut_ptr(),
            jit.values.as_mut_ptr(),
        )
    };
    timer.note(FirstStage::DriverJit, f64::from(jit.wall_ms()) * 1e3);
    if let Err(e) = status.result() {
        return Err(jit.error(e, "cuModuleLoadDataEx", kernel));
    }
    crate::compile::grid_dependency::note_loaded(module, ptx);
    Ok(Module {
        raw: module,
        device: device.clone(),
        library: None,
    })
}

/// Loads `module` as a library, which needs no context: its machine code, or its PTX
/// compiled by the driver's JIT now, in full (`bench/probes/library_module_probe.c`),
/// with the same JIT options as [`load_module`].
pub(crate) fn load_library(module: &WholeModule, kernel: &str) -> Result<Library> {
    let mut jit = JitOptions::for_ptx(&module.ptx);
    // The PTX is copied (NUL-terminated) only when it is what loads.
    let image;
    let (data, options) = match module.machine_code {
        // A cubin is an ELF image, which carries its own size; no JIT options apply.
        Some(sass) => (sass.as_ptr() as *const c_void, 0),
        None => {
            image = ptx_image(&module.ptx, kernel)?;
            (image.as_ptr() as *const c_void, jit.keys.len() as u32)
        }
    };
    let mut library: sys::CUlibrary = std::ptr::null_mut();
    // SAFETY: a whole embedded cubin, or NUL-terminated PTX with JIT option arrays of
    // equal length and a log that outlive the call; no library options.
    let status = unsafe {
        sys::cuLibraryLoadData(
            &mut library,
            data,
            jit.keys.as_mut_ptr(),
            jit.values.as_mut_ptr(),
            options,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        )
    };
    if let Err(e) = status.result() {
        return Err(jit.error(e, "cuLibraryLoadData", kernel));
    }
    Ok(Library(library))
}

/// `library`'s module in `device`'s context (the machine code compiled when the
/// library was loaded), owning the library from now on.
fn module_from_library(device: &Device, library: Library, ptx: &str) -> Result<Module> {
    let _guard = device.bind()?;
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `library` was loaded by `load_library` and is still loaded; the context
    // is current.
    unsafe { sys::cuLibraryGetModule(&mut module, library.0) }
        .result()
        .map_err(|e| Error::Driver {
            call: "cuLibraryGetModule",
            message: describe_driver_error(e),
        })?;
    crate::compile::grid_dependency::note_loaded(module, ptx);
    Ok(Module {
        raw: module,
        device: device.clone(),
        library: Some(library),
    })
}
