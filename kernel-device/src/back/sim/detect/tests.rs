//! Unit tests of the detector, driven by the event sequences the interpreter would
//! produce for small kernels (the kernel-level suite is in `back/sim/tests_detect.rs`).
//! Threads, blocks and offsets are drawn from a fresh seed per run, printed so a
//! failure can be replayed with `CUDAJIT_TEST_SEED`.

// Faults are large and end a launch: boxing them would only add noise here.
#![allow(clippy::result_large_err)]

use super::*;
use crate::ir::SourceLoc;

use crate::back::sim::tests::Rng;

const SHARED: RegionId = RegionId(0);
const OUT: RegionId = RegionId(1);
const BYTES: RegionId = RegionId(2);
const TILE: RegionId = RegionId(3);
const WRITE_SITE: SiteId = SiteId {
    func: 0,
    loc: SourceLoc {
        line: 10,
        column: 9,
    },
};
const READ_SITE: SiteId = SiteId {
    func: 0,
    loc: SourceLoc {
        line: 11,
        column: 9,
    },
};

fn shape(grid: u32, block: u32) -> LaunchShape {
    LaunchShape {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_shared_bytes: 0,
    }
}

fn detector(shape: &LaunchShape) -> Detector {
    let region = |name: &str, space, bytes, elem_bytes, dims: Vec<u64>| Region {
        name: name.into(),
        space,
        bytes,
        elem_bytes,
        dims,
        tracked: true,
    };
    Detector::new(
        shape,
        vec![
            region("partial", Space::Shared, 4 * 1024, 4, vec![]),
            region("out", Space::Global, 4 * 4096, 4, vec![]),
            region("bytes", Space::Global, 4096, 1, vec![]),
            region("tile", Space::Shared, 4 * 8 * 16, 4, vec![8, 16]),
        ],
        vec!["kernel.rs".into()],
    )
}

fn write(b: &mut BlockDetector<'_>, tid: u32, region: RegionId, index: u64) -> Result<(), Fault> {
    b.access_lane(
        tid,
        region,
        index * 4,
        4,
        AccessKind::Write,
        MemoryScope::Device,
        WRITE_SITE,
    )
}

fn read(b: &mut BlockDetector<'_>, tid: u32, region: RegionId, index: u64) -> Result<(), Fault> {
    b.access_lane(
        tid,
        region,
        index * 4,
        4,
        AccessKind::Read,
        MemoryScope::Device,
        READ_SITE,
    )
}

fn atomic(
    b: &mut BlockDetector<'_>,
    tid: u32,
    index: u64,
    scope: MemoryScope,
) -> Result<(), Fault> {
    b.access_lane(
        tid,
        OUT,
        index * 4,
        4,
        AccessKind::Atomic,
        scope,
        WRITE_SITE,
    )
}

fn expect_race(result: Result<(), Fault>) -> (String, Access, Access) {
    match result {
        Err(Fault::Race {
            location,
            first,
            second,
        }) => (location, first, second),
        other => panic!("expected a race, got {other:?}"),
    }
}

fn thread(block: u32, tid: u32) -> ThreadId {
    ThreadId {
        block: [block, 0, 0],
        thread: [tid, 0, 0],
    }
}

/// A tree reduction step: every thread writes its slot, then reads a slot another warp
/// wrote. Without the barrier between them that is a race; with it, nothing.
#[test]
fn reduction_step_races_without_barrier_only() {
    let mut rng = Rng::fresh();
    let shape = shape(1, 256);
    for with_barrier in [false, true] {
        let d = detector(&shape);
        let mut b = d.block([0, 0, 0]);
        for tid in 0..256 {
            write(&mut b, tid, SHARED, u64::from(tid)).unwrap();
        }
        if with_barrier {
            b.barrier();
        }
        let stride = 32 << rng.below(3); // 32, 64 or 128: always another warp
        let reader = rng.below(stride);
        let result = read(&mut b, reader, SHARED, u64::from(reader + stride));
        if with_barrier {
            result.unwrap();
        } else {
            let (location, first, second) = expect_race(result);
            assert_eq!(location, format!("shared `partial`[{}]", reader + stride));
            assert_eq!(first.thread, thread(0, reader + stride));
            assert_eq!(first.kind, AccessKind::Write);
            assert_eq!(first.site.line, 10);
            assert_eq!(second.thread, thread(0, reader));
            assert_eq!(second.kind, AccessKind::Read);
            assert_eq!(second.site.line, 11);
        }
    }
}

