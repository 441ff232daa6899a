//! The simulator's defect reports as a user meets them: deliberately broken `#[kernel]`s
//! of this file launched with `launch!` on a simulated device each return
//! `Error::Simulator` whose fault names the threads (block and thread index), the
//! memory in the kernel's words and the `file:line` sites in THIS file; each fixed
//! version runs clean and matches a plain-Rust reference. (kernel-device's own suite
//! tests the detector on IR; this one tests what reaches the caller of `launch!`.)

use cudajit::prelude::*;
use cudajit::{Error, SimFault, SimOptions};

#[path = "../examples/common/mod.rs"]
mod common;

/// A simulated device exploring three seeded schedules per launch, so a report cannot
/// depend on one interleaving.
fn simulator() -> Device {
    Device::simulator_with(SimOptions {
        schedules: 3,
        ..SimOptions::default()
    })
}

/// The 1-based line of the only line of this file ending in the comment `// marker`.
fn line_of(marker: &str) -> u32 {
    let comment = format!("// {marker}");
    let lines: Vec<usize> = include_str!("sim_detect.rs")
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end().ends_with(&comment))
        .map(|(k, _)| k + 1)
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "marker {marker:?} must be on exactly one line"
    );
    lines[0] as u32
}

/// The simulator's fault of a failed launch of `kernel`.
fn fault_of(result: cudajit::Result<()>, kernel: &str) -> SimFault {
    match result {
        Err(Error::Simulator { kernel: k, fault }) => {
            assert_eq!(k, kernel);
            *fault
        }
        Err(other) => panic!("expected a simulator fault from `{kernel}`, got: {other}"),
        Ok(()) => panic!("`{kernel}` ran clean, but it is broken"),
    }
}

fn assert_site(site: &cudajit::SimSite, marker: &str) {
    assert_eq!(site.file, "tests/sim_detect.rs", "{site}");
    assert_eq!(
        site.line,
        line_of(marker),
        "{site} is not the line of {marker}"
    );
}

// ---- 1. a shared-memory tree reduction without the barrier between its steps -------

#[kernel]
fn tree_sum_unsynced(input: &[u32], sums: &mut [u32]) {
    let tile = shared_array::<[u32; 128]>();
    let t = thread_idx().x as usize;
    tile[t] = input[grid(1)];
    sync_threads();
    let mut s = 64;
    while s > 0 {
        if t < s {
            tile[t] = tile[t].wrapping_add(tile[t + s]); // site: unsynced step
        }
        s /= 2;
    }
    if t == 0 {
        sums[block_idx().x as usize] = tile[0];
    }
}

#[kernel]
fn tree_sum(input: &[u32], sums: &mut [u32]) {
    let tile = shared_array::<[u32; 128]>();
    let t = thread_idx().x as usize;
    tile[t] = input[grid(1)];
    sync_threads();
    let mut s = 64;
    while s > 0 {
        if t < s {
            tile[t] = tile[t].wrapping_add(tile[t + s]);
        }
        sync_threads();
        s /= 2;
    }
    if t == 0 {
        sums[block_idx().x as usize] = tile[0];
    }
}

#[test]
fn a_reduction_missing_its_barrier_is_a_shared_memory_race() {
    let device = simulator();
    let stream = device.default_stream();
    let mut rng = common::Rng::fresh("tree_sum");
    let blocks = 3;
    let input: Vec<u32> = (0..blocks * 128).map(|_| rng.next_u64() as u32).collect();
    let mut sums = vec![0u32; blocks];
    let fault = fault_of(
        launch!(tree_sum_unsynced[blocks, 128, stream](&input, &mut sums)),
        "tree_sum_unsynced",
    );
    match &fault {
        SimFault::Race {
            location,
            first,
            second,
        } => {
            assert!(location.contains("tile"), "{fault}");
            assert!(location.contains("shared"), "{fault}");
            assert_ne!(first.thread, second.thread, "{fault}");
            assert_eq!(first.thread.block, second.thread.block, "{fault}");
            assert_site(&first.site, "site: unsynced step");
            assert_site(&second.site, "site: unsynced step");
        }
        other => panic!("expected a race, got: {other}"),
    }

    let mut sums = vec![u32::MAX; blocks];
    launch!(tree_sum[blocks, 128, stream](&input, &mut sums)).unwrap();
    let want: Vec<u32> = input
        .chunks(128)
        .map(|c| c.iter().fold(0u32, |a, &v| a.wrapping_add(v)))
        .collect();
    assert_eq!(sums, want);
}

