//! The broken-kernel suite (issue 8): each deliberately broken kernel is reported with
//! the right fault (both threads, the location, both sites), and its fixed version runs
//! clean and matches a plain-Rust reference on fresh random inputs. Every kernel runs
//! under several seeded schedules, so the report cannot depend on one interleaving.

// Faults are large and end a launch: boxing them would only add noise here.
#![allow(clippy::result_large_err)]

use std::sync::Arc;

use super::super::tests::{buffer_of, module, read_back, shape, slice, Rng};
use super::super::{run, Arg, Buffer, Fault, Options};
use crate::ir::ScalarType;

/// The 1-based line of the only line of `src` containing `marker`.
fn line_of(src: &str, marker: &str) -> u32 {
    let lines: Vec<usize> = (src.lines().enumerate())
        .filter(|(_, l)| l.contains(marker))
        .map(|(k, _)| k + 1)
        .collect();
    assert_eq!(lines.len(), 1, "marker {marker:?} must be on one line");
    lines[0] as u32
}

/// The 1-based column where `marker` starts on its line.
fn column_of(src: &str, marker: &str) -> u32 {
    let line = src.lines().find(|l| l.contains(marker)).expect("marker");
    line.find(marker).expect("marker") as u32 + 1
}

fn schedules(seed: u64) -> Options {
    Options {
        seed,
        schedules: 3,
        ..Options::default()
    }
}

fn run_kernel(
    src: &str,
    kernel: &str,
    grid: u32,
    block: u32,
    args: &[Arg],
    seed: u64,
) -> Result<(), Fault> {
    let m = module(src, kernel);
    run(&m, kernel, &shape(grid, block), args, &schedules(seed)).map(|_| ())
}

fn u32_input(rng: &mut Rng, n: usize) -> (Vec<u32>, Arc<Buffer>) {
    let values: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let buffer = buffer_of(&values);
    (values, buffer)
}

const REDUCTION: &str = r#"
#[kernel]
fn reduce(input: &[u32], sums: &mut [u32]) {
    let tile = shared_array::<[u32; 256]>();
    let t = thread_idx().x as usize;
    tile[t] = input[grid(1)];
    sync_threads();
    let mut s = 128;
    while s > 0 {
        if t < s {
            tile[t] = tile[t].wrapping_add(tile[t + s]);
        }
        SYNC
        s /= 2;
    }
    if t == 0 {
        sums[block_idx().x as usize] = tile[0];
    }
}
"#;

/// A shared-memory tree reduction without the barrier between its steps: a thread adds
/// a partial sum that another thread may still be writing.
#[test]
fn reduction_missing_sync_threads() {
    let mut rng = Rng::fresh();
    let blocks = 4;
    let (input, bi) = u32_input(&mut rng, blocks * 256);
    let bs = buffer_of(&vec![u32::MAX; blocks]);
    let args = [
        slice(ScalarType::U32, &bi, blocks * 256, false),
        slice(ScalarType::U32, &bs, blocks, true),
    ];
    let broken = REDUCTION.replace("SYNC", "");
    let err = run_kernel(&broken, "reduce", blocks as u32, 256, &args, rng.seed).unwrap_err();
    let Fault::Race {
        location,
        first,
        second,
    } = &err
    else {
        panic!("expected a race, got {err}");
    };
    let line = line_of(&broken, "tile[t] = tile[t].wrapping_add");
    assert_eq!((first.site.line, second.site.line), (line, line), "{err}");
    assert_eq!(first.thread.block, second.thread.block, "{err}");
    // The writer of a partial sum and its reader: the location is the writer's slot,
    // the reader is `s` threads below it (in another warp, or in its own: lanes are
    // unordered without `sync_warp`; which pair is met first depends on the schedule).
    let (writer, reader) = if first.kind.to_string() == "write" {
        (first, second)
    } else {
        (second, first)
    };
    assert_eq!(
        (writer.kind.to_string(), reader.kind.to_string()),
        ("write".into(), "read".into()),
        "{err}"
    );
    let (w, r) = (writer.thread.thread[0], reader.thread.thread[0]);
    assert_eq!(*location, format!("shared `tile`[{w}]"), "{err}");
    assert!(w > r && (w - r).is_power_of_two(), "{err}");
    assert_eq!(
        reader.site.column,
        column_of(&broken, "tile[t + s]"),
        "{err}"
    );
    let text = err.to_string();
    for part in [
        format!("thread ({w}, 0, 0)"),
        format!("thread ({r}, 0, 0)"),
        format!("sim.rs:{line}:"),
        location.clone(),
    ] {
        assert!(text.contains(&part), "{text} lacks {part}");
    }

    let fixed = REDUCTION.replace("SYNC", "sync_threads();");
    run_kernel(&fixed, "reduce", blocks as u32, 256, &args, rng.seed).expect("no fault");
    let sums: Vec<u32> = read_back(&bs, blocks);
    for (b, got) in sums.iter().enumerate() {
        let want = input[b * 256..(b + 1) * 256]
            .iter()
            .fold(0u32, |a, &x| a.wrapping_add(x));
        assert_eq!(*got, want, "block {b}, seed {}", rng.seed);
    }
}

