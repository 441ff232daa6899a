//! Barriers with exited threads (they count as arrived, as on the GPU), schedules
//! that interleave warps and blocks at every point where they can communicate, and
//! spinning that ends (or ends as an `Err`, never a hang).

use super::*;

fn run_u32(
    src: &str,
    grid: u32,
    block: u32,
    init: &[u32],
    options: &Options,
) -> Result<Vec<u32>, Fault> {
    let m = module(src, "k");
    let b = buffer_of(init);
    run(
        &m,
        "k",
        &shape(grid, block),
        &[slice(ScalarType::U32, &b, init.len(), true)],
        options,
    )?;
    Ok(read_back(&b, init.len()))
}

fn seeds(schedules: u32) -> impl Iterator<Item = Options> {
    (0..3u64).map(move |seed| Options {
        seed: seed * 1000 + 7,
        schedules,
        ..Options::default()
    })
}

/// Numba's 1-D heat equation (cooperative groups example): threads past the end
/// return, the others step with `grid_sync()`.
const HEAT: &str = r#"
#[kernel]
fn k(buf: &mut [u32]) {
    let i = grid(1);
    let n = 200;
    if i >= n {
        return;
    }
    for step in 0..4u32 {
        let left = if i > 0 { buf[(step as usize % 2) * n + i - 1] } else { 0 };
        let me = buf[(step as usize % 2) * n + i];
        let out = ((step as usize + 1) % 2) * n + i;
        buf[out] = me + left / 2;
        grid_sync();
    }
}
"#;

#[test]
fn threads_that_return_before_grid_sync_count_as_arrived() {
    let init: Vec<u32> = (0..400).map(|i| if i < 200 { i * 3 } else { 0 }).collect();
    let mut want = init.clone();
    for step in 0..4 {
        let (from, to) = ((step % 2) * 200, ((step + 1) % 2) * 200);
        for i in 0..200 {
            let left = if i > 0 { want[from + i - 1] } else { 0 };
            want[to + i] = want[from + i] + left / 2;
        }
    }
    for schedules in [1, 8] {
        for o in seeds(schedules) {
            let got = run_u32(HEAT, 4, 64, &init, &o).unwrap();
            assert_eq!(got, want);
        }
    }
    let off = Options {
        detect: false,
        ..Options::default()
    };
    assert_eq!(run_u32(HEAT, 4, 64, &init, &off).unwrap(), want);
}

#[test]
fn whole_warps_returning_before_sync_threads_count_as_arrived() {
    let src = "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t >= 70 { return; } sync_threads(); a[t] = 1; }";
    for o in seeds(4) {
        let got = run_u32(src, 1, 128, &[0; 128], &o).unwrap();
        assert!((0..128).all(|t| got[t] == u32::from(t < 70)));
    }
}

#[test]
fn a_warp_skipping_a_barrier_to_the_end_exits_but_two_barriers_are_divergence() {
    // Warp 1 skips the barrier and exits at the kernel's end, which counts as
    // arrived (PTX `exit`), whether it ends before or after warp 0 arrives.
    let src = "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t < 32 { sync_threads(); } a[t] = 1; }";
    for o in seeds(4) {
        let got = run_u32(src, 1, 64, &[0; 64], &o).unwrap();
        assert!(got.iter().all(|&v| v == 1), "{got:?}");
    }
    // Live threads at two different barriers.
    let src = "#[kernel] fn k(a: &mut [u32]) { let t = thread_idx().x as usize; if t < 32 { sync_threads(); } else { sync_threads(); } a[t] = 1; }";
    let err = run_u32(src, 1, 64, &[0; 64], &Options::default()).unwrap_err();
    assert!(
        matches!(&err, Fault::BarrierDivergence { elsewhere, .. } if elsewhere.starts_with("waits at")),
        "{err}"
    );
}

#[test]
fn a_block_whose_threads_all_return_before_grid_sync_is_reported() {
    let src = "#[kernel] fn k(a: &mut [u32]) { if block_idx().x == 2 { return; } grid_sync(); a[grid(1)] = 1; }";
    let err = run_u32(src, 4, 32, &[0; 128], &Options::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("block (2, 0, 0) thread (0, 0, 0) exited"),
        "{text}"
    );
}

fn run2(
    src: &str,
    grid: u32,
    block: u32,
    a: &[u32],
    b: &[u32],
    options: &Options,
) -> Result<(Vec<u32>, Vec<u32>), Fault> {
    let m = module(src, "k");
    let (ba, bb) = (buffer_of(a), buffer_of(b));
    run(
        &m,
        "k",
        &shape(grid, block),
        &[
            slice(ScalarType::U32, &ba, a.len(), true),
            slice(ScalarType::U32, &bb, b.len(), true),
        ],
        options,
    )?;
    Ok((read_back(&ba, a.len()), read_back(&bb, b.len())))
}

