//! Output of kernels that print (`println!` and friends in device code): the host's
//! side of `kernel_device::ir::format`. Kernels append binary records to a device
//! buffer; the host formats them with Rust's own formatting when it synchronises.
//!
//! - **GPU.** A module that prints gets two buffers when it is loaded ([`install`]):
//!   [`buffer_bytes`] bytes of device memory each; the live one's address is in the
//!   module's `__cudajit_print_buffer` global. Modules that do not print get nothing,
//!   and a launch never looks at printing: [`drain`] runs at synchronisation (a
//!   stream's, the device's, and a launch with host slices, which synchronises itself).
//!   It copies each live buffer's 32-byte header back and, when something was written,
//!   points the module at the spare, waits for the context (a launch on another stream
//!   may still be writing), copies the records, renders them, writes stdout/stderr and
//!   resets the old buffer. [`release`] drains and frees a module's buffers before it
//!   is unloaded.
//! - **Simulator.** A launch of a module that prints runs with a [`PrintSink`] of the
//!   same size and layout, rendered as soon as the launch ends (a simulated launch is
//!   complete when it returns).
//!
//! The order of a launch's lines is arrival order, or by (block, thread) with
//! `CUDAJIT_PRINT_ORDER=thread` or [`set_print_order`]. A full buffer drops whole
//! records and the output ends with a line saying how many. A failed `assert!`/`panic!`
//! with a formatted message leaves its rendered text here for the panic report
//! ([`formatted_panic`]).

use std::ffi::CString;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{result, sys, CudaContext};
use kernel_device::back::nvvm::print::PRINT_BUFFER_SYMBOL;
use kernel_device::back::sim::PrintSink;
use kernel_device::ir;
use kernel_device::ir::format::record::{self, BUFFER_HEADER_BYTES, CURSOR_OFFSET};
use kernel_device::ir::format::{render_output, FormatTable};
pub use kernel_device::ir::format::{PrintOrder, PrintOutput};

use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};

/// The variable that sets the print buffer's size in bytes (`k`, `m`, `g` suffixes).
pub const PRINT_BUFFER_VARIABLE: &str = "CUDAJIT_PRINT_BUFFER";
/// The variable that orders a launch's lines: `thread` or `arrival`.
pub const PRINT_ORDER_VARIABLE: &str = "CUDAJIT_PRINT_ORDER";
/// The buffer's size when neither the variable nor [`set_print_buffer_bytes`] says.
pub const DEFAULT_PRINT_BUFFER_BYTES: usize = 64 << 20;

/// 0: not set by the API (the variable or the default decides).
static BUFFER_BYTES: AtomicUsize = AtomicUsize::new(0);
/// 0: not set by the API; 1 arrival; 2 thread.
static ORDER: AtomicU8 = AtomicU8::new(0);

/// Sets the size of the print buffers made from now on (modules loaded later, every
/// later simulated launch). Records that do not fit are dropped and counted.
pub fn set_print_buffer_bytes(bytes: usize) {
    BUFFER_BYTES.store(bytes.max(BUFFER_HEADER_BYTES), Ordering::Relaxed);
}

/// Orders each drained buffer's lines (see [`PrintOrder`]).
pub fn set_print_order(order: PrintOrder) {
    let code = match order {
        PrintOrder::Arrival => 1,
        PrintOrder::Thread => 2,
    };
    ORDER.store(code, Ordering::Relaxed);
}

/// The print buffer's size: [`set_print_buffer_bytes`], else `CUDAJIT_PRINT_BUFFER`,
/// else [`DEFAULT_PRINT_BUFFER_BYTES`].
pub fn buffer_bytes() -> usize {
    match BUFFER_BYTES.load(Ordering::Relaxed) {
        0 => *ENV_BUFFER_BYTES.get_or_init(|| {
            std::env::var(PRINT_BUFFER_VARIABLE)
                .ok()
                .and_then(|v| parse_bytes(&v))
                .unwrap_or(DEFAULT_PRINT_BUFFER_BYTES)
                .max(BUFFER_HEADER_BYTES)
        }),
        n => n,
    }
}

static ENV_BUFFER_BYTES: OnceLock<usize> = OnceLock::new();
static ENV_ORDER: OnceLock<PrintOrder> = OnceLock::new();

/// The order lines are written in: [`set_print_order`], else `CUDAJIT_PRINT_ORDER`.
pub fn print_order() -> PrintOrder {
    match ORDER.load(Ordering::Relaxed) {
        1 => PrintOrder::Arrival,
        2 => PrintOrder::Thread,
        _ => *ENV_ORDER.get_or_init(|| {
            match std::env::var(PRINT_ORDER_VARIABLE)
                .ok()
                .as_deref()
                .map(str::trim)
            {
                Some("thread") => PrintOrder::Thread,
                _ => PrintOrder::Arrival,
            }
        }),
    }
}

