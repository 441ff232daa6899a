//! Asynchronous copies on the simulator: a pipelined tile copy lands its bytes only at
//! the waits (and matches the input), and each planted break of the protocol is
//! reported naming the `cp_async` and the offending access, while the fixed kernel runs
//! clean under several schedules.

#![allow(clippy::result_large_err)]

use std::sync::Arc;

use super::super::tests::{buffer_of, module, read_back, shape, slice, Rng};
use super::super::{run, Arg, Buffer, Fault, Options};
use crate::ir::ScalarType;

fn line_of(src: &str, marker: &str) -> u32 {
    let lines: Vec<usize> = (src.lines().enumerate())
        .filter(|(_, l)| l.contains(marker))
        .map(|(k, _)| k + 1)
        .collect();
    assert_eq!(lines.len(), 1, "marker {marker:?} must be on one line");
    lines[0] as u32
}

fn run_kernel(src: &str, kernel: &str, grid: u32, block: u32, args: &[Arg]) -> Result<(), Fault> {
    let m = module(src, kernel);
    let options = Options {
        seed: Rng::fresh().seed,
        schedules: 3,
        ..Options::default()
    };
    run(&m, kernel, &shape(grid, block), args, &options).map(|_| ())
}

/// Three stages of 256 f32 per block, 64 threads each copying 16 bytes per stage; each
/// thread then reads the chunk ANOTHER thread copied (so the barrier matters) with a
/// vector load and stores it with a vector store. `n` need not fill the last tile: the
/// zero-filling copy reads nothing past it.
const PIPELINE: &str = r#"
#[kernel]
fn staged_copy(input: &[f32], out: &mut [f32], n: usize) {
    let tiles = shared_array::<[f32; 768]>();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 1024;
    for s in 0..2 {
        let at = base + s * 256 + t * 4;
        cp_async_zfill::<16>(tiles, s * 256 + t * 4, input, at, n.saturating_sub(at));
        cp_async_commit();
    }
    for k in 0..4 {
        if k + 2 < 4 {
            let at = base + (k + 2) * 256 + t * 4;
            cp_async_zfill::<16>(tiles, ((k + 2) % 3) * 256 + t * 4, input, at, n.saturating_sub(at)); // site: copy
        }
        cp_async_commit();
        STAGE_WAIT
        BARRIER_ONE
        let r = (t * 4 + 128) % 256;
        let v = tiles.load_vec::<4>((k % 3) * 256 + r); // site: read
        let o = base + k * 256 + r;
        if o + 4 <= n {
            out.store_vec::<4>(o, v);
        } else {
            for j in 0..4 {
                if o + j < n {
                    out[o + j] = v[j];
                }
            }
        }
        BARRIER_TWO
    }
}
"#;

fn pipeline(wait: &str, after_wait: &str, after_read: &str) -> String {
    PIPELINE
        .replace("STAGE_WAIT", wait)
        .replace("BARRIER_ONE", after_wait)
        .replace("BARRIER_TWO", after_read)
}

const FIXED: [&str; 3] = [
    "cp_async_wait::<2>();",
    "sync_threads();",
    "sync_threads();",
];

fn pipeline_args(n: usize) -> (Vec<f32>, Arc<Buffer>, Vec<Arg>) {
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
    let bi = buffer_of(&input);
    let bo = buffer_of(&vec![f32::NAN; n]);
    let args = vec![
        slice(ScalarType::F32, &bi, n, false),
        slice(ScalarType::F32, &bo, n, true),
        Arg::Scalar {
            ty: ScalarType::Usize,
            bits: n as u64,
        },
    ];
    (input, bo, args)
}

#[test]
fn a_three_stage_pipeline_copies_every_tile_and_zero_fills_the_edge() {
    // 2 blocks of 1024 elements, the second only partly filled (n = 1024 + 700).
    let n = 1724;
    let (input, bo, args) = pipeline_args(n);
    let src = pipeline(FIXED[0], FIXED[1], FIXED[2]);
    run_kernel(&src, "staged_copy", 2, 64, &args).expect("the fixed pipeline runs clean");
    let out: Vec<f32> = read_back(&bo, n);
    assert_eq!(out, input);
}

/// The race a break reports, with the `cp_async` as the first access.
fn copy_race(err: &Fault, rule: &str) -> (u32, u32) {
    let Fault::Race {
        location,
        first,
        second,
    } = err
    else {
        panic!("expected a race with a cp_async, got {err}");
    };
    assert!(location.contains(rule), "{err}");
    assert!(location.starts_with("shared `tiles`["), "{err}");
    (first.site.line, second.site.line)
}

