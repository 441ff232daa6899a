//! A GPU context that a kernel broke, and its recovery.
//!
//! After a sticky error (an illegal address under `boundscheck = false`, a hardware
//! exception) the driver refuses every call on the context. The first call that meets
//! it returns [`Error::ContextLost`], naming the kernel most recently launched on the
//! context (the driver does not say which kernel faulted); from then on every launch,
//! synchronisation, copy and allocation on the device fails fast with the same error,
//! without calling the driver.
//!
//! **No recovery in the same process.** Measured on the H100 (driver 580) after a real
//! illegal address: resetting the primary context and retaining it again (with the
//! context current or not, with cudarc's retain released or not, twice), or creating a
//! fresh non-primary context, with or without a reset, all answer
//! `CUDA_ERROR_ILLEGAL_ADDRESS`: the driver poisons the process, not just the context.
//! So [`Device::reset`] on a lost device returns [`Error::RestartRequired`] without
//! calling the driver, and the device stays lost; the process must be restarted (a new
//! process uses the GPU normally: `tests/gpu_stress.rs` faults in a child process).
//!
//! Without a sticky error [`Device::reset`] resets the (primary) context: all its
//! device arrays, streams, events and loaded kernels are gone, the device works again,
//! and what was made before the reset is refused ([`Error::StaleAfterReset`]) rather
//! than used: every such object remembers the context's *generation* it was made in.
//!
//! **Reset against other threads.** Every operation that calls the driver on the
//! context, or reads memory the context owns (a panic record), holds a
//! [`ContextGuard`] from its start (its generation checks included) to its end: a
//! shared lock, taken once per thread (nested operations in one thread do not take it
//! again). [`Device::reset`] takes the lock exclusively, so it waits for the operations
//! in flight in other threads and operations started meanwhile wait for it; they then
//! see the new generation and refuse objects made before the reset. Destructors never
//! wait: while a reset is waiting or running they leave the resource to the reset,
//! which frees everything of the old context. Without this, a reset freed the panic
//! records and memory that other threads were reading (a SIGSEGV on the H200).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::error::Error;

/// Whether a GPU's context works, and what broke it. `repr(C)`: what every launch
/// reads or writes comes first, in one cache line (issue 27).
#[derive(Default)]
#[repr(C)]
pub(crate) struct Health {
    /// Incremented by every reset.
    generation: AtomicU64,
    /// Set once a sticky error was seen (the fast-path check).
    lost: AtomicBool,
    /// The name of the kernel most recently launched on the context: a loaded kernel's
    /// own `name` (loaded kernels are never freed, so the pointer stays valid). Stored
    /// by a launch of another kernel than the last; null when none was launched.
    last_kernel: AtomicPtr<String>,
    /// Shared by the operations in flight, exclusive for a reset (see the module
    /// documentation).
    users: RwLock<()>,
    /// The error every call returns while `lost`.
    cause: Mutex<Option<Error>>,
}

thread_local! {
    /// The `Health`s (by address) whose shared lock this thread holds: a nested
    /// operation does not take it again (with a reset waiting, a second shared
    /// acquisition would wait for the reset, which waits for the first).
    static HELD: RefCell<HeldKeys> = const { RefCell::new(HeldKeys::new()) };
}

/// The keys in `HELD`: in place for the usual few (a launch holds one, a copy between
/// two GPUs two), so that taking and dropping a guard on the launch path touches no
/// heap memory; more spill into `more`. No key twice (a held one is not taken again).
struct HeldKeys {
    inline: [usize; HELD_INLINE],
    len: usize,
    more: Vec<usize>,
}

const HELD_INLINE: usize = 4;

impl HeldKeys {
    const fn new() -> HeldKeys {
        HeldKeys {
            inline: [0; HELD_INLINE],
            len: 0,
            more: Vec::new(),
        }
    }

    fn contains(&self, key: usize) -> bool {
        self.inline[..self.len.min(HELD_INLINE)].contains(&key) || self.more.contains(&key)
    }

