//! The GPU memory behind a device array: where it comes from (the device's
//! stream-ordered memory pool), how uses on different streams are ordered, and how it
//! is freed (stream-ordered, after its last use).
//!
//! **Ordering across streams.** An allocation remembers the stream of its last write
//! and the streams that read it since. A use on another stream first makes that stream
//! wait for them (`cuEventRecord` on the earlier stream, `cuStreamWaitEvent` on the new
//! one), the rule cudarc's event tracking applies to its `CudaSlice` (a read waits for
//! the last write; a write waits for the last write and every read since). Unlike
//! cudarc, which records two events at every launch once a second stream exists, the
//! event is recorded only when a use *changes* stream: the earlier stream is kept alive
//! by the allocation (a `StreamRef`), so recording on it at that moment still covers
//! the earlier use. Launches that stay on one stream (the common case) do no event
//! work at all: one uncontended lock and a pointer comparison per array argument.
//!
//! **Per-reader events.** A write waits for each reading stream *as of its last read*
//! of the memory, not for everything queued there since: after a launch that read the
//! memory on stream A (once a write on another stream has had to wait for a read of
//! the array: `Usage::contended`), A remembers the array as pending (`crate::device::marks`); the first
//! later launch on A that does not read it records one event on A before itself, and
//! the array keeps that event for A (bounded: `MAX_TRACKED_READERS` per array). A
//! writer on C then waits for that event, so work queued on A after the read does not
//! hold C back. While nothing else was queued on A since the read (or for a read the
//! launch did not track: copies, graph replays, other libraries' work) the wait is for
//! A's queue at the switch, which then covers exactly as much or more: never less.
//!
//! **Freeing.** Dropping an array while a kernel that uses it is in flight is safe by
//! construction: pooled memory is freed with `cuMemFreeAsync` on the stream of its last
//! write, after that stream was made to wait for the readers since; without memory
//! pools the streams of its last uses are synchronised before `cuMemFree`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{result, sys};

use crate::device::marks::{ReadTracked, RecordedEvent};
use crate::device::stream::{raw_of, StreamRef};
use crate::device::{Device, DeviceId};
use crate::error::{DriverResultExt, Result};

/// How many reading streams of one array get an event of their own; reads on more
/// streams are waited for as their streams' queues at the switch.
pub(crate) const MAX_TRACKED_READERS: usize = 8;

/// Device memory of one array. `repr(C)`: what every launch reads (the pointer, the
/// quiet tags, the device and generation its argument check compares) comes first, in
/// one cache line, so that a launch on one stream touches one line per array (after a
/// driver call the path's data is mostly out of the nearest caches: issue 27).
#[repr(C)]
pub(crate) struct Allocation {
    /// 0 for an empty array (the driver refuses zero-byte allocations).
    pub(crate) ptr: sys::CUdeviceptr,
    /// The launch fast path's copy of what `usage` decides without a change: a read
    /// on a stream tagged here needs nothing (the last writer's, or one of the last
    /// two readers' while reads get no events of their own: `Usage::contended`), and a
    /// write on the stream tagged in `quiet_for_writes` neither (last writer, no reader
    /// since). Tags are [`stream_tag`]s, 0 for none; all are stored under the lock
    /// after every change of `usage`, so a launch whose arrays stay where they were
    /// used last takes no lock (issue 27): reads of an array written on another
    /// stream, and two streams taking turns at reading it, included.
    quiet_for_reads: [AtomicUsize; 3],
    quiet_for_writes: AtomicUsize,
    /// The context generation the memory belongs to (see `crate::executor::health`).
    generation: u64,
    /// The GPU's ordinal, kept here so that a launch's argument check needs no call
    /// through the device's executor.
    ordinal: usize,
    device: Device,
    source: Source,
    usage: Mutex<Usage>,
}

/// A stream's tag for the fast path (never 0, except for a handle of `usize::MAX`,
/// which then only misses the fast path).
#[inline]
fn stream_tag(raw: sys::CUstream) -> usize {
    (raw as usize).wrapping_add(1)
}

