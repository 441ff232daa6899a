//! A device-side panic ends only the thread that panicked, as on the GPU: every other
//! thread runs to completion and writes its outputs, and the launch reports the panic.

use super::*;

const POISON: i32 = i32::MIN + 7;

/// Runs `kernel` of `src` over `a` (and `d`) into a poisoned `out`; returns the launch's
/// result and `out`.
fn run_divide(
    src: &str,
    shp: LaunchShape,
    a: &[i32],
    d: &[i32],
) -> (Result<Report, Fault>, Vec<i32>) {
    let m = module(src, "k");
    let n = a.len();
    let (ba, bd, bo) = (buffer_of(a), buffer_of(d), buffer_of(&vec![POISON; n]));
    let args = [
        slice(ScalarType::I32, &ba, n, false),
        slice(ScalarType::I32, &bd, n, false),
        slice(ScalarType::I32, &bo, n, true),
    ];
    let result = run(&m, "k", &shp, &args, &Options::default());
    (result, read_back(&bo, n))
}

/// Random numerators and divisors that are zero exactly in odd threads.
fn odd_zero_divisors(rng: &mut Rng, n: usize) -> (Vec<i32>, Vec<i32>) {
    let a = (0..n).map(|_| rng.next() as i32 >> 4).collect();
    let d = (0..n)
        .map(|i| {
            if i % 2 == 1 {
                0
            } else {
                (rng.next() % 1000) as i32 + 1
            }
        })
        .collect();
    (a, d)
}

/// The launch failed with std's division panic in an odd thread.
fn assert_odd_thread_panicked(result: &Result<Report, Fault>, seed: u64) {
    match result {
        Err(Fault::Panic {
            message, thread, ..
        }) => {
            assert_eq!(message, "attempt to divide by zero", "input seed {seed}");
            assert_eq!(thread.thread[0] % 2, 1, "{thread}, input seed {seed}");
        }
        other => panic!("expected the odd threads' panic, got {other:?} (input seed {seed})"),
    }
}

/// Even threads hold `want(i)`; odd threads (which panicked) wrote nothing.
fn assert_evens_written(out: &[i32], want: impl Fn(usize) -> i32, seed: u64) {
    for (i, &got) in out.iter().enumerate() {
        let expected = if i % 2 == 1 { POISON } else { want(i) };
        assert_eq!(got, expected, "thread {i}, input seed {seed}");
    }
}

#[test]
fn odd_threads_dividing_by_zero_leave_the_even_threads_outputs_written() {
    let src = "#[kernel] fn k(a: &[i32], d: &[i32], out: &mut [i32]) {\n    let i = grid(1);\n    let q = a[i] / d[i];\n    out[i] = q + 1;\n}";
    let mut rng = Rng::fresh();
    let seed = rng.seed;
    let n = 4 * 96;
    let (a, d) = odd_zero_divisors(&mut rng, n);
    let (result, out) = run_divide(src, shape(4, 96), &a, &d);
    assert_odd_thread_panicked(&result, seed);
    assert_evens_written(&out, |i| a[i] / d[i] + 1, seed);
}

#[test]
fn a_panic_inside_a_device_function_ends_only_its_thread() {
    let src = "#[device] fn quotient(x: i32, y: i32) -> i32 {\n    x / y\n}\n#[kernel] fn k(a: &[i32], d: &[i32], out: &mut [i32]) {\n    let i = grid(1);\n    let q = quotient(a[i], d[i]);\n    if q > 0 {\n        out[i] = q;\n    } else {\n        out[i] = q - 3;\n    }\n}";
    let mut rng = Rng::fresh();
    let seed = rng.seed;
    let n = 2 * 64;
    let (a, d) = odd_zero_divisors(&mut rng, n);
    let (result, out) = run_divide(src, shape(2, 64), &a, &d);
    assert_odd_thread_panicked(&result, seed);
    let want = |i: usize| {
        let q = a[i] / d[i];
        if q > 0 {
            q
        } else {
            q - 3
        }
    };
    assert_evens_written(&out, want, seed);
}

#[test]
fn a_panic_inside_a_loop_ends_its_thread_and_the_others_finish_the_loop() {
    // Odd threads divide by zero in iteration 2 (d[i] - 2 == 0): they must neither run
    // the later iterations nor write `out`.
    let src = "#[kernel] fn k(a: &[i32], d: &[i32], out: &mut [i32]) {\n    let i = grid(1);\n    let mut acc = 0i32;\n    for j in 0..5 {\n        acc = acc.wrapping_add(a[i] / (d[i] - j));\n    }\n    out[i] = acc;\n}";
    let mut rng = Rng::fresh();
    let seed = rng.seed;
    let n = 3 * 40;
    let a: Vec<i32> = (0..n).map(|_| rng.next() as i32 >> 4).collect();
    let d: Vec<i32> = (0..n)
        .map(|i| {
            if i % 2 == 1 {
                2
            } else {
                (rng.next() % 100) as i32 + 5
            }
        })
        .collect();
    let (result, out) = run_divide(src, shape(3, 40), &a, &d);
    assert_odd_thread_panicked(&result, seed);
    let want = |i: usize| (0..5).fold(0i32, |acc, j| acc.wrapping_add(a[i] / (d[i] - j)));
    assert_evens_written(&out, want, seed);
}

/// A block where some threads panic before `sync_threads` and the others reach it:
/// the launch reports the panic, not barrier divergence, and the other blocks
/// complete.
fn panic_before_a_barrier(panicking: impl Fn(usize) -> bool) {
    let src = "#[kernel] fn k(a: &[i32], d: &[i32], out: &mut [i32]) {\n    let tile = shared_array::<[i32; 64]>();\n    let t = thread_idx().x as usize;\n    let i = grid(1);\n    tile[t] = a[i] / d[i];\n    sync_threads();\n    out[i] = tile[(t + 1) % 64];\n}";
    let mut rng = Rng::fresh();
    let seed = rng.seed;
    let n = 4 * 64;
    let a: Vec<i32> = (0..n).map(|_| rng.next() as i32 >> 4).collect();
    let d: Vec<i32> = (0..n)
        .map(|i| {
            if panicking(i) {
                0
            } else {
                (rng.next() % 1000) as i32 + 1
            }
        })
        .collect();
    let (result, out) = run_divide(src, shape(4, 64), &a, &d);
    match &result {
        Err(Fault::Panic {
            message, thread, ..
        }) => {
            assert_eq!(message, "attempt to divide by zero", "input seed {seed}");
            assert!(
                panicking(thread.thread[0] as usize),
                "{thread}, input seed {seed}"
            );
        }
        other => panic!("expected the panic, got {other:?} (input seed {seed})"),
    }
    for (i, &got) in out.iter().enumerate().skip(64) {
        let b = i / 64;
        let neighbour = b * 64 + (i % 64 + 1) % 64;
        assert_eq!(
            got,
            a[neighbour] / d[neighbour],
            "thread {i}, input seed {seed}"
        );
    }
}

#[test]
fn a_panic_before_sync_threads_is_reported_not_barrier_divergence() {
    // One lane of warp 0 of block 0: its warp arrives without it.
    panic_before_a_barrier(|i| i == 5);
}

#[test]
fn a_whole_warp_panicking_before_sync_threads_is_reported_not_barrier_divergence() {
    // Every lane of warp 1 of block 0: that warp ends while warp 0 waits.
    panic_before_a_barrier(|i| (32..64).contains(&i));
}