const COUNTER: &str = r#"
#[kernel]
fn count(flags: &[u32], total: &mut [u32]) {
    let i = grid(1);
    if flags[i] % 3 == 0 {
        UPDATE
    }
}
"#;

/// Threads of every block count into one global counter with a plain read-modify-write.
#[test]
fn global_counter_without_atomic() {
    let mut rng = Rng::fresh();
    let (blocks, threads) = (8usize, 64usize);
    let n = blocks * threads;
    // Every block has flagged threads: thread 0 of each is a multiple of 3.
    let mut flags: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    for b in 0..blocks {
        flags[b * threads] = 3 * (rng.next() as u32 % 1000);
    }
    let bf = buffer_of(&flags);
    let bt = buffer_of(&[0u32]);
    let args = [
        slice(ScalarType::U32, &bf, n, false),
        slice(ScalarType::U32, &bt, 1, true),
    ];
    let broken = COUNTER.replace("UPDATE", "total[0] = total[0] + 1;");
    let err = run_kernel(
        &broken,
        "count",
        blocks as u32,
        threads as u32,
        &args,
        rng.seed,
    )
    .unwrap_err();
    let Fault::Race {
        location,
        first,
        second,
    } = &err
    else {
        panic!("expected a race, got {err}");
    };
    assert_eq!(location, "`total`[0] (global)", "{err}");
    assert_ne!(first.thread, second.thread, "{err}");
    let line = line_of(&broken, "total[0] = total[0] + 1");
    assert_eq!((first.site.line, second.site.line), (line, line), "{err}");
    assert!(
        first.kind.to_string() == "write" || second.kind.to_string() == "write",
        "{err}"
    );
    for who in [first.thread, second.thread] {
        let [x, _, _] = who.thread;
        let i = who.block[0] as usize * threads + x as usize;
        assert_eq!(flags[i] % 3, 0, "{who} does not update the counter: {err}");
    }

    bt.write(0, &[0; 4]);
    let fixed = COUNTER.replace("UPDATE", "atomic_add(total, 0, 1);");
    run_kernel(
        &fixed,
        "count",
        blocks as u32,
        threads as u32,
        &args,
        rng.seed,
    )
    .expect("no fault");
    // Three schedules ran, each from the initial contents (the last one is kept).
    let want = flags.iter().filter(|&&f| f % 3 == 0).count() as u32;
    assert_eq!(read_back::<u32>(&bt, 1)[0], want, "seed {}", rng.seed);
}

const NEIGHBOUR: &str = r#"
#[kernel]
fn rotate(input: &[u32], out: &mut [u32]) {
    let tile = shared_array::<[u32; 64]>();
    let t = thread_idx().x as usize;
    tile[t] = 0;
    sync_threads();
    tile[t] = input[grid(1)];
    SYNC
    out[grid(1)] = tile[(t + 32) % 64];
}
"#;

