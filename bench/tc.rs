//! cudajit's side of the tensor-core benchmark (issue 23): the kernels of
//! bench/tc_kernels.rs (the same tilings as bench/cuda/tc.cu), at the same sizes, on the
//! same inputs (splitmix64 of (seed, index), the numbers tc.cu draws), each checked on a
//! sample against an f64 reference and every output checked written (poisoned first),
//! then the bounds-checked and unchecked variants timed interleaved, launch by launch
//! (CUDA events, 3 warm-ups, median). bench/run_tc.sh runs it beside tc.cu and the
//! library references; bench/report_tc.py makes the table.
//!
//! Prints `RESULT <kernel>.cudajit[_nocheck] <median_us> flops=<n>,reps=<n>,error=<e>`
//! and exits 0 with `skipped: <reason>` where there is no GPU.
//!
//!     tc [kernel ...]     (no argument: all of them)

use std::cell::Cell;
use std::error::Error as StdError;

use cudajit::{bf16, Device, DeviceArray, DeviceScalar, LaunchConfig, Stream};

mod common;
mod stats;
mod tc_cublas;
#[allow(dead_code)]
mod tc_kernels;
mod tc_twin;

use tc_cublas::Cublas;
use tc_kernels::{checked, nocheck};
use tc_twin::Twins;

type BenchResult<T> = Result<T, Box<dyn StdError>>;

const HEADS: usize = 128; // batch × heads
const SEQ: usize = 4096;
const WARMUP: usize = 3;

