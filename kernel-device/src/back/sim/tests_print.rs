//! `println!` and friends, `assert!` and `panic!` on the simulator: the records a
//! launch appends, decoded and rendered by the host's code, equal Rust's own
//! `format!` of the same values, line by line in thread order.

use super::*;
use crate::ir::format::{self, record, PrintOrder, PrintOutput};

/// Runs `kernel` with a print buffer of `bytes` and renders what it printed in
/// thread order.
fn run_printing(
    m: &ir::Module,
    kernel: &str,
    shp: &LaunchShape,
    args: &[Arg],
    bytes: usize,
) -> (Result<Report, Fault>, PrintOutput) {
    let sink = PrintSink::with_capacity(bytes);
    let options = Options {
        prints: Some(sink.clone()),
        ..Options::default()
    };
    let result = run(m, kernel, shp, args, &options);
    let buffer = sink.0.lock().unwrap().clone();
    let decoded = record::decode(&buffer, |id| m.prints.argument_types(id)).expect("decodes");
    let output = format::render_output(&m.prints, decoded, PrintOrder::Thread).expect("renders");
    (result, output)
}

#[test]
fn every_thread_prints_its_line_as_format_does() {
    let src = r#"
#[kernel]
fn k(a: &[i32], x: &[f32]) {
    let i = grid(1);
    if i < a.len() {
        let v = a[i];
        println!("thread {i}: a={} x={:.3} hex={:#x} [{:>9}] {v:+05} {:?} {:e}", a[i], x[i], v, x[i], x[i], x[i]);
        eprint!("{}", i % 3);
    }
}
"#;
    let m = module(src, "k");
    let mut rng = Rng::fresh();
    let n = 3000;
    let a: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let x: Vec<f32> = (0..n).map(|_| f32::from_bits(rng.next() as u32)).collect();
    let (ba, bx) = (buffer_of(&a), buffer_of(&x));
    let args = [
        slice(ScalarType::I32, &ba, n, false),
        slice(ScalarType::F32, &bx, n, false),
    ];
    let (result, out) = run_printing(&m, "k", &shape(12, 256), &args, 1 << 22);
    result.expect("runs");
    assert_eq!(out.dropped_records, 0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), n, "seed {}", rng.seed);
    for i in 0..n {
        let (v, f) = (a[i], x[i]);
        let expected = format!(
            "thread {i}: a={} x={:.3} hex={:#x} [{:>9}] {v:+05} {:?} {:e}",
            v, f, v, f, f, f
        );
        assert_eq!(lines[i], expected, "thread {i}, seed {}", rng.seed);
    }
    let expected_err: String = (0..n).map(|i| (i % 3).to_string()).collect();
    assert_eq!(out.stderr, expected_err);
}

#[test]
fn edge_values_of_every_scalar_print_as_rust_prints_them() {
    let src = r#"
#[kernel]
fn k(a: &[i8], b: &[i16], c: &[i32], d: &[i64], e: &[u8], f: &[u16], g: &[u32], h: &[u64], x: &[f32], y: &[f64]) {
    let i = grid(1);
    if i < a.len() {
        println!("{} {} {} {} {} {} {} {} {} {} {:?} {:?} {}", a[i], b[i], c[i], d[i], e[i], f[i], g[i], h[i], x[i], y[i], x[i], y[i], i as isize - 2);
        println!("{:x} {:o} {:b} {:X} {:e} {:E} {}", d[i], c[i], a[i], h[i], y[i], x[i], a[i] < 0);
    }
}
"#;
    let m = module(src, "k");
    let a = [i8::MIN, i8::MAX, 0, -1, 1];
    let b = [i16::MIN, i16::MAX, 0, -1, 1];
    let c = [i32::MIN, i32::MAX, 0, -1, 1];
    let d = [i64::MIN, i64::MAX, 0, -1, 1];
    let e = [u8::MIN, u8::MAX, 1, 2, 3];
    let f = [u16::MIN, u16::MAX, 1, 2, 3];
    let g = [u32::MIN, u32::MAX, 1, 2, 3];
    let h = [u64::MIN, u64::MAX, 1, 2, 3];
    let x = [f32::NAN, f32::INFINITY, -0.0, f32::from_bits(1), 0.1];
    let y = [
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN_POSITIVE / 3.0,
        -0.0,
        0.1,
    ];
    let n = a.len();
    let buffers = [
        (ScalarType::I8, buffer_of(&a)),
        (ScalarType::I16, buffer_of(&b)),
        (ScalarType::I32, buffer_of(&c)),
        (ScalarType::I64, buffer_of(&d)),
        (ScalarType::U8, buffer_of(&e)),
        (ScalarType::U16, buffer_of(&f)),
        (ScalarType::U32, buffer_of(&g)),
        (ScalarType::U64, buffer_of(&h)),
        (ScalarType::F32, buffer_of(&x)),
        (ScalarType::F64, buffer_of(&y)),
    ];
    let args: Vec<Arg> = buffers
        .iter()
        .map(|(t, b)| slice(*t, b, n, false))
        .collect();
    let (result, out) = run_printing(&m, "k", &shape(1, 32), &args, 1 << 16);
    result.expect("runs");
    let mut expected = String::new();
    for i in 0..n {
        expected += &format!(
            "{} {} {} {} {} {} {} {} {} {} {:?} {:?} {}\n",
            a[i],
            b[i],
            c[i],
            d[i],
            e[i],
            f[i],
            g[i],
            h[i],
            x[i],
            y[i],
            x[i],
            y[i],
            i as isize - 2
        );
        expected += &format!(
            "{:x} {:o} {:b} {:X} {:e} {:E} {}\n",
            d[i],
            c[i],
            a[i],
            h[i],
            y[i],
            x[i],
            a[i] < 0
        );
    }
    assert_eq!(out.stdout, expected);
}