#[test]
fn a_missing_wait_reads_a_destination_still_in_flight() {
    let (_, _, args) = pipeline_args(2048);
    let src = pipeline("", FIXED[1], FIXED[2]);
    let err = run_kernel(&src, "staged_copy", 2, 64, &args).unwrap_err();
    // The prologue's copy or the loop's: either is the copy still in flight.
    let (copy, read) = copy_race(&err, "still in flight, read before a cp_async_wait");
    assert_eq!(read, line_of(&src, "// site: read"), "{err}");
    let prologue = line_of(&src, "cp_async_zfill::<16>(tiles, s * 256");
    assert!(
        [prologue, line_of(&src, "// site: copy")].contains(&copy),
        "{err}"
    );
}

#[test]
fn waiting_for_one_group_too_few_reads_the_newest_tile_early() {
    let (_, _, args) = pipeline_args(2048);
    let src = pipeline("cp_async_wait::<3>();", FIXED[1], FIXED[2]);
    let err = run_kernel(&src, "staged_copy", 2, 64, &args).unwrap_err();
    copy_race(&err, "still in flight");
}

#[test]
fn a_missing_barrier_after_the_wait_reads_another_thread_s_copy() {
    let (_, _, args) = pipeline_args(2048);
    let src = pipeline(FIXED[0], "", FIXED[2]);
    let err = run_kernel(&src, "staged_copy", 2, 64, &args).unwrap_err();
    let Fault::Race { first, second, .. } = &err else {
        panic!("expected a race, got {err}");
    };
    let lines = [first.site.line, second.site.line];
    assert!(lines.contains(&line_of(&src, "// site: read")), "{err}");
    assert_ne!(first.thread, second.thread, "{err}");
    let copy_lines = [
        line_of(&src, "cp_async_zfill::<16>(tiles, s * 256"),
        line_of(&src, "// site: copy"),
    ];
    assert!(lines.iter().any(|l| copy_lines.contains(l)), "{err}");
}

#[test]
fn refilling_a_stage_before_every_thread_read_it_is_a_race() {
    let (_, _, args) = pipeline_args(2048);
    let src = pipeline(FIXED[0], FIXED[1], "");
    let err = run_kernel(&src, "staged_copy", 2, 64, &args).unwrap_err();
    let Fault::Race { first, second, .. } = &err else {
        panic!("expected a race, got {err}");
    };
    let mut lines = [first.site.line, second.site.line];
    lines.sort();
    assert_eq!(
        lines,
        [
            line_of(&src, "// site: copy"),
            line_of(&src, "// site: read")
        ],
        "{err}"
    );
}

const PROTOCOL: &str = r#"
#[kernel]
fn protocol(data: &mut [f32], out: &mut [f32]) {
    let tile = shared_array::<[f32; 256]>();
    let t = thread_idx().x as usize;
    cp_async::<16>(tile, t * 4, data, t * 4); // site: copy
    BEFORE_WAIT
    cp_async_wait_all();
    AFTER_WAIT
    out[t] = tile[t * 4];
}
"#;

fn protocol_args() -> (Arc<Buffer>, Vec<Arg>) {
    let data: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let bd = buffer_of(&data);
    let bo = buffer_of(&[f32::NAN; 64]);
    let args = vec![
        slice(ScalarType::F32, &bd, 256, true),
        slice(ScalarType::F32, &bo, 64, true),
    ];
    (bo, args)
}

#[test]
fn a_store_to_a_destination_in_flight_is_reported_and_after_the_wait_is_not() {
    let (_, args) = protocol_args();
    let src = PROTOCOL
        .replace("BEFORE_WAIT", "tile[t * 4 + 1] = 5.0; // site: store")
        .replace("AFTER_WAIT", "");
    let err = run_kernel(&src, "protocol", 1, 64, &args).unwrap_err();
    let Fault::Race {
        location,
        first,
        second,
    } = &err
    else {
        panic!("expected a race, got {err}");
    };
    assert!(location.contains("written by an ordinary store"), "{err}");
    assert_eq!(first.site.line, line_of(&src, "// site: copy"));
    assert_eq!(second.site.line, line_of(&src, "// site: store"));
    assert_eq!(first.thread, second.thread);

    let (bo, args) = protocol_args();
    let fixed = PROTOCOL
        .replace("BEFORE_WAIT", "")
        .replace("AFTER_WAIT", "tile[t * 4 + 1] = 5.0;");
    run_kernel(&fixed, "protocol", 1, 64, &args).expect("clean");
    let out: Vec<f32> = read_back(&bo, 64);
    assert_eq!(out, (0..64).map(|t| (t * 4) as f32).collect::<Vec<_>>());
}

