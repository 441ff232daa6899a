//! Simulated device memory. Every access goes through relaxed atomics of the access's
//! width, so that a racy kernel (which the detector reports) is still defined behaviour
//! for the simulator's own Rust code when blocks run on several host threads.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

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

    fn byte(&self, offset: usize) -> &AtomicU8 {
        assert!(offset < self.len, "buffer offset {offset} past {}", self.len);
        // SAFETY: `offset` is inside the allocation of `words` (checked above); an
        // AtomicU8 has alignment 1 and may alias the bytes of the AtomicU64s, which are
        // only ever accessed atomically.
        unsafe { AtomicU8::from_ptr((self.words.as_ptr() as *mut u8).add(offset)) }
    }

    /// Copies `src` into the buffer at `offset` (host to device).
    pub fn write(&self, offset: usize, src: &[u8]) {
        for (i, &b) in src.iter().enumerate() {
            self.byte(offset + i).store(b, Ordering::Relaxed);
        }
    }

    /// Copies from the buffer at `offset` into `dst` (device to host).
    pub fn read(&self, offset: usize, dst: &mut [u8]) {
        for (i, b) in dst.iter_mut().enumerate() {
            *b = self.byte(offset + i).load(Ordering::Relaxed);
        }
    }
}
