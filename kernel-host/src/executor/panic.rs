//! Device-side panics, each reported by the launch (or the stream synchronisation) that
//! caused it and by no other.
//!
//! A launch passes the device address of a *panic record* as every kernel's hidden last
//! parameter (`kernel_device::back::nvvm::PANIC_RECORD_PARAM`): a launch with host
//! slices, which synchronises and checks right away, takes a record of its own from the
//! device's pool; an asynchronous launch uses its stream's record, which that stream's
//! synchronisation (or a device-wide one) checks. Two launches of one kernel on two
//! streams, or in two threads, therefore never share a record.
//!
//! The legacy default stream is one queue for every host thread, but its panics are
//! not: each host thread's asynchronous launches on it report into a record of that
//! thread's, checked by that thread's copies and synchronisations. A device-wide
//! synchronisation reports the panics of the streams whose latest launch the calling
//! thread made (its own default-stream record included), never those of a stream
//! another thread launched on last: those reach that thread, or whoever synchronises
//! the stream itself. A thread that exits leaves its default-stream record to the next
//! device-wide synchronisation of any thread, which reports a panic left in it and
//! then lends the record to a new thread.
//!
//! The protocol is race-free in Rust's sense (layout in `kernel_device::back::nvvm::panic`):
//! the first panicking thread claims the record (flag 0→1), writes the fields and its
//! module's tag, fences (`membar.sys`), then publishes the flag (→2) atomically. The host
//! reads the flag with an acquire load, copies the fields only when it is 2, and clears
//! it with a compare-and-swap 2→0, so of two host threads checking one record at once
//! exactly one reports the panic; the device cannot write the fields while the flag is
//! not 0. The module tag names the kernel whose panic sites the site id indexes.
//! Panicking threads end with `exit`, never `trap`, so the context stays usable.

use std::cell::RefCell;
use std::ffi::CString;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use cudarc::driver::{result, sys, CudaContext};
use kernel_device::back::nvvm::PanicSite;

use crate::error::{DriverResultExt, Error, Result};
use crate::executor::health::Health;

/// Bytes allocated per record (40 are used: see the module documentation).
pub(crate) const RECORD_BYTES: usize = 64;
/// Name of the module global the host stores the module's tag in.
pub(crate) const TAG_SYMBOL: &str = kernel_device::back::nvvm::MODULE_TAG_SYMBOL;

/// Flag values: no panic / a thread is writing the fields / the fields are complete.
const EMPTY: u32 = 0;
const PUBLISHED: u32 = 2;

/// One panic record in pinned host memory mapped into the device's address space.
pub(crate) struct PanicRecord {
    /// Host view of the record.
    host: *mut u8,
    /// The same memory as the device sees it.
    device_ptr: u64,
    /// The context the memory is mapped into (current while it is freed).
    ctx: Arc<CudaContext>,
    /// The context's health and generation: a reset frees the memory itself.
    health: Arc<Health>,
    generation: u64,
}

// SAFETY: the pointer is to pinned memory owned by this record; the flag is accessed
// atomically, the fields only while the flag says the device does not write them.
unsafe impl Send for PanicRecord {}
unsafe impl Sync for PanicRecord {}

