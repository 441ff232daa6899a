//! Kernels from source text run on the simulator, checked against plain-Rust
//! references on fresh random inputs (outputs poisoned first).

use std::sync::Arc;

use super::*;
use crate::ir::ScalarType;
use crate::offline;

#[path = "tests_lang.rs"]
mod tests_lang;
#[path = "tests_nd.rs"]
mod tests_nd;
#[path = "tests_panic.rs"]
mod tests_panic;
#[path = "tests_print.rs"]
mod tests_print;
#[path = "tests_sched.rs"]
mod tests_sched;
#[path = "tests_simt.rs"]
mod tests_simt;

/// The module of kernel `kernel` in `text` (a file with `#[kernel]`/`#[device]` fns).
pub fn module(text: &str, kernel: &str) -> ir::Module {
    let found = offline::scan(text, "sim.rs").expect("test source parses");
    let k = found
        .iter()
        .position(|f| f.item.sig.ident == kernel)
        .expect("kernel present");
    let source = offline::kernel_source(k, &found).expect("unit");
    crate::lower_unit(source).unwrap_or_else(|e| panic!("lowering failed: {e}"))
}

/// The simulator tests' generator: fastrand's, from a fresh seed per run (or
/// `CUDAJIT_TEST_SEED`), printed and named in the assertion messages so a failure
/// replays.
pub struct Rng {
    pub seed: u64,
    numbers: fastrand::Rng,
}

impl Rng {
    pub fn fresh() -> Rng {
        let seed = std::env::var("CUDAJIT_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| fastrand::u64(..));
        eprintln!("CUDAJIT_TEST_SEED={seed}");
        Rng {
            seed,
            numbers: fastrand::Rng::with_seed(seed),
        }
    }
    pub fn next(&mut self) -> u64 {
        self.numbers.u64(..)
    }
    /// A value below `n`.
    pub fn below(&mut self, n: u32) -> u32 {
        self.numbers.u32(..n)
    }
    /// Two different values below `n`.
    pub fn pair(&mut self, n: u32) -> (u32, u32) {
        let a = self.below(n);
        let b = (a + 1 + self.below(n - 1)) % n;
        (a, b)
    }
    pub fn f32(&mut self) -> f32 {
        (self.next() % 2_000_001) as f32 / 1000.0 - 1000.0
    }
}

/// A buffer holding `values`' bytes.
pub fn buffer_of<T: Copy>(values: &[T]) -> Arc<Buffer> {
    let bytes = std::mem::size_of_val(values);
    let b = Buffer::new(bytes);
    // SAFETY: `T: Copy` scalars; viewing them as bytes is sound.
    let raw = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), bytes) };
    b.write(0, raw);
    Arc::new(b)
}

pub fn read_back<T: Copy + Default>(b: &Buffer, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    let bytes = std::mem::size_of_val(out.as_slice());
    // SAFETY: as in `buffer_of`.
    let raw = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), bytes) };
    b.read(0, raw);
    out
}

pub fn slice(elem: ScalarType, buffer: &Arc<Buffer>, len: usize, mutable: bool) -> Arg {
    Arg::Slice {
        elem: crate::ir::Type::Scalar(elem),
        buffer: buffer.clone(),
        offset: 0,
        len,
        mutable,
    }
}

pub fn shape(grid: u32, block: u32) -> LaunchShape {
    LaunchShape {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        dynamic_shared_bytes: 0,
    }
}

#[test]
fn vecadd_matches_the_cpu() {
    let m = module(
        "#[kernel] fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) { let i = grid(1); if i < c.len() { c[i] = a[i] + b[i]; } }",
        "vecadd",
    );
    let mut rng = Rng::fresh();
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let b: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let (ba, bb, bc) = (buffer_of(&a), buffer_of(&b), buffer_of(&vec![f32::NAN; n]));
    let args = [
        slice(ScalarType::F32, &ba, n, false),
        slice(ScalarType::F32, &bb, n, false),
        slice(ScalarType::F32, &bc, n, true),
    ];
    let report = run(&m, "vecadd", &shape(4, 256), &args, &Options::default()).expect("runs");
    assert_eq!(report.threads, 1024);
    let c: Vec<f32> = read_back(&bc, n);
    for i in 0..n {
        assert_eq!(
            c[i].to_bits(),
            (a[i] + b[i]).to_bits(),
            "element {i}, seed {}",
            rng.seed
        );
    }
}