/// The streams whose queues one launch's stream already waits for (an event recorded
/// there by this launch's ordering). A second array last used on such a stream needs
/// no second event: its use there was queued before the first wait was (its record is
/// made before its launch is queued, and a use that could be queued meanwhile, by
/// another thread, could not conflict with this launch's: a write on either side
/// excludes the other use of the array).
#[derive(Default)]
pub(crate) struct OrderedAfter {
    streams: [usize; 4],
    len: usize,
}

impl OrderedAfter {
    pub(crate) fn covers(&self, before: sys::CUstream) -> bool {
        self.streams[..self.len].contains(&(before as usize))
    }

    /// Remembers a wait for `before`'s queue (beyond four, later ones are waited for
    /// again: never less ordering).
    pub(crate) fn note(&mut self, before: sys::CUstream) {
        if self.len < self.streams.len() {
            self.streams[self.len] = before as usize;
            self.len += 1;
        }
    }
}

/// Read tags of memory last written on the stream tagged `writer`, before any read.
fn quiet_reads(writer: usize) -> [AtomicUsize; 3] {
    [
        AtomicUsize::new(writer),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ]
}

/// Who frees the memory.
pub(crate) enum Source {
    /// From the device's memory pool: `cuMemFreeAsync` on the stream of the last use.
    Pooled,
    /// `cuMemAlloc` (a device without memory pools): `cuMemFree` after the streams of
    /// the last uses were synchronised.
    Plain,
    /// Memory another owner frees (interop). When the borrow ends, `hand_back` (the
    /// owner's stream) is made to wait for the uses made through cudajit; then
    /// `keeper` (what keeps the memory alive, e.g. an imported DLPack tensor whose
    /// deleter gives it back) is dropped.
    Borrowed {
        hand_back: StreamRef,
        _keeper: Option<Box<dyn Send + Sync>>,
    },
}

/// The uses that a later use on another stream must wait for.
struct Usage {
    /// The stream of the last write (at allocation: the legacy NULL stream, where the
    /// allocation and the first copy are queued).
    writer: StreamRef,
    /// Streams other than `writer` that read the memory since the last write, each
    /// already ordered after that write.
    readers: Vec<Reader>,
    /// Whether a write ever had to wait for a read on another stream: only then are
    /// reads given events of their own (an array uploaded once and then only read,
    /// the common case, costs its reading streams nothing).
    contended: bool,
}

/// A stream that read the memory since the last write.
struct Reader {
    stream: StreamRef,
    /// Recorded on `stream` after its last read of the memory and before any later
    /// work there (`None` while that read may be the stream's latest work, or was not
    /// tracked).
    after_read: Option<Arc<RecordedEvent>>,
}

impl Reader {
    fn new(stream: &StreamRef) -> Reader {
        Reader {
            stream: stream.clone(),
            after_read: None,
        }
    }
}

/// What a use on another stream waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Everything queued on the stream so far (an event recorded there now).
    Queued(sys::CUstream),
    /// An event already recorded after the stream's last read.
    Recorded(sys::CUevent),
}

// SAFETY: the raw pointer is a device address, usable from any thread whose current
// context is the device's (every user binds it first); `Usage` is behind a lock.
unsafe impl Send for Allocation {}
unsafe impl Sync for Allocation {}

impl Allocation {
    /// `bytes` of uninitialised device memory on `device` (whose context is current),
    /// queued on the legacy NULL stream.
    pub(crate) fn new(device: &Device, bytes: usize) -> Result<Arc<Allocation>> {
        let (ptr, source) = if bytes == 0 {
            (0, Source::Plain)
        } else if let Some(pool) = device.memory_pool()? {
            // SAFETY: a live pool of the current context's device; the contents are
            // set by the caller before any kernel reads them.
            let ptr = unsafe { result::mem_pool::alloc_async(pool, bytes, std::ptr::null_mut()) }
                .call("cuMemAllocFromPoolAsync")?;
            (ptr, Source::Pooled)
        } else {
            // SAFETY: plain allocation; the contents are set by the caller.
            let ptr = unsafe { result::malloc_sync(bytes) }.call("cuMemAlloc")?;
            (ptr, Source::Plain)
        };
        Ok(Arc::new(Allocation {
            ptr,
            generation: device.generation(),
            ordinal: device.ordinal(),
            device: device.clone(),
            source,
            usage: Mutex::new(Usage {
                writer: None,
                readers: Vec::new(),
                contended: false,
            }),
            quiet_for_reads: quiet_reads(stream_tag(std::ptr::null_mut())),
            quiet_for_writes: AtomicUsize::new(stream_tag(std::ptr::null_mut())),
        }))
    }

