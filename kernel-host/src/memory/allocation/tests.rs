//! Tests of the cross-stream ordering decisions (`Usage::apply`) and of the launch
//! fast path's quiet tags, on made-up stream handles (no driver).

use super::*;
use crate::device::stream::{StreamHandle, StreamOwner};
use crate::error::Error;

/// A remembered stream with a made-up handle (never passed to the driver).
fn fake(device: &Device, raw: usize) -> StreamRef {
    Some(StreamHandle::new(
        raw as sys::CUstream,
        device,
        StreamOwner::Foreign,
    ))
}

/// The state of memory written on the NULL stream and not used since.
fn unused() -> Usage {
    Usage {
        writer: None,
        readers: Vec::new(),
        contended: false,
    }
}

/// Three made-up streams, A, B and C (handles 0xA0, 0xB0, 0xC0).
fn three_streams(device: &Device) -> (StreamRef, StreamRef, StreamRef) {
    (fake(device, 0xA0), fake(device, 0xB0), fake(device, 0xC0))
}

/// The streams a use waits for, as their made-up handles (all queued work there).
fn waits(usage: &mut Usage, stream: &StreamRef, write: bool) -> Vec<usize> {
    waits_for(usage, stream, write)
        .into_iter()
        .map(|wait| match wait {
            Wait::Queued(before) => before as usize,
            Wait::Recorded(event) => panic!("unexpected wait for event {event:?}"),
        })
        .collect()
}

fn waits_for(usage: &mut Usage, stream: &StreamRef, write: bool) -> Vec<Wait> {
    let mut seen = Vec::new();
    usage
        .apply(stream, write, |wait| {
            seen.push(wait);
            Ok(())
        })
        .unwrap();
    seen
}

/// The launch fast path (issue 27): wherever a use's stream carries the quiet tag
/// of its kind, the locked decision is "nothing to wait for, not tracked, nothing
/// changed"; and a launch that stays on one stream after its first use is always
/// quiet. Random uses over four streams (the NULL stream included) and both kinds.
#[test]
fn quiet_tags_agree_with_the_locked_decision() {
    let device = Device::simulator().unwrap();
    let streams = [
        None,
        fake(&device, 0xA0),
        fake(&device, 0xB0),
        fake(&device, 0xC0),
    ];
    let snapshot = |u: &Usage| {
        let readers: Vec<_> = u
            .readers
            .iter()
            .map(|r| raw_of(&r.stream) as usize)
            .collect();
        (raw_of(&u.writer) as usize, readers, u.contended)
    };
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut quiet_seen = 0;
    for _ in 0..200 {
        let mut usage = unused();
        for _ in 0..40 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let stream = &streams[(seed % 4) as usize];
            let write = (seed >> 8) % 3 == 0;
            let (reads, writes) = usage.quiet_tags();
            let here = stream_tag(raw_of(stream));
            let quiet = if write {
                writes == here
            } else {
                reads.contains(&here)
            };
            let before = snapshot(&usage);
            let mut waited = false;
            let tracked = usage
                .apply(stream, write, |_| {
                    waited = true;
                    Ok(())
                })
                .unwrap();
            if quiet {
                quiet_seen += 1;
                assert!(!waited && !tracked, "quiet use waited or was tracked");
                assert_eq!(snapshot(&usage), before, "quiet use changed the state");
            }
            // The same use again on the same stream: a write leaves it quiet for
            // both kinds, a read for reads when it was the writer's stream.
            let (reads, writes) = usage.quiet_tags();
            if write {
                assert_eq!((reads, writes), ([here, 0, 0], here));
            }
        }
    }
    assert!(
        quiet_seen > 1000,
        "the fast path was seldom exercised: {quiet_seen}"
    );
}