// ---- 2. a global counter incremented without an atomic ------------------------------

#[kernel]
fn count_plain(flags: &[u32], count: &mut [u32]) {
    let i = grid(1);
    if i < flags.len() && flags[i] != 0 {
        count[0] += 1; // site: plain counter
    }
}

#[kernel]
fn count_atomic(flags: &[u32], count: &mut [u32]) {
    let i = grid(1);
    if i < flags.len() && flags[i] != 0 {
        atomic_add(count, 0, 1);
    }
}

#[test]
fn a_counter_without_an_atomic_is_a_global_race_and_the_atomic_one_counts() {
    let device = simulator();
    let stream = device.default_stream();
    let mut rng = common::Rng::fresh("counter");
    let n = 1000 + rng.below(100) as usize;
    // At least two set flags in different blocks, whatever the random draw.
    let mut flags: Vec<u32> = (0..n).map(|_| rng.below(2) as u32).collect();
    flags[3] = 1;
    flags[n - 2] = 1;
    let mut count = [0u32];
    let fault = fault_of(
        launch!(count_plain[n.div_ceil(128), 128, stream](&flags, &mut count)),
        "count_plain",
    );
    match &fault {
        SimFault::Race {
            location,
            first,
            second,
        } => {
            assert!(location.contains("count"), "{fault}");
            assert!(location.contains("global"), "{fault}");
            assert_ne!(first.thread, second.thread, "{fault}");
            assert_site(&first.site, "site: plain counter");
            assert_site(&second.site, "site: plain counter");
        }
        other => panic!("expected a race, got: {other}"),
    }

    let start = rng.below(1000) as u32;
    let mut count = [start];
    launch!(count_atomic[n.div_ceil(128), 128, stream](&flags, &mut count)).unwrap();
    assert_eq!(count[0], start + flags.iter().sum::<u32>());
}

// ---- 3. a read after another warp's write, with no barrier between ------------------

#[kernel]
fn rotate_unsynced(input: &[f32], out: &mut [f32]) {
    let buf = shared_array::<[f32; 64]>();
    let t = thread_idx().x as usize;
    // Initialised, so what follows is a race and not a read of unwritten memory.
    buf[t] = 0.0;
    sync_threads();
    buf[t] = input[grid(1)]; // site: rotate write
    out[grid(1)] = buf[(t + 32) % 64]; // site: rotate read
}

#[kernel]
fn rotate(input: &[f32], out: &mut [f32]) {
    let buf = shared_array::<[f32; 64]>();
    let t = thread_idx().x as usize;
    buf[t] = input[grid(1)];
    sync_threads();
    out[grid(1)] = buf[(t + 32) % 64];
}

#[test]
fn a_read_of_another_warps_write_without_a_barrier_is_a_race() {
    let device = simulator();
    let stream = device.default_stream();
    let mut rng = common::Rng::fresh("rotate");
    let blocks = 2;
    let input = rng.vec_f32(blocks * 64, -1.0, 1.0);
    let mut out = vec![f32::NAN; blocks * 64];
    let fault = fault_of(
        launch!(rotate_unsynced[blocks, 64, stream](&input, &mut out)),
        "rotate_unsynced",
    );
    match &fault {
        SimFault::Race {
            location,
            first,
            second,
        } => {
            assert!(location.contains("buf"), "{fault}");
            // One access is the write, the other the read, by threads of different
            // warps of one block.
            let mut sites = [first.site.line, second.site.line];
            sites.sort();
            let mut want = [line_of("site: rotate write"), line_of("site: rotate read")];
            want.sort();
            assert_eq!(sites, want, "{fault}");
            assert_eq!(first.thread.block, second.thread.block, "{fault}");
            assert_ne!(
                first.thread.thread[0] / 32,
                second.thread.thread[0] / 32,
                "{fault}"
            );
        }
        other => panic!("expected a race, got: {other}"),
    }

    launch!(rotate[blocks, 64, stream](&input, &mut out)).unwrap();
    for b in 0..blocks {
        for t in 0..64 {
            assert_eq!(out[b * 64 + t], input[b * 64 + (t + 32) % 64]);
        }
    }
}

