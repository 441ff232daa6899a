//! Simulated device memory. Every access goes through relaxed atomics of the access's
//! width, so that a racy kernel (which the detector reports) is still defined behaviour
//! for the simulator's own Rust code when blocks run on several host threads.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};

/// A device allocation: `len` bytes, 16-byte aligned, zero-initialised.
#[derive(Debug)]
pub struct Buffer {
    words: Box<[AtomicU64]>,
    len: usize,
}

impl Buffer {
    pub fn new(len: usize) -> Buffer {
        let words = (0..len.div_ceil(8)).map(|_| AtomicU64::new(0)).collect();
        Buffer { words, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn base(&self) -> *mut u8 {
        self.words.as_ptr() as *mut u8
    }

    fn byte(&self, offset: usize) -> &AtomicU8 {
        assert!(
            offset < self.len,
            "buffer offset {offset} past {}",
            self.len
        );
        // SAFETY: `offset` is inside the allocation of `words` (checked above); an
        // AtomicU8 has alignment 1 and may alias the bytes of the AtomicU64s, which are
        // only ever accessed atomically.
        unsafe { AtomicU8::from_ptr(self.base().add(offset)) }
    }

    /// Copies `src` into the buffer at `offset` (host to device).
    pub fn write(&self, offset: usize, src: &[u8]) {
        // Byte by byte up to a word boundary, then whole words, then the tail.
        let head = offset
            .next_multiple_of(8)
            .saturating_sub(offset)
            .min(src.len());
        let (head_bytes, rest) = src.split_at(head);
        for (i, &b) in head_bytes.iter().enumerate() {
            self.byte(offset + i).store(b, Ordering::Relaxed);
        }
        let mut at = offset + head;
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            self.word(at).store(
                u64::from_ne_bytes(w.try_into().expect("8 bytes")),
                Ordering::Relaxed,
            );
            at += 8;
        }
        for (i, &b) in words.remainder().iter().enumerate() {
            self.byte(at + i).store(b, Ordering::Relaxed);
        }
    }

    /// The whole word at `offset` (a multiple of 8 whose 8 bytes lie inside the buffer).
    fn word(&self, offset: usize) -> &AtomicU64 {
        debug_assert!(offset.is_multiple_of(8));
        assert!(
            offset + 8 <= self.len,
            "buffer offset {offset} past {}",
            self.len
        );
        &self.words[offset / 8]
    }

    /// Copies from the buffer at `offset` into `dst` (device to host).
    pub fn read(&self, offset: usize, dst: &mut [u8]) {
        let head = offset
            .next_multiple_of(8)
            .saturating_sub(offset)
            .min(dst.len());
        let (head_bytes, rest) = dst.split_at_mut(head);
        for (i, b) in head_bytes.iter_mut().enumerate() {
            *b = self.byte(offset + i).load(Ordering::Relaxed);
        }
        let mut at = offset + head;
        let mut words = rest.chunks_exact_mut(8);
        for w in &mut words {
            w.copy_from_slice(&self.word(at).load(Ordering::Relaxed).to_ne_bytes());
            at += 8;
        }
        for (i, b) in words.into_remainder().iter_mut().enumerate() {
            *b = self.byte(at + i).load(Ordering::Relaxed);
        }
    }

    /// Whether `bytes` bytes at `offset` lie inside the buffer.
    pub fn contains(&self, offset: u64, bytes: u64) -> bool {
        offset
            .checked_add(bytes)
            .is_some_and(|end| end <= self.len as u64)
    }

    /// Loads the `bytes`-byte (1, 2, 4 or 8) little-endian value at `offset`,
    /// zero-extended. The caller has checked [`Self::contains`].
    pub fn load(&self, offset: usize, bytes: u32) -> u64 {
        debug_assert!(self.contains(offset as u64, u64::from(bytes)));
        if !offset.is_multiple_of(bytes as usize) {
            let mut v = [0u8; 8];
            self.read(offset, &mut v[..bytes as usize]);
            return u64::from_le_bytes(v);
        }
        // SAFETY: in bounds (the caller's check), naturally aligned (tested above),
        // and the memory is only ever accessed atomically.
        unsafe {
            let p = self.base().add(offset);
            match bytes {
                1 => u64::from(AtomicU8::from_ptr(p).load(Ordering::Relaxed)),
                2 => u64::from(AtomicU16::from_ptr(p.cast()).load(Ordering::Relaxed)),
                4 => u64::from(AtomicU32::from_ptr(p.cast()).load(Ordering::Relaxed)),
                _ => AtomicU64::from_ptr(p.cast()).load(Ordering::Relaxed),
            }
        }
    }

    /// Stores the low `bytes` bytes of `value` at `offset`. The caller has checked
    /// [`Self::contains`].
    pub fn store(&self, offset: usize, bytes: u32, value: u64) {
        debug_assert!(self.contains(offset as u64, u64::from(bytes)));
        if !offset.is_multiple_of(bytes as usize) {
            self.write(offset, &value.to_le_bytes()[..bytes as usize]);
            return;
        }
        // SAFETY: as in `load`.
        unsafe {
            let p = self.base().add(offset);
            match bytes {
                1 => AtomicU8::from_ptr(p).store(value as u8, Ordering::Relaxed),
                2 => AtomicU16::from_ptr(p.cast()).store(value as u16, Ordering::Relaxed),
                4 => AtomicU32::from_ptr(p.cast()).store(value as u32, Ordering::Relaxed),
                _ => AtomicU64::from_ptr(p.cast()).store(value, Ordering::Relaxed),
            }
        }
    }

    /// One indivisible read-modify-write of the 4- or 8-byte value at `offset` (which
    /// must be naturally aligned): writes `combine(old)` and returns `old`. Sequentially
    /// consistent, as the strongest of CUDA's scopes.
    pub fn update(&self, offset: usize, bytes: u32, mut combine: impl FnMut(u64) -> u64) -> u64 {
        debug_assert!(self.contains(offset as u64, u64::from(bytes)));
        debug_assert_eq!(offset % bytes as usize, 0);
        // SAFETY: in bounds and aligned (the caller's checks); accessed only atomically.
        unsafe {
            let p = self.base().add(offset);
            if bytes == 4 {
                let a = AtomicU32::from_ptr(p.cast());
                let mut old = a.load(Ordering::SeqCst);
                loop {
                    let new = combine(u64::from(old)) as u32;
                    match a.compare_exchange_weak(old, new, Ordering::SeqCst, Ordering::SeqCst) {
                        Ok(_) => return u64::from(old),
                        Err(now) => old = now,
                    }
                }
            } else {
                let a = AtomicU64::from_ptr(p.cast());
                let mut old = a.load(Ordering::SeqCst);
                loop {
                    let new = combine(old);
                    match a.compare_exchange_weak(old, new, Ordering::SeqCst, Ordering::SeqCst) {
                        Ok(_) => return old,
                        Err(now) => old = now,
                    }
                }
            }
        }
    }
}