impl PanicRecord {
    /// Allocates a zeroed record mapped into `device`'s address space.
    pub(crate) fn new(ctx: &Arc<CudaContext>, health: &Arc<Health>) -> Result<Self> {
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: RECORD_BYTES bytes of pinned memory, zeroed before anyone reads them.
        let host =
            unsafe { result::malloc_host(RECORD_BYTES, flags) }.call("cuMemHostAlloc")? as *mut u8;
        // SAFETY: `host` holds RECORD_BYTES bytes.
        unsafe { std::ptr::write_bytes(host, 0, RECORD_BYTES) };
        // Built before the next call so that its Drop frees the memory on failure.
        let mut record = PanicRecord {
            host,
            device_ptr: 0,
            ctx: ctx.clone(),
            health: health.clone(),
            generation: health.generation(),
        };
        // SAFETY: `host` is a mapped pinned allocation of the current context.
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut record.device_ptr, host as *mut _, 0) }
            .result()
            .call("cuMemHostGetDevicePointer")?;
        Ok(record)
    }

    /// What a launch passes as the kernel's hidden panic-record parameter.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.device_ptr
    }

    fn flag(&self) -> &AtomicU32 {
        // SAFETY: the record is 4-byte aligned (page-aligned pinned memory) and lives as
        // long as `self`; the device accesses the flag only with atomics too.
        unsafe { &*(self.host as *const AtomicU32) }
    }

    /// The record's bytes if a panic was published, clearing it; `None` otherwise (also
    /// when another host thread took the same panic first).
    pub(crate) fn take_raw(&self) -> Option<[u8; RECORD_BYTES]> {
        if self.flag().load(Ordering::Acquire) != PUBLISHED {
            return None;
        }
        let mut bytes = [0u8; RECORD_BYTES];
        for (i, b) in bytes.iter_mut().enumerate() {
            // SAFETY: in bounds. The flag is PUBLISHED, so the device does not write the
            // fields (its claim 0→1 fails) until the compare-and-swap below clears it.
            *b = unsafe { std::ptr::read_volatile(self.host.add(i)) };
        }
        self.flag()
            .compare_exchange(PUBLISHED, EMPTY, Ordering::AcqRel, Ordering::Relaxed)
            .ok()
            .map(|_| bytes)
    }
}

impl Drop for PanicRecord {
    fn drop(&mut self) {
        // A reset (waiting, running or done since `new`) frees the memory itself.
        let Some(_guard) = self.health.enter_if_current(self.generation) else {
            return;
        };
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: allocated in `new` with cuMemHostAlloc, freed only here, in the
            // context it was allocated in (the guard keeps a reset out).
            let _ = unsafe { result::free_host(self.host as *mut _) };
        }
    }
}

/// The kernel name and panic sites of a loaded module, found by its tag.
pub(crate) struct ModuleSites {
    kernel: String,
    sites: Vec<PanicSite>,
}

/// Every module of a GPU that can report panics, by tag (index + 1).
#[derive(Default)]
pub(crate) struct ModuleTable {
    modules: RwLock<Vec<Arc<ModuleSites>>>,
}

impl ModuleTable {
    /// Registers a module's sites and stores its new tag in the module's tag global.
    /// `Ok(false)` when the module has no tag global (a PTX file not made by cudajit):
    /// its kernels still report panics, only without the source site.
    pub(crate) fn install(
        &self,
        module: sys::CUmodule,
        kernel: &str,
        sites: Vec<PanicSite>,
    ) -> Result<bool> {
        let name = CString::new(TAG_SYMBOL).expect("no NUL in the symbol name");
        // SAFETY: `module` is loaded in the current context.
        let (slot, bytes) = match unsafe { result::module::get_global(module, name) } {
            Ok(found) => found,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_FOUND => return Ok(false),
            Err(e) => return Err(Error::driver("cuModuleGetGlobal", e)),
        };
        if bytes != 8 {
            return Err(Error::Driver {
                call: "cuModuleGetGlobal",
                message: format!("`{TAG_SYMBOL}` is {bytes} bytes, expected 8"),
            });
        }
        let tag = {
            let mut modules = self.modules.write().unwrap_or_else(|p| p.into_inner());
            modules.push(Arc::new(ModuleSites {
                kernel: kernel.to_string(),
                sites,
            }));
            modules.len() as u64
        };
        // SAFETY: `slot` is an 8-byte global of the module.
        unsafe { result::memcpy_htod_sync(slot, &[tag]) }.call("cuMemcpyHtoD")?;
        // From pageable memory the copy returns once staged; launches on non-blocking
        // streams are not ordered after the NULL stream's DMA, so wait for it here
        // (once per module) rather than let a panic report a stale tag.
        // SAFETY: the legacy NULL stream of the current context.
        unsafe { result::stream::synchronize(std::ptr::null_mut()) }.call("cuStreamSynchronize")?;
        Ok(true)
    }