/// Two blocks writing one global counter race; atomics do not; `_block` atomics of
/// different blocks do (they are indivisible within a block only).
#[test]
fn global_counter_needs_device_atomics() {
    let mut rng = Rng::fresh();
    let shape = shape(8, 64);
    let (first_block, second_block) = rng.pair(8);
    let (t1, t2) = (rng.below(64), rng.below(64));
    let index = u64::from(rng.below(4096));
    let d = detector(&shape);
    let mut a = d.block([first_block, 0, 0]);
    let mut b = d.block([second_block, 0, 0]);
    write(&mut a, t1, OUT, index).unwrap();
    let (location, first, second) = expect_race(write(&mut b, t2, OUT, index));
    assert_eq!(location, format!("`out`[{index}] (global)"));
    assert_eq!(first.thread, thread(first_block, t1));
    assert_eq!(second.thread, thread(second_block, t2));

    let d = detector(&shape);
    let mut a = d.block([first_block, 0, 0]);
    let mut b = d.block([second_block, 0, 0]);
    for _ in 0..3 {
        atomic(&mut a, t1, index, MemoryScope::Device).unwrap();
        atomic(&mut b, t2, index, MemoryScope::System).unwrap();
    }
    // A plain read of the counter, unordered with the atomics, races with them.
    expect_race(read(&mut a, (t1 + 1) % 64, OUT, index));

    let d = detector(&shape);
    let mut a = d.block([first_block, 0, 0]);
    let mut b = d.block([second_block, 0, 0]);
    atomic(&mut a, t1, index, MemoryScope::Block).unwrap();
    atomic(&mut a, (t1 + 1) % 64, index, MemoryScope::Block).unwrap();
    expect_race(atomic(&mut b, t2, index, MemoryScope::Device));
}

/// Warp 0 writes, another warp reads, in one barrier interval.
#[test]
fn read_after_write_across_warps() {
    let mut rng = Rng::fresh();
    let shape = shape(1, 128);
    let writer = rng.below(32);
    let reader = 32 + rng.below(96);
    let index = u64::from(rng.below(128));
    let d = detector(&shape);
    let mut b = d.block([0, 0, 0]);
    write(&mut b, writer, SHARED, index).unwrap();
    let (_, first, second) = expect_race(read(&mut b, reader, SHARED, index));
    assert_eq!(
        (first.thread, second.thread),
        (thread(0, writer), thread(0, reader))
    );

    // Write after read is a race as well, and a barrier orders both ways.
    let d = detector(&shape);
    let mut b = d.block([0, 0, 0]);
    write(&mut b, writer, SHARED, index).unwrap();
    b.barrier();
    read(&mut b, reader, SHARED, index).unwrap();
    let (_, first, _) = expect_race(write(&mut b, writer, SHARED, index));
    assert_eq!(first.thread, thread(0, reader));
    b.barrier();
    write(&mut b, writer, SHARED, index).unwrap();
}

#[test]
fn unwritten_shared_memory_is_reported_per_block() {
    let mut rng = Rng::fresh();
    let shape = shape(4, 64);
    let d = detector(&shape);
    let mut b = d.block([1, 0, 0]);
    let (writer, reader) = rng.pair(64);
    let index = u64::from(rng.below(8)) * 16 + u64::from(rng.below(16));
    match read(&mut b, reader, TILE, index) {
        Err(Fault::UninitialisedRead {
            location,
            site,
            thread: who,
        }) => {
            assert_eq!(
                location,
                format!("shared `tile`[{}][{}]", index / 16, index % 16)
            );
            assert_eq!(site.line, 11);
            assert_eq!(who, thread(1, reader));
        }
        other => panic!("expected an uninitialised read, got {other:?}"),
    }
    write(&mut b, writer, TILE, index).unwrap();
    b.barrier();
    read(&mut b, reader, TILE, index).unwrap();
    // The next block on this worker has its own, unwritten, shared memory.
    b.reset([2, 0, 0]);
    assert!(matches!(
        read(&mut b, reader, TILE, index),
        Err(Fault::UninitialisedRead { .. })
    ));
    // An atomic on unwritten shared memory reads it too.
    let mut c = d.block([3, 0, 0]);
    assert!(matches!(
        c.access_lane(
            0,
            SHARED,
            0,
            4,
            AccessKind::Atomic,
            MemoryScope::Block,
            WRITE_SITE
        ),
        Err(Fault::UninitialisedRead { .. })
    ));
}

