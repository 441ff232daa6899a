//! `println!`, `eprintln!`, `assert!` and `panic!` in kernels, end to end through
//! `launch!`, on the default device (the CPU simulator in CI, the GPU in the bundle):
//! every thread's line checked against Rust's `format!` of the same values in thread
//! order, a full buffer's dropped count, and failed assertions as `Err(KernelPanic)`
//! with std's own message and this file's line and column.

use std::sync::Mutex;

use cudajit::prelude::*;
use cudajit::print::{self, PrintOrder};
use cudajit::Error;

#[path = "../examples/common/mod.rs"]
mod common;

/// Printing settings and captures are process-wide: one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn device() -> Device {
    Device::default().expect("a device (the simulator at least)")
}

/// The 1-based line of this file holding `marker`.
fn line_of(marker: &str) -> u32 {
    include_str!("print.rs")
        .lines()
        .position(|l| l.contains(marker))
        .expect("marker present") as u32
        + 1
}

#[kernel]
fn print_each(a: &[i32], x: &[f32]) {
    let i = grid(1);
    if i < a.len() {
        println!("{i:>7} {} {:.2} {:#x} {:?}", a[i], x[i], a[i], x[i]);
    }
}

#[test]
fn every_thread_s_line_is_format_s_in_thread_order() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let device = device();
    // A million threads on the GPU; the simulator's share fits CI's time
    // (`CUDAJIT_PRINT_TEST_THREADS=1048576` runs the million there too).
    let n = match std::env::var("CUDAJIT_PRINT_TEST_THREADS") {
        Ok(count) => count
            .parse()
            .expect("CUDAJIT_PRINT_TEST_THREADS: a thread count"),
        Err(_) if device.is_simulator() => 1 << 14,
        Err(_) => 1 << 20,
    };
    let mut rng = common::Rng::fresh("print_each");
    let a: Vec<i32> = (0..n).map(|_| rng.below(1 << 32) as u32 as i32).collect();
    let x: Vec<f32> = rng.vec_f32(n, -1e6, 1e6);
    print::set_print_order(PrintOrder::Thread);
    let (result, out) = print::capture(|| launch!(print_each[n.div_ceil(256), 256](&a, &x)));
    print::set_print_order(PrintOrder::Arrival);
    result.unwrap();
    assert_eq!(out.dropped_records, 0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), n);
    for (i, line) in lines.iter().enumerate() {
        let want = format!("{i:>7} {} {:.2} {:#x} {:?}", a[i], x[i], a[i], x[i]);
        assert_eq!(*line, want, "thread {i}");
    }
}

#[kernel]
fn print_from_device_arrays(a: &[u64]) {
    let i = grid(1);
    if i < a.len() {
        eprint!("{}", a[i] % 10);
    }
}

#[test]
fn a_stream_synchronisation_writes_what_its_launches_printed() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let device = device();
    let stream = device.new_stream().unwrap();
    let a: Vec<u64> = (0..1000).collect();
    let da = device.to_device(&a).unwrap();
    print::set_print_order(PrintOrder::Thread);
    let (result, out) = print::capture(|| {
        launch!(print_from_device_arrays[4, 256, stream](&da))?;
        stream.synchronize()
    });
    print::set_print_order(PrintOrder::Arrival);
    result.unwrap();
    let want: String = a.iter().map(|v| (v % 10).to_string()).collect();
    assert_eq!(out.stderr, want);
    assert!(out.stdout.is_empty());
}

#[kernel]
fn print_too_much(a: &[u32]) {
    let i = grid(1);
    if i < a.len() {
        println!("{}", a[i]);
    }
}

#[test]
fn a_full_buffer_says_how_many_records_it_dropped() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    // Header (32 bytes) and room for 100 records of 24 + 8 bytes, for the modules
    // loaded from now on (this test's kernel is loaded by its first launch below).
    print::set_print_buffer_bytes(32 + 100 * 32);
    let a: Vec<u32> = (0..1000).collect();
    let (result, out) = print::capture(|| launch!(print_too_much[4, 256](&a)));
    print::set_print_buffer_bytes(print::DEFAULT_PRINT_BUFFER_BYTES);
    result.unwrap();
    assert_eq!(out.stdout.lines().count(), 100);
    assert_eq!(out.dropped_records, 900);
    // Whole records only: each line is one of the values.
    for line in out.stdout.lines() {
        assert!(line.parse::<u32>().is_ok_and(|v| v < 1000), "{line:?}");
    }
}