/// Each thread reads the slot a thread of the other warp writes, with no barrier
/// between the write and the read.
#[test]
fn read_after_write_across_warps() {
    let mut rng = Rng::fresh();
    let blocks = 3;
    let n = blocks * 64;
    let (input, bi) = u32_input(&mut rng, n);
    let bo = buffer_of(&vec![u32::MAX; n]);
    let args = [
        slice(ScalarType::U32, &bi, n, false),
        slice(ScalarType::U32, &bo, n, true),
    ];
    let broken = NEIGHBOUR.replace("SYNC", "");
    let err = run_kernel(&broken, "rotate", blocks as u32, 64, &args, rng.seed).unwrap_err();
    let Fault::Race {
        location,
        first,
        second,
    } = &err
    else {
        panic!("expected a race, got {err}");
    };
    let (write_line, read_line) = (
        line_of(&broken, "tile[t] = input"),
        line_of(&broken, "out[grid(1)]"),
    );
    let (writer, reader) = if first.kind.to_string() == "write" {
        (first, second)
    } else {
        (second, first)
    };
    assert_eq!(
        (writer.kind.to_string(), reader.kind.to_string()),
        ("write".into(), "read".into()),
        "{err}"
    );
    assert_eq!(
        (writer.site.line, reader.site.line),
        (write_line, read_line),
        "{err}"
    );
    let (w, r) = (writer.thread.thread[0], reader.thread.thread[0]);
    assert_eq!((r + 32) % 64, w, "{err}");
    assert_eq!(*location, format!("shared `tile`[{w}]"), "{err}");

    let fixed = NEIGHBOUR.replace("SYNC", "sync_threads();");
    run_kernel(&fixed, "rotate", blocks as u32, 64, &args, rng.seed).expect("no fault");
    let out: Vec<u32> = read_back(&bo, n);
    for (i, got) in out.iter().enumerate() {
        let want = input[i / 64 * 64 + (i % 64 + 32) % 64];
        assert_eq!(*got, want, "element {i}, seed {}", rng.seed);
    }
}

const HALF_WRITTEN: &str = r#"
#[kernel]
fn stage(input: &[f32], out: &mut [f32]) {
    let tile = shared_array::<[[f32; 32]; 2]>();
    let t = thread_idx().x as usize;
    if GUARD {
        tile[t / 32][t % 32] = input[grid(1)] * 2.0;
    }
    sync_threads();
    out[grid(1)] = tile[t / 32][t % 32];
}
"#;

/// Only the first warp fills the tile; the second reads its half unwritten.
#[test]
fn uninitialised_shared_read() {
    let mut rng = Rng::fresh();
    let blocks = 2;
    let n = blocks * 64;
    let input: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let bi = buffer_of(&input);
    let bo = buffer_of(&vec![f32::NAN; n]);
    let args = [
        slice(ScalarType::F32, &bi, n, false),
        slice(ScalarType::F32, &bo, n, true),
    ];
    let broken = HALF_WRITTEN.replace("GUARD", "t < 32");
    let err = run_kernel(&broken, "stage", blocks as u32, 64, &args, rng.seed).unwrap_err();
    let Fault::UninitialisedRead {
        location,
        site,
        thread,
    } = &err
    else {
        panic!("expected an uninitialised read, got {err}");
    };
    let [x, _, _] = thread.thread;
    assert!(x >= 32, "{err}");
    assert_eq!(*location, format!("shared `tile`[1][{}]", x - 32), "{err}");
    assert_eq!(site.line, line_of(&broken, "out[grid(1)] = tile"), "{err}");
    assert!(
        err.to_string().contains(&format!("thread ({x}, 0, 0)")),
        "{err}"
    );

    let fixed = HALF_WRITTEN.replace("GUARD", "t < 64");
    run_kernel(&fixed, "stage", blocks as u32, 64, &args, rng.seed).expect("no fault");
    let out: Vec<f32> = read_back(&bo, n);
    for (i, got) in out.iter().enumerate() {
        assert_eq!(got.to_bits(), (input[i] * 2.0).to_bits(), "element {i}");
    }
}

