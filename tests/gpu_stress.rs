//! Issue 10's runtime stress tests, each a pass/fail line of the GPU bundle: device-side
//! panics reach the launch (or stream synchronisation) that caused them and no other,
//! under many launches, streams and threads. They need a GPU: on the CPU simulator (a
//! machine without one) each says `skipped: ...` and passes, except the panic-routing
//! tests, whose semantics the simulator shares, which run there at a small size.
//!
//! Run on a GPU machine as a user's `cargo test` does, every test in a thread of its
//! own beside the others: `CUDAJIT_BACKEND=cuda cargo test --release --test
//! gpu_stress` (the bundle's run.sh runs it so, and once more with
//! `--test-threads=1`). A test that measures something process-wide (resident
//! memory, device memory, a wait's duration) runs its body in a child process of its
//! own ([`in_child_process`]), so the tests beside it cannot disturb the measurement.

use std::sync::{Arc, Barrier};

use cudajit::prelude::*;

/// Says why a test did not run, on stderr written directly so that the test
/// harness's output capture does not hide the reason.
macro_rules! skip {
    ($($reason:tt)*) => {{
        use std::io::Write as _;
        let test = std::thread::current().name().unwrap_or("test").to_string();
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", format_args!($($reason)*));
    }};
}

/// The default device if it is a GPU; otherwise the test returns, saying why.
macro_rules! require_real_gpu {
    () => {
        match cudajit::Device::default() {
            Ok(device) if !device.is_simulator() => device,
            Ok(_) => {
                skip!("needs a GPU (runs on the CPU simulator here)");
                return;
            }
            Err(e) => {
                skip!("no GPU ({e})");
                return;
            }
        }
    };
}

/// `a[i] = i + offset` for every thread: out of bounds (a panic) when the grid is
/// larger than `a`.
#[kernel]
fn fill_index(a: &mut [u32], offset: u32) {
    let i = grid(1);
    a[i] = i as u32 + offset; // panic site: fill_index
}

/// Panics in a device function: the hidden panic record reaches it from the kernel.
#[device]
fn checked_get(a: &[u32], i: usize) -> u32 {
    a[i] // panic site: checked_get
}

#[kernel]
fn copy_through_device_fn(a: &[u32], out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = checked_get(a, i);
    }
}

#[kernel]
fn add_one(a: &mut [u32]) {
    let i = grid(1);
    if i < a.len() {
        a[i] += 1;
    }
}

/// Launched only by `eight_threads_compile_one_kernel_at_once`: never compiled before.
#[kernel]
fn first_launch_only(a: &mut [u64], k: u64) {
    let i = grid(1);
    if i < a.len() {
        a[i] = (i as u64) * k + 7;
    }
}

fn line_of(marker: &str) -> usize {
    include_str!("gpu_stress.rs")
        .lines()
        .position(|l| l.contains(marker))
        .expect("marker present")
        + 1
}