    /// The error a published record stands for.
    pub(crate) fn decode(&self, bytes: &[u8; RECORD_BYTES]) -> Error {
        let tag = u64::from_le_bytes(bytes[32..40].try_into().unwrap());
        let module = usize::try_from(tag)
            .ok()
            .and_then(|tag| tag.checked_sub(1))
            .and_then(|index| {
                let modules = self.modules.read().unwrap_or_else(|p| p.into_inner());
                modules.get(index).cloned()
            });
        match module {
            Some(module) => decode(bytes, &module.kernel, &module.sites),
            None => decode(bytes, "<a kernel cudajit did not compile>", &[]),
        }
    }
}

/// Where the asynchronous launches of one stream report faults until the stream (or the
/// device) is synchronised: a GPU's panic record, or the simulator's first fault.
/// `repr(C)`: the two words every launch reads come first, in one cache line.
#[repr(C)]
pub(crate) struct StreamFaults {
    /// The record's device address, read by every launch without taking the lock.
    record_ptr: AtomicU64,
    /// The host thread that launched on the stream last ([`thread_key`]), whose
    /// device-wide synchronisation reports this stream's panics; `ORPHANED` for the
    /// default-stream record of a thread that exited, `UNUSED` before any launch (and
    /// for a default-stream record free for another thread).
    launcher: AtomicU64,
    /// The GPU's record (None on the simulator); replaced by `Device::reset`, which
    /// frees the memory of the old one.
    record: Mutex<Option<PanicRecord>>,
    /// The simulator's first fault of a launch on device arrays alone.
    deferred: Mutex<Option<Error>>,
}

/// [`StreamFaults::launcher`] of a record no thread launched on (or free to lend).
const UNUSED: u64 = 0;
/// [`StreamFaults::launcher`] of a default-stream record whose thread exited.
const ORPHANED: u64 = u64::MAX;

/// A number naming the calling host thread for the process's lifetime (never
/// `UNUSED` or `ORPHANED`).
#[inline]
pub(crate) fn thread_key() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    // A `const` thread-local without a destructor: one load on every launch, no lazy
    // initialisation check; 0 until the thread's first call numbers it.
    thread_local!(static KEY: std::cell::Cell<u64> = const { std::cell::Cell::new(UNUSED) });
    KEY.with(|key| match key.get() {
        UNUSED => {
            let new = NEXT.fetch_add(1, Ordering::Relaxed);
            key.set(new);
            new
        }
        known => known,
    })
}

impl StreamFaults {
    /// A GPU stream's faults (with a pinned record).
    pub(crate) fn cuda(ctx: &Arc<CudaContext>, health: &Arc<Health>) -> Result<Arc<StreamFaults>> {
        let record = PanicRecord::new(ctx, health)?;
        Ok(Arc::new(StreamFaults {
            record_ptr: AtomicU64::new(record.device_ptr()),
            record: Mutex::new(Some(record)),
            deferred: Mutex::new(None),
            launcher: AtomicU64::new(UNUSED),
        }))
    }

    /// Notes the calling thread as the stream's latest launcher (one relaxed load when
    /// it already is).
    #[inline]
    pub(crate) fn note_launcher(&self) {
        let me = thread_key();
        if self.launcher.load(Ordering::Relaxed) != me {
            self.launcher.store(me, Ordering::Relaxed);
        }
    }

    /// After a context reset: a new record in place of the one the reset freed.
    pub(crate) fn renew(&self, ctx: &Arc<CudaContext>, health: &Arc<Health>) -> Result<()> {
        let mut record = self.record.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(old) = record.take() {
            // The reset freed its memory already; freeing it again could free a new
            // allocation at the same address.
            std::mem::forget(old);
            let new = PanicRecord::new(ctx, health)?;
            self.record_ptr.store(new.device_ptr(), Ordering::Release);
            *record = Some(new);
        }
        Ok(())
    }

