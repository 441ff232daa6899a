//! First launch of a kernel on a device: source → NVVM IR (kernel-device) → PTX (from
//! the AOT table, the disk cache, or libnvvm) → loaded module with its panic record
//! installed → function. Runs once per kernel per device, under the kernel's cache lock.

use std::borrow::Cow;
use std::ffi::{c_void, CString};

use cudarc::driver::sys;
use kernel_device::back::nvvm::Options;
use kernel_device::source::FnSource;
use kernel_device::CompiledUnit;

use crate::compile::disk::{disk_key, DiskCache, DiskKeyParts};
use crate::compile::loaded::{LoadedKernel, Module};
use crate::compile::lower::{lower, runtime_options};
use crate::compile::{aot, libnvvm};
use crate::device::Device;
use crate::error::{describe_driver_error, Error, Result};

pub(crate) fn load(source: &'static FnSource, device: &Device) -> Result<LoadedKernel> {
    let kernel = source.name;
    // The key is taken over the IR made with default options, so it does not depend on
    // which libnvvm is installed and `cargo xtask build-device` can compute it too.
    let unit = lower(source, &Options::default())?;
    let (key, embedded) = aot::find_for_unit(&unit, device.compute_capability());

    let (ptx, unit, pending) = match embedded {
        Some(entry) => (Cow::Borrowed(entry.ptx), unit, None),
        None => {
            let (ptx, unit, pending) = compile_or_reuse(source, device, unit, &key)?;
            (Cow::Owned(ptx), unit, pending)
        }
    };

    let module = load_module(device, &ptx, kernel)?;
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
    )?;
    // Stored only now that the driver has accepted the PTX: PTX from a libnvvm newer
    // than the driver fails above and never becomes a cache entry.
    if let Some(pending) = pending {
        pending.store(kernel, &ptx);
        let entry = pending.disk.path(kernel, &pending.key);
        crate::compile::inspect::dump_if_asked(
            &entry,
            &unit.nvvm_ir,
            &ptx,
            &loaded.describe_resources(),
        );
    }
    Ok(loaded)
}

/// A freshly compiled kernel's place in the disk cache, written once it has loaded.
struct PendingEntry {
    disk: DiskCache,
    key: String,
}

impl PendingEntry {
    fn store(&self, kernel: &str, ptx: &str) {
        // The cache only saves time: a read-only or full disk must not fail a launch.
        let _ = self.disk.put(kernel, &self.key, ptx);
    }
}

/// PTX from the disk cache, or compiled by libnvvm (with the place to store it once
/// the driver has accepted it).
fn compile_or_reuse(
    source: &'static FnSource,
    device: &Device,
    unit: CompiledUnit,
    key: &str,
) -> Result<(String, CompiledUnit, Option<PendingEntry>)> {
    let kernel = source.name;
    let nvvm_error = |message: String| Error::Nvvm {
        kernel: kernel.to_string(),
        message,
    };
    let nvvm = libnvvm::shared().map_err(nvvm_error)?;
    let options = runtime_options(source, device.arch());
    let disk = disk_slot(&nvvm, &options, key);
    if let Some(slot) = &disk {
        if let Some(ptx) = slot.disk.get(kernel, &slot.key) {
            return Ok((ptx, unit, None));
        }
    }
    // The real IR carries the installed libnvvm's `!nvvmir.version`; otherwise it is
    // the same module (same panic sites and parameters).
    // The target's architecture lets the writer use its `bf16` instructions.
    let unit = lower(
        source,
        &Options {
            ir_version: nvvm.ir_version(),
            arch: Options::arch_number(&options.arch),
            debug: crate::compile::lower::debug_level(source),
            ..Options::default()
        },
    )?;
    let ptx = nvvm.compile(&unit.nvvm_ir, &options).map_err(nvvm_error)?;
    Ok((ptx, unit, disk))
}

/// The disk cache and this compile's key in it, or `None` when there is no usable
/// cache (disabled, refused, or libnvvm's files cannot be read to identify it).
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
    let key = disk_key(&DiskKeyParts {
        ir_key,
        arch: &options.arch,
        nvvm_version: nvvm.version(),
        toolchain,
        opt_level: options.opt_level,
        fast_math: options.fast_math,
        line_info: options.line_info,
    });
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

/// Loads PTX into `device`'s context, with the driver's JIT log in the error.
pub(crate) fn load_module(device: &Device, ptx: &str, kernel: &str) -> Result<Module> {
    let image = CString::new(ptx).map_err(|_| Error::Compile {
        kernel: kernel.to_string(),
        message: "PTX contains a NUL byte".into(),
    })?;
    let _guard = device.bind()?;
    let mut log = vec![0u8; 16 * 1024];
    let mut options = vec![
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The driver reads option values as pointer-sized words (the size is passed by
    // value cast to a pointer, as the CUDA documentation prescribes).
    let mut values = vec![log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
    // debug info: the driver's ptxas keeps the PTX's Rust lines (or full debug
    // information) in the machine code only when asked.
    let (lines, full) = debug_directives(ptx);
    if lines {
        options.push(sys::CUjit_option::CU_JIT_GENERATE_LINE_INFO);
        values.push(1usize as *mut c_void);
    }
    if full {
        options.push(sys::CUjit_option::CU_JIT_GENERATE_DEBUG_INFO);
        values.push(1usize as *mut c_void);
    }
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: NUL-terminated PTX; option arrays of equal length; `log` outlives the call.
    let status = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if let Err(e) = status.result() {
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        let log = String::from_utf8_lossy(&log[..end]);
        let mut message = describe_driver_error(e);
        if !log.trim().is_empty() {
            message.push_str(&format!(
                "\nPTX JIT log for `{kernel}`:\n{}",
                log.trim_end()
            ));
        }
        return Err(Error::Driver {
            call: "cuModuleLoadDataEx",
            message,
        });
    }
    Ok(Module {
        raw: module,
        device: device.clone(),
    })
}
