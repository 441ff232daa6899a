//! Device buffers the high-level operations keep between calls (a reduction's
//! partials, a scan's tile states), one set per (device, stream, kind), so that a call
//! allocates and clears nothing: `cuMemAlloc` and a memset per call cost more than a
//! small kernel (issue 12's `sum` spent a quarter of its time there).
//!
//! A call takes its set out of the pool ([`take`]), queues its kernels, and puts it
//! back ([`put`]). Work queued on one stream runs in order, so the next call on that
//! stream finds the buffers free; a second host thread calling at the same time finds
//! none and makes its own. A call that fails does not put its set back (its contents
//! are then unknown): the next call starts from a fresh one.

use std::any::{Any, TypeId};
use std::sync::Mutex;

use crate::device::stream::Stream;
use crate::device::{Device, DeviceId};

/// Which pool entry: the device (its context generation included), the stream's
/// handle (0 for the default stream) and the Rust type of the kept set.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    device: DeviceId,
    stream: usize,
    kind: TypeId,
}

impl Key {
    pub fn new<S: 'static>(device: &Device, stream: Option<&Stream>) -> Key {
        Key {
            device: device.id(),
            stream: stream.map_or(0, |s| s.cu_stream() as usize),
            kind: TypeId::of::<S>(),
        }
    }
}

type Pool = Vec<(Key, Box<dyn Any + Send>)>;

static POOL: Mutex<Pool> = Mutex::new(Vec::new());

/// The kept set for `key`, if one is free.
pub(crate) fn take<S: Any + Send>(key: Key) -> Option<S> {
    let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
    let at = pool.iter().position(|(k, _)| *k == key)?;
    let (_, set) = pool.swap_remove(at);
    // The key names `S`'s TypeId, so the downcast holds.
    set.downcast::<S>().ok().map(|b| *b)
}

/// Keeps `set` for the next call with `key`.
pub(crate) fn put<S: Any + Send>(key: Key, set: S) {
    let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
    pool.push((key, Box::new(set)));
}