/// A generator from a seed that differs per run, printed so a failure replays with
/// `CUDAJIT_TEST_SEED`.
fn fresh_rng() -> fastrand::Rng {
    let seed = std::env::var("CUDAJIT_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("CUDAJIT_TEST_SEED={seed}");
    fastrand::Rng::with_seed(seed)
}

/// 1,000 panics in a row, each followed by a correct launch: every panic is its own
/// launch's `Err` (host slices: reported by the launch; device arrays: by the stream's
/// synchronisation), every correct launch is `Ok` with the right values.
#[test]
fn thousand_panics_each_followed_by_a_correct_launch() {
    let device = require_real_gpu!();
    let stream = device.new_stream().unwrap();
    let site = format!(
        "tests/gpu_stress.rs:{}",
        line_of(concat!("panic site", ": fill_index"))
    );
    let mut rng = fresh_rng();
    for round in 0..1000u32 {
        let len = 1 + (rng.u64(..) % 255) as usize;
        let offset = rng.u64(..) as u32 % 1000;
        // Too many threads for `len` elements: thread `len` panics first or another.
        let err = if round % 2 == 0 {
            let mut host = vec![0u32; len];
            launch!(fill_index[1, 256](&mut host, offset)).unwrap_err()
        } else {
            let mut dev = device.zeros::<u32>(len).unwrap();
            launch!(fill_index[1, 256, stream](&mut dev, offset)).unwrap();
            stream.synchronize().unwrap_err()
        };
        let text = err.to_string();
        assert!(text.contains(&site), "round {round}: {text}");
        assert!(
            text.contains(&format!("the len is {len} but the index is")),
            "round {round}: {text}"
        );
        // A correct launch right after: Ok, every element written.
        let mut host = vec![u32::MAX; 256];
        launch!(fill_index[1, 256](&mut host, offset)).unwrap();
        assert!(
            host.iter()
                .enumerate()
                .all(|(i, &v)| v == i as u32 + offset),
            "round {round}"
        );
        stream.synchronize().unwrap();
        device.synchronize().unwrap();
    }
}

/// A panic inside a `#[device]` function is reported with that function's site.
#[test]
fn a_panic_in_a_device_function_names_its_site() {
    let _device = require_real_gpu!();
    let a: Vec<u32> = (0..100).collect();
    let mut out = vec![0u32; 128];
    let err = launch!(copy_through_device_fn[1, 128](&a, &mut out))
        .unwrap_err()
        .to_string();
    let site = format!(
        "tests/gpu_stress.rs:{}",
        line_of(concat!("panic site", ": checked_get"))
    );
    assert!(err.contains(&site), "{err}");
    let mut out = vec![0u32; 100];
    launch!(copy_through_device_fn[1, 128](&a, &mut out)).unwrap();
    assert_eq!(out, a);
}

/// The same kernel panicking on two streams at once (two threads), each launch getting
/// its own `Err` (told apart by the array length in the message), while a correct
/// launch of the same kernel in a third thread gets `Ok`. Runs on the simulator too.
#[test]
fn same_kernel_panicking_on_two_streams_each_gets_its_own_err() {
    let device = match cudajit::Device::default() {
        Ok(device) => device,
        Err(e) => {
            skip!("no device ({e})");
            return;
        }
    };
    let rounds = if device.is_simulator() { 5 } else { 200 };
    for round in 0..rounds {
        let barrier = Arc::new(Barrier::new(3));
        let panicking = |len: usize| {
            let device = device.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let stream = device.new_stream().unwrap();
                let mut dev = device.zeros::<u32>(len).unwrap();
                barrier.wait();
                launch!(fill_index[2, 256, stream](&mut dev, 0)).unwrap();
                stream.synchronize().unwrap_err().to_string()
            })
        };
        let (a, b) = (panicking(100), panicking(300));
        let correct = {
            let device = device.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let stream = device.new_stream().unwrap();
                let mut host = vec![0u32; 512];
                barrier.wait();
                launch!(fill_index[2, 256, stream](&mut host, 5)).map(|()| host)
            })
        };
        let (a, b) = (a.join().unwrap(), b.join().unwrap());
        assert!(a.contains("the len is 100 but"), "round {round}: {a}");
        assert!(b.contains("the len is 300 but"), "round {round}: {b}");
        let host = correct.join().unwrap().unwrap();
        assert!(host.iter().enumerate().all(|(i, &v)| v == i as u32 + 5));
        // Nothing is left over for anyone else.
        device.synchronize().unwrap();
    }
}