/// Lanes of one warp are unordered without a warp sync (Volta's independent thread
/// scheduling); a full sync orders them, and partial syncs order transitively.
#[test]
fn lanes_of_a_warp_need_a_warp_sync() {
    let mut rng = Rng::fresh();
    let shape = shape(1, 64);
    let warp = rng.below(2);
    let (a, c) = rng.pair(32);
    let b_lane = (0..32).find(|l| *l != a && *l != c).unwrap();
    let tid = |lane| warp * 32 + lane;
    let index = u64::from(rng.below(64));

    let d = detector(&shape);
    let mut blk = d.block([0, 0, 0]);
    write(&mut blk, tid(a), SHARED, index).unwrap();
    expect_race(read(&mut blk, tid(c), SHARED, index));

    let d = detector(&shape);
    let mut blk = d.block([0, 0, 0]);
    write(&mut blk, tid(a), SHARED, index).unwrap();
    blk.warp_sync(warp, u32::MAX);
    read(&mut blk, tid(c), SHARED, index).unwrap();

    // a -> b, then b -> c: ordered through b.
    let d = detector(&shape);
    let mut blk = d.block([0, 0, 0]);
    write(&mut blk, tid(a), SHARED, index).unwrap();
    blk.warp_sync(warp, 1 << a | 1 << b_lane);
    blk.warp_sync(warp, 1 << b_lane | 1 << c);
    read(&mut blk, tid(c), SHARED, index).unwrap();

    // b -> c first, then a -> b: nothing carries a's write to c.
    let d = detector(&shape);
    let mut blk = d.block([0, 0, 0]);
    write(&mut blk, tid(a), SHARED, index).unwrap();
    blk.warp_sync(warp, 1 << b_lane | 1 << c);
    blk.warp_sync(warp, 1 << a | 1 << b_lane);
    expect_race(read(&mut blk, tid(c), SHARED, index));

    // A warp sync does not order another warp.
    let d = detector(&shape);
    let mut blk = d.block([0, 0, 0]);
    write(&mut blk, tid(a), SHARED, index).unwrap();
    blk.warp_sync(warp, u32::MAX);
    expect_race(read(&mut blk, (tid(c) + 32) % 64, SHARED, index));
}

/// A partial last warp (a block of 40 threads): syncing its 8 lanes is a full sync.
#[test]
fn partial_last_warp_syncs_fully() {
    let d = detector(&shape(1, 40));
    let mut b = d.block([0, 0, 0]);
    write(&mut b, 33, SHARED, 5).unwrap();
    b.warp_sync(1, 0xff);
    read(&mut b, 39, SHARED, 5).unwrap();
}

/// CUDA's threadFenceReduction: each block's thread 0 writes its partial sum, fences,
/// and takes a ticket with an atomic; the last block (after a barrier) reads every
/// partial sum. Without the fence the reads race with the writes.
#[test]
fn fence_then_atomic_releases_to_the_last_block() {
    let mut rng = Rng::fresh();
    let blocks = 2 + rng.below(7);
    let shape = shape(blocks, 64);
    for fenced in [true, false] {
        let d = detector(&shape);
        let counter = 4000;
        for blk in 0..blocks {
            let mut b = d.block([blk, 0, 0]);
            write(&mut b, 0, OUT, u64::from(blk)).unwrap();
            if fenced {
                b.fence(0, 1, MemoryScope::Device);
            }
            atomic(&mut b, 0, counter, MemoryScope::Device).unwrap();
            if blk == blocks - 1 {
                b.barrier();
                let reader = rng.below(64);
                let result = (0..blocks).try_for_each(|i| read(&mut b, reader, OUT, u64::from(i)));
                if fenced {
                    result.unwrap();
                } else {
                    let (_, first, _) = expect_race(result);
                    assert_eq!(first.thread.thread, [0, 0, 0]);
                }
            }
        }
    }
}

/// Accesses of different blocks on either side of a grid sync are ordered.
#[test]
fn grid_sync_orders_blocks() {
    let mut rng = Rng::fresh();
    let shape = shape(4, 32);
    let (x, y) = rng.pair(4);
    let index = u64::from(rng.below(4096));
    let d = detector(&shape);
    let mut blocks: Vec<_> = (0..4).map(|i| d.block([i, 0, 0])).collect();
    write(&mut blocks[x as usize], 3, OUT, index).unwrap();
    for b in &mut blocks {
        b.grid_sync();
    }
    read(&mut blocks[y as usize], 5, OUT, index).unwrap();
    // ... but not what follows it.
    expect_race(write(&mut blocks[x as usize], 3, OUT, index));
}