    fn push(&mut self, key: usize) {
        if self.len < HELD_INLINE {
            self.inline[self.len] = key;
        } else {
            self.more.push(key);
        }
        self.len += 1;
    }

    fn remove(&mut self, key: usize) {
        if let Some(i) = self.more.iter().rposition(|k| *k == key) {
            self.more.swap_remove(i);
            self.len -= 1;
            return;
        }
        let in_place = self.len.min(HELD_INLINE);
        if let Some(i) = self.inline[..in_place].iter().rposition(|k| *k == key) {
            // The last in-place key fills the gap, and a spilled one the last place.
            self.inline[i] = self.inline[in_place - 1];
            if let Some(spilled) = self.more.pop() {
                self.inline[in_place - 1] = spilled;
            }
            self.len -= 1;
        }
    }
}

/// Proof that no reset runs until it is dropped (see the module documentation); empty
/// on the simulator and for an operation nested in one that holds it.
#[must_use = "the guard protects the context only while it lives"]
pub(crate) struct ContextGuard<'a> {
    held: Option<(RwLockReadGuard<'a, ()>, usize)>,
}

impl ContextGuard<'_> {
    /// A guard that guards nothing (the simulator).
    pub(crate) fn none() -> ContextGuard<'static> {
        ContextGuard { held: None }
    }
}

impl Drop for ContextGuard<'_> {
    fn drop(&mut self) {
        if let Some((_, key)) = &self.held {
            HELD.with(|held| held.borrow_mut().remove(*key));
        }
    }
}

impl Health {
    fn key(&self) -> usize {
        self as *const Health as usize
    }

    fn held_here(&self) -> bool {
        let key = self.key();
        HELD.with(|held| held.borrow().contains(key))
    }

    fn hold<'a>(&'a self, lock: RwLockReadGuard<'a, ()>) -> ContextGuard<'a> {
        let key = self.key();
        HELD.with(|held| held.borrow_mut().push(key));
        ContextGuard {
            held: Some((lock, key)),
        }
    }