/// `4096`, `64k`, `16M`, `1g` (binary multiples).
fn parse_bytes(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, shift) = match text.char_indices().last()? {
        (i, 'k' | 'K') => (&text[..i], 10),
        (i, 'm' | 'M') => (&text[..i], 20),
        (i, 'g' | 'G') => (&text[..i], 30),
        _ => (text, 0),
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(1 << shift)
}

// ---- where the text goes -------------------------------------------------------------

/// While [`capture`] runs: everything kernels print, instead of stdout/stderr.
static CAPTURED: Mutex<Option<PrintOutput>> = Mutex::new(None);

/// Runs `f` and returns what kernels printed meanwhile (in every thread of the
/// process) instead of writing it to stdout/stderr: for tests and for programs that
/// want the text as a value.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, PrintOutput) {
    *CAPTURED.lock().unwrap_or_else(|p| p.into_inner()) = Some(PrintOutput::default());
    let value = f();
    let output = CAPTURED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .unwrap_or_default();
    (value, output)
}

/// Writes one drained buffer's text (or adds it to a capture), then the dropped-records
/// notice, and keeps formatted panic messages for the panic report.
fn emit(kernel: &str, output: PrintOutput) {
    remember_panics(kernel, &output);
    let mut captured = CAPTURED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = captured.as_mut() {
        c.stdout.push_str(&output.stdout);
        c.stderr.push_str(&output.stderr);
        c.dropped_records += output.dropped_records;
        c.panics.extend(output.panics);
        return;
    }
    drop(captured);
    if !output.stdout.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(output.stdout.as_bytes());
        let _ = out.flush();
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(output.stderr.as_bytes());
    if let Some(notice) = output.dropped_notice() {
        let _ = writeln!(err, "{notice}");
    }
}

/// Decodes and renders a buffer (header included) against `table`.
fn render_buffer(table: &FormatTable, buffer: &[u8]) -> std::result::Result<PrintOutput, String> {
    let decoded =
        record::decode(buffer, |id| table.argument_types(id)).map_err(|e| e.to_string())?;
    render_output(table, decoded, print_order()).map_err(|e| e.to_string())
}

// ---- formatted panic messages ----------------------------------------------------------

fn remember_panics(kernel: &str, output: &PrintOutput) {
    crate::executor::formatted_panics::remember(
        kernel,
        output
            .panics
            .iter()
            .map(|(origin, format, text)| (origin.block, origin.thread, *format, text.clone())),
    );
}

// The synchronisations of `crate::device` drain the buffers through this hook (so that
// `device` names no layer above it).
inventory::submit! { crate::device::AtSynchronize(drain) }

// ---- the simulator ---------------------------------------------------------------------

/// `options` with a print buffer when `module` prints (unchanged otherwise).
pub(crate) fn sim_options(
    module: &ir::Module,
    mut options: crate::SimOptions,
) -> crate::SimOptions {
    if !module.prints.formats.is_empty() {
        options.prints = Some(PrintSink::with_capacity(buffer_bytes()));
    }
    options
}

/// Writes what a simulated launch printed.
pub(crate) fn flush_sim(kernel: &str, module: &ir::Module, options: &crate::SimOptions) {
    let Some(sink) = &options.prints else {
        return;
    };
    let buffer = sink.0.lock().unwrap_or_else(|p| p.into_inner());
    match render_buffer(&module.prints, &buffer) {
        Ok(output) => emit(kernel, output),
        Err(e) => eprintln!("cudajit: the print output of kernel `{kernel}` is unreadable: {e}"),
    }
}

// ---- the GPU ---------------------------------------------------------------------------

/// One loaded module's print buffers: two of them, so that a drain never reads or
/// resets a buffer a running kernel may still write. A drain points the module at the
/// spare, waits for the whole context (every stream: launches of the same module on
/// other streams may hold the old address), then reads and resets the old one, which
/// becomes the spare.
struct GpuBuffer {
    ctx: Arc<CudaContext>,
    module: sys::CUmodule,
    kernel: String,
    /// The module's `__cudajit_print_buffer` global: where kernels find the live buffer.
    slot: sys::CUdeviceptr,
    bytes: usize,
    table: FormatTable,
    /// Held for a whole drain: two host threads never drain one module at once.
    pair: Mutex<BufferPair>,
}

struct BufferPair {
    /// The buffer the module's kernels write to.
    live: sys::CUdeviceptr,
    /// Empty, waiting for the next drain.
    spare: sys::CUdeviceptr,
}