const BRANCH_BARRIER: &str = r#"
#[kernel]
fn scale(data: &mut [u32], k: u32) {
    let t = thread_idx().x as usize;
    let i = grid(1);
    let v = data[i].wrapping_mul(k);
    if HALF {
        sync_threads();
    }
    data[i] = v;
}
"#;

/// A barrier inside a branch: whole warps that skip it and run to the end of the
/// kernel exit, which counts as arrived (PTX `exit`), so the kernel runs as on the
/// GPU; a branch that splits a warp leaves live lanes away from an aligned barrier
/// their warp-mates wait at, which is reported, never a hang.
#[test]
fn sync_threads_in_half_taken_branch() {
    let mut rng = Rng::fresh();
    let (data, bd) = u32_input(&mut rng, 128);
    let k = rng.next() as u32 | 1;
    let args = [
        slice(ScalarType::U32, &bd, 128, true),
        Arg::Scalar {
            ty: ScalarType::U32,
            bits: u64::from(k),
        },
    ];
    let split_warp = BRANCH_BARRIER.replace("HALF", "t < 48");
    let err = run_kernel(&split_warp, "scale", 1, 128, &args, rng.seed).unwrap_err();
    let Fault::BarrierDivergence {
        site,
        waiting,
        other,
        elsewhere,
    } = &err
    else {
        panic!("expected barrier divergence, got {err}");
    };
    assert_eq!(site.line, line_of(&split_warp, "sync_threads();"), "{err}");
    assert!(waiting.thread[0] < 48, "{err}");
    assert!((48..64).contains(&other.thread[0]), "{err}");
    assert_eq!(
        elsewhere, "did not reach it (it took another path through the code)",
        "{err}"
    );

    for half in ["t < 64", "t < 128"] {
        bd.write(
            0,
            &data
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        let kernel = BRANCH_BARRIER.replace("HALF", half);
        run_kernel(&kernel, "scale", 1, 128, &args, rng.seed).expect("no fault");
        let out: Vec<u32> = read_back(&bd, 128);
        for (i, got) in out.iter().enumerate() {
            assert_eq!(*got, data[i].wrapping_mul(k), "{half}: element {i}");
        }
    }
}

const SHUFFLE: &str = r#"
#[kernel]
fn pairs(input: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let i = grid(1);
    if t % 32 < 16 {
        out[i] = shfl_sync(MASK, input[i], (t as u32 + 1) % 16);
    }
}
"#;

/// Lanes 0..16 shuffle with a full mask: lanes 16..32 are named but not executing.
#[test]
fn shuffle_naming_inactive_lane() {
    let mut rng = Rng::fresh();
    let n = 64;
    let (input, bi) = u32_input(&mut rng, n);
    let bo = buffer_of(&vec![u32::MAX; n]);
    let args = [
        slice(ScalarType::U32, &bi, n, false),
        slice(ScalarType::U32, &bo, n, true),
    ];
    let broken = SHUFFLE.replace("MASK", "0xffffffff");
    let err = run_kernel(&broken, "pairs", 1, 64, &args, rng.seed).unwrap_err();
    let Fault::InactiveLane {
        operation,
        site,
        thread,
        lane,
        mask,
    } = &err
    else {
        panic!("expected an inactive lane, got {err}");
    };
    assert_eq!(
        (*mask, operation.as_str()),
        (0xffff_ffff, "shuffle"),
        "{err}"
    );
    assert!((16..32).contains(lane), "{err}");
    assert!(thread.thread[0] % 32 < 16, "{err}");
    assert_eq!(site.line, line_of(&broken, "shfl_sync"), "{err}");

    let fixed = SHUFFLE.replace("MASK", "0x0000ffff");
    run_kernel(&fixed, "pairs", 1, 64, &args, rng.seed).expect("no fault");
    let out: Vec<u32> = read_back(&bo, n);
    for (i, got) in out.iter().enumerate() {
        let want = if i % 32 < 16 {
            input[i / 32 * 32 + (i % 32 + 1) % 16]
        } else {
            u32::MAX
        };
        assert_eq!(*got, want, "element {i}");
    }
}

const SHIFT: &str = r#"
#[kernel(boundscheck = false)]
fn shift(input: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if GUARD {
        out[i + 1] = input[i];
    }
}
"#;

/// Without bounds checks, the last thread writes one element past `out`.
#[test]
fn out_of_bounds_write() {
    let mut rng = Rng::fresh();
    let n = 96;
    let input: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let bi = buffer_of(&input);
    let bo = buffer_of(&vec![f32::NAN; n]);
    let args = [
        slice(ScalarType::F32, &bi, n, false),
        slice(ScalarType::F32, &bo, n, true),
    ];
    let broken = SHIFT.replace("GUARD", "i < input.len()");
    let err = run_kernel(&broken, "shift", 3, 32, &args, rng.seed).unwrap_err();
    let Fault::OutOfBounds {
        kind,
        location,
        site,
        thread,
    } = &err
    else {
        panic!("expected an out-of-bounds write, got {err}");
    };
    assert_eq!(kind.to_string(), "write", "{err}");
    assert!(location.contains(&format!("`out`[{n}]")), "{err}");
    assert_eq!(site.line, line_of(&broken, "out[i + 1]"), "{err}");
    assert_eq!(
        (thread.block, thread.thread),
        ([2, 0, 0], [31, 0, 0]),
        "{err}"
    );

    let fixed = SHIFT.replace("GUARD", "i + 1 < out.len()");
    run_kernel(&fixed, "shift", 3, 32, &args, rng.seed).expect("no fault");
    let out: Vec<f32> = read_back(&bo, n);
    assert!(out[0].is_nan());
    for i in 1..n {
        assert_eq!(out[i].to_bits(), input[i - 1].to_bits(), "element {i}");
    }
}

const LAST_BLOCK: &str = r#"
#[kernel]
fn sum(input: &[u32], partial: &mut [u32], ticket: &mut [u32], total: &mut [u32]) {
    let tile = shared_array::<[u32; 64]>();
    let last = shared_array::<[u32; 1]>();
    let t = thread_idx().x as usize;
    tile[t] = input[grid(1)];
    sync_threads();
    let mut s = 32;
    while s > 0 {
        if t < s {
            tile[t] = tile[t].wrapping_add(tile[t + s]);
        }
        sync_threads();
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x as usize] = tile[0];
        FENCE
        let arrived = atomic_inc(ticket, 0, grid_dim().x - 1);
        last[0] = if arrived == grid_dim().x - 1 { 1 } else { 0 };
    }
    sync_threads();
    if last[0] == 1 && t == 0 {
        let mut acc = 0u32;
        for b in 0..grid_dim().x as usize {
            acc = acc.wrapping_add(partial[b]);
        }
        total[0] = acc;
    }
}
"#;