    /// Waits for a running reset, then keeps others from starting until the guard drops.
    /// One access to the thread's held keys (every launch takes this guard).
    #[inline]
    pub(crate) fn enter(&self) -> ContextGuard<'_> {
        let key = self.key();
        HELD.with(|held| {
            let mut held = held.borrow_mut();
            if held.contains(key) {
                return ContextGuard { held: None };
            }
            // Waiting here for a reset holds only this thread's own `HELD`.
            let lock = self.users.read().unwrap_or_else(|p| p.into_inner());
            held.push(key);
            ContextGuard {
                held: Some((lock, key)),
            }
        })
    }

    /// For destructors: a guard if no reset is waiting or running and the context is
    /// still the one of `generation` (and not lost); `None` means the reset frees (or
    /// freed) the resource.
    pub(crate) fn enter_if_current(&self, generation: u64) -> Option<ContextGuard<'_>> {
        let guard = if self.held_here() {
            ContextGuard { held: None }
        } else {
            match self.users.try_read() {
                Ok(lock) => self.hold(lock),
                Err(std::sync::TryLockError::Poisoned(p)) => self.hold(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => return None,
            }
        };
        let current = self.generation.load(Ordering::Acquire) == generation
            && !self.lost.load(Ordering::Acquire);
        current.then_some(guard)
    }

    /// The context generation (see the module documentation).
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether this thread holds the shared lock (an operation of its own is in flight).
    pub(crate) fn held_by_this_thread(&self) -> bool {
        self.held_here()
    }

    /// The exclusive lock a reset holds: waits for the operations in flight.
    pub(crate) fn exclusive(&self) -> RwLockWriteGuard<'_, ()> {
        self.users.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a sticky error was seen (the fast-path check).
    #[inline]
    pub(crate) fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// The error every call returns while lost, if one was kept.
    pub(crate) fn cause(&self) -> Option<Error> {
        self.cause.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Marks the context lost; the first error found stays the one reported, and is
    /// returned (`lost_error` makes it when there is none yet).
    pub(crate) fn mark_lost(&self, lost_error: impl FnOnce() -> Error) -> Error {
        let mut kept = self.cause.lock().unwrap_or_else(|p| p.into_inner());
        let error = kept.get_or_insert_with(lost_error).clone();
        self.lost.store(true, Ordering::Release);
        error
    }

    /// Remembers the kernel named `name` (a loaded kernel's own name) as the most
    /// recently launched one.
    #[inline]
    pub(crate) fn note_launch(&self, name: &'static String) {
        // A store only when the kernel changes: launches of one kernel from many
        // threads then share the line instead of taking it from each other.
        let name = name as *const String as *mut String;
        if self.last_kernel.load(Ordering::Relaxed) != name {
            self.last_kernel.store(name, Ordering::Relaxed);
        }
    }

    /// The name of the kernel most recently launched, `(none)` before the first.
    pub(crate) fn last_kernel(&self) -> String {
        let last = self.last_kernel.load(Ordering::Relaxed);
        // SAFETY: loaded kernels are never freed (see `Health::last_kernel`).
        unsafe { last.as_ref() }.map_or_else(|| "(none)".to_string(), Clone::clone)
    }

    /// After a reset: a new generation (objects made before are stale).
    pub(crate) fn next_generation(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// After a reset: the context works again, with nothing launched on it.
    pub(crate) fn recovered(&self) {
        *self.cause.lock().unwrap_or_else(|p| p.into_inner()) = None;
        self.last_kernel
            .store(std::ptr::null_mut(), Ordering::Relaxed);
        self.lost.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    /// The held keys, in place and spilled, in any order of release.
    #[test]
    fn held_keys_add_and_remove_in_any_order() {
        let mut held = HeldKeys::new();
        let keys = [11, 22, 33, 44, 55, 66, 77];
        for (n, &key) in keys.iter().enumerate() {
            assert!(!held.contains(key));
            held.push(key);
            assert!(keys[..=n].iter().all(|&k| held.contains(k)));
        }
        // Release in a scrambled order; the rest stay held, the released do not.
        let order = [33, 77, 11, 55, 22, 66, 44];
        for (n, &key) in order.iter().enumerate() {
            held.remove(key);
            assert!(!held.contains(key), "{key} released");
            assert!(
                order[n + 1..].iter().all(|&k| held.contains(k)),
                "after {key}"
            );
            assert_eq!(held.len, keys.len() - n - 1);
        }
        assert!(held.more.is_empty());
    }

    /// The reset lock's protocol without a GPU: a reset waits for an operation in
    /// flight; that operation's nested operations do not wait for the reset (no
    /// deadlock); a destructor elsewhere does not wait either, and leaves its resource
    /// to the reset; after the reset, objects of the old generation are not current.
    #[test]
    fn reset_waits_for_operations_and_nested_ones_do_not_deadlock() {
        let health = Arc::new(Health::default());
        let outer = health.enter();
        let resetter = {
            let health = health.clone();
            std::thread::spawn(move || {
                let _exclusive = health.users.write().unwrap();
                health.generation.fetch_add(1, Ordering::AcqRel);
            })
        };
        // Let the reset start waiting.
        while !matches!(
            health.users.try_read(),
            Err(std::sync::TryLockError::WouldBlock)
        ) {
            std::thread::sleep(Duration::from_millis(1));
        }
        {
            // Nested in this thread's operation: neither waits for the reset.
            let _nested = health.enter();
            assert!(health.enter_if_current(0).is_some());
        }
        // Another thread's destructor does not wait: the reset frees the resource.
        let elsewhere = {
            let health = health.clone();
            std::thread::spawn(move || health.enter_if_current(0).is_some())
        };
        assert!(!elsewhere.join().unwrap());
        assert_eq!(health.generation(), 0, "the reset ran during an operation");
        drop(outer);
        resetter.join().unwrap();
        assert_eq!(health.generation(), 1);
        // Objects of generation 0 are stale now; those of 1 are current.
        assert!(health.enter_if_current(0).is_none());
        assert!(health.enter_if_current(1).is_some());
    }
}