    /// A simulated stream's faults.
    pub(crate) fn sim() -> Arc<StreamFaults> {
        Arc::new(StreamFaults {
            record: Mutex::new(None),
            record_ptr: AtomicU64::new(0),
            deferred: Mutex::new(None),
            launcher: AtomicU64::new(UNUSED),
        })
    }

    /// The hidden kernel parameter of a launch on this stream (0 on the simulator).
    pub(crate) fn record_ptr(&self) -> u64 {
        self.record_ptr.load(Ordering::Relaxed)
    }

    /// Keeps the simulator's `error` for the next synchronisation, unless an earlier
    /// one waits (the GPU too reports the first panic).
    pub(crate) fn defer(&self, error: Error) {
        self.note_launcher();
        let mut deferred = self.deferred.lock().unwrap_or_else(|p| p.into_inner());
        if deferred.is_none() {
            *deferred = Some(error);
        }
    }

    /// Reports (and clears) the first fault of this stream's launches. Call only after
    /// a synchronisation covering them.
    pub(crate) fn take(&self, modules: Option<&ModuleTable>) -> Result<()> {
        if let Some(modules) = modules {
            let record = self.record.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(bytes) = record.as_ref().and_then(PanicRecord::take_raw) {
                drop(record);
                return Err(modules.decode(&bytes));
            }
        }
        match self
            .deferred
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// The faults of a device's streams: those of each host thread's launches on the
/// default stream, and those of the live streams it made.
pub(crate) struct DeviceFaults {
    /// Names the device in threads' lists of their default-stream records.
    serial: u64,
    /// Every thread's default-stream record, in use or free to lend (`launcher`
    /// says which); also listed in `streams`.
    per_thread: Mutex<Vec<Arc<StreamFaults>>>,
    streams: Mutex<Vec<Weak<StreamFaults>>>,
}

/// A thread's default-stream record of one device; orphaned when the thread exits.
struct ThreadDefault {
    serial: u64,
    faults: Arc<StreamFaults>,
}

impl Drop for ThreadDefault {
    fn drop(&mut self) {
        // No driver call in a thread-local destructor: the device keeps the record,
        // and its next device-wide synchronisation checks and frees it.
        self.faults.launcher.store(ORPHANED, Ordering::Release);
    }
}

thread_local! {
    /// This thread's default-stream records, one per device it launched on.
    static THREAD_DEFAULTS: RefCell<Vec<ThreadDefault>> = const { RefCell::new(Vec::new()) };
}

impl DeviceFaults {
    pub(crate) fn new() -> Self {
        static SERIAL: AtomicU64 = AtomicU64::new(1);
        DeviceFaults {
            serial: SERIAL.fetch_add(1, Ordering::Relaxed),
            per_thread: Mutex::new(Vec::new()),
            streams: Mutex::new(Vec::new()),
        }
    }

    /// The calling thread's default-stream record: its own, a free one lent to it, or
    /// a new one from `make`.
    #[inline]
    pub(crate) fn for_this_thread(
        &self,
        make: impl FnOnce() -> Result<Arc<StreamFaults>>,
    ) -> Result<Arc<StreamFaults>> {
        let found = THREAD_DEFAULTS.with(|mine| {
            mine.borrow()
                .iter()
                .find(|d| d.serial == self.serial)
                .map(|d| d.faults.clone())
        });
        match found {
            Some(faults) => Ok(faults),
            None => self.adopt(make),
        }
    }

    /// The calling thread's default-stream record when it has one, borrowed: what the
    /// launch path reads, without the reference count's two atomic operations that
    /// [`for_this_thread`](Self::for_this_thread) costs. `None` before the thread's
    /// first launch on the device (then `for_this_thread` makes or lends one).
    #[inline]
    pub(crate) fn this_thread_borrowed(&self) -> Option<&StreamFaults> {
        let found = THREAD_DEFAULTS.with(|mine| {
            mine.borrow()
                .iter()
                .find(|d| d.serial == self.serial)
                .map(|d| Arc::as_ptr(&d.faults))
        });
        // SAFETY: the thread's entries are only ever pushed, and dropped with the
        // thread-local at the thread's end, after every borrow its stack holds; each
        // entry's `Arc` keeps the record where it is when the list grows. The borrow
        // cannot outlive the thread: it is tied to `self`, borrowed on this thread.
        found.map(|faults| unsafe { &*faults })
    }

    #[cold]
    fn adopt(&self, make: impl FnOnce() -> Result<Arc<StreamFaults>>) -> Result<Arc<StreamFaults>> {
        let me = thread_key();
        let lent = {
            let per_thread = self.per_thread.lock().unwrap_or_else(|p| p.into_inner());
            per_thread
                .iter()
                .find(|f| {
                    f.launcher
                        .compare_exchange(UNUSED, me, Ordering::AcqRel, Ordering::Relaxed)
                        .is_ok()
                })
                .cloned()
        };
        let faults = match lent {
            Some(faults) => faults,
            None => {
                let faults = make()?;
                faults.launcher.store(me, Ordering::Relaxed);
                self.register(&faults);
                self.per_thread
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(faults.clone());
                faults
            }
        };
        THREAD_DEFAULTS.with(|mine| {
            mine.borrow_mut().push(ThreadDefault {
                serial: self.serial,
                faults: faults.clone(),
            })
        });
        Ok(faults)
    }

    /// Remembers a new stream's faults (and forgets those of dropped streams).
    pub(crate) fn register(&self, faults: &Arc<StreamFaults>) {
        let mut streams = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        streams.retain(|s| s.strong_count() > 0);
        streams.push(Arc::downgrade(faults));
    }

    /// Every live stream's faults, every thread's default-stream ones included.
    pub(crate) fn all(&self) -> Vec<Arc<StreamFaults>> {
        let streams = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        streams.iter().filter_map(Weak::upgrade).collect()
    }

    /// Reports (and clears) the first fault of the streams the calling thread launched
    /// on last, and of the default-stream records of exited threads (which are then
    /// free to lend). Call only after a device-wide synchronisation.
    pub(crate) fn take_mine(&self, modules: Option<&ModuleTable>) -> Result<()> {
        let me = thread_key();
        // The first fault found is reported; the others wait for the next check.
        for faults in self.all() {
            let launcher = faults.launcher.load(Ordering::Acquire);
            if launcher == me {
                faults.take(modules)?;
            } else if launcher == ORPHANED {
                // Its thread is gone and the synchronisation covered its launches:
                // nothing writes the record any more.
                let left = faults.take(modules);
                faults.launcher.store(UNUSED, Ordering::Release);
                left?;
            }
        }
        Ok(())
    }
}

/// Records for launches with host slices, each used by one launch at a time, so such a
/// launch reports its own panic and nothing else.
#[derive(Default)]
pub(crate) struct RecordPool {
    free: Mutex<Vec<PanicRecord>>,
}

impl RecordPool {
    pub(crate) fn acquire(
        &self,
        ctx: &Arc<CudaContext>,
        health: &Arc<Health>,
    ) -> Result<PanicRecord> {
        let reused = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match reused {
            Some(record) => Ok(record),
            None => PanicRecord::new(ctx, health),
        }
    }

    /// After a context reset: forgets the records the reset freed.
    pub(crate) fn forget_all(&self) {
        let records = std::mem::take(&mut *self.free.lock().unwrap_or_else(|p| p.into_inner()));
        records.into_iter().for_each(std::mem::forget);
    }

    /// Returns a record whose launch has completed and been checked (so it is clear).
    pub(crate) fn release(&self, record: PanicRecord) {
        self.free
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(record);
    }
}

/// The error a set record stands for. Pure, so it is tested without a GPU.
pub(crate) fn decode(bytes: &[u8; RECORD_BYTES], kernel: &str, sites: &[PanicSite]) -> Error {
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    let site_id = u32_at(4);
    let (op0, op1) = (u64_at(8), u64_at(16));
    let (block, thread) = (u32_at(24), u32_at(28));
    match sites.iter().find(|s| s.id == site_id) {
        Some(site) => Error::KernelPanic {
            kernel: kernel.to_string(),
            file: site.file.clone(),
            line: site.line,
            column: site.column,
            message: super::formatted_panics::formatted_panic(kernel, &site.message, block, thread)
                .unwrap_or_else(|| substitute(&site.message, op0, op1)), // print
            block,
            thread,
        },
        // A record from a module whose sites we do not know (should not happen, but a
        // panic must never be dropped silently).
        None => Error::KernelPanic {
            kernel: kernel.to_string(),
            file: "<unknown>".into(),
            line: 0,
            column: 0,
            message: format!("panic site {site_id} (operands {op0}, {op1})"),
            block,
            thread,
        },
    }
}

/// `{0}` and `{1}` in a site's message stand for the record's two operands, printed
/// as `usize` values the way Rust's own messages print indices and lengths (an index
/// of `-11i64 as usize` is `18446744073709551605`, never `-11`).
/// `{0:f32}`-style placeholders print the operand's bits as a float (`clamp`'s message).
fn substitute(message: &str, op0: u64, op1: u64) -> String {
    kernel_device::ir::checks::substitute(message, op0, op1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(site: u32, op0: i64, op1: i64, block: u32, thread: u32) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0..4].copy_from_slice(&PUBLISHED.to_le_bytes());
        b[4..8].copy_from_slice(&site.to_le_bytes());
        b[8..16].copy_from_slice(&op0.to_le_bytes());
        b[16..24].copy_from_slice(&op1.to_le_bytes());
        b[24..28].copy_from_slice(&block.to_le_bytes());
        b[28..32].copy_from_slice(&thread.to_le_bytes());
        b
    }

    fn sites() -> Vec<PanicSite> {
        vec![
            PanicSite {
                id: 1,
                function: "vecadd".into(),
                file: "examples/vecadd.rs".into(),
                line: 14,
                column: 9,
                message: "index out of bounds: the len is {1} but the index is {0}".into(),
            },
            PanicSite {
                id: 2,
                function: "vecadd".into(),
                file: "examples/vecadd.rs".into(),
                line: 15,
                column: 5,
                message: "attempt to divide by zero".into(),
            },
        ]
    }

    #[test]
    fn decodes_index_out_of_bounds() {
        let e = decode(&record(1, 9, 8, 0, 8), "vecadd", &sites());
        assert_eq!(
            e.to_string(),
            "kernel `vecadd` panicked at examples/vecadd.rs:14:9: index out of bounds: \
             the len is 8 but the index is 9 (block 0, thread 8)"
        );
        let e = decode(&record(2, 0, 0, 3, 1), "vecadd", &sites());
        assert!(matches!(
            e,
            Error::KernelPanic {
                line: 15,
                block: 3,
                thread: 1,
                ..
            }
        ));
    }

    #[test]
    fn negative_index_prints_as_usize_like_rust() {
        // `s[(-11i64) as usize]` in Rust: "the index is 18446744073709551605".
        let e = decode(&record(1, -11, 8, 0, 0), "vecadd", &sites());
        let expected = format!(
            "the len is 8 but the index is {} (block 0",
            (-11i64) as usize
        );
        assert!(e.to_string().contains(&expected), "{e}");
        assert!(e.to_string().contains("18446744073709551605"), "{e}");
    }

    #[test]
    fn unknown_site_is_still_reported() {
        let e = decode(&record(7, -1, 2, 1, 2), "k", &sites());
        assert!(e.to_string().contains("panic site 7"), "{e}");
    }
}