// ---- inputs: splitmix64, as tc.cu's `mix` and `input_value`
fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An input element type: tc.cu's `input_value<T>` and `as_double`.
trait Input: DeviceScalar + Copy {
    fn value(seed: u64, i: u64) -> Self;
    fn to_f64(self) -> f64;
}
impl Input for f32 {
    fn value(seed: u64, i: u64) -> Self {
        (mix(seed, i) >> 40) as f32 * (1.0 / 8_388_608.0) - 1.0
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl Input for bf16 {
    fn value(seed: u64, i: u64) -> Self {
        bf16::from_f32(f32::value(seed, i))
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
}
impl Input for f64 {
    fn value(seed: u64, i: u64) -> Self {
        (mix(seed, i) >> 11) as f64 * (1.0 / 4_503_599_627_370_496.0) - 1.0
    }
    fn to_f64(self) -> f64 {
        self
    }
}
impl Input for i8 {
    fn value(seed: u64, i: u64) -> Self {
        (mix(seed, i) >> 56) as u8 as i8
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl Input for i32 {
    fn value(seed: u64, i: u64) -> Self {
        mix(seed, i) as i32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

fn inputs<T: Input>(n: usize, seed: u64) -> Vec<T> {
    (0..n as u64).map(|i| T::value(seed, i)).collect()
}

#[derive(Debug)]
struct WrongResult(String);
impl std::fmt::Display for WrongResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl StdError for WrongResult {}
fn wrong(what: impl Into<String>) -> Box<dyn StdError> {
    Box::new(WrongResult(what.into()))
}

/// ‖got − ref‖ / ‖ref‖ over a 32×32 sample of C = A·Bᵀ (n×n, both K-contiguous), in f64.
fn gemm_error<I: Input, O: Input>(a: &[I], b: &[I], c: &[O], n: usize) -> f64 {
    let (mut diff2, mut ref2) = (0.0, 0.0);
    for si in 0..32 {
        let i = (mix(5, si) % n as u64) as usize;
        for sj in 0..32 {
            let j = (mix(6, sj) % n as u64) as usize;
            let want: f64 = (0..n)
                .map(|k| a[i * n + k].to_f64() * b[j * n + k].to_f64())
                .sum();
            let d = c[i * n + j].to_f64() - want;
            diff2 += d * d;
            ref2 += want * want;
        }
    }
    (diff2 / ref2).sqrt()
}

struct Bench<'a> {
    stream: &'a Stream,
    /// The nvcc twins, when `TC_TWIN` names their cubin (see `tc_twin`).
    twins: Option<&'a Twins>,
    /// cuBLAS on the same stream, when libcublas loads (see `tc_cublas`).
    cublas: Option<&'a Cublas>,
    /// Set when a library's output failed its check (printed as `WRONG`; exit status 1).
    library_wrong: Cell<bool>,
}

/// What one timed slot of a GEMM launches: cudajit's kernel with or without bounds
/// checks (always the first two), the nvcc twin, or cuBLAS.
#[derive(Clone, Copy, PartialEq)]
enum GemmVariant {
    Checked,
    Unchecked,
    Twin,
    Cublas,
}

/// How many elements of `x` and `y` differ.
fn differing<O: Input>(x: &[O], y: &[O]) -> usize {
    x.iter()
        .zip(y)
        .filter(|(x, y)| x.to_f64() != y.to_f64())
        .count()
}

impl Bench<'_> {
    fn cfg(&self, grid: impl Into<cudajit::Dim>, block: u32, shared: usize) -> LaunchConfig<'_> {
        LaunchConfig::new(grid, block)
            .stream(self.stream)
            .shared_bytes(shared)
    }

    /// Medians (µs) of `reps` event-timed launches of the checked (`true`) and unchecked
    /// variants, interleaved launch by launch so that clock drift favours neither.
    fn time_pair(
        &self,
        reps: usize,
        body: &mut dyn FnMut(bool) -> BenchResult<()>,
    ) -> BenchResult<(f64, f64)> {
        stats::time_checked_pair(self.stream, WARMUP, reps, &mut || Ok(()), body)
    }

    /// The twin's median in this process, on the buffers cudajit's kernels used
    /// (`.nvcc_here`: report_tc.py takes it for the ratios; tc.cu's own is `.nvcc`).
    fn report_twin(name: &str, us: f64, flops: f64, reps: usize, differ: usize) {
        println!("RESULT {name}.nvcc_here {us:.3} flops={flops:.0},reps={reps},differ={differ}");
        println!(
            "  {name:<22} {:<16} {us:10.1} us {:8.1} TFLOP/s",
            "nvcc (here)",
            flops / us * 1e-6
        );
    }

    /// cuBLAS's median in this process, on cudajit's buffers (`.cublas_here`: report_tc.py
    /// takes it for `%lib`; torch's own process is `.cublas`), with its f64-sample error
    /// and how many elements differ from cudajit's (summation order: expected, not fatal).
    fn report_cublas(name: &str, us: f64, flops: f64, reps: usize, error: f64, differ: usize) {
        println!(
            "RESULT {name}.cublas_here {us:.3} flops={flops:.0},reps={reps},error={error:.3e},differ={differ}"
        );
        println!(
            "  {name:<22} {:<16} {us:10.1} us {:8.1} TFLOP/s",
            "cuBLAS (here)",
            flops / us * 1e-6
        );
    }

    /// `c` poisoned, then `body` run into it alone on the stream; `c`'s contents after.
    fn run_into<O: Input>(
        &self,
        c: &mut DeviceArray<O>,
        poison: O,
        body: &mut dyn FnMut() -> BenchResult<()>,
    ) -> BenchResult<Vec<O>> {
        c.copy_from_host(&vec![poison; c.len()])?;
        self.stream.synchronize()?;
        body()?;
        self.stream.synchronize()?;
        Ok(c.to_host()?)
    }

    fn report(
        name: &str,
        (checked, unchecked): (f64, f64),
        flops: f64,
        reps: usize,
        errors: [f64; 2],
    ) {
        for ((variant, us), error) in [("cudajit", checked), ("cudajit_nocheck", unchecked)]
            .into_iter()
            .zip(errors)
        {
            println!(
                "RESULT {name}.{variant} {us:.3} flops={flops:.0},reps={reps},error={error:.3e}"
            );
            println!(
                "  {name:<22} {variant:<16} {us:10.1} us {:8.1} TFLOP/s",
                flops / us * 1e-6
            );
        }
    }

    /// Checks both variants (each into a freshly poisoned C), then times them.
    #[allow(clippy::too_many_arguments)]
    fn gemm<I: Input, O: Input>(
        &self,
        name: &str,
        n: usize,
        (threads, shared): (u32, usize),
        tolerance: f64,
        reps: usize,
        poison: O,
        launch: &dyn Fn(
            bool,
            LaunchConfig<'_>,
            &DeviceArray<I>,
            &DeviceArray<I>,
            &mut DeviceArray<O>,
            usize,
        ) -> cudajit::Result<()>,
    ) -> BenchResult<()> {
        assert!(
            n % 128 == 0,
            "{name}: n must be a multiple of the 128x128 tile"
        );
        let (ha, hb) = (inputs::<I>(n * n, 11), inputs::<I>(n * n, 22));
        let (a, b) = (DeviceArray::from_slice(&ha)?, DeviceArray::from_slice(&hb)?);
        let mut c = DeviceArray::from_slice(&vec![poison; n * n])?;
        let grid = ((n / 128) * (n / 128)) as u32;
        let mut errors = [0.0; 2];
        let mut checked_result = Vec::new();
        for (slot, checked) in [true, false].into_iter().enumerate() {
            c.copy_from_host(&vec![poison; n * n])?;
            launch(checked, self.cfg(grid, threads, shared), &a, &b, &mut c, n)?;
            let got = c.to_host()?;
            let unwritten = got
                .iter()
                .filter(|&&x| x.to_f64().is_nan() || x.to_f64() == poison.to_f64())
                .count();
            let error = gemm_error(&ha, &hb, &got, n);
            if unwritten > 0 || !(error <= tolerance) {
                return Err(wrong(format!(
                    "{name} (checked: {checked}): {unwritten} unwritten, error {error:.3e}"
                )));
            }
            errors[slot] = error;
            if checked {
                checked_result = got;
            }
        }
        let flops = 2.0 * (n as f64).powi(3);
        let (pa, pb, pc) = (a.device_ptr(), b.device_ptr(), c.device_ptr());
        let mut variants = vec![GemmVariant::Checked, GemmVariant::Unchecked];
        let twin = self
            .twins
            .and_then(|t| t.twin(name, (grid, 1), threads, shared));
        let mut twin_differ = 0;
        if let Some(twin) = &twin {
            // The twin's C into a poisoned buffer: the same tiles in the same k order,
            // so bit-equal to cudajit's (a difference is reported, not fatal).
            let theirs = self.run_into(&mut c, poison, &mut || twin.gemm(pa, pb, pc, n))?;
            twin_differ = differing(&theirs, &checked_result);
            variants.push(GemmVariant::Twin);
        }
        let cublas = self.cublas.filter(|_| Cublas::covers(name));
        let mut cublas_check = (0.0, 0);
        if let Some(cublas) = cublas {
            // cuBLAS's C into a poisoned buffer, checked as cudajit's is (its summation
            // order differs, so the f64 sample with the same tolerance, not bit equality).
            // A call cuBLAS refuses is said and left out: cudajit's rows still count.
            match self.run_into(&mut c, poison, &mut || cublas.gemm(name, pa, pb, pc, n)) {
                Err(e) => println!("tc: {name}: cuBLAS refused the call: {e}"),
                Ok(theirs) => {
                    let unwritten = theirs
                        .iter()
                        .filter(|&&x| x.to_f64().is_nan() || x.to_f64() == poison.to_f64())
                        .count();
                    let error = gemm_error(&ha, &hb, &theirs, n);
                    if unwritten > 0 || !(error <= tolerance) {
                        println!(
                            "WRONG {name}.cublas_here: {unwritten} unwritten, error {error:.3e}"
                        );
                        self.library_wrong.set(true);
                    } else {
                        cublas_check = (error, differing(&theirs, &checked_result));
                        variants.push(GemmVariant::Cublas);
                    }
                }
            }
        }
        let medians =
            tc_twin::time_rotating(self.stream, WARMUP, reps, variants.len(), &mut |which| {
                match variants[which] {
                    GemmVariant::Twin => twin.as_ref().map_or(Ok(()), |t| t.gemm(pa, pb, pc, n)),
                    GemmVariant::Cublas => cublas.map_or(Ok(()), |l| l.gemm(name, pa, pb, pc, n)),
                    variant => Ok(launch(
                        variant == GemmVariant::Checked,
                        self.cfg(grid, threads, shared),
                        &a,
                        &b,
                        &mut c,
                        n,
                    )?),
                }
            })?;
        for (variant, us) in variants.iter().zip(&medians) {
            match variant {
                GemmVariant::Twin => Self::report_twin(name, *us, flops, reps, twin_differ),
                GemmVariant::Cublas => {
                    Self::report_cublas(name, *us, flops, reps, cublas_check.0, cublas_check.1)
                }
                _ => {}
            }
        }
        let times = (medians[0], medians[1]);
        Self::report(name, times, flops, reps, errors);
        // Where the buffers landed (tc.cu prints its own): placement is one suspect of
        // the run-to-run spread of the 8192³ GEMMs.
        println!(
            "  {name} buffers (pool): A {:#x} B {:#x} C {:#x}",
            a.device_ptr(),
            b.device_ptr(),
            c.device_ptr()
        );
        Ok(())
    }

    fn attention(&self, name: &str, d: usize, bkv: usize, reps: usize) -> BenchResult<()> {
        let elems = HEADS * SEQ * d;
        let (hq, hk, hv) = (
            inputs::<bf16>(elems, 33),
            inputs::<bf16>(elems, 44),
            inputs::<bf16>(elems, 55),
        );
        let (q, k, v) = (
            DeviceArray::from_slice(&hq)?,
            DeviceArray::from_slice(&hk)?,
            DeviceArray::from_slice(&hv)?,
        );
        let poison = vec![bf16::NAN; elems];
        let mut o = DeviceArray::from_slice(&poison)?;
        let shared = (128 + 4 * bkv) * d * 2;
        let scale_log2 = std::f32::consts::LOG2_E / (d as f32).sqrt();
        let grid = ((SEQ / 128) as u32, HEADS as u32);
        let seq = side(SEQ); // `u32`, as the twin's `int seq`
        let launch = |checked: bool, o: &mut DeviceArray<bf16>| -> cudajit::Result<()> {
            let cfg = self.cfg(grid, 128, shared);
            match (d, checked) {
                (64, true) => checked::attention_d64::launch(cfg, &q, &k, &v, o, seq, scale_log2),
                (64, false) => unsafe {
                    nocheck::attention_d64::launch(cfg, &q, &k, &v, o, seq, scale_log2)
                },
                (128, true) => checked::attention_d128::launch(cfg, &q, &k, &v, o, seq, scale_log2),
                _ => unsafe {
                    nocheck::attention_d128::launch(cfg, &q, &k, &v, o, seq, scale_log2)
                },
            }
        };
        let mut errors = [0.0; 2];
        let mut checked_result = Vec::new();
        for (slot, checked) in [true, false].into_iter().enumerate() {
            o.copy_from_host(&poison)?;
            launch(checked, &mut o)?;
            let got = o.to_host()?;
            let unwritten = got.iter().filter(|x| x.is_nan()).count();
            let error = common::attention_error((&hq, &hk, &hv, &got), HEADS, SEQ, d);
            if unwritten > 0 || !(error <= 2e-2) {
                return Err(wrong(format!(
                    "{name} (checked: {checked}): {unwritten} unwritten, error {error:.3e}"
                )));
            }
            errors[slot] = error;
            if checked {
                checked_result = got;
            }
        }
        let flops = 4.0 * HEADS as f64 * (SEQ as f64).powi(2) * d as f64;
        let twin = self.twins.and_then(|t| t.twin(name, grid, 128, shared));
        let times = if let Some(twin) = twin {
            let qkvo = [
                q.device_ptr(),
                k.device_ptr(),
                v.device_ptr(),
                o.device_ptr(),
            ];
            // The twin's O into a poisoned buffer; its exponentials and contractions are
            // nvcc's, so elements may differ by an ulp: counted, not fatal.
            o.copy_from_host(&poison)?;
            self.stream.synchronize()?;
            twin.attention(qkvo, SEQ, scale_log2)?;
            self.stream.synchronize()?;
            let theirs = o.to_host()?;
            let differ = theirs
                .iter()
                .zip(&checked_result)
                .filter(|(x, y)| x.to_bits() != y.to_bits())
                .count();
            let medians =
                tc_twin::time_rotating(self.stream, WARMUP, reps, 3, &mut |which| match which {
                    0 => twin.attention(qkvo, SEQ, scale_log2),
                    _ => Ok(launch(which == 1, &mut o)?),
                })?;
            Self::report_twin(name, medians[0], flops, reps, differ);
            (medians[1], medians[2])
        } else {
            self.time_pair(reps, &mut |checked| Ok(launch(checked, &mut o)?))?
        };
        Self::report(name, times, flops, reps, errors);
        Ok(())
    }
}

/// (threads, dynamic shared bytes): 4 warps (DGEMM 8); stages × 256 rows × row bytes
/// (bf16: 3 × 64 bytes; int8: 4 × 64; tf32: 3 × 128; f64: 3 × 128).
const GEMM_BF16: (u32, usize) = (128, 3 * 256 * 64);
const GEMM_64B: (u32, usize) = (128, 4 * 256 * 64);
const GEMM_128B: (u32, usize) = (128, 3 * 256 * 128);
const DGEMM: (u32, usize) = (256, 3 * 256 * 128);

/// The bf16 GEMM, checked (`true`) or not: both problem sizes launch it.
fn launch_gemm_bf16(
    checked: bool,
    cfg: LaunchConfig<'_>,
    a: &DeviceArray<bf16>,
    b: &DeviceArray<bf16>,
    c: &mut DeviceArray<bf16>,
    n: usize,
) -> cudajit::Result<()> {
    let n = side(n);
    if checked {
        checked::gemm_bf16::launch(cfg, a, b, c, n, n, n)
    } else {
        // SAFETY: the bench's inputs are n x n with n a multiple of the tile (checked in
        // `gemm`), as the checked variant verifies on the same launch.
        unsafe { nocheck::gemm_bf16::launch(cfg, a, b, c, n, n, n) }
    }
}

/// The kernels take `u32` sizes, as their twins' `int`.
fn side(n: usize) -> u32 {
    u32::try_from(n).expect("a size fits in u32")
}

fn run(device: &Device, wanted: &[String]) -> BenchResult<bool> {
    let (major, minor) = device.compute_capability();
    println!(
        "tc cudajit: {} (sm_{major}{minor}), {} SMs",
        device.name(),
        device.multiprocessor_count()
    );
    let (cudarc_stream, stream) = tc_twin::shared_stream()?;
    let twins = Twins::from_env(&cudarc_stream);
    let cublas = Cublas::on_stream(&cudarc_stream);
    let b = Bench {
        stream: &stream,
        twins: twins.as_ref(),
        cublas: cublas.as_ref(),
        library_wrong: Cell::new(false),
    };
    type Run = fn(&Bench) -> BenchResult<()>;
    let benches: &[(&str, Run)] = &[
        ("gemm_bf16_4096", |b| {
            b.gemm::<bf16, bf16>(
                "gemm_bf16_4096",
                4096,
                GEMM_BF16,
                1e-2,
                30,
                bf16::NAN,
                &launch_gemm_bf16,
            )
        }),
        ("gemm_bf16_8192", |b| {
            b.gemm::<bf16, bf16>(
                "gemm_bf16_8192",
                8192,
                GEMM_BF16,
                1e-2,
                20,
                bf16::NAN,
                &launch_gemm_bf16,
            )
        }),
        ("gemm_tf32_8192", |b| {
            b.gemm::<f32, f32>(
                "gemm_tf32_8192",
                8192,
                GEMM_128B,
                5e-3,
                10,
                f32::NAN,
                &|c, cfg, a, x, y, n| {
                    if c {
                        checked::gemm_tf32::launch(cfg, a, x, y, side(n), side(n), side(n))
                    } else {
                        unsafe {
                            nocheck::gemm_tf32::launch(cfg, a, x, y, side(n), side(n), side(n))
                        }
                    }
                },
            )
        }),
        // i32 poison 0x80808080: |C| <= 8192 · 128² cannot reach it.
        ("gemm_int8_8192", |b| {
            b.gemm::<i8, i32>(
                "gemm_int8_8192",
                8192,
                GEMM_64B,
                0.0,
                20,
                0x8080_8080u32 as i32,
                &|c, cfg, a, x, y, n| {
                    if c {
                        checked::gemm_int8::launch(cfg, a, x, y, side(n), side(n), side(n))
                    } else {
                        unsafe {
                            nocheck::gemm_int8::launch(cfg, a, x, y, side(n), side(n), side(n))
                        }
                    }
                },
            )
        }),
        ("dgemm_f64_4096", |b| {
            b.gemm::<f64, f64>(
                "dgemm_f64_4096",
                4096,
                DGEMM,
                1e-12,
                10,
                f64::NAN,
                &|c, cfg, a, x, y, n| {
                    if c {
                        checked::dgemm_f64::launch(cfg, a, x, y, side(n), side(n), side(n))
                    } else {
                        unsafe {
                            nocheck::dgemm_f64::launch(cfg, a, x, y, side(n), side(n), side(n))
                        }
                    }
                },
            )
        }),
        ("attention_d64", |b| {
            b.attention("attention_d64", 64, 128, 20)
        }),
        ("attention_d128", |b| {
            b.attention("attention_d128", 128, 32, 20)
        }),
    ];
    let mut all_right = true;
    for (name, bench) in benches {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == name) {
            continue;
        }
        match bench(&b) {
            Ok(()) => {}
            Err(e) if e.is::<WrongResult>() => {
                println!("WRONG {name}: {e}");
                device.synchronize()?;
                all_right = false;
            }
            Err(e) => return Err(format!("{name}: {e}").into()),
        }
    }
    Ok(all_right && !b.library_wrong.get())
}

/// `tc --inspect DIR`: every kernel's PTX and `ptxas -v` resources for compute_90,
/// written to DIR (libnvvm only, no GPU), to compare the machine code with nvcc's.
fn inspect_all(dir: &str) -> BenchResult<()> {
    use cudajit::inspect::inspect;
    std::fs::create_dir_all(dir)?;
    let sources = [
        (
            "gemm_bf16",
            checked::gemm_bf16::source(),
            nocheck::gemm_bf16::source(),
        ),
        (
            "gemm_tf32",
            checked::gemm_tf32::source(),
            nocheck::gemm_tf32::source(),
        ),
        (
            "gemm_int8",
            checked::gemm_int8::source(),
            nocheck::gemm_int8::source(),
        ),
        (
            "dgemm_f64",
            checked::dgemm_f64::source(),
            nocheck::dgemm_f64::source(),
        ),
        (
            "attention_d64",
            checked::attention_d64::source(),
            nocheck::attention_d64::source(),
        ),
        (
            "attention_d128",
            checked::attention_d128::source(),
            nocheck::attention_d128::source(),
        ),
    ];
    for (name, with_checks, without) in sources {
        for (variant, source) in [("checked", with_checks), ("nocheck", without)] {
            let inspection = inspect(source, "compute_90")?;
            std::fs::write(format!("{dir}/{name}.{variant}.ptx"), &inspection.ptx)?;
            std::fs::write(format!("{dir}/{name}.{variant}.ll"), &inspection.nvvm_ir)?;
            println!("{name}.{variant}: {:?}", inspection.resources);
        }
    }
    Ok(())
}

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    if wanted.first().map(String::as_str) == Some("--inspect") {
        let dir = wanted.get(1).map_or("target/tc-inspect", String::as_str);
        if let Err(e) = inspect_all(dir) {
            eprintln!("tc: inspect: {e}");
            std::process::exit(1);
        }
        return;
    }
    let Some(device) = stats::gpu_device() else {
        return;
    };
    match run(&device, &wanted) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("tc: error: {e}");
            std::process::exit(1);
        }
    }
}
