//! Device-side panics. Each loaded module gets a 32-byte record in host-mapped pinned
//! memory; its device address is stored in the module's `__cudajit_panic_slot` global.
//! The first panicking thread fills the record (layout in the contract's kernel ABI);
//! after each synchronisation the host reads it, turns it into `Error::KernelPanic`
//! with the message of the panic site, and zeroes it so the next launch starts clean.
//! Panicking threads end with `exit`, never `trap`, so the context stays usable.

use std::ffi::CString;
use std::sync::atomic::{AtomicU32, Ordering};

use cudarc::driver::{result, sys};
use kernel_device::back::nvvm::PanicSite;

use crate::device::Device;
use crate::error::{DriverResultExt, Error, Result};

/// Size of the record the device writes.
pub(crate) const RECORD_BYTES: usize = 32;
/// Name of the module global the host points at the record.
pub(crate) const SLOT_SYMBOL: &str = "__cudajit_panic_slot";

/// The panic record of one module (one kernel).
pub(crate) struct PanicRecord {
    /// Host view of the pinned, device-mapped record.
    host: *mut u8,
    /// The same memory as the device sees it.
    device_ptr: sys::CUdeviceptr,
    kernel: String,
    sites: Vec<PanicSite>,
    device: Device,
    /// Synchronous launches of this kernel (with host slices) between their launch and
    /// their own check. Device-wide checks leave such a record alone, so that a panic
    /// is reported by the launch that caused it, not by another thread's unrelated
    /// synchronisation that happens to run in between.
    claimed: AtomicU32,
}

// SAFETY: the pointer is to pinned memory owned by this record; reads and writes go
// through volatile accesses and happen only after synchronisation.
unsafe impl Send for PanicRecord {}
unsafe impl Sync for PanicRecord {}

impl PanicRecord {
    /// Allocates a zeroed record mapped into `device`'s address space.
    pub(crate) fn new(device: &Device, kernel: &str, sites: Vec<PanicSite>) -> Result<Self> {
        device.bind()?;
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: 32 bytes of pinned memory, zeroed before anyone reads them.
        let host =
            unsafe { result::malloc_host(RECORD_BYTES, flags) }.call("cuMemHostAlloc")? as *mut u8;
        // SAFETY: `host` holds RECORD_BYTES bytes.
        unsafe { std::ptr::write_bytes(host, 0, RECORD_BYTES) };
        // Built before the next call so that its Drop frees the memory on failure.
        let mut record = PanicRecord {
            host,
            device_ptr: 0,
            kernel: kernel.to_string(),
            sites,
            device: device.clone(),
            claimed: AtomicU32::new(0),
        };
        // SAFETY: `host` is a mapped pinned allocation of the current context.
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut record.device_ptr, host as *mut _, 0) }
            .result()
            .call("cuMemHostGetDevicePointer")?;
        Ok(record)
    }

    /// Points `module`'s panic slot at this record. `Ok(false)` when the module has no
    /// slot (a PTX file not made by cudajit): its kernels just cannot report panics.
    pub(crate) fn install(&self, module: sys::CUmodule) -> Result<bool> {
        let name = CString::new(SLOT_SYMBOL).expect("no NUL in the symbol name");
        // SAFETY: `module` is loaded in the current context.
        let (slot, bytes) = match unsafe { result::module::get_global(module, name) } {
            Ok(found) => found,
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_FOUND => return Ok(false),
            Err(e) => return Err(Error::driver("cuModuleGetGlobal", e)),
        };
        if bytes != 8 {
            return Err(Error::Driver {
                call: "cuModuleGetGlobal",
                message: format!("`{SLOT_SYMBOL}` is {bytes} bytes, expected 8"),
            });
        }
        // SAFETY: `slot` is an 8-byte global of the module.
        unsafe { result::memcpy_htod_sync(slot, &[self.device_ptr]) }.call("cuMemcpyHtoD")?;
        Ok(true)
    }

    /// Marks a synchronous launch in flight until the guard drops (see `claimed`).
    pub(crate) fn claim(&self) -> Claim<'_> {
        self.claimed.fetch_add(1, Ordering::AcqRel);
        Claim(self)
    }

    /// `take`, unless a synchronous launch of this kernel will check it itself.
    pub(crate) fn take_unclaimed(&self) -> Option<Error> {
        if self.claimed.load(Ordering::Acquire) > 0 {
            return None;
        }
        self.take()
    }

    /// If a panic was recorded: clears the record and returns the error describing it.
    pub(crate) fn take(&self) -> Option<Error> {
        // SAFETY: `host` holds RECORD_BYTES bytes; volatile because the GPU writes them.
        let flag = unsafe { std::ptr::read_volatile(self.host as *const u32) };
        if flag == 0 {
            return None;
        }
        let mut bytes = [0u8; RECORD_BYTES];
        for (i, b) in bytes.iter_mut().enumerate() {
            // SAFETY: in bounds, as above.
            *b = unsafe { std::ptr::read_volatile(self.host.add(i)) };
        }
        // Zero the fields first and the flag last, so a record is never half-cleared
        // while looking set.
        for i in (0..RECORD_BYTES).rev() {
            // SAFETY: in bounds, as above.
            unsafe { std::ptr::write_volatile(self.host.add(i), 0) };
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        Some(decode(&bytes, &self.kernel, &self.sites))
    }
}

/// A synchronous launch's hold on its kernel's record.
pub(crate) struct Claim<'a>(&'a PanicRecord);

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.0.claimed.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Drop for PanicRecord {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: allocated in `new` with cuMemHostAlloc, freed only here.
            let _ = unsafe { result::free_host(self.host as *mut _) };
        }
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
            message: substitute(&site.message, op0, op1),
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
        b[0..4].copy_from_slice(&1u32.to_le_bytes());
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