/// The launches the fast path exists for: an array uploaded on the NULL stream and
/// then read on one created stream, or on two taking turns, is quiet for those
/// reads after each stream's first; once a write waited for a read (reads get
/// events of their own), only the writer's stream stays quiet for reads.
#[test]
fn reads_on_the_last_readers_streams_are_quiet() {
    let device = Device::simulator().unwrap();
    let (a, b) = (fake(&device, 0xA0), fake(&device, 0xB0));
    let mut usage = unused();
    let quiet_for_read =
        |usage: &Usage, s: &StreamRef| usage.quiet_tags().0.contains(&stream_tag(raw_of(s)));
    assert!(!quiet_for_read(&usage, &a));
    assert_eq!(waits(&mut usage, &a, false), vec![0]);
    assert!(quiet_for_read(&usage, &a));
    assert_eq!(waits(&mut usage, &b, false), vec![0]);
    assert!(quiet_for_read(&usage, &a) && quiet_for_read(&usage, &b));
    // A write on A waits for the NULL stream's write and B's read: from then on
    // reads are tracked.
    assert_eq!(waits(&mut usage, &a, true), vec![0, 0xB0]);
    assert_eq!(waits(&mut usage, &b, false), vec![0xA0]);
    assert!(usage.contended && !quiet_for_read(&usage, &b));
    assert!(quiet_for_read(&usage, &a), "the writer's stream");
}

/// Per-reader events: a writer waits for each reader's event where one was
/// recorded after its last read, and for the reader's queue where not (its read is
/// its latest tracked work, or a later read came after the event). Reads on
/// created streams are tracked, up to `MAX_TRACKED_READERS` per array; reads on
/// the NULL stream and writes are not; uses on one stream stay free.
#[test]
fn a_writer_waits_for_each_reader_as_of_its_last_read() {
    let device = Device::simulator().unwrap();
    let (a, b, c) = three_streams(&device);
    let null: StreamRef = None;
    let mut usage = unused();
    let tracked =
        |usage: &mut Usage, s: &StreamRef, write| usage.apply(s, write, |_| Ok(())).unwrap();
    assert!(!tracked(&mut usage, &c, true), "a write is not tracked");
    // Until a write had to wait for a read on another stream, reads are not tracked.
    assert!(!tracked(&mut usage, &a, false));
    assert_eq!(waits(&mut usage, &c, true), vec![0xA0]);
    assert!(tracked(&mut usage, &a, false), "a read on A gets an event");
    assert!(tracked(&mut usage, &b, false));
    assert!(!tracked(&mut usage, &c, false), "the writer's own read");
    // A's later launches recorded an event after its read; B's read is B's latest.
    let event_a = RecordedEvent::fake(&device, 0xEA);
    let give = |usage: &mut Usage, s: &StreamRef, e: &Arc<RecordedEvent>| {
        let reader = usage
            .readers
            .iter_mut()
            .find(|r| raw_of(&r.stream) == raw_of(s))
            .unwrap();
        reader.after_read.get_or_insert_with(|| Arc::clone(e));
    };
    give(&mut usage, &a, &event_a);
    assert_eq!(
        waits_for(&mut usage, &c, true),
        vec![
            Wait::Recorded(0xEA as sys::CUevent),
            Wait::Queued(0xB0 as _)
        ]
    );
    // Same-stream writes stay free afterwards.
    assert_eq!(waits_for(&mut usage, &c, true), vec![]);
    // A read again after its event: the event no longer covers it.
    assert!(tracked(&mut usage, &a, false));
    give(&mut usage, &a, &event_a);
    assert!(tracked(&mut usage, &a, false), "a second read on A");
    assert_eq!(
        waits_for(&mut usage, &b, true),
        vec![Wait::Queued(0xC0 as _), Wait::Queued(0xA0 as _)]
    );
    // NULL-stream reads (copies to the host) are not tracked.
    assert!(!tracked(&mut usage, &null, false));
    // At most MAX_TRACKED_READERS readers are tracked.
    let many: Vec<StreamRef> = (1..=MAX_TRACKED_READERS + 2)
        .map(|i| fake(&device, 0x1000 * i))
        .collect();
    let tracked_count = many
        .iter()
        .filter(|s| tracked(&mut usage, s, false))
        .count();
    // The NULL stream took one of the places.
    assert_eq!(tracked_count, MAX_TRACKED_READERS - 1);
}