#[kernel]
fn check_values(a: &[i32], which: u32) {
    let i = grid(1);
    if i == 3 && which == 0 {
        assert_eq!(a[i] * 2, 7, "element {} of {}", i, a.len()); // MARK-EQ
    }
    if i == 4 && which == 1 {
        assert!(a[i] < 0 && a[i] != 4); // MARK-ASSERT
    }
    if i == 5 && which == 2 {
        panic!("value {:?} at {i}", a[i] as f64 / 2.0); // MARK-PANIC
    }
    if which == 3 && i < a.len() {
        assert_ne!(a[i], -1);
    }
}

#[test]
fn failed_assertions_are_kernel_panics_with_std_s_message_and_place() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let a: Vec<i32> = (0..8).collect();
    // std's own messages for the same values.
    let std_message = |f: fn(&[i32])| {
        let payload = std::panic::catch_unwind(|| f(&(0..8).collect::<Vec<i32>>())).unwrap_err();
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap()
    };
    let cases: [(u32, &str, u32, fn(&[i32])); 3] = [
        (0, "MARK-EQ", 3, |a| {
            let i = 3;
            assert_eq!(a[i] * 2, 7, "element {} of {}", i, a.len())
        }),
        (1, "MARK-ASSERT", 4, |a| {
            let i = 4;
            assert!(a[i] < 0 && a[i] != 4)
        }),
        (2, "MARK-PANIC", 5, |a| {
            let i = 5;
            panic!("value {:?} at {i}", a[i] as f64 / 2.0)
        }),
    ];
    for (which, marker, thread, reference) in cases {
        let err = launch!(check_values[1, 32](&a, which)).unwrap_err();
        let Error::KernelPanic {
            kernel,
            file,
            line,
            column,
            message,
            thread: t,
            ..
        } = err
        else {
            panic!("expected a kernel panic, got {err}");
        };
        assert_eq!(kernel, "check_values");
        assert!(file.ends_with("print.rs"), "{file}");
        assert_eq!((line, column), (line_of(marker), 9), "{marker}");
        assert_eq!(t, thread);
        assert_eq!(message, std_message(reference), "{marker}");
    }
    launch!(check_values[1, 32](&a, 3)).unwrap();
}

#[kernel]
fn print_tagged(tag: u32, a: &[u32]) {
    let i = grid(1);
    if i < a.len() {
        println!("stream {tag} line {i} value {}", a[i]);
    }
}

/// Several host threads, each launching the same printing kernel on its own stream
/// and synchronising it while the others' launches may still run: every thread's
/// lines arrive whole, all of them, and in thread order within each launch. Thread
/// order sorts what one synchronisation drains, so each stream synchronises after
/// each launch (on a GPU, two launches of one kernel drained together would be merged
/// by (block, thread): the H200 run showed it; the simulator drains per launch).
#[test]
fn concurrent_streams_of_one_kernel_keep_each_launch_s_lines_whole() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let device = device();
    const STREAMS: u32 = 4;
    const LAUNCHES: u32 = 3;
    let n: usize = 700;
    print::set_print_order(PrintOrder::Thread);
    let (results, out) = print::capture(|| {
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..STREAMS)
                .map(|tag| {
                    let device = device.clone();
                    scope.spawn(move || -> std::result::Result<(), Error> {
                        let stream = device.new_stream()?;
                        let a: Vec<u32> = (0..n as u32).map(|k| k * 7 + tag).collect();
                        let da = device.to_device(&a)?;
                        for _ in 0..LAUNCHES {
                            launch!(print_tagged[n.div_ceil(128), 128, stream](tag, &da))?;
                            stream.synchronize()?;
                        }
                        Ok(())
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("worker"))
                .collect::<Vec<_>>()
        })
    });
    print::set_print_order(PrintOrder::Arrival);
    for r in results {
        r.unwrap();
    }
    assert_eq!(out.dropped_records, 0);
    for tag in 0..STREAMS {
        let prefix = format!("stream {tag} ");
        let mine: Vec<&str> = out
            .stdout
            .lines()
            .filter(|l| l.starts_with(&prefix))
            .collect();
        let want: Vec<String> = (0..LAUNCHES)
            .flat_map(|_| {
                (0..n).map(move |i| format!("stream {tag} line {i} value {}", i * 7 + tag as usize))
            })
            .collect();
        assert_eq!(mine, want, "stream {tag}");
    }
    assert_eq!(
        out.stdout.lines().count(),
        (STREAMS * LAUNCHES) as usize * n
    );
}