/// Which warp's atomic runs first depends on the seed, in a kernel without barriers.
#[test]
fn the_seed_changes_which_warp_runs_first() {
    let src = "#[kernel] fn k(order: &mut [u32], first: &mut [u32]) { let t = thread_idx().x; if t % 32 == 0 { let k = atomic_add(order, 0, 1); first[(t / 32) as usize] = k; } }";
    let mut leaders = std::collections::HashSet::new();
    for seed in 0..16 {
        let o = Options {
            seed,
            ..Options::default()
        };
        let (_, first) = run2(src, 1, 128, &[0], &[9; 4], &o).unwrap();
        leaders.insert(first.iter().position(|&k| k == 0).unwrap());
    }
    assert!(leaders.len() >= 3, "{leaders:?}");
}

/// A value published with a plain store between two atomic flag updates: only a
/// schedule that interleaves the warps between them reads it while it is written.
const WINDOW: &str = r#"
#[kernel]
fn k(flag: &mut [u32], data: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t == 0 {
        atomic_exch(flag, 0, 1);
        data[0] = 42;
        atomic_exch(flag, 0, 0);
    } else if t % 32 == 0 {
        if atomic_add(flag, 0, 0) == 1 {
            data[t / 32] = data[0];
        }
    }
}
"#;

#[test]
fn a_race_that_needs_warps_to_interleave_is_found() {
    for schedules in [1, 8] {
        let mut found = 0;
        for o in seeds(schedules) {
            if let Err(Fault::Race { .. }) = run2(WINDOW, 1, 256, &[0], &[0; 8], &o) {
                found += 1;
            }
        }
        assert!(found > 0 || schedules == 1, "schedules {schedules}");
        if schedules == 8 {
            assert_eq!(found, 3);
        }
    }
}

/// A spin that nobody ends is a deadlock `Err` naming the spinning thread and the
/// loop's site, quickly.
#[test]
fn a_spin_nobody_ends_is_an_err_not_a_hang() {
    let src = "#[kernel] fn k(flag: &mut [u32], out: &mut [u32]) {\n let t = thread_idx().x as usize;\n if t == 33 {\n while atomic_add(flag, 0, 0) == 0 {}\n }\n sync_threads();\n out[t] = 1;\n}";
    let started = std::time::Instant::now();
    let err = run2(src, 1, 64, &[0], &[0; 64], &Options::default()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Fault::Deadlock(_)), "{text}");
    assert!(text.contains("thread (33, 0, 0) at sim.rs:4:"), "{text}");
    assert!(text.contains("waits at the barrier at sim.rs:6:"), "{text}");
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    // A plain-read spin on a flag no one sets, in a kernel that also uses atomics.
    let src = "#[kernel] fn k(flag: &mut [u32], out: &mut [u32]) {\n let t = thread_idx().x as usize;\n while flag[0] == 0 {}\n atomic_add(out, t, 1);\n}";
    let err = run2(src, 2, 64, &[0], &[0; 64], &Options::default()).unwrap_err();
    assert!(matches!(err, Fault::Deadlock(_)), "{err}");
    assert!(err.to_string().contains("at sim.rs:3:"), "{err}");
}

/// A block spinning on a flag set by another block (after its data and a fence) ends.
#[test]
fn a_spin_on_another_blocks_flag_ends() {
    let src = r#"
#[kernel]
fn k(flag: &mut [u32], data: &mut [u32]) {
    let t = thread_idx().x as usize;
    if block_idx().x == 1 && t == 0 {
        data[0] = 7;
        threadfence();
        atomic_exch(flag, 0, 1);
    }
    if block_idx().x == 0 && t == 0 {
        while atomic_add(flag, 0, 0) == 0 {}
        data[1] = data[0] + 1;
    }
}
"#;
    for schedules in [1, 8] {
        for o in seeds(schedules) {
            let (_, data) = run2(src, 2, 64, &[0], &[0; 2], &o).unwrap();
            assert_eq!(data, [7, 8]);
        }
    }
}

