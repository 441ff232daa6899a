//! `println!` of the values beyond the scalars: `f16`, `bf16`, `Complex<f32>` and a
//! `#[derive(DeviceCopy, Debug)]` struct, each thread's line
//! checked against Rust's `format!` of the same values on the host. Runs on the
//! default device: the CPU simulator here and in CI, the GPU in the bundle.

use std::sync::Mutex;

use cudajit::prelude::*;
use cudajit::print::{self, PrintOrder};
use cudajit::{bf16, f16, Complex};

/// Printing settings and captures are process-wide: one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
struct Sample {
    id: u32,
    weight: f32,
}

#[kernel]
fn print_halves_and_complex(h: &[f16], b: &[bf16], z: &[Complex<f32>]) {
    let i = grid(1);
    if i < h.len() {
        println!(
            "{i}: {} {:?} {} {:?} {} {:?}",
            h[i], h[i], b[i], b[i], z[i], z[i]
        );
    }
}

#[kernel]
fn print_structs(s: &[Sample]) {
    let i = grid(1);
    if i < s.len() {
        println!("{i}: {:?} {}", s[i], s[i].weight);
    }
}

/// Edge and ordinary values, one per thread.
fn floats() -> Vec<f32> {
    let mut values = vec![
        0.0,
        -0.0,
        0.1,
        1.0,
        -2.5,
        65504.0,
        6.1e-5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        3.0e38,
        1.0e-40,
    ];
    values.extend((0..52).map(|k| (k as f32 - 26.0) * 0.37));
    values
}

/// What `launch` printed, its lines in (block, thread) order; panics if it failed.
fn stdout_in_thread_order(launch: impl FnOnce() -> Result<(), cudajit::Error>) -> String {
    print::set_print_order(PrintOrder::Thread);
    let (result, out) = print::capture(launch);
    print::set_print_order(PrintOrder::Arrival);
    result.unwrap();
    out.stdout
}

/// One struct per edge value, with ids that fill the `u32`'s bits.
fn samples() -> Vec<Sample> {
    floats()
        .iter()
        .enumerate()
        .map(|(k, &weight)| Sample {
            id: (k as u32).wrapping_mul(2_654_435_761),
            weight,
        })
        .collect()
}

#[test]
fn halves_and_complex_print_as_rust_prints_them() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let x = floats();
    let h: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
    let b: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
    let z: Vec<Complex<f32>> = x
        .iter()
        .zip(x.iter().rev())
        .map(|(&re, &im)| Complex::new(re, im))
        .collect();
    let n = x.len();
    let out = stdout_in_thread_order(
        || launch!(print_halves_and_complex[n.div_ceil(32), 32](&h, &b, &z)),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), n);
    for (i, line) in lines.iter().enumerate() {
        let want = format!(
            "{i}: {} {:?} {} {:?} {} {:?}",
            h[i], h[i], b[i], b[i], z[i], z[i]
        );
        assert_eq!(*line, want, "thread {i}");
    }
}

#[test]
fn structs_print_their_derived_debug() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = samples();
    let n = s.len();
    let out = stdout_in_thread_order(|| launch!(print_structs[n.div_ceil(32), 32](&s)));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), n);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(
            *line,
            format!("{i}: {:?} {}", s[i], s[i].weight),
            "thread {i}"
        );
    }
}

#[kernel]
fn print_struct_pairs(s: &[Sample]) {
    let i = grid(1);
    if i < s.len() {
        let pair: [Sample; 2] = [s[i], s[(i + 1) % s.len()]];
        println!("{i}: {:?}", pair);
    }
}

#[kernel]
fn print_value_arrays(x: &[f32], h: &[f16], z: &[Complex<f32>]) {
    let i = grid(1);
    if i < x.len() {
        let floats = [x[i], -x[i], x[i] * 2.0];
        let halves = [h[i], h[(i + 1) % h.len()]];
        let complexes = [z[i], z[(i + 1) % z.len()]];
        let ints = [i as u32, (i * 3) as u32];
        println!(
            "{i}: {:?} {:?} {:?} {:?} {:x?}",
            floats, halves, complexes, ints, ints
        );
    }
}