// SAFETY: the pointers are addresses, used only with the context bound.
unsafe impl Send for GpuBuffer {}
unsafe impl Sync for GpuBuffer {}

/// Set once any module that prints is loaded: until then [`drain`] costs one load.
static ANY_BUFFER: AtomicBool = AtomicBool::new(false);
static BUFFERS: Mutex<Vec<Arc<GpuBuffer>>> = Mutex::new(Vec::new());

/// Gives a freshly loaded module that prints its buffers (a module that does not
/// print is left alone). Call with the module's context current.
pub(crate) fn install(
    device: &Device,
    module: sys::CUmodule,
    kernel: &str,
    table: &FormatTable,
) -> Result<()> {
    if table.formats.is_empty() {
        return Ok(());
    }
    let Some((ctx, ..)) = device.record_pool() else {
        return Ok(());
    };
    let name = CString::new(PRINT_BUFFER_SYMBOL).expect("no NUL in the symbol name");
    // SAFETY: `module` is loaded in the current context.
    let (slot, size) =
        unsafe { result::module::get_global(module, name) }.call("cuModuleGetGlobal")?;
    if size != 8 {
        return Err(Error::Driver {
            call: "cuModuleGetGlobal",
            message: format!("`{PRINT_BUFFER_SYMBOL}` is {size} bytes, expected 8"),
        });
    }
    let bytes = buffer_bytes();
    let live = empty_buffer(bytes)?;
    let spare = match empty_buffer(bytes) {
        Ok(spare) => spare,
        Err(e) => {
            // SAFETY: allocated just above, used by nothing yet.
            unsafe { result::free_sync(live) }.call("cuMemFree")?;
            return Err(e);
        }
    };
    // SAFETY: `slot` is the module's 8-byte global.
    unsafe { result::memcpy_htod_sync(slot, &[live]) }.call("cuMemcpyHtoD")?;
    BUFFERS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Arc::new(GpuBuffer {
            ctx: ctx.clone(),
            module,
            kernel: kernel.to_string(),
            slot,
            bytes,
            table: table.clone(),
            pair: Mutex::new(BufferPair { live, spare }),
        }));
    ANY_BUFFER.store(true, Ordering::Release);
    Ok(())
}

/// A device allocation of `bytes` with an empty buffer's header (current context).
fn empty_buffer(bytes: usize) -> Result<sys::CUdeviceptr> {
    // SAFETY: a plain allocation in the current context, freed by [`release`].
    let device_ptr = unsafe { result::malloc_sync(bytes) }.call("cuMemAlloc")?;
    let mut header = [0u8; BUFFER_HEADER_BYTES];
    reset_header(&mut header, bytes);
    // SAFETY: a live device allocation of at least the header's size.
    unsafe { result::memcpy_htod_sync(device_ptr, &header) }.call("cuMemcpyHtoD")?;
    Ok(device_ptr)
}

/// Before `module` is unloaded (its context current): writes what its kernels printed
/// and frees its buffers. The module's launches must be complete (unloading needs that
/// too); a module that does not print has nothing here.
// Called by `compile::loaded::Module`'s drop, just before `cuModuleUnload`.
pub(crate) fn release(module: sys::CUmodule) {
    let released = {
        let mut buffers = BUFFERS.lock().unwrap_or_else(|p| p.into_inner());
        let at = buffers.iter().position(|b| b.module == module);
        at.map(|k| buffers.swap_remove(k))
    };
    let Some(buffer) = released else {
        return;
    };
    report_drain_error(&buffer, drain_buffers(std::slice::from_ref(&buffer)));
    let pair = buffer.pair.lock().unwrap_or_else(|p| p.into_inner());
    for ptr in [pair.live, pair.spare] {
        // SAFETY: allocated by `empty_buffer` for this module, now out of `BUFFERS`.
        if let Err(e) = unsafe { result::free_sync(ptr) }.call("cuMemFree") {
            eprintln!(
                "cudajit: cannot free the print buffer of kernel `{}`: {e}",
                buffer.kernel
            );
        }
    }
}

/// The header of an empty buffer of `bytes` bytes.
fn reset_header(header: &mut [u8], bytes: usize) {
    // Capacity is the data area: the whole buffer minus its header.
    let capacity = (bytes - BUFFER_HEADER_BYTES) as u64;
    header[0..8].fill(0);
    header[8..16].copy_from_slice(&capacity.to_le_bytes());
    header[16..24].fill(0);
    header[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
}

/// After a synchronisation of `device` (its context current): writes what its
/// kernels printed since the last drain. Errors are reported on stderr: printing must
/// never fail the synchronisation that found the kernels' real results.
pub(crate) fn drain(device: &Device) {
    if !ANY_BUFFER.load(Ordering::Acquire) {
        return;
    }
    let Some((ctx, ..)) = device.record_pool() else {
        return;
    };
    let buffers: Vec<Arc<GpuBuffer>> = BUFFERS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|b| Arc::ptr_eq(&b.ctx, ctx))
        .cloned()
        .collect();
    if let Err(e) = drain_buffers(&buffers) {
        eprintln!("cudajit: cannot read the print output of kernels: {e}");
    }
}