// ---- 4. a read of shared memory no thread wrote -------------------------------------

#[kernel]
fn read_unwritten(input: &[f32], out: &mut [f32]) {
    let buf = shared_array::<[f32; 64]>();
    let t = thread_idx().x as usize;
    if t < 32 {
        buf[t] = input[grid(1)];
    }
    sync_threads();
    out[grid(1)] = buf[63 - t]; // site: unwritten read
}

#[kernel]
fn read_written(input: &[f32], out: &mut [f32]) {
    let buf = shared_array::<[f32; 64]>();
    let t = thread_idx().x as usize;
    buf[t] = input[grid(1)];
    sync_threads();
    out[grid(1)] = buf[63 - t];
}

#[test]
fn reading_unwritten_shared_memory_is_reported() {
    let device = simulator();
    let stream = device.default_stream();
    let mut rng = common::Rng::fresh("unwritten");
    let input = rng.vec_f32(64, -1.0, 1.0);
    let mut out = vec![f32::NAN; 64];
    let fault = fault_of(
        launch!(read_unwritten[1, 64, stream](&input, &mut out)),
        "read_unwritten",
    );
    match &fault {
        SimFault::UninitialisedRead {
            location,
            site,
            thread,
        } => {
            assert!(location.contains("buf"), "{fault}");
            assert_site(site, "site: unwritten read");
            // Threads 0..32 read the upper half, which no one wrote.
            assert!(thread.thread[0] < 32, "{fault}");
        }
        other => panic!("expected an uninitialised read, got: {other}"),
    }

    launch!(read_written[1, 64, stream](&input, &mut out)).unwrap();
    assert!((0..64).all(|t| out[t] == input[63 - t]));
}

// ---- 5. a barrier inside a branch that splits a warp ---------------------------------
// (A whole warp that skips it and runs to the end exits, which counts as arrived, as
// on the GPU; lanes of a warp whose mates wait at it are divergence: `bar.sync` is
// aligned.)

#[kernel]
fn half_barrier(out: &mut [u32]) {
    let t = thread_idx().x;
    if t < 48 {
        sync_threads(); // site: half barrier
    }
    out[grid(1)] = t * 2;
}

#[kernel]
fn whole_barrier(out: &mut [u32]) {
    let t = thread_idx().x;
    sync_threads();
    out[grid(1)] = t * 2;
}

#[test]
fn a_barrier_reached_by_half_the_block_is_divergence_not_a_hang() {
    let device = simulator();
    let stream = device.default_stream();
    let mut out = vec![u32::MAX; 128];
    let fault = fault_of(
        launch!(half_barrier[2, 64, stream](&mut out)),
        "half_barrier",
    );
    match &fault {
        SimFault::BarrierDivergence {
            site,
            waiting,
            other,
            ..
        } => {
            assert_site(site, "site: half barrier");
            assert!(waiting.thread[0] < 48, "{fault}");
            assert!(other.thread[0] >= 48, "{fault}");
            assert_eq!(waiting.block, other.block, "{fault}");
        }
        other => panic!("expected barrier divergence, got: {other}"),
    }

    launch!(whole_barrier[2, 64, stream](&mut out)).unwrap();
    assert!((0..128).all(|i| out[i] == (i % 64) as u32 * 2));
}

// ---- 6. a shuffle whose mask names lanes that are not executing it ------------------

#[kernel]
fn shuffle_inactive(out: &mut [u32]) {
    let lane = lane_id();
    if lane < 16 {
        out[grid(1)] = shfl_sync(0xffff_ffff, lane * 3, lane + 16); // site: shuffle
    }
}

