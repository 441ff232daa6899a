//! A launch's parameters packed in the kernel's parameter layout, for the driver's
//! `CU_LAUNCH_PARAM_BUFFER_POINTER` form (the fast path, `super::fast`, and its
//! CPU-only bench rows, `super::host_bench`). Apart from the launch path so that the
//! bench can use it without importing the path (an import cycle).

use std::mem::MaybeUninit;

use crate::launch::args::{ArgKind, KernelArg};
use crate::launch::memo;

/// Words of the packed parameter buffer: the memo's most arguments, each a slice (two
/// slots), and the panic record.
const PACKED_WORDS: usize = 2 * memo::MEMO_ARGS + 1;

/// A launch's parameters in the driver's packed layout: each slot at the next offset
/// aligned to its own size (the layout `.param` declarations of those sizes get), the
/// panic record (`u64`) last. Made uninitialised and filled in place
/// ([`fill`](Self::fill)): no zeroing of the whole buffer and no move of it on the
/// launch's path (issue 27); every byte below `size` is written (see `put`).
pub(crate) struct PackedParams {
    words: [MaybeUninit<u64>; PACKED_WORDS],
    /// Bytes used.
    pub(super) size: usize,
}

impl PackedParams {
    /// An empty buffer, not initialised.
    #[inline(always)]
    pub(crate) fn new() -> PackedParams {
        PackedParams {
            words: [const { MaybeUninit::uninit() }; PACKED_WORDS],
            size: 0,
        }
    }

    /// `args` (scalars and device arrays: what a memo hit holds) then `record`, packed;
    /// `None` for another kind of argument, or more than the buffer holds.
    #[inline(always)]
    pub(crate) fn pack(args: &[KernelArg<'_>], record: u64) -> Option<PackedParams> {
        let mut packed = PackedParams::new();
        packed.fill(args, record)?;
        Some(packed)
    }

    /// [`pack`](Self::pack) into this buffer, in place (its earlier contents are
    /// dropped); `None` as `pack` answers it, the buffer then not to be launched.
    #[inline(always)]
    pub(crate) fn fill(&mut self, args: &[KernelArg<'_>], record: u64) -> Option<()> {
        self.size = 0;
        for arg in args {
            match &arg.kind {
                // Low bytes of `value` hold the scalar (`KernelArg::scalar`).
                ArgKind::Scalar(scalar) => self.put(arg.value, scalar.size_bytes() as usize)?,
                ArgKind::Device { .. } => {
                    self.put(arg.value, 8)?;
                    self.put(arg.len as u64, 8)?;
                }
                _ => return None,
            }
        }
        self.put(record, 8)
    }

    /// The buffer's address, for `CU_LAUNCH_PARAM_BUFFER_POINTER`.
    #[inline(always)]
    pub(crate) fn as_mut_ptr(&mut self) -> *mut std::ffi::c_void {
        self.words.as_mut_ptr() as *mut std::ffi::c_void
    }

    /// Appends the low `size` bytes of `value` (`size` 1, 2, 4 or 8) at the next offset
    /// aligned to `size`: one store, no copy loop. A slot that starts a word writes the
    /// whole word, the bytes above the slot zero: no slot straddles a word, so the first
    /// slot in each word starts it, and every byte below `size` (padding included) is
    /// then initialised.
    #[inline(always)]
    fn put(&mut self, value: u64, size: usize) -> Option<()> {
        // `size` is a power of two: a mask, not a division, rounds the offset up.
        let at = (self.size + size - 1) & !(size - 1);
        let end = at + size;
        if end > std::mem::size_of_val(&self.words) {
            return None;
        }
        let low = if size == 8 {
            value
        } else {
            value & ((1u64 << (8 * size)) - 1)
        };
        if at % 8 == 0 {
            self.words[at / 8] = MaybeUninit::new(low);
        } else {
            let base = self.words.as_mut_ptr() as *mut u8;
            // SAFETY: `at..end` lies inside `words` (checked above); little-endian hosts
            // (x86-64, aarch64: CUDA's) keep a value's low bytes first, so each store
            // writes the scalar's own bytes. Not word-aligned: `size` is 1, 2 or 4.
            unsafe {
                let at = base.add(at);
                match size {
                    1 => at.write(low as u8),
                    2 => (at as *mut u16).write_unaligned(low as u16),
                    _ => (at as *mut u32).write_unaligned(low as u32),
                }
            }
        }
        self.size = end;
        Some(())
    }

    /// The bytes in use (for tests).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> Vec<u8> {
        // SAFETY: every byte below `size` was written (`put`); viewed as bytes in place.
        let used =
            unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.size) };
        used.to_vec()
    }
}

#[cfg(test)]
mod tests;
