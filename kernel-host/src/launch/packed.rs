//! A launch's parameters packed in the kernel's parameter layout, for the driver's
//! `CU_LAUNCH_PARAM_BUFFER_POINTER` form (the fast path, `super::fast`, and its
//! CPU-only bench rows, `super::host_bench`). Apart from the launch path so that the
//! bench can use it without importing the path (an import cycle).

use crate::launch::args::{ArgKind, KernelArg};
use crate::launch::memo;

/// Words of the packed parameter buffer: the memo's most arguments, each a slice (two
/// slots), and the panic record.
const PACKED_WORDS: usize = 2 * memo::MEMO_ARGS + 1;

/// A launch's parameters in the driver's packed layout: each slot at the next offset
/// aligned to its own size (the layout `.param` declarations of those sizes get), the
/// panic record (`u64`) last.
pub(crate) struct PackedParams {
    pub(super) words: [u64; PACKED_WORDS],
    /// Bytes used.
    pub(super) size: usize,
}

impl PackedParams {
    /// `args` (scalars and device arrays: what a memo hit holds) then `record`, packed;
    /// `None` for another kind of argument, or more than the buffer holds.
    #[inline(always)]
    pub(crate) fn pack(args: &[KernelArg<'_>], record: u64) -> Option<PackedParams> {
        let mut packed = PackedParams {
            words: [0; PACKED_WORDS],
            size: 0,
        };
        for arg in args {
            match &arg.kind {
                // Low bytes of `value` hold the scalar (`KernelArg::scalar`).
                ArgKind::Scalar(scalar) => packed.put(arg.value, scalar.size_bytes() as usize)?,
                ArgKind::Device { .. } => {
                    packed.put(arg.value, 8)?;
                    packed.put(arg.len as u64, 8)?;
                }
                _ => return None,
            }
        }
        packed.put(record, 8)?;
        Some(packed)
    }

    /// Appends the low `size` bytes of `value` (`size` 1, 2, 4 or 8) at the next offset
    /// aligned to `size`: one store, no copy loop.
    #[inline(always)]
    fn put(&mut self, value: u64, size: usize) -> Option<()> {
        // `size` is a power of two: a mask, not a division, rounds the offset up.
        let at = (self.size + size - 1) & !(size - 1);
        let end = at + size;
        if end > std::mem::size_of_val(&self.words) {
            return None;
        }
        let base = self.words.as_mut_ptr() as *mut u8;
        // SAFETY: `at..end` lies inside `words` (checked above); little-endian hosts
        // (x86-64, aarch64: CUDA's) keep a value's low bytes first, so each store writes
        // the scalar's own bytes.
        unsafe {
            let at = base.add(at);
            match size {
                1 => at.write(value as u8),
                2 => (at as *mut u16).write_unaligned(value as u16),
                4 => (at as *mut u32).write_unaligned(value as u32),
                _ => (at as *mut u64).write_unaligned(value),
            }
        }
        self.size = end;
        Some(())
    }

    /// The bytes in use (for tests).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> Vec<u8> {
        // SAFETY: the words are plain data; viewed as their bytes, in place.
        let all = unsafe {
            std::slice::from_raw_parts(
                self.words.as_ptr() as *const u8,
                std::mem::size_of_val(&self.words),
            )
        };
        all[..self.size].to_vec()
    }
}

#[cfg(test)]
mod tests;