/// CUDA's threadFenceReduction: each block publishes its partial sum, fences, takes a
/// ticket; the last block sums the partials. The fence + atomic orders the partials
/// before the last block's reads (no false positive); without the fence they race.
#[test]
fn last_block_reduction_is_ordered_by_fence_and_atomic() {
    let mut rng = Rng::fresh();
    let blocks = 2 + (rng.next() % 7) as usize;
    let n = blocks * 64;
    let (input, bi) = u32_input(&mut rng, n);
    let (bp, bt, bs) = (
        buffer_of(&vec![u32::MAX; blocks]),
        buffer_of(&[0u32]),
        buffer_of(&[u32::MAX]),
    );
    let args = [
        slice(ScalarType::U32, &bi, n, false),
        slice(ScalarType::U32, &bp, blocks, true),
        slice(ScalarType::U32, &bt, 1, true),
        slice(ScalarType::U32, &bs, 1, true),
    ];
    let fenced = LAST_BLOCK.replace("FENCE", "threadfence();");
    run_kernel(&fenced, "sum", blocks as u32, 64, &args, rng.seed).expect("no fault");
    let want = input.iter().fold(0u32, |a, &x| a.wrapping_add(x));
    assert_eq!(read_back::<u32>(&bs, 1)[0], want, "seed {}", rng.seed);

    bt.write(0, &[0; 4]);
    let unfenced = LAST_BLOCK.replace("FENCE", "");
    let err = run_kernel(&unfenced, "sum", blocks as u32, 64, &args, rng.seed).unwrap_err();
    let Fault::Race {
        location,
        first,
        second,
    } = &err
    else {
        panic!("expected a race, got {err}");
    };
    assert!(location.starts_with("`partial`["), "{err}");
    assert_eq!(
        first.site.line,
        line_of(&unfenced, "partial[block_idx().x"),
        "{err}"
    );
    assert_eq!(
        second.site.line,
        line_of(&unfenced, "acc = acc.wrapping_add"),
        "{err}"
    );
    assert_ne!(first.thread.block, second.thread.block, "{err}");
}