#[test]
fn overwriting_the_source_of_a_copy_in_flight_is_reported() {
    let (_, args) = protocol_args();
    let src = PROTOCOL
        .replace("BEFORE_WAIT", "data[t * 4] = -1.0; // site: overwrite")
        .replace("AFTER_WAIT", "");
    let err = run_kernel(&src, "protocol", 1, 64, &args).unwrap_err();
    let Fault::Race {
        location,
        first,
        second,
    } = &err
    else {
        panic!("expected a race, got {err}");
    };
    assert!(location.contains("the source of a cp_async"), "{err}");
    assert!(location.starts_with("`data`["), "{err}");
    assert_eq!(first.site.line, line_of(&src, "// site: copy"));
    assert_eq!(second.site.line, line_of(&src, "// site: overwrite"));

    let fixed = PROTOCOL
        .replace("BEFORE_WAIT", "")
        .replace("AFTER_WAIT", "data[t * 4] = -1.0;");
    run_kernel(&fixed, "protocol", 1, 64, &args).expect("clean");
}

#[test]
fn a_copy_never_waited_for_is_reported_when_the_block_ends() {
    let src = r#"
#[kernel]
fn unwaited(data: &[f32], out: &mut [f32]) {
    let tile = shared_array::<[f32; 256]>();
    let t = thread_idx().x as usize;
    cp_async::<16>(tile, t * 4, data, t * 4); // site: copy
    cp_async_commit();
    out[t] = 1.0;
}
"#;
    let data = buffer_of(&[0f32; 256]);
    let bo = buffer_of(&[0f32; 64]);
    let args = [
        slice(ScalarType::F32, &data, 256, false),
        slice(ScalarType::F32, &bo, 64, true),
    ];
    let err = run_kernel(src, "unwaited", 1, 64, &args).unwrap_err();
    let Fault::UnwaitedAsyncCopy { site, .. } = &err else {
        panic!("expected an unwaited copy, got {err}");
    };
    assert_eq!(site.line, line_of(src, "// site: copy"));
    let fixed = src.replace("cp_async_commit();", "cp_async_wait_all();");
    run_kernel(&fixed, "unwaited", 1, 64, &args).expect("clean");
}

#[test]
fn misaligned_and_out_of_bounds_copies_and_vector_accesses_panic() {
    let src = r#"
#[kernel]
fn edges(data: &[f32], out: &mut [f32], shift: usize) {
    let tile = shared_array::<[f32; 64]>();
    let t = thread_idx().x as usize;
    cp_async::<16>(tile, t * 4, data, t * 4 + shift);
    cp_async_wait_all();
    let v = data.load_vec::<4>(t * 4 + shift);
    out[t] = v[0] + tile[t * 4];
}
"#;
    let data = buffer_of(&(0..68).map(|i| i as f32).collect::<Vec<_>>());
    let run_with = |shift: u64, threads: u32| {
        let bo = buffer_of(&[0f32; 17]);
        let args = [
            slice(ScalarType::F32, &data, 68, false),
            slice(ScalarType::F32, &bo, 17, true),
            Arg::Scalar {
                ty: ScalarType::Usize,
                bits: shift,
            },
        ];
        run_kernel(src, "edges", 1, threads, &args).map(|_| read_back::<f32>(&bo, 17))
    };
    let out = run_with(4, 16).expect("aligned, in bounds");
    assert_eq!(
        out[..16],
        (0..16)
            .map(|t| 2.0 * (t * 4 + 4) as f32)
            .collect::<Vec<_>>()
    );
    for (shift, threads, text) in [
        (
            1,
            16,
            "cp_async out of bounds or misaligned: destination index 0, source index 1",
        ),
        // Thread 16 copies into tile[64..68]: past the destination.
        (0, 17, "destination index 64, source index 64"),
    ] {
        let err = run_with(shift, threads).unwrap_err();
        assert!(
            matches!(&err, Fault::Panic { message, .. } if message.contains(text)),
            "{err}"
        );
    }
}
