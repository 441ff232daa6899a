//! A launch's parameters packed in the kernel's parameter layout, for the driver's
//! `CU_LAUNCH_PARAM_BUFFER_POINTER` form (the fast path, `super::fast`, and its
//! CPU-only bench rows, `super::host_bench`). Apart from the launch path so that the
//! bench can use it without importing the path (an import cycle). The layout of a
//! launch's arguments ([`PackedLayout`]) is a function of their kinds, which the memo
//! compares: it is worked out once, when the memo learns the launch, and a hit writes
//! each argument at its known offset ([`PackedParams::fill_at`]).

use std::mem::MaybeUninit;

use crate::launch::args::{ArgKind, KernelArg};

/// Arguments a packed buffer holds at most (the memo's most: `super::memo::MEMO_ARGS`).
pub(crate) const PACKED_ARGS: usize = 8;

/// Words of the packed parameter buffer: the most arguments, each a slice (two slots),
/// and the panic record.
const PACKED_WORDS: usize = 2 * PACKED_ARGS + 1;

/// Bytes of the packed parameter buffer.
const PACKED_BYTES: usize = 8 * PACKED_WORDS;

/// Where each argument's slots start in the packed buffer, and where the panic record
/// does: each slot at the next offset aligned to its size, as [`PackedParams::fill`]
/// places them. Made only by [`PackedLayout::of`], which keeps every argument's 16
/// bytes and the record's 8 inside the buffer (what [`PackedParams::fill_at`] writes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PackedLayout {
    offsets: [u8; PACKED_ARGS],
    record: u8,
}

impl PackedLayout {
    /// The layout of `args` (scalars and device arrays) then the record, or `None` for
    /// another kind of argument or more than the buffer holds.
    pub(crate) fn of(args: &[KernelArg<'_>]) -> Option<PackedLayout> {
        if args.len() > PACKED_ARGS {
            return None;
        }
        let mut layout = PackedLayout::default();
        let mut end = 0usize;
        let mut place = |size: usize| {
            let at = (end + size - 1) & !(size - 1);
            end = at + size;
            at
        };
        for (i, arg) in args.iter().enumerate() {
            let at = match &arg.kind {
                ArgKind::Scalar(scalar) => place(scalar.size_bytes() as usize),
                ArgKind::Device { .. } => {
                    let at = place(8);
                    place(8);
                    at
                }
                _ => return None,
            };
            // `fill_at` writes 16 bytes at each argument's offset.
            if at + 16 > PACKED_BYTES {
                return None;
            }
            layout.offsets[i] = at as u8;
        }
        let record = place(8);
        if record + 8 > PACKED_BYTES {
            return None;
        }
        layout.record = record as u8;
        Some(layout)
    }
}

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

    /// `args` (scalars and device arrays: what a memo hit holds) then `record`, packed
    /// slot by slot; `None` for another kind of argument, or more than the buffer
    /// holds. The tests' reference for [`fill_at`](Self::fill_at).
    #[cfg(test)]
    pub(crate) fn pack(args: &[KernelArg<'_>], record: u64) -> Option<PackedParams> {
        let mut packed = PackedParams::new();
        packed.fill(args, record)?;
        Some(packed)
    }

    /// [`pack`](Self::pack) into this buffer, in place (its earlier contents are
    /// dropped); `None` as `pack` answers it, the buffer then not to be launched.
    #[cfg(test)]
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

    /// `args` then `record` at `layout`'s offsets, where `layout` is
    /// [`PackedLayout::of`] arguments of the same kinds (a memo hit's). Two unaligned
    /// 8-byte stores per argument, in order, and no branch: an argument's value (a
    /// scalar's in its low bytes, zeros above) then its length (0 for a scalar) go at its
    /// offset and 8 bytes on; whatever either writes past the argument's own slots is
    /// padding or a later argument's, which that argument's stores (or the record's)
    /// overwrite, so every byte below the size ends up the slot's value or zero.
    #[inline(always)]
    pub(crate) fn fill_at<const N: usize>(
        &mut self,
        layout: &PackedLayout,
        args: &[KernelArg<'_>; N],
        record: u64,
    ) {
        let base = self.words.as_mut_ptr() as *mut u8;
        for (arg, &at) in args.iter().zip(&layout.offsets) {
            // SAFETY: `PackedLayout::of` keeps `at + 16` inside the buffer.
            unsafe {
                let at = base.add(at as usize);
                (at as *mut u64).write_unaligned(arg.value);
                (at.add(8) as *mut u64).write_unaligned(arg.len as u64);
            }
        }
        let at = layout.record as usize;
        // SAFETY: `PackedLayout::of` keeps the record's 8 bytes inside the buffer.
        unsafe { (base.add(at) as *mut u64).write_unaligned(record) };
        self.size = at + 8;
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
    #[cfg(test)]
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