/// 8 host threads, each launching 10^4 times on its own stream into its own array.
#[test]
fn eight_threads_ten_thousand_launches_on_own_streams() {
    let device = require_real_gpu!();
    const LAUNCHES: u32 = 10_000;
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let device = device.clone();
            std::thread::spawn(move || {
                let stream = device.new_stream().unwrap();
                let n = 1000 + 37 * t;
                let mut a = device.to_device(&vec![t as u32; n]).unwrap();
                for _ in 0..LAUNCHES {
                    launch!(add_one[n.div_ceil(256), 256, stream](&mut a)).unwrap();
                }
                stream.synchronize().unwrap();
                let got = a.to_host().unwrap();
                assert!(
                    got.iter().all(|&v| v == t as u32 + LAUNCHES),
                    "thread {t}: {:?}",
                    &got[..4]
                );
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// 8 threads launching the same never-compiled kernel at the same moment: one compile,
/// every launch `Ok` and correct.
#[test]
fn eight_threads_compile_one_kernel_at_once() {
    let device = require_real_gpu!();
    let barrier = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let device = device.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let stream = device.new_stream().unwrap();
                let mut out = vec![u64::MAX; 4096];
                barrier.wait();
                launch!(first_launch_only[16, 256, stream](&mut out, t + 1)).unwrap();
                assert!(out
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| v == i as u64 * (t + 1) + 7));
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// Writes one element at `at`, unchecked: with `at` far past the end, an illegal
/// address that loses the context.
#[kernel(boundscheck = false)]
fn scatter_unchecked(out: &mut [u32], at: usize) {
    if grid(1) == 0 {
        out[at] = 1;
    }
}

/// Set in the child processes of the illegal-address test: `fault` in the one that
/// makes the illegal address, `fresh` in the one started after it.
const CHILD_VARIABLE: &str = "CUDAJIT_STRESS_ILLEGAL_ADDRESS_CHILD";

/// An illegal address (a `boundscheck = false` kernel writing 4 TiB past its buffer),
/// in a child process: the sticky error is an `Err` naming the kernel and saying the
/// context is lost; later calls fail fast with the same words; `Device::reset()` says
/// the process must be restarted (the driver refuses the process a new context after a
/// sticky error: see `kernel-host/src/executor/health.rs`). The GPU recovers, the process that
/// faulted does not: afterwards this (parent) process and a fresh child launch
/// correctly on the same GPU.
#[test]
fn illegal_address_in_a_child_process_is_reported_and_recovered() {
    let device = require_real_gpu!();
    match std::env::var(CHILD_VARIABLE).as_deref() {
        Ok("fault") => {
            child_loses_the_context();
            println!("child: context lost, reported, reset refused");
            return;
        }
        Ok("fresh") => {
            launches_correctly(&device, 0x5eed);
            println!("child: fresh process launches correctly");
            return;
        }
        _ => {}
    }
    // The parent uses the GPU before, during and after the child's fault.
    launches_correctly(&device, 1);
    run_child("fault", "child: context lost, reported, reset refused");
    assert!(!device.is_lost(), "the child's fault reached the parent");
    launches_correctly(&device, 2);
    run_child("fresh", "child: fresh process launches correctly");
    launches_correctly(&device, 3);
}

/// Variable naming the test whose body a child process runs (see [`in_child_process`]).
const CHILD_TEST_VARIABLE: &str = "CUDAJIT_STRESS_CHILD_TEST";

/// `true` in the parent, after `test` ran (and passed) alone in a child process;
/// `false` in that child, which then runs the test's body.
fn in_child_process(test: &str) -> bool {
    if std::env::var(CHILD_TEST_VARIABLE).as_deref() == Ok(test) {
        return false;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD_TEST_VARIABLE, test)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{test} in a child process failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    // What the child measured, for the log (past the harness's output capture).
    for line in stdout.lines().filter(|l| l.starts_with("measured:")) {
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    true
}

/// Runs this test in a child process in `mode`; it must pass and print `marker`.
fn run_child(mode: &str, marker: &str) {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "illegal_address_in_a_child_process_is_reported_and_recovered",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_VARIABLE, mode)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains(marker),
        "child ({mode}) failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
}

/// A launch on a new device array and on a host slice, results checked.
fn launches_correctly(device: &cudajit::Device, offset: u32) {
    let mut fresh = device.zeros::<u32>(300).unwrap();
    launch!(fill_index[2, 150](&mut fresh, offset)).unwrap();
    let got = fresh.to_host().unwrap();
    assert!(got.iter().enumerate().all(|(i, &v)| v == i as u32 + offset));
    let mut host = vec![0u32; 256];
    launch!(fill_index[1, 256](&mut host, offset + 7)).unwrap();
    assert!(host
        .iter()
        .enumerate()
        .all(|(i, &v)| v == i as u32 + offset + 7));
}

fn child_loses_the_context() {
    let device = cudajit::Device::default().unwrap();
    let old = device.to_device(&[3u32; 16]).unwrap();
    let mut out = device.zeros::<u32>(16).unwrap();
    // SAFETY: none, on purpose: the write is far outside `out`. It lands in no host
    // memory (device arrays only), and this process exists to lose its context.
    unsafe { launch!(scatter_unchecked[1, 32](&mut out, 1usize << 40)) }.unwrap();
    let first = device.synchronize().unwrap_err();
    let text = first.to_string();
    assert!(
        matches!(first, cudajit::Error::ContextLost { .. }),
        "{text}"
    );
    assert!(text.contains("is lost"), "{text}");
    assert!(text.contains("`scatter_unchecked`"), "{text}");
    assert!(text.contains("restart the process"), "{text}");
    assert!(device.is_lost());
    // Later calls fail fast with the same words.
    assert_eq!(old.to_host().unwrap_err().to_string(), text);
    let mut host = vec![0u32; 256];
    assert_eq!(
        launch!(fill_index[1, 256](&mut host, 0))
            .unwrap_err()
            .to_string(),
        text
    );
    assert_eq!(device.zeros::<u8>(4).unwrap_err().to_string(), text);
    // A reset cannot bring the context back in this process: an `Err` saying so,
    // naming the kernel, and the device stays lost with the same words.
    let reset = device.reset().unwrap_err();
    let said = reset.to_string();
    assert!(
        matches!(reset, cudajit::Error::RestartRequired { .. }),
        "{said}"
    );
    assert!(said.contains("`scatter_unchecked`"), "{said}");
    assert!(said.contains("Restart the process"), "{said}");
    assert!(device.is_lost());
    assert_eq!(device.synchronize().unwrap_err().to_string(), text);
    assert_eq!(device.zeros::<u8>(4).unwrap_err().to_string(), text);
    drop(old);
    drop(out);
}

/// Without a sticky error `Device::reset()` works in the process: arrays and streams
/// made before it are refused (`StaleAfterReset`), new work is correct.
#[test]
fn reset_without_a_sticky_error_refuses_old_objects_and_works() {
    let device = require_real_gpu!();
    // A reset makes every object of the process stale, those of the tests beside
    // this one too: it resets in a process of its own.
    if in_child_process("reset_without_a_sticky_error_refuses_old_objects_and_works") {
        return;
    }
    let old = device.to_device(&[5u32; 64]).unwrap();
    let stream = device.new_stream().unwrap();
    launches_correctly(&device, 4);
    device.reset().unwrap();
    assert!(!device.is_lost());
    let stale = old.to_host().unwrap_err();
    assert!(
        matches!(stale, cudajit::Error::StaleAfterReset { .. }),
        "{stale}"
    );
    let stale = stream.synchronize().unwrap_err().to_string();
    assert!(stale.contains("before `Device::reset()`"), "{stale}");
    launches_correctly(&device, 5);
    drop(old);
    device.synchronize().unwrap();
}

/// Resident host memory of this process in bytes (`VmRSS` of `/proc/self/status`).
fn resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status");
    kib << 10
}

/// 10^6 launches (a device array on a stream; every 1,000th also a fresh array from the
/// pool, launched on and dropped; every 10,000th a launch with a host slice): host RSS
/// and device memory in use are flat after a warm-up, and the counts are right.
#[test]
fn a_million_launches_keep_host_and_device_memory_flat() {
    let device = require_real_gpu!();
    // Resident memory and device memory in use are the whole process's.
    if in_child_process("a_million_launches_keep_host_and_device_memory_flat") {
        return;
    }
    const LAUNCHES: u32 = 1_000_000;
    const WARM_UP: u32 = 20_000;
    let stream = device.new_stream().unwrap();
    let mut counter = device.zeros::<u32>(1024).unwrap();
    let mut host = vec![0u32; 256];
    let (mut rss_after_warm_up, mut used_after_warm_up) = (0, 0);
    let used = |device: &cudajit::Device| {
        let info = device.mem_info().unwrap();
        (info.total - info.free) as i64
    };
    for i in 0..LAUNCHES {
        launch!(add_one[4, 256, &stream](&mut counter)).unwrap();
        if i % 1_000 == 999 {
            let mut fresh = device.zeros::<u32>(4096 + (i as usize % 7) * 1024).unwrap();
            launch!(add_one[16, 256, &stream](&mut fresh)).unwrap();
            drop(fresh);
        }
        if i % 10_000 == 9_999 {
            launch!(add_one[1, 256, &stream](&mut host)).unwrap();
        }
        if i + 1 == WARM_UP {
            stream.synchronize().unwrap();
            rss_after_warm_up = resident_bytes() as i64;
            used_after_warm_up = used(&device);
        }
    }
    stream.synchronize().unwrap();
    let rss_growth = resident_bytes() as i64 - rss_after_warm_up;
    let device_growth = used(&device) - used_after_warm_up;
    let got = counter.to_host().unwrap();
    assert!(
        got.iter().all(|&c| c == LAUNCHES),
        "a counter is {:?}, expected {LAUNCHES}",
        got.iter().find(|&&c| c != LAUNCHES)
    );
    assert!(
        host.iter().all(|&h| h == LAUNCHES / 10_000),
        "{:?}",
        &host[..4]
    );
    assert!(
        rss_growth < 16 << 20,
        "host RSS grew by {} KiB over {} launches after the warm-up",
        rss_growth >> 10,
        LAUNCHES - WARM_UP
    );
    assert!(
        device_growth < 64 << 20,
        "device memory in use grew by {} KiB over {} launches after the warm-up",
        device_growth >> 10,
        LAUNCHES - WARM_UP
    );
    println!(
        "measured: 10^6 launches: host RSS {:+} KiB, device memory {:+} KiB after the warm-up",
        rss_growth >> 10,
        device_growth >> 10
    );
}

/// `a[i]` after `rounds` dependent steps from `i ^ seed`: slow enough that a reader on
/// another stream that did not wait would see the old contents.
#[kernel]
fn slow_write(a: &mut [u32], seed: u32, rounds: u32) {
    let i = grid(1);
    if i < a.len() {
        let mut x = i as u32 ^ seed;
        for _ in 0..rounds {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        }
        a[i] = x;
    }
}

/// `slow_write`'s `rounds` steps of the affine map as one affine map
/// `x -> mul * x + add`: `(mul, add)`.
fn slow_write_map(rounds: u32) -> (u32, u32) {
    (0..rounds).fold((1u32, 0u32), |(mul, add), _| {
        (
            mul.wrapping_mul(1_664_525),
            add.wrapping_mul(1_664_525).wrapping_add(1_013_904_223),
        )
    })
}

#[kernel]
fn copy_plus_one(a: &[u32], out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = a[i].wrapping_add(1);
    }
}

/// A write of one device array on stream 1 and a read of it on stream 2, 1,000 times
/// with fresh seeds: the read always sees the whole write (per-array event tracking).
#[test]
fn cross_stream_write_then_read_is_right_a_thousand_times() {
    let device = require_real_gpu!();
    const N: usize = 1 << 18;
    const ROUNDS: u32 = 256;
    let writer = device.new_stream().unwrap();
    let reader = device.new_stream().unwrap();
    let mut a = device.zeros::<u32>(N).unwrap();
    let mut out = device.zeros::<u32>(N).unwrap();
    let mut rng = fresh_rng();
    let mut got = vec![0u32; N];
    let (mul, add) = slow_write_map(ROUNDS);
    for round in 0..1000 {
        let s = rng.u64(..) as u32;
        launch!(slow_write[N / 256, 256, &writer](&mut a, s, ROUNDS)).unwrap();
        launch!(copy_plus_one[N / 256, 256, &reader](&a, &mut out)).unwrap();
        reader.synchronize().unwrap();
        out.copy_to_host(&mut got).unwrap();
        for (i, &v) in got.iter().enumerate() {
            let x = mul.wrapping_mul(i as u32 ^ s).wrapping_add(add);
            assert_eq!(
                v,
                x.wrapping_add(1),
                "round {round}, element {i}: the read on stream 2 saw {v:#x}, not the \
                 write on stream 1 (plus one)"
            );
        }
    }
    writer.synchronize().unwrap();
}

/// The legacy NULL stream (the default stream, where copies run) and a created stream,
/// which is non-blocking (no implicit order between the two), touch the same arrays in
/// both orders, 300 times each with fresh seeds: a slow write on one is always seen
/// whole by a read on the other and by the copy to the host that follows (the arrays'
/// own events order them, not the stream flags), with no stream synchronised between.
#[test]
fn null_stream_and_a_created_stream_share_an_array_in_both_orders() {
    let device = require_real_gpu!();
    const N: usize = 1 << 18;
    const ROUNDS: u32 = 256;
    let created = device.new_stream().unwrap();
    let default = device.default_stream();
    let mut a = device.zeros::<u32>(N).unwrap();
    let mut out = device.zeros::<u32>(N).unwrap();
    let (mul, add) = slow_write_map(ROUNDS);
    let mut rng = fresh_rng();
    let mut got = vec![0u32; N];
    for round in 0..600 {
        let s = rng.u64(..) as u32;
        // Even rounds write on the created stream and read on the NULL stream; odd
        // rounds the other way round.
        let (write_on, read_on) = if round % 2 == 0 {
            (&created, &default)
        } else {
            (&default, &created)
        };
        launch!(slow_write[N / 256, 256, write_on](&mut a, s, ROUNDS)).unwrap();
        launch!(copy_plus_one[N / 256, 256, read_on](&a, &mut out)).unwrap();
        // Copies on the NULL stream, no synchronisation first: `a` as written, `out`
        // as read.
        a.copy_to_host(&mut got).unwrap();
        for (i, &v) in got.iter().enumerate() {
            let x = mul.wrapping_mul(i as u32 ^ s).wrapping_add(add);
            assert_eq!(
                v, x,
                "round {round}, element {i}: the copy missed the write"
            );
        }
        out.copy_to_host(&mut got).unwrap();
        for (i, &v) in got.iter().enumerate() {
            let x = mul.wrapping_mul(i as u32 ^ s).wrapping_add(add);
            assert_eq!(
                v,
                x.wrapping_add(1),
                "round {round}, element {i}: the read saw {v:#x}, not the write on the \
                 other stream (plus one)"
            );
        }
    }
    created.synchronize().unwrap();
}

/// Code outside cudajit may change the thread's current context between two launches
/// (a launch that its memo knows trusts the thread's last bind instead of asking the
/// driver, issue 27): after the context was unset, or another context (another
/// library's, on the same GPU) made current, launches the memo knows, on the default
/// stream and on a created one, still run in cudajit's context, in order (a slow
/// write, then a read-modify-write, then the copy back), with the right results.
#[test]
fn launches_after_other_code_changed_the_current_context() {
    use cudarc::driver::sys;
    let device = require_real_gpu!();
    const N: usize = 1 << 16;
    const ROUNDS: u32 = 4096;
    let created = device.new_stream().unwrap();
    let mut foreign: sys::CUcontext = std::ptr::null_mut();
    let mut ordinal: sys::CUdevice = 0;
    // No execution affinity, no CIG: a plain context.
    let mut params = sys::CUctxCreateParams_st {
        execAffinityParams: std::ptr::null_mut(),
        numExecAffinityParams: 0,
        cigParams: std::ptr::null_mut(),
    };
    // SAFETY: valid out-pointers; the context is destroyed at the end of the test.
    unsafe {
        sys::cuDeviceGet(&mut ordinal, device.ordinal() as i32)
            .result()
            .unwrap();
        sys::cuCtxCreate_v4(&mut foreign, &mut params, 0, ordinal)
            .result()
            .expect("another context on the same GPU");
    }
    let (mul, add) = slow_write_map(ROUNDS);
    let mut rng = fresh_rng();
    let mut a = device.zeros::<u32>(N).unwrap();
    for round in 0..8 {
        let seed = rng.u32(..);
        let on_created = round % 2 == 0;
        let write = |a: &mut DeviceArray<u32>| match on_created {
            true => launch!(slow_write[N / 256, 256, &created](a, seed, ROUNDS)),
            false => launch!(slow_write[N / 256, 256](a, seed, ROUNDS)),
        };
        let plus_one = |a: &mut DeviceArray<u32>| match on_created {
            true => launch!(add_one[N / 256, 256, &created](a)),
            false => launch!(add_one[N / 256, 256](a)),
        };
        // Launched thrice each first, so that the memo knows both launches (their
        // proven copies settled) and the thread's last bind is cudajit's context.
        for _ in 0..3 {
            write(&mut a).unwrap();
            plus_one(&mut a).unwrap();
        }
        a.to_host().unwrap();
        // Rounds 0-3 leave no context current, rounds 4-7 the other context.
        let other = if round < 4 {
            std::ptr::null_mut()
        } else {
            foreign
        };
        // SAFETY: NULL or a live context of this process.
        unsafe { sys::cuCtxSetCurrent(other) }.result().unwrap();
        write(&mut a).unwrap();
        plus_one(&mut a).unwrap();
        let got = a.to_host().unwrap();
        for (i, &v) in got.iter().enumerate() {
            let written = mul.wrapping_mul(i as u32 ^ seed).wrapping_add(add);
            assert_eq!(
                v,
                written.wrapping_add(1),
                "round {round} ({}), element {i}: a launch after the context change \
                 did not run, or ran out of order",
                if on_created {
                    "created stream"
                } else {
                    "default stream"
                }
            );
        }
    }
    created.synchronize().unwrap();
    // SAFETY: made above; not current on this thread (each launch above made
    // cudajit's context current again), nothing of it in use.
    unsafe { sys::cuCtxDestroy_v2(foreign) }.result().unwrap();
}

/// Per-reader events: a write on stream C waits for stream A's *read* of the array,
/// not for the slow work A queued after the read (one block, so the GPU has room for
/// C's kernel meanwhile); the read still saw the old contents and the write landed.
/// (Reads get events once a write of the array has had to wait for a read.)
#[test]
fn a_writer_waits_for_a_readers_read_not_its_later_work() {
    let device = require_real_gpu!();
    // What is measured is a wait, which other threads' work can lengthen with no
    // missing event (another test's kernels holding the SMs, a device-wide
    // synchronisation). When created streams were blocking, the legacy stream's
    // implicit order made this fail 1 run in 3 beside the other tests; they are
    // non-blocking now, and the child process keeps the timing this test's own.
    if in_child_process("a_writer_waits_for_a_readers_read_not_its_later_work") {
        return;
    }
    const N: usize = 1 << 16;
    // About a second of one warp's dependent multiply-adds on an H100.
    const SLOW_ROUNDS: u32 = 200_000_000;
    let reader = device.new_stream().unwrap();
    let writer = device.new_stream().unwrap();
    let mut rng = fresh_rng();
    let data: Vec<u32> = (0..N).map(|_| rng.u64(..) as u32).collect();
    let mut x = device.to_device(&data).unwrap();
    let mut copy = device.zeros::<u32>(N).unwrap();
    let mut busy = device.zeros::<u32>(32).unwrap();
    // The writer's stream owns `x` first, so its later write waits only on the events
    // this test is about, not on the NULL stream's copy that created `x`.
    launch!(copy_plus_one[N / 256, 256, &writer](&copy, &mut x)).unwrap();
    writer.synchronize().unwrap();
    // A read on A, then a write on C that waits for it: from then on reads of `x` get
    // events of their own (x = 1, copy = 2, x = 3).
    launch!(copy_plus_one[N / 256, 256, &reader](&x, &mut copy)).unwrap();
    launch!(copy_plus_one[N / 256, 256, &writer](&copy, &mut x)).unwrap();
    writer.synchronize().unwrap();
    reader.synchronize().unwrap();
    launch!(copy_plus_one[N / 256, 256, &reader](&x, &mut copy)).unwrap();
    launch!(slow_write[1, 32, &reader](&mut busy, 7, SLOW_ROUNDS)).unwrap();
    let start = std::time::Instant::now();
    launch!(slow_write[N / 256, 256, &writer](&mut x, 3, 1)).unwrap();
    writer.synchronize().unwrap();
    let write_done = start.elapsed();
    reader.synchronize().unwrap();
    let read_side_done = start.elapsed();
    assert!(
        read_side_done.as_secs_f64() > 0.05,
        "the slow kernel took only {read_side_done:?}: the test cannot tell the waits apart"
    );
    println!(
        "measured: the write on C done after {:.1} ms, A's later work after {:.1} ms",
        write_done.as_secs_f64() * 1e3,
        read_side_done.as_secs_f64() * 1e3
    );
    assert!(
        write_done < read_side_done / 4,
        "the write on C waited for A's later work: done after {write_done:?}, A's work \
         after {read_side_done:?}"
    );
    // `x` was 3 everywhere when A read it.
    assert!(copy.to_host().unwrap().iter().all(|&v| v == 4));
    let got = x.to_host().unwrap();
    for (i, &v) in got.iter().enumerate() {
        let expected = ((i as u32) ^ 3)
            .wrapping_mul(1_664_525)
            .wrapping_add(1_013_904_223);
        assert_eq!(v, expected, "element {i} of the write on C");
    }
    drop(data);
}

/// Marks elements `start..` of `a` (those that exist) with `(i % 251) + 1`.
#[kernel]
fn mark_from(a: &mut [u8], start: usize) {
    let i = start + grid(1);
    if i < a.len() {
        a[i] = (i % 251) as u8 + 1;
    }
}

/// Writes the last element through the slice's length.
#[kernel]
fn mark_last(a: &mut [u8]) {
    if grid(1) == 0 {
        let n = a.len();
        a[n - 1] = 0xEE;
    }
}

/// An array of 2^32 + 16 `u8`s: a kernel indexes past 2^32 (64-bit indices and
/// lengths end to end), and the tail comes back exactly.
#[test]
fn arrays_over_four_billion_elements() {
    let device = require_real_gpu!();
    // Needs most of the free device memory, which the tests beside it use too.
    if in_child_process("arrays_over_four_billion_elements") {
        return;
    }
    const LEN: usize = (1usize << 32) + 16;
    let free = device.mem_info().unwrap().free;
    if free < LEN + (512 << 20) {
        skip!(
            "needs {} MiB of free device memory, has {}",
            LEN >> 20,
            free >> 20
        );
        return;
    }
    let mut a = device.zeros::<u8>(LEN).unwrap();
    assert_eq!(a.len(), LEN);
    let start = (1usize << 32) - 8;
    launch!(mark_from[1, 32](&mut a, start)).unwrap();
    launch!(mark_last[1, 1](&mut a)).unwrap();
    device.synchronize().unwrap();
    let tail_from = (1usize << 32) - 64;
    let tail = a.view(tail_from..).unwrap().to_host().unwrap();
    assert_eq!(tail.len(), LEN - tail_from);
    for (k, &v) in tail.iter().enumerate() {
        let i = tail_from + k;
        let expected = if i == LEN - 1 {
            0xEE
        } else if i >= start {
            (i % 251) as u8 + 1
        } else {
            0
        };
        assert_eq!(
            v,
            expected,
            "element {i} (2^32 {:+})",
            i as i64 - (1i64 << 32)
        );
    }
    // The head is untouched.
    assert!(a
        .view(..4096)
        .unwrap()
        .to_host()
        .unwrap()
        .iter()
        .all(|&v| v == 0));
}

/// The kernels of the tests above go through libnvvm (and ptxas where found) for sm_90
/// on any machine with libnvvm, so the GPU run cannot fail on their compilation.
#[test]
fn stress_kernels_compile_for_sm_90() {
    for source in [
        slow_write::source(),
        copy_plus_one::source(),
        mark_from::source(),
        mark_last::source(),
        add_one::source(),
    ] {
        match cudajit::inspect::inspect(source, "compute_90") {
            Ok(found) => assert!(found.ptx.contains(".entry"), "{}", found.ptx),
            Err(e @ cudajit::Error::Nvvm { .. }) if e.to_string().contains("not found") => {
                skip!("libnvvm not available ({e})");
                return;
            }
            Err(e) => panic!("{}: {e}", source.name),
        }
    }
}

// After the macros and kernels above, which it uses.
#[path = "gpu_stress/threads.rs"]
mod threads;