/// Byte-sized elements written by neighbouring threads do not share a shadow cell.
#[test]
fn narrow_elements_are_tracked_per_element() {
    let d = detector(&shape(1, 64));
    let mut b = d.block([0, 0, 0]);
    let byte = |b: &mut BlockDetector<'_>, tid| {
        b.access_lane(
            tid,
            BYTES,
            u64::from(tid),
            1,
            AccessKind::Write,
            MemoryScope::Device,
            WRITE_SITE,
        )
    };
    for tid in 0..64 {
        byte(&mut b, tid).unwrap();
    }
    // A 4-byte read by thread 0 spans the bytes of threads 0..4.
    let result = b.access_lane(
        0,
        BYTES,
        0,
        4,
        AccessKind::Read,
        MemoryScope::Device,
        READ_SITE,
    );
    let (location, first, _) = expect_race(result);
    assert_eq!(location, "`bytes`[1] (global)");
    assert_eq!(first.thread, thread(0, 1));
}

/// The per-warp form reports the first conflicting lane, and the fault's sentence
/// names both threads, the location and both sites.
#[test]
fn warp_form_and_message() {
    let d = detector(&shape(2, 64));
    let mut b = d.block([1, 0, 0]);
    let mut offsets = [0u64; 32];
    for (lane, o) in offsets.iter_mut().enumerate() {
        *o = 4 * lane as u64;
    }
    let mut access = WarpAccess {
        region: SHARED,
        kind: AccessKind::Write,
        scope: MemoryScope::Device,
        bytes: 4,
        lanes: u32::MAX,
        offsets: &offsets,
        site: WRITE_SITE,
    };
    b.access(0, &access).unwrap();
    // Warp 1 reads what warp 0's lanes wrote, one element to the right.
    let shifted = offsets.map(|o| o + 4);
    access.offsets = &shifted;
    access.kind = AccessKind::Read;
    access.site = READ_SITE;
    access.lanes = 0xffff_0000;
    let fault = b.access(1, &access).unwrap_err();
    assert_eq!(
        fault.to_string(),
        "data race on shared `partial`[17]: write at kernel.rs:10:9 by block (1, 0, 0) thread \
         (17, 0, 0) conflicts with read at kernel.rs:11:9 by block (1, 0, 0) thread (48, 0, 0)"
    );
}

/// Blocks on several host threads: disjoint elements never race; one element written
/// by thread 0 of every block races, whichever block comes second.
#[test]
fn concurrent_blocks() {
    let blocks = 16u32;
    let threads = 128u32;
    let run = |one_element: bool| {
        let d = detector(&shape(blocks, threads));
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..2u32)
                .map(|worker| {
                    let d = &d;
                    s.spawn(move || -> Result<(), Fault> {
                        let mut b = d.block([worker, 0, 0]);
                        for blk in (worker..blocks).step_by(2) {
                            b.reset([blk, 0, 0]);
                            for tid in 0..threads {
                                if !one_element {
                                    write(&mut b, tid, OUT, u64::from(blk * threads + tid))?;
                                } else if tid == 0 {
                                    write(&mut b, tid, OUT, 7)?;
                                }
                            }
                        }
                        Ok(())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("worker panicked"))
                .collect::<Vec<_>>()
        })
    };
    assert!(run(false).iter().all(Result::is_ok));
    assert!(run(true).iter().any(Result::is_err));
}

/// Sites travel packed in the stamps: the report gives back function file, line and
/// column (saturated past the packing's range, never wrapped).
#[test]
fn sites_round_trip_through_the_shadow() {
    let mut rng = Rng::fresh();
    let shape = shape(1, 64);
    let files = vec!["a.rs".to_string(), "b.rs".to_string()];
    let d = Detector::new(
        &shape,
        vec![Region {
            name: "x".into(),
            space: Space::Shared,
            bytes: 64,
            elem_bytes: 4,
            dims: vec![],
            tracked: true,
        }],
        files,
    );
    let line = 1 + rng.below(100_000);
    let column = 1 + rng.below(4000);
    let first = SiteId::new(1, SourceLoc { line, column });
    let huge = SiteId::new(
        0,
        SourceLoc {
            line: 5_000_000,
            column: 9_999,
        },
    );
    let mut b = d.block([0, 0, 0]);
    b.access_lane(
        3,
        SHARED,
        0,
        4,
        AccessKind::Write,
        MemoryScope::Device,
        first,
    )
    .unwrap();
    let (_, prior, current) = expect_race(b.access_lane(
        40,
        SHARED,
        0,
        4,
        AccessKind::Read,
        MemoryScope::Device,
        huge,
    ));
    assert_eq!(
        prior.site,
        Site {
            file: "b.rs".into(),
            line,
            column
        }
    );
    assert_eq!(
        current.site,
        Site {
            file: "a.rs".into(),
            line: (1 << 20) - 1,
            column: 4095
        }
    );
}