/// Message passing between warps of one block: data, a fence, an atomic flag; the
/// reader spins on the flag, then reads. Clean with the fence (any scope), a race
/// without it.
#[test]
fn message_passing_inside_a_block_follows_the_fence() {
    let kernel = |fence: &str| {
        format!(
            r#"
#[kernel]
fn k(flag: &mut [u32], data: &mut [u32]) {{
    let t = thread_idx().x as usize;
    if t == 40 {{
        data[0] = 7;
        {fence}
        atomic_exch(flag, 0, 1);
    }}
    if t == 0 {{
        while atomic_add(flag, 0, 0) == 0 {{}}
        data[1] = data[0] + 1;
    }}
}}
"#
        )
    };
    for fence in [
        "threadfence_block();",
        "threadfence();",
        "threadfence_system();",
    ] {
        for schedules in [1, 8] {
            for o in seeds(schedules) {
                let (_, data) = run2(&kernel(fence), 1, 64, &[0], &[0; 2], &o).unwrap();
                assert_eq!(data, [7, 8]);
            }
        }
    }
    for o in seeds(8) {
        let err = run2(&kernel(""), 1, 64, &[0], &[0; 2], &o).unwrap_err();
        assert!(matches!(err, Fault::Race { .. }), "{err}");
    }
    // The same in shared memory, the flag a shared atomic.
    let src = r#"
#[kernel]
fn k(flag: &mut [u32], data: &mut [u32]) {
    let s = shared_array::<[u32; 2]>();
    let t = thread_idx().x as usize;
    if t == 0 { s[1] = 0; }
    sync_threads();
    if t == 40 {
        s[0] = 7;
        threadfence_block();
        atomic_exch_block(s, 1, 1);
    }
    if t == 0 {
        while atomic_add_block(s, 1, 0) == 0 {}
        data[0] = s[0];
    }
}
"#;
    for o in seeds(8) {
        let (_, data) = run2(src, 1, 64, &[0], &[0; 2], &o).unwrap();
        assert_eq!(data[0], 7);
    }
}

/// Thread 0 zeroes an accumulator with a plain store while every thread (thread 0
/// too) adds to it atomically: a race in every schedule, whoever stores.
#[test]
fn a_plain_store_beside_atomics_of_the_same_thread_is_not_hidden() {
    let src = "#[kernel] fn k(acc: &mut [u32], out: &mut [u32]) { let t = thread_idx().x as usize; if t == 0 { acc[0] = 0; } atomic_add(acc, 0, 1); out[t] = 1; }";
    for schedules in [1, 8] {
        for o in seeds(schedules) {
            let err = run2(src, 1, 64, &[5], &[0; 64], &o).unwrap_err();
            assert!(matches!(err, Fault::Race { .. }), "{err}");
        }
    }
    let fixed = "#[kernel] fn k(acc: &mut [u32], out: &mut [u32]) { let t = thread_idx().x as usize; if t == 0 { acc[0] = 0; } sync_threads(); atomic_add(acc, 0, 1); out[t] = 1; }";
    for o in seeds(8) {
        let (acc, _) = run2(fixed, 1, 64, &[5], &[0; 64], &o).unwrap();
        assert_eq!(acc, [64]);
    }
}

#[test]
fn a_race_of_two_writes_of_one_value_says_so() {
    let src = "#[kernel] fn k(a: &mut [u32], b: &mut [u32]) { a[0] = 7; b[0] = 1; }";
    let err = run2(src, 1, 64, &[0], &[0], &Options::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("`a`[0] (global), where both wrote 7:"),
        "{err}"
    );
}

/// Half-warps with their own 16-lane masks (cooperative groups' tiles) are fine; a
/// lane missing from its own mask and a shuffle reading outside its mask each get
/// their own message.
#[test]
fn each_lane_passes_its_own_warp_mask() {
    let tiles = "#[kernel] fn k(a: &mut [u32], b: &mut [u32]) { let t = thread_idx().x as usize; let mask = if t < 16 { 0xffffu32 } else { 0xffff0000u32 }; let v = shfl_xor_sync(mask, a[t], 1); sync_warp(mask); let all = all_sync(mask, v > 0); b[t] = v + all as u32; }";
    let a: Vec<u32> = (1..=32).collect();
    let (_, b) = run2(tiles, 1, 32, &a, &[0; 32], &Options::default()).unwrap();
    assert!((0..32).all(|t| b[t] == a[t ^ 1] + 1), "{b:?}");

    let own = "#[kernel] fn k(a: &mut [u32], b: &mut [u32]) { let t = thread_idx().x as usize; b[t] = shfl_sync(0xfffffffe, a[t], 1); }";
    let err = run2(own, 1, 32, &a, &[0; 32], &Options::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("the calling lane 0 is missing from its own mask"),
        "{err}"
    );

    let outside = "#[kernel] fn k(a: &mut [u32], b: &mut [u32]) { let t = thread_idx().x as usize; if t < 16 { b[t] = shfl_down_sync(0xffff, a[t], 1); } }";
    let err = run2(outside, 1, 32, &a, &[0; 32], &Options::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("lane 15 reads lane 16, which is outside the mask"),
        "{err}"
    );

    // Lanes that returned count as arrived at a sync_warp naming them.
    let exited = "#[kernel] fn k(a: &mut [u32], b: &mut [u32]) { let t = thread_idx().x as usize; if t >= 20 { return; } b[t] = a[t]; sync_warp(0xffffffff); b[t] += 1; }";
    run2(exited, 1, 32, &a, &[0; 32], &Options::default()).unwrap();
}