/// cudarc's rule: a read waits for the last write on another stream, once per
/// reading stream; a write waits for the last write and every read since on other
/// streams; uses on one stream never wait.
#[test]
fn uses_wait_for_conflicting_uses_on_other_streams_only() {
    let device = Device::simulator().unwrap();
    let (a, b, c) = three_streams(&device);
    let null: StreamRef = None;
    let mut usage = unused();
    // Allocated and filled on the NULL stream; used there: no waits.
    assert_eq!(waits(&mut usage, &null, true), Vec::<usize>::new());
    assert_eq!(waits(&mut usage, &null, false), Vec::<usize>::new());
    // A write on A waits for the NULL stream's write, once.
    assert_eq!(waits(&mut usage, &a, true), vec![0]);
    for _ in 0..3 {
        assert_eq!(waits(&mut usage, &a, true), Vec::<usize>::new());
        assert_eq!(waits(&mut usage, &a, false), Vec::<usize>::new());
    }
    // Reads on B and C wait for A's write, each once.
    assert_eq!(waits(&mut usage, &b, false), vec![0xA0]);
    assert_eq!(waits(&mut usage, &b, false), Vec::<usize>::new());
    assert_eq!(waits(&mut usage, &c, false), vec![0xA0]);
    // A write on A again waits for both readers (write after read).
    assert_eq!(waits(&mut usage, &a, true), vec![0xB0, 0xC0]);
    assert_eq!(waits(&mut usage, &a, true), Vec::<usize>::new());
    // A write on B waits for A's write; then a read on the NULL stream (a copy to
    // the host) waits for B.
    assert_eq!(waits(&mut usage, &b, true), vec![0xA0]);
    assert_eq!(waits(&mut usage, &null, false), vec![0xB0]);
    // A write on C after reads on B (writer) and NULL waits for both.
    assert_eq!(waits(&mut usage, &c, true), vec![0xB0, 0]);
}

/// A failed wait leaves the record as it was (the use did not happen).
#[test]
fn a_failed_wait_records_nothing() {
    let device = Device::simulator().unwrap();
    let a = fake(&device, 0xA0);
    let mut usage = unused();
    let failed = usage.apply(&a, true, |_| {
        Err(Error::Driver {
            call: "cuStreamWaitEvent",
            message: "test".into(),
        })
    });
    assert!(failed.is_err());
    assert!(usage.writer.is_none() && usage.readers.is_empty());
}

/// One launch waits for an earlier stream's queue once: a second array last written
/// there is ordered by the first's wait (no driver call here: the wait is skipped), and
/// is recorded as used on the launch's stream all the same.
#[test]
fn a_launch_waits_for_each_earlier_queue_once() {
    let device = Device::simulator().unwrap();
    let (a, b) = (fake(&device, 0xA0), fake(&device, 0xB0));
    let memory = Allocation::borrowed(&device, 0x1000, a.clone(), None);
    let mut ordered = OrderedAfter::default();
    assert!(!ordered.covers(raw_of(&a)));
    ordered.note(raw_of(&a));
    assert!(ordered.covers(raw_of(&a)) && !ordered.covers(raw_of(&b)));
    // A write on B after A's write: covered, so no driver call; the state moves on.
    assert!(!memory.is_quiet_on(raw_of(&b), true));
    assert!(!memory.use_on_tracked(&b, true, &mut ordered).unwrap());
    assert!(memory.is_quiet_on(raw_of(&b), true));
    assert!(!memory.is_quiet_on(raw_of(&a), false));
    // At most four queues are remembered; later ones are waited for again.
    let mut full = OrderedAfter::default();
    for raw in 1..=6usize {
        full.note(raw as sys::CUstream);
    }
    assert!((1..=4usize).all(|raw| full.covers(raw as sys::CUstream)));
    assert!(!full.covers(5usize as sys::CUstream));
}