#[test]
fn arrays_of_structs_print_as_rust_prints_them() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = samples();
    let n = s.len();
    let out = stdout_in_thread_order(|| launch!(print_struct_pairs[n.div_ceil(32), 32](&s)));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), n);
    for (i, line) in lines.iter().enumerate() {
        let pair = [s[i], s[(i + 1) % n]];
        assert_eq!(*line, format!("{i}: {:?}", pair), "thread {i}");
    }
}

#[test]
fn arrays_of_scalars_halves_and_complex_print_as_rust_prints_them() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let x = floats();
    let h: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
    let z: Vec<Complex<f32>> = x.iter().map(|&v| Complex::new(v, 1.0 - v)).collect();
    let n = x.len();
    let out =
        stdout_in_thread_order(|| launch!(print_value_arrays[n.div_ceil(32), 32](&x, &h, &z)));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), n);
    for (i, line) in lines.iter().enumerate() {
        let floats = [x[i], -x[i], x[i] * 2.0];
        let halves = [h[i], h[(i + 1) % n]];
        let complexes = [z[i], z[(i + 1) % n]];
        let ints = [i as u32, (i * 3) as u32];
        let want = format!("{i}: {floats:?} {halves:?} {complexes:?} {ints:?} {ints:x?}");
        assert_eq!(*line, want, "thread {i}");
    }
}

#[kernel]
fn compare_structs_and_arrays(s: &[Sample], which: u32) {
    let i = grid(1);
    if i == 2 && which == 0 {
        assert_eq!(s[i], s[i + 1]);
    }
    if i == 3 && which == 1 {
        let left = [s[i].weight, 1.5];
        assert_ne!(left, [s[i].weight, 1.5], "row {}", i);
    }
    // Element 9's weight is NaN: that struct is unequal to itself, as in Rust.
    if which == 2 && i < 9 {
        assert_eq!(s[i], s[i]);
        assert_ne!([s[i].id, 1], [s[i + 1].id, 1]);
    }
    if which == 3 && i == 9 {
        assert_eq!(s[i], s[i]);
    }
}

/// std's panic message of `f`, computed by running it.
fn std_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(f).unwrap_err();
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap()
}

#[test]
fn struct_and_array_assertions_fail_with_std_s_message() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let s = samples();
    let (a, b, c) = (s.clone(), s.clone(), s.clone());
    assert!(s[9].weight.is_nan());
    let cases: [(u32, u32, String); 3] = [
        (0, 2, std_message(move || assert_eq!(a[2], a[3]))),
        (
            1,
            3,
            std_message(move || {
                let i = 3;
                let left = [b[i].weight, 1.5];
                assert_ne!(left, [b[i].weight, 1.5], "row {}", i)
            }),
        ),
        (3, 9, std_message(move || assert_eq!(c[9], c[9]))),
    ];
    for (which, thread, want) in cases {
        let err = launch!(compare_structs_and_arrays[1, 32](&s, which)).unwrap_err();
        let cudajit::Error::KernelPanic {
            message, thread: t, ..
        } = err
        else {
            panic!("expected a kernel panic, got {err}");
        };
        assert_eq!(t, thread);
        assert_eq!(message, want, "case {which}");
    }
    launch!(compare_structs_and_arrays[1, 32](&s, 2)).unwrap();
}

/// The GPU's compiler takes the kernels above (libnvvm and ptxas, no GPU needed): the
/// lead's GPU run checks their output with the tests above on the default device.
#[test]
fn the_array_and_assertion_kernels_compile_for_the_gpu() {
    if std::env::var_os("CUDAJIT_NVVM_PATH").is_none() {
        eprintln!("skipped: CUDAJIT_NVVM_PATH is not set (cargo xtask test sets it)");
        return;
    }
    for source in [
        print_struct_pairs::source(),
        print_value_arrays::source(),
        compare_structs_and_arrays::source(),
    ] {
        let inspection = cudajit::inspect::inspect(source, "compute_90").unwrap();
        assert!(inspection.ptx.contains(".entry"), "{}", inspection.ptx);
    }
}