#[test]
fn integer_semantics_control_flow_and_loops_match_rust() {
    let src = r#"
#[device]
fn collatz(mut x: u64) -> u32 {
    let mut steps = 0u32;
    while x != 1 {
        x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
        steps += 1;
    }
    steps
}
#[kernel]
fn k(input: &[i32], out: &mut [i64], steps: &mut [u32]) {
    let i = grid(1);
    if i >= input.len() { return; }
    let v = input[i];
    let mut acc: i64 = 0;
    for j in (0..(v as u32 % 17) as i32).rev().step_by(3) {
        if j == 7 { continue; }
        acc = acc.wrapping_mul(31).wrapping_add(j as i64);
    }
    let shifted = (v << (i as u32 % 40)) ^ (v >> 3);
    let m = loop {
        acc += 1;
        if acc % 5 == 0 { break acc * 2; }
    };
    let mut local = [0i64; 4];
    for q in 0..=3 { local[q] = (v as i64).wrapping_mul(q as i64 + 1); }
    out[i] = m + shifted as i64 + (v as u8 as i8) as i64 + local[(i % 4)] - (v as f32 * 0.5) as i64;
    steps[i] = collatz((v as u32 % 1000) as u64 + 1);
}
"#;
    let m = module(src, "k");
    let mut rng = Rng::fresh();
    let n = 300;
    let input: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let (bi, bo, bs) = (
        buffer_of(&input),
        buffer_of(&vec![i64::MIN; n]),
        buffer_of(&vec![u32::MAX; n]),
    );
    let args = [
        slice(ScalarType::I32, &bi, n, false),
        slice(ScalarType::I64, &bo, n, true),
        slice(ScalarType::U32, &bs, n, true),
    ];
    run(&m, "k", &shape(3, 128), &args, &Options::default()).expect("runs");
    let out: Vec<i64> = read_back(&bo, n);
    let steps: Vec<u32> = read_back(&bs, n);
    for i in 0..n {
        let v = input[i];
        let mut acc: i64 = 0;
        for j in (0..(v as u32 % 17) as i32).rev().step_by(3) {
            if j == 7 {
                continue;
            }
            acc = acc.wrapping_mul(31).wrapping_add(j as i64);
        }
        let shifted = v.wrapping_shl(i as u32 % 40) ^ (v >> 3);
        let m = loop {
            acc += 1;
            if acc % 5 == 0 {
                break acc * 2;
            }
        };
        let local: Vec<i64> = (0..4).map(|q| (v as i64).wrapping_mul(q + 1)).collect();
        let want =
            m + shifted as i64 + (v as u8 as i8) as i64 + local[i % 4] - (v as f32 * 0.5) as i64;
        assert_eq!(out[i], want, "element {i} (input {v}), seed {}", rng.seed);
        let mut x = (v as u32 % 1000) as u64 + 1;
        let mut c = 0;
        while x != 1 {
            x = if x.is_multiple_of(2) {
                x / 2
            } else {
                3 * x + 1
            };
            c += 1;
        }
        assert_eq!(steps[i], c, "collatz of element {i}");
    }
}

#[test]
fn an_out_of_bounds_index_panics_with_rusts_message_at_the_site() {
    let m = module(
        "#[kernel] fn k(a: &mut [f32]) {\n    let i = grid(1);\n    a[i + 1] = 1.0;\n}",
        "k",
    );
    let b = buffer_of(&[0f32; 64]);
    let err = run(
        &m,
        "k",
        &shape(1, 64),
        &[slice(ScalarType::F32, &b, 64, true)],
        &Options::default(),
    )
    .unwrap_err();
    match err {
        Fault::Panic {
            message,
            site,
            thread,
        } => {
            assert_eq!(
                message,
                "index out of bounds: the len is 64 but the index is 64"
            );
            assert_eq!((site.file.as_str(), site.line), ("sim.rs", 3));
            assert_eq!(thread.thread, [63, 0, 0]);
        }
        other => panic!("expected a panic, got {other}"),
    }
}

#[test]
fn division_by_zero_panics() {
    let m = module(
        "#[kernel] fn k(a: &mut [i32], d: i32) { let i = grid(1); a[i] = a[i] / (d - i as i32); }",
        "k",
    );
    let b = buffer_of(&[5i32; 32]);
    let args = [
        slice(ScalarType::I32, &b, 32, true),
        Arg::Scalar {
            ty: ScalarType::I32,
            bits: 7,
        },
    ];
    let err = run(&m, "k", &shape(1, 32), &args, &Options::default()).unwrap_err();
    assert!(
        matches!(&err, Fault::Panic { message, thread, .. } if message == "attempt to divide by zero" && thread.thread == [7, 0, 0]),
        "{err}"
    );
}