fn report_drain_error(buffer: &GpuBuffer, drained: Result<()>) {
    if let Err(e) = drained {
        let kernel = &buffer.kernel;
        eprintln!("cudajit: cannot read the print output of kernel `{kernel}`: {e}");
    }
}

/// Drains `buffers` (one context's, that context current): each one something was
/// written to is swapped for its spare; then, once, the whole context is waited for,
/// so that no launch on any stream still writes to the swapped-out buffers; then
/// each is read, rendered and reset. The buffers' locks are taken in `BUFFERS`'
/// order, so concurrent drains cannot deadlock.
fn drain_buffers(buffers: &[Arc<GpuBuffer>]) -> Result<()> {
    let mut swapped = Vec::new();
    for buffer in buffers {
        let mut pair = buffer.pair.lock().unwrap_or_else(|p| p.into_inner());
        if cursor_of(pair.live)? == 0 {
            continue;
        }
        // SAFETY: `slot` is the module's 8-byte global; `spare` a live buffer.
        unsafe { result::memcpy_htod_sync(buffer.slot, &[pair.spare]) }.call("cuMemcpyHtoD")?;
        let BufferPair { live, spare } = *pair;
        *pair = BufferPair {
            live: spare,
            spare: live,
        };
        swapped.push((buffer, pair));
    }
    if swapped.is_empty() {
        return Ok(());
    }
    result::ctx::synchronize().call("cuCtxSynchronize")?;
    for (buffer, pair) in swapped {
        report_drain_error(buffer, read_and_reset(buffer, pair.spare));
    }
    Ok(())
}

/// The cursor (bytes reserved) of the buffer at `device_ptr`.
fn cursor_of(device_ptr: sys::CUdeviceptr) -> Result<u64> {
    let mut header = [0u8; BUFFER_HEADER_BYTES];
    // SAFETY: the buffer holds at least its header.
    unsafe { result::memcpy_dtoh_sync(&mut header, device_ptr) }.call("cuMemcpyDtoH")?;
    let cursor = &header[CURSOR_OFFSET..CURSOR_OFFSET + 8];
    Ok(u64::from_le_bytes(cursor.try_into().unwrap()))
}

/// Reads, renders and resets a buffer no kernel writes to any more.
fn read_and_reset(buffer: &GpuBuffer, device_ptr: sys::CUdeviceptr) -> Result<()> {
    let cursor = cursor_of(device_ptr)?;
    let data = (cursor as usize).min(buffer.bytes - BUFFER_HEADER_BYTES);
    let mut bytes = vec![0u8; buffer.bytes];
    // SAFETY: `BUFFER_HEADER_BYTES + data` is within the allocation.
    unsafe { result::memcpy_dtoh_sync(&mut bytes[..BUFFER_HEADER_BYTES + data], device_ptr) }
        .call("cuMemcpyDtoH")?;
    let mut empty = [0u8; BUFFER_HEADER_BYTES];
    reset_header(&mut empty, buffer.bytes);
    // SAFETY: as above.
    unsafe { result::memcpy_htod_sync(device_ptr, &empty) }.call("cuMemcpyHtoD")?;
    match render_buffer(&buffer.table, &bytes) {
        Ok(output) => emit(&buffer.kernel, output),
        Err(e) => eprintln!(
            "cudajit: the print output of kernel `{}` is unreadable: {e}",
            buffer.kernel
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("64k"), Some(64 << 10));
        assert_eq!(parse_bytes(" 16M "), Some(16 << 20));
        assert_eq!(parse_bytes("1g"), Some(1 << 30));
        assert_eq!(parse_bytes("lots"), None);
    }

    #[test]
    fn a_reset_header_reads_as_an_empty_buffer() {
        let mut buffer = vec![0u8; 256];
        let bytes = buffer.len();
        reset_header(&mut buffer, bytes);
        let decoded = record::decode(&buffer, |_| None).expect("decodes");
        assert!(decoded.records.is_empty());
        assert_eq!(decoded.dropped_records, 0);
        let mut reference = vec![0u8; 256];
        record::reset_buffer(&mut reference).unwrap();
        assert_eq!(
            buffer[..BUFFER_HEADER_BYTES],
            reference[..BUFFER_HEADER_BYTES]
        );
    }
}