#[kernel]
fn shuffle_active(out: &mut [u32]) {
    let lane = lane_id();
    let v = shfl_sync(0xffff_ffff, lane * 3, (lane + 16) % 32);
    if lane < 16 {
        out[grid(1)] = v;
    }
}

#[test]
fn a_shuffle_naming_inactive_lanes_is_reported() {
    let device = simulator();
    let stream = device.default_stream();
    let mut out = vec![u32::MAX; 32];
    let fault = fault_of(
        launch!(shuffle_inactive[1, 32, stream](&mut out)),
        "shuffle_inactive",
    );
    match &fault {
        SimFault::InactiveLane {
            site, lane, mask, ..
        } => {
            assert_site(site, "site: shuffle");
            assert!(*lane >= 16, "{fault}");
            assert_eq!(*mask, 0xffff_ffff, "{fault}");
        }
        other => panic!("expected an inactive-lane report, got: {other}"),
    }

    let mut out = vec![u32::MAX; 32];
    launch!(shuffle_active[1, 32, stream](&mut out)).unwrap();
    for lane in 0..32u32 {
        let want = if lane < 16 { (lane + 16) * 3 } else { u32::MAX };
        assert_eq!(out[lane as usize], want, "lane {lane}");
    }
}

// ---- 7. an out-of-bounds write where the bounds checks are off ----------------------

#[kernel(boundscheck = false)]
fn write_past_end(out: &mut [u32]) {
    let i = grid(1);
    out[i] = i as u32; // site: past the end
}

#[kernel(boundscheck = false)]
fn write_guarded(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = i as u32;
    }
}

#[test]
fn an_unchecked_write_past_the_end_is_found_at_its_source() {
    let device = simulator();
    let stream = device.default_stream();
    let mut rng = common::Rng::fresh("past the end");
    let n = 100 + rng.below(27) as usize;
    let mut out = vec![u32::MAX; n];
    let fault = fault_of(
        // SAFETY: none: the write past the end is the point, and the simulator checks
        // every access (it reports the fault; nothing outside `out` is written).
        unsafe { launch!(write_past_end[1, 128, stream](&mut out)) },
        "write_past_end",
    );
    match &fault {
        SimFault::OutOfBounds {
            location,
            site,
            thread,
            ..
        } => {
            assert!(location.contains("out"), "{fault}");
            assert_site(site, "site: past the end");
            assert!(thread.thread[0] as usize >= n, "{fault}");
        }
        other => panic!("expected an out-of-bounds report, got: {other}"),
    }

    let mut out = vec![u32::MAX; n];
    // SAFETY: the kernel guards `i < out.len()`.
    unsafe { launch!(write_guarded[1, 128, stream](&mut out)) }.unwrap();
    assert!((0..n).all(|i| out[i] == i as u32));
}

// ---- async copies: a two-stage cp_async pipeline, its early read and missing wait ----

/// Each block streams `input` through two shared stages of 128 f32 (32 threads, one
/// 16-byte copy each per stage) and writes every element doubled, reading the chunk
/// that the NEXT thread copied.
#[kernel]
fn staged_double_early(input: &[f32], out: &mut [f32]) {
    let stages = shared_array::<[f32; 256]>();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 512;
    cp_async::<16>(stages, t * 4, input, base + t * 4); // site: early copy
    cp_async_commit();
    for k in 0..4 {
        if k + 1 < 4 {
            let at = base + (k + 1) * 128 + t * 4;
            cp_async::<16>(stages, ((k + 1) % 2) * 128 + t * 4, input, at);
        }
        cp_async_commit();
        sync_threads();
        let from = (k % 2) * 128 + ((t + 1) % 32) * 4;
        let v = stages.load_vec::<4>(from); // site: early read
        let to = base + k * 128 + ((t + 1) % 32) * 4;
        out.store_vec::<4>(to, [2.0 * v[0], 2.0 * v[1], 2.0 * v[2], 2.0 * v[3]]);
        sync_threads();
    }
    cp_async_wait_all();
}