const NEIGHBOURS_ACROSS_GRID_SYNC: &str = r#"
#[kernel]
fn k(a: &mut [u32], b: &mut [u32], seed: u32) {
    let i = grid(1);
    let n = grid_size(1);
    a[i] = (i as u32).wrapping_mul(seed);
    grid_sync();
    b[i] = a[(i + 1) % n];
}
"#;

/// Several schedules of one launch each start with fresh shadow memory: the accesses of
/// one schedule never look like a race with those of the next.
#[test]
fn every_schedule_starts_fresh() {
    let mut rng = Rng::fresh();
    let seed = rng.next() as u32;
    let n = 4 * 32;
    let (ba, bb) = (buffer_of(&vec![0u32; n]), buffer_of(&vec![u32::MAX; n]));
    let args = [
        slice(ScalarType::U32, &ba, n, true),
        slice(ScalarType::U32, &bb, n, true),
        Arg::Scalar {
            ty: ScalarType::U32,
            bits: u64::from(seed),
        },
    ];
    run_kernel(NEIGHBOURS_ACROSS_GRID_SYNC, "k", 4, 32, &args, rng.seed).expect("no fault");
    let b: Vec<u32> = read_back(&bb, n);
    for (i, got) in b.iter().enumerate() {
        assert_eq!(
            *got,
            (((i + 1) % n) as u32).wrapping_mul(seed),
            "element {i}"
        );
    }
}

/// An argument that starts inside its buffer (a sub-slice on the host): races are found
/// over its whole length and named by the kernel's index, not the buffer's.
#[test]
fn argument_at_an_offset_in_its_buffer() {
    let mut rng = Rng::fresh();
    let (start, len) = (1 + (rng.next() % 40) as usize, 32usize);
    let last = len - 1;
    let src = format!(
        "#[kernel]\nfn k(out: &mut [u32]) {{\n    if thread_idx().x == 0 {{\n        out[{last}] = block_idx().x;\n    }}\n}}\n"
    );
    let buffer = buffer_of(&vec![0u32; start + len]);
    let args = [Arg::Slice {
        elem: crate::ir::Type::Scalar(ScalarType::U32),
        buffer: buffer.clone(),
        offset: start * 4,
        len,
        mutable: true,
    }];
    let err = run_kernel(&src, "k", 2, 32, &args, rng.seed).unwrap_err();
    let Fault::Race {
        location,
        first,
        second,
    } = &err
    else {
        panic!("expected a race, got {err}");
    };
    assert_eq!(*location, format!("`out`[{last}] (global)"), "{err}");
    assert_ne!(first.thread.block, second.thread.block, "{err}");
    run_kernel(&src, "k", 1, 32, &args, rng.seed).expect("one block: no race");
    assert_eq!(read_back::<u32>(&buffer, start + len)[start + last], 0);
}