    /// Memory owned elsewhere, last written on `last_use`; when the array made over it
    /// is dropped, `hand_back` waits for the uses made through cudajit.
    pub(crate) fn borrowed(
        device: &Device,
        ptr: sys::CUdeviceptr,
        last_use: StreamRef,
        hand_back: StreamRef,
    ) -> Arc<Allocation> {
        Self::borrowed_keeping(device, ptr, last_use, hand_back, None)
    }

    /// As [`Allocation::borrowed`], holding `keeper` until the uses through cudajit
    /// were handed back (the memory's owner frees it when `keeper` drops).
    pub(crate) fn borrowed_keeping(
        device: &Device,
        ptr: sys::CUdeviceptr,
        last_use: StreamRef,
        hand_back: StreamRef,
        keeper: Option<Box<dyn Send + Sync>>,
    ) -> Arc<Allocation> {
        let tag = stream_tag(raw_of(&last_use));
        Arc::new(Allocation {
            ptr,
            generation: device.generation(),
            ordinal: device.ordinal(),
            device: device.clone(),
            source: Source::Borrowed {
                hand_back,
                _keeper: keeper,
            },
            usage: Mutex::new(Usage {
                writer: last_use,
                readers: Vec::new(),
                contended: false,
            }),
            quiet_for_reads: quiet_reads(tag),
            quiet_for_writes: AtomicUsize::new(tag),
        })
    }

    /// The device and context generation the memory belongs to, for a launch's
    /// argument check (what `DeviceArray::device_id` says, without its executor call).
    #[inline]
    pub(crate) fn device_id(&self) -> DeviceId {
        DeviceId::Cuda(self.ordinal, self.generation)
    }

    /// Whether a use on the stream of handle `raw` (a write when `write`) needs
    /// nothing: what [`Allocation::use_on_tracked`] decides without its lock, as one
    /// load and compare (the launch's fast path over all its arrays).
    #[inline]
    pub(crate) fn is_quiet_on(&self, raw: sys::CUstream, write: bool) -> bool {
        let tag = stream_tag(raw);
        let quiet = if write {
            self.quiet_for_writes.load(Ordering::Acquire) == tag
        } else {
            let [a, b, c] = &self.quiet_for_reads;
            (a.load(Ordering::Acquire) == tag)
                | (b.load(Ordering::Acquire) == tag)
                | (c.load(Ordering::Acquire) == tag)
        };
        self.ptr == 0 || quiet
    }

    pub(crate) fn is_borrowed(&self) -> bool {
        matches!(self.source, Source::Borrowed { .. })
    }

    /// Orders a use of the memory on `stream` (a write when `write`) after the uses on
    /// other streams it conflicts with, and remembers it. The device's context must be
    /// current. Free of driver calls while the memory stays on one stream.
    #[inline]
    pub(crate) fn use_on(&self, stream: &StreamRef, write: bool) -> Result<()> {
        self.use_on_tracked(stream, write, &mut OrderedAfter::default())
            .map(drop)
    }