/// With the wait, but `cp_async_wait::<2>()` where the pipeline needs `<1>`: both newest
/// groups stay in flight, and the newer-but-one is the tile about to be read (a missing
/// `wait_group` in effect: the kernel would read stale bytes on a GPU).
#[kernel]
fn staged_double_unwaited(input: &[f32], out: &mut [f32]) {
    let stages = shared_array::<[f32; 256]>();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 512;
    cp_async::<16>(stages, t * 4, input, base + t * 4);
    cp_async_commit();
    for k in 0..4 {
        if k + 1 < 4 {
            let at = base + (k + 1) * 128 + t * 4;
            cp_async::<16>(stages, ((k + 1) % 2) * 128 + t * 4, input, at);
        }
        cp_async_commit();
        cp_async_wait::<2>();
        sync_threads();
        let from = (k % 2) * 128 + ((t + 1) % 32) * 4;
        let v = stages.load_vec::<4>(from); // site: stale read
        let to = base + k * 128 + ((t + 1) % 32) * 4;
        out.store_vec::<4>(to, [2.0 * v[0], 2.0 * v[1], 2.0 * v[2], 2.0 * v[3]]);
        sync_threads();
    }
    cp_async_wait_all();
}

#[kernel]
fn staged_double(input: &[f32], out: &mut [f32]) {
    let stages = shared_array::<[f32; 256]>();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 512;
    cp_async::<16>(stages, t * 4, input, base + t * 4);
    cp_async_commit();
    for k in 0..4 {
        if k + 1 < 4 {
            let at = base + (k + 1) * 128 + t * 4;
            cp_async::<16>(stages, ((k + 1) % 2) * 128 + t * 4, input, at);
        }
        cp_async_commit();
        cp_async_wait::<1>();
        sync_threads();
        let from = (k % 2) * 128 + ((t + 1) % 32) * 4;
        let v = stages.load_vec::<4>(from);
        let to = base + k * 128 + ((t + 1) % 32) * 4;
        out.store_vec::<4>(to, [2.0 * v[0], 2.0 * v[1], 2.0 * v[2], 2.0 * v[3]]);
        sync_threads();
    }
}

/// The race with a copy in flight: the `cp_async` first, the read second.
fn assert_copy_race(fault: &SimFault, copy: &str, read: &str) {
    match fault {
        SimFault::Race {
            location,
            first,
            second,
        } => {
            assert!(location.starts_with("shared `stages`["), "{fault}");
            assert!(location.contains("still in flight"), "{fault}");
            assert_eq!(first.kind.to_string(), "write", "{fault}");
            assert_eq!(second.kind.to_string(), "read", "{fault}");
            assert_eq!(first.thread.block, second.thread.block, "{fault}");
            assert_site(&first.site, copy);
            assert_site(&second.site, read);
        }
        other => panic!("expected a race with a cp_async, got: {other}"),
    }
}

#[test]
fn reading_a_cp_async_destination_before_its_wait_is_reported() {
    let device = simulator();
    let stream = device.default_stream();
    let mut rng = common::Rng::fresh("staged_double");
    let blocks = 3;
    let input: Vec<f32> = (0..blocks * 512).map(|_| rng.f32_in(-4.0, 4.0)).collect();
    let mut out = vec![f32::NAN; input.len()];
    let fault = fault_of(
        launch!(staged_double_early[blocks, 32, stream](&input, &mut out)),
        "staged_double_early",
    );
    assert_copy_race(&fault, "site: early copy", "site: early read");

    let fault = fault_of(
        launch!(staged_double_unwaited[blocks, 32, stream](&input, &mut out)),
        "staged_double_unwaited",
    );
    // Iteration 0 reads stage 0 (the prologue's copy) or a later one: the copy named
    // is one of the kernel's two `cp_async`s, the read is the stale one.
    match &fault {
        SimFault::Race { second, .. } => assert_site(&second.site, "site: stale read"),
        other => panic!("expected a race with a cp_async, got: {other}"),
    }

    let mut out = vec![f32::NAN; input.len()];
    launch!(staged_double[blocks, 32, stream](&input, &mut out)).unwrap();
    let want: Vec<f32> = input.iter().map(|x| 2.0 * x).collect();
    assert_eq!(out, want);
}