/// A reader that ran before another thread's write, with no barrier between them:
/// the report names the write and the missing barrier; a read nobody's write follows
/// is still a read of uninitialised memory.
#[test]
fn a_read_before_a_later_write_names_the_write() {
    let src = "#[kernel] fn k(a: &mut [u32], b: &mut [u32]) {\n let s = shared_array::<[u32; 8]>();\n let t = thread_idx().x as usize;\n if t == 0 { b[0] = s[5]; }\n if t == 37 { s[5] = a[t]; }\n}";
    let mut seen_read_first = false;
    for seed in 0..8 {
        let o = Options {
            seed,
            ..Options::default()
        };
        match run2(src, 1, 64, &[1; 64], &[0; 8], &o).unwrap_err() {
            Fault::ReadBeforeWrite { read, write, .. } => {
                seen_read_first = true;
                assert_eq!((read.thread.thread[0], write.thread.thread[0]), (0, 37));
                assert_eq!((read.site.line, write.site.line), (4, 5));
            }
            Fault::Race { .. } => {}
            other => panic!("{other}"),
        }
    }
    assert!(seen_read_first);
    let text = Fault::ReadBeforeWrite {
        location: "shared `s`[5]".into(),
        read: Access {
            thread: ThreadId {
                block: [0; 3],
                thread: [0, 0, 0],
            },
            kind: AccessKind::Read,
            site: Site {
                file: "k.rs".into(),
                line: 4,
                column: 1,
            },
        },
        write: Access {
            thread: ThreadId {
                block: [0; 3],
                thread: [37, 0, 0],
            },
            kind: AccessKind::Write,
            site: Site {
                file: "k.rs".into(),
                line: 5,
                column: 1,
            },
        },
    }
    .to_string();
    assert!(
        text.contains("writes it later at k.rs:5:1, with no barrier between them"),
        "{text}"
    );
}

/// `run2` on a thread of its own: the result, or a panic if it takes longer than
/// `limit` (a hang fails the test rather than blocking it).
fn run2_within(
    limit: std::time::Duration,
    src: &'static str,
    grid: u32,
    block: u32,
    a: Vec<u32>,
    b: Vec<u32>,
    options: Options,
) -> Result<(Vec<u32>, Vec<u32>), Fault> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run2(src, grid, block, &a, &b, &options));
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("the launch did not finish within {limit:?}: a hang"))
}

const LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// A kernel without barriers, atomics or fences runs each warp to its end, one after
/// another: a spin on a plain read of a flag that a later block sets would never end.
/// It ends as a deadlock naming the spinning thread and the loop's site (with one
/// worker, block 0 spins before block 1 runs; with every core, block 1 may run beside
/// it and set the flag, and then the spinning read races with its write).
#[test]
fn a_plain_read_spin_without_a_scheduler_is_an_err_not_a_hang() {
    let src = "#[kernel] fn k(flag: &mut [u32], out: &mut [u32]) {\n let t = thread_idx().x as usize;\n if block_idx().x == 0 && t == 0 {\n  while flag[0] == 0 {}\n }\n if block_idx().x == 1 && t == 5 {\n  flag[0] = 1;\n }\n out[t] = 1;\n}";
    for (detect, workers) in [(true, 1), (false, 1), (true, 0), (false, 0)] {
        let o = Options {
            detect,
            workers,
            ..Options::default()
        };
        let started = std::time::Instant::now();
        match run2_within(LIMIT, src, 2, 64, vec![0], vec![0; 64], o.clone()) {
            Err(Fault::Deadlock(text)) => {
                assert!(
                    text.contains("block (0, 0, 0) thread (0, 0, 0) at sim.rs:4:"),
                    "{text}"
                );
                assert!(text.contains("spin"), "{text}");
                // The store the spinner waits on, which ran too late.
                assert!(
                    text.contains("which the kernel writes at sim.rs:7:"),
                    "{text}"
                );
            }
            Err(Fault::Race { first, second, .. }) if detect && workers != 1 => {
                let lines = [first.site.line, second.site.line];
                assert!(
                    lines.contains(&4) && lines.contains(&7),
                    "{first:?} {second:?}"
                );
            }
            Ok(_) if !detect && workers != 1 => {} // block 1 ran beside it
            other => panic!("{o:?}: {other:?}"),
        }
        eprintln!("{o:?}: {:?}", started.elapsed());
    }
    // The writer's block first: the spinning read races with its write.
    let src = "#[kernel] fn k(flag: &mut [u32], out: &mut [u32]) {\n let t = thread_idx().x as usize;\n if block_idx().x == 1 && t == 0 {\n  while flag[0] == 0 {}\n }\n if block_idx().x == 0 && t == 5 {\n  flag[0] = 1;\n }\n out[t] = 1;\n}";
    let o = Options {
        workers: 1,
        ..Options::default()
    };
    match run2_within(LIMIT, src, 2, 64, vec![0], vec![0; 64], o) {
        Err(Fault::Race { first, second, .. }) => {
            assert_eq!([first.site.line, second.site.line], [7, 4]);
        }
        other => panic!("{other:?}"),
    }
    // An empty `loop {}` in one lane, and a spin inside a device function whose loop
    // holds an inner loop.
    let src = "#[kernel] fn k(flag: &mut [u32], out: &mut [u32]) {\n let t = thread_idx().x as usize;\n if t == 40 {\n  loop {}\n }\n out[t] = flag[0];\n}";
    let err = run2_within(LIMIT, src, 1, 64, vec![0], vec![0; 64], Options::default()).unwrap_err();
    assert!(
        err.to_string().contains("thread (40, 0, 0) at sim.rs:4:"),
        "{err}"
    );
    let src = "#[device] fn wait(flag: &[u32]) -> u32 {\n let mut n = 0u32;\n while flag[0] == 0 {\n  for k in 0..7u32 { n = k; }\n }\n n\n}\n#[kernel] fn k(flag: &mut [u32], out: &mut [u32]) {\n let t = thread_idx().x as usize;\n out[t] = wait(flag);\n}";
    let err = run2_within(LIMIT, src, 1, 64, vec![0], vec![0; 64], Options::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("thread (0, 0, 0) and 31 more threads of its warp at sim.rs:3:"),
        "{text}"
    );
    assert!(
        text.contains("which no code of the kernel writes: nothing can end the wait"),
        "{text}"
    );
}

/// A scheduled warp (the kernel has a barrier) spinning on a plain read: the deadlock
/// names the store that would end it, which no thread reaches.
#[test]
fn a_plain_read_spin_among_scheduled_warps_names_the_store_it_waits_on() {
    let src = "#[kernel] fn k(flag: &mut [u32], out: &mut [u32]) {\n let t = thread_idx().x as usize;\n sync_threads();\n if t == 0 {\n  while flag[0] == 0 {}\n }\n if t == 1000 {\n  flag[0] = 1;\n }\n out[t] = 1;\n}";
    for o in seeds(1) {
        match run2_within(LIMIT, src, 1, 64, vec![0], vec![0; 64], o.clone()) {
            Err(Fault::Deadlock(text)) => {
                assert!(text.contains("thread (0, 0, 0) at sim.rs:5:"), "{text}");
                assert!(
                    text.contains("which the kernel writes at sim.rs:8:"),
                    "{text}"
                );
            }
            other => panic!("{o:?}: {other:?}"),
        }
    }
}

/// Long loops whose state changes are no spin, however long they run: a counter in
/// registers, and one in memory the thread itself updates.
#[test]
fn long_loops_without_a_scheduler_run_to_their_end() {
    let src = "#[kernel] fn k(flag: &mut [u32], out: &mut [u32]) {\n let t = thread_idx().x as usize;\n let mut x = 0u32;\n let mut k = 0u32;\n while k < 200000 { x ^= k; k += 1; }\n while out[t] < 50000 { out[t] += 1; }\n flag[0] = 0;\n out[t] += x;\n}";
    let o = Options {
        workers: 1,
        ..Options::default()
    };
    let x = (0..200000u32).fold(0, |a, k| a ^ k);
    let (_, out) = run2_within(LIMIT, src, 1, 1, vec![0], vec![0], o).unwrap();
    assert_eq!(out, [50000u32.wrapping_add(x)]);
}