    /// As [`Allocation::use_on`], for a launch: `Ok(true)` when the use is a read on a
    /// reading stream that gets an event of its own, which the launch then leaves
    /// pending on its stream (`crate::device::marks`). `ordered` is what the launch's
    /// earlier arrays already made it wait for: a stream's queue is waited for once
    /// per launch, however many of its arrays were last used there.
    #[inline]
    pub(crate) fn use_on_tracked(
        &self,
        stream: &StreamRef,
        write: bool,
        ordered: &mut OrderedAfter,
    ) -> Result<bool> {
        if self.ptr == 0 {
            return Ok(false);
        }
        let here = raw_of(stream);
        // What `apply` decides without a change, without its lock. Exact: the tags
        // change only under the lock, with `usage`; a `&mut` use (a write) excludes
        // every other use of the array, and a read that races a change of writer is
        // as ordered as it was when the lock was taken and released before its launch.
        if self.is_quiet_on(here, write) {
            return Ok(false);
        }
        let mut usage = self.usage.lock().unwrap_or_else(|p| p.into_inner());
        let tracked = usage.apply(stream, write, |before| self.wait_for(here, before, ordered));
        let (reads, writes) = usage.quiet_tags();
        for (quiet, tag) in self.quiet_for_reads.iter().zip(reads) {
            quiet.store(tag, Ordering::Release);
        }
        self.quiet_for_writes.store(writes, Ordering::Release);
        tracked
    }
}

impl ReadTracked for Allocation {
    fn note_read_event(&self, stream: sys::CUstream, event: &Arc<RecordedEvent>) {
        let mut usage = self.usage.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(reader) = usage
            .readers
            .iter_mut()
            .find(|r| raw_of(&r.stream) == stream)
        {
            reader.after_read.get_or_insert_with(|| Arc::clone(event));
        }
    }
}

impl Usage {
    /// The fast path's tags for this state (0: none): reads on the writer's stream
    /// need nothing, nor, while reads get no events (not `contended`), reads on the
    /// streams of the last two readers (`apply` finds them and changes nothing);
    /// writes on the writer's stream need nothing while no other stream read since.
    fn quiet_tags(&self) -> ([usize; 3], usize) {
        let writer = stream_tag(raw_of(&self.writer));
        let mut reads = [writer, 0, 0];
        if !self.contended {
            for (slot, reader) in reads[1..].iter_mut().zip(self.readers.iter().rev()) {
                *slot = stream_tag(raw_of(&reader.stream));
            }
        }
        (reads, if self.readers.is_empty() { writer } else { 0 })
    }

    /// Records a use on `stream`, first calling `wait` with what the use must wait for
    /// on each earlier stream (nothing while the memory stays on one stream). `true`
    /// when the use is a read whose stream gets an event of its own (the caller marks
    /// it pending on the stream after the launch).
    #[inline]
    fn apply(
        &mut self,
        stream: &StreamRef,
        write: bool,
        mut wait: impl FnMut(Wait) -> Result<()>,
    ) -> Result<bool> {
        let here = raw_of(stream);
        let after_writer = raw_of(&self.writer) == here;
        if write {
            if after_writer && self.readers.is_empty() {
                return Ok(false);
            }
            // A write waits for the last write and every read since: each reader as of
            // its last read where an event was recorded after it.
            if !after_writer {
                wait(Wait::Queued(raw_of(&self.writer)))?;
            }
            let mut waited_for_a_read = false;
            for reader in &self.readers {
                if raw_of(&reader.stream) != here {
                    wait(match &reader.after_read {
                        Some(event) => Wait::Recorded(event.raw),
                        None => Wait::Queued(raw_of(&reader.stream)),
                    })?;
                    waited_for_a_read = true;
                }
            }
            self.writer = stream.clone();
            self.readers.clear();
            self.contended |= waited_for_a_read;
            return Ok(false);
        }
        if after_writer {
            return Ok(false);
        }
        let contended = self.contended;
        let tracked = |index: usize| contended && stream.is_some() && index < MAX_TRACKED_READERS;
        if let Some(index) = self.readers.iter().position(|r| raw_of(&r.stream) == here) {
            // A new read: the event after the earlier one no longer covers it.
            self.readers[index].after_read = None;
            return Ok(tracked(index));
        }
        // A read waits for the last write only.
        wait(Wait::Queued(raw_of(&self.writer)))?;
        self.readers.push(Reader::new(stream));
        Ok(tracked(self.readers.len() - 1))
    }
}