#[test]
fn a_full_buffer_drops_whole_records_and_counts_them() {
    let src = r#"
#[kernel]
fn k(a: &[u32]) {
    let i = grid(1);
    if i < a.len() {
        println!("{}", a[i]);
    }
}
"#;
    let m = module(src, "k");
    let n = 1000;
    let a: Vec<u32> = (0..n as u32).collect();
    let ba = buffer_of(&a);
    let args = [slice(ScalarType::U32, &ba, n, false)];
    // One record is a 24-byte header and an 8-byte payload: room for 100 of them.
    let bytes = record::BUFFER_HEADER_BYTES + 100 * 32;
    let (result, out) = run_printing(&m, "k", &shape(4, 256), &args, bytes);
    result.expect("runs");
    assert_eq!(out.stdout.lines().count(), 100);
    assert_eq!(out.dropped_records, 900);
    assert!(out
        .dropped_notice()
        .unwrap()
        .contains("900 print records were dropped"));
}

#[test]
fn failed_assertions_and_panics_carry_rust_s_message_and_location() {
    let src = "#[kernel]\nfn k(a: &[i32], only: usize) {\n    let i = grid(1);\n    if i == only && i == 3 {\n        assert_eq!(a[i] + 1, 7, \"at {}\", i);\n    }\n    if i == only && i == 5 {\n        assert!(a[i] < 0);\n    }\n    if i == only {\n        panic!(\"bad value {:?} at {i}\", a[i]);\n    }\n    assert_ne!(a[i], -1);\n}\n";
    let m = module(src, "k");
    let a = [0, 1, 2, 3, 4, 5, 6, 7];
    let ba = buffer_of(&a);
    let shp = shape(1, 8);
    for (only, message, line, column) in [
        (
            3,
            "assertion `left == right` failed: at 3\n  left: 4\n right: 7",
            5,
            9,
        ),
        (5, "assertion failed: a[i] < 0", 8, 9),
        (6, "bad value 6 at 6", 11, 9),
    ] {
        let args = [
            slice(ScalarType::I32, &ba, a.len(), false),
            Arg::Scalar {
                ty: ScalarType::Usize,
                bits: only,
            },
        ];
        let (result, _) = run_printing(&m, "k", &shp, &args, 1 << 12);
        let Err(Fault::Panic {
            message: got,
            site,
            thread,
        }) = result
        else {
            panic!("expected a panic, got {result:?}");
        };
        assert_eq!(u64::from(thread.thread[0]), only);
        assert_eq!(got, message);
        assert_eq!((site.line, site.column), (line, column));
    }
    // A kernel whose assertions hold runs to the end.
    let args = [
        slice(ScalarType::I32, &ba, a.len(), false),
        Arg::Scalar {
            ty: ScalarType::Usize,
            bits: 100,
        },
    ];
    run_printing(&m, "k", &shp, &args, 1 << 12)
        .0
        .expect("no assertion fails");
    // Rust's own text of the same assertion, for the reference.
    let std_text = std::panic::catch_unwind(|| {
        let i = 3;
        assert_eq!(a[i] + 1, 7, "at {}", i);
    })
    .err()
    .and_then(|p| p.downcast_ref::<String>().cloned())
    .unwrap_or_default();
    assert_eq!(
        std_text,
        "assertion `left == right` failed: at 3\n  left: 4\n right: 7"
    );
}