impl Allocation {
    /// Makes `waiter` wait as `wait` says (the device's context is current), with an
    /// event the device reuses (`crate::executor::cuda::SpareEvents`).
    /// A wait for a queue `ordered` already covers is skipped.
    #[cold]
    fn wait_for(
        &self,
        waiter: sys::CUstream,
        wait: Wait,
        ordered: &mut OrderedAfter,
    ) -> Result<()> {
        if let Wait::Queued(before) = wait {
            if ordered.covers(before) {
                return Ok(());
            }
        }
        match (wait, self.device.executor().cuda()) {
            (Wait::Queued(before), Some(cuda)) => {
                cuda.spare_events
                    .order_after(self.device.generation(), waiter, before)?
            }
            (wait, _) => wait_for(waiter, wait)?,
        }
        if let Wait::Queued(before) = wait {
            ordered.note(before);
        }
        Ok(())
    }
}

/// Makes `waiter` wait as `wait` says.
#[cold]
fn wait_for(waiter: sys::CUstream, wait: Wait) -> Result<()> {
    match wait {
        Wait::Queued(before) => order_after(waiter, before),
        // SAFETY: a live event of the current context (held by the reader's `Arc`),
        // recorded on a stream of that context; `waiter` is live (held by the caller).
        Wait::Recorded(event) => unsafe {
            result::stream::wait_event(
                waiter,
                event,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .call("cuStreamWaitEvent"),
    }
}

/// Makes `waiter` wait for the work queued on `before` so far (nothing when they are
/// the same stream). The event is destroyed at once: the driver releases it after it
/// completes, and the wait already queued keeps its meaning.
#[cold]
pub(crate) fn order_after(waiter: sys::CUstream, before: sys::CUstream) -> Result<()> {
    if waiter == before {
        return Ok(());
    }
    let event =
        result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING).call("cuEventCreate")?;
    // SAFETY: both streams are live (held by the caller's `StreamRef`s or the NULL
    // stream) and belong to the current context; the event was just made.
    let ordered = unsafe { result::event::record(event, before) }
        .call("cuEventRecord")
        .and_then(|()| {
            unsafe {
                result::stream::wait_event(
                    waiter,
                    event,
                    sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                )
            }
            .call("cuStreamWaitEvent")
        });
    // SAFETY: made above, destroyed once.
    let _ = unsafe { result::event::destroy(event) };
    ordered
}

impl Drop for Allocation {
    fn drop(&mut self) {
        // A reset freed the memory of arrays allocated before it; a lost context
        // refuses every call.
        if self.ptr == 0 {
            return;
        }
        // While a reset waits or runs it frees the memory itself.
        let Some(_guard) = self.device.bind_if_current(self.generation) else {
            return;
        };
        let usage = self.usage.get_mut().unwrap_or_else(|p| p.into_inner());
        let last = raw_of(&usage.writer);
        // Errors cannot be reported from drop; a failing call means the context is
        // already broken, and then the memory is gone with it.
        match &self.source {
            Source::Pooled => {
                let ordered = usage
                    .readers
                    .iter()
                    .try_for_each(|reader| order_after(last, raw_of(&reader.stream)));
                if ordered.is_ok() {
                    // SAFETY: allocated from the pool in `new`, freed only here, after
                    // every use queued so far.
                    let _ = unsafe { result::free_async(self.ptr, last) };
                } else {
                    let _ = synchronize_all(usage);
                    // SAFETY: as above; every stream that used it has finished.
                    let _ = unsafe { result::free_async(self.ptr, last) };
                }
            }
            Source::Plain => {
                if synchronize_all(usage).is_ok() {
                    // SAFETY: allocated in `new`, freed only here, after every stream
                    // that used it finished.
                    let _ = unsafe { result::free_sync(self.ptr) };
                }
            }
            // `keeper` drops after this, with the other fields.
            Source::Borrowed { hand_back, .. } => {
                let owner = raw_of(hand_back);
                let _ = order_after(owner, last);
                for reader in &usage.readers {
                    let _ = order_after(owner, raw_of(&reader.stream));
                }
            }
        }
    }
}

fn synchronize_all(usage: &Usage) -> Result<()> {
    let readers = usage.readers.iter().map(|r| &r.stream);
    for stream in std::iter::once(&usage.writer).chain(readers) {
        // SAFETY: a live stream of the current context (held by the reference).
        unsafe { result::stream::synchronize(raw_of(stream)) }.call("cuStreamSynchronize")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
