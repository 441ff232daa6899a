//! cudajit's side of the Hopper GEMM benchmark (issue 24): the warp-specialised
//! mbarrier + wgmma kernels of bench/hopper_kernels.rs (the algorithms of
//! bench/cuda/hopper_gemm.cu: the TMA producer, with and without `setmaxnreg`, one block
//! per tile or persistent, and the cp.async producer), bf16 `C = A·Bᵀ` at 4096³ and 8192³ on the inputs the nvcc
//! twin draws (splitmix64 of (seed, index)), each variant checked on a 32×32 sample
//! against an f64 reference with every output checked written (poisoned first), then
//! the bounds-checked and unchecked variants timed interleaved, launch by launch (CUDA
//! events, 3 warm-ups, median). bench/run_hopper.sh runs it beside the twin and cuBLAS;
//! bench/report_hopper.py makes the table.
//!
//! Prints `RESULT gemm_bf16_<n>.cudajit[_<variant>][_nocheck] <median_us> flops=<n>,reps=<n>,error=<e>`
//! and exits 0 with `skipped: <reason>` where there is no GPU.
//!
//!     hopper_gemm [n ...]          (default: 4096 8192)
//!     hopper_gemm --inspect DIR    (PTX, NVVM IR and ptxas resources; no GPU)

use cudajit::{bf16, DeviceArray, LaunchConfig, Stream, TensorMap};

mod common;
mod hopper_harness;
mod hopper_kernels;
mod stats;

use common::{input, mix};
use hopper_kernels::{checked, nocheck, SHARED_BYTES, THREADS, TILE};

use hopper_harness::BenchResult;

const WARMUP: usize = 3;

/// ‖got − ref‖ / ‖ref‖ over a 32×32 sample of C = A·Bᵀ (n×n, both K-contiguous), in f64.
fn sample_error(a: &[bf16], b: &[bf16], c: &[bf16], n: usize) -> f64 {
    let (mut diff2, mut ref2) = (0.0, 0.0);
    for si in 0..32 {
        let i = (mix(5, si) % n as u64) as usize;
        for sj in 0..32 {
            let j = (mix(6, sj) % n as u64) as usize;
            let want: f64 = (0..n)
                .map(|p| a[i * n + p].to_f64() * b[j * n + p].to_f64())
                .sum();
            let diff = c[i * n + j].to_f64() - want;
            diff2 += diff * diff;
            ref2 += want * want;
        }
    }
    (diff2 / ref2).sqrt()
}

/// The kernels of bench/hopper_kernels.rs.
#[derive(Clone, Copy)]
enum Variant {
    Tma,
    TmaSetmaxnreg,
    CpAsync,
}

/// What is timed: a kernel, launched with one block per tile or (`persistent`, the TMA
/// kernels only) one per SM, with the suffix of its `RESULT` names (the nvcc twin's rows
/// carry the same suffix).
const RUNS: [(Variant, bool, &str); 5] = [
    (Variant::Tma, false, ""),
    (Variant::TmaSetmaxnreg, false, "_setmaxnreg"),
    (Variant::Tma, true, "_persistent"),
    (Variant::TmaSetmaxnreg, true, "_persistent_setmaxnreg"),
    (Variant::CpAsync, false, "_cpasync"),
];

/// The operands of one problem: A and B (C is the caller's).
struct Operands {
    a: DeviceArray<bf16>,
    b: DeviceArray<bf16>,
}

/// The TMA maps of the operands (128B swizzle, boxes of the block tile's rows × the
/// k-tile: what the TMA kernels' stages hold); each holds its array's shared borrow.
struct Maps<'a> {
    a: TensorMap<'a, bf16, 2>,
    b: TensorMap<'a, bf16, 2>,
}

impl Operands {
    fn new(ha: &[bf16], hb: &[bf16]) -> BenchResult<Self> {
        let (a, b) = (DeviceArray::from_slice(ha)?, DeviceArray::from_slice(hb)?);
        Ok(Operands { a, b })
    }

    /// Boxes of the block tile's rows × the k-tile (64): what a stage holds.
    fn maps(&self, n: usize) -> BenchResult<Maps<'_>> {
        let (bm, bn, _) = TILE;
        Ok(Maps {
            a: common::swizzled_map(&self.a, n, n, bm)?,
            b: common::swizzled_map(&self.b, n, n, bn)?,
        })
    }
}

fn launch(
    variant: Variant,
    checked: bool,
    cfg: LaunchConfig<'_>,
    (ops, maps): (&Operands, &Maps<'_>),
    c: &mut DeviceArray<bf16>,
    n: usize,
) -> cudajit::Result<()> {
    let (a, b, map_a, map_b) = (&ops.a, &ops.b, &maps.a, &maps.b);
    // SAFETY (unchecked): n is a multiple of the tile (asserted in `gemm`), as the checked
    // variant verifies on the same inputs first.
    match (variant, checked) {
        (Variant::Tma, true) => checked::gemm_bf16_tma::launch(cfg, map_a, map_b, c, n, n, n),
        (Variant::Tma, false) => unsafe {
            nocheck::gemm_bf16_tma::launch(cfg, map_a, map_b, c, n, n, n)
        },
        (Variant::TmaSetmaxnreg, true) => {
            checked::gemm_bf16_tma_setmaxnreg::launch(cfg, map_a, map_b, c, n, n, n)
        }
        (Variant::TmaSetmaxnreg, false) => unsafe {
            nocheck::gemm_bf16_tma_setmaxnreg::launch(cfg, map_a, map_b, c, n, n, n)
        },
        (Variant::CpAsync, true) => checked::gemm_bf16_wgmma::launch(cfg, a, b, c, n, n, n),
        (Variant::CpAsync, false) => unsafe {
            nocheck::gemm_bf16_wgmma::launch(cfg, a, b, c, n, n, n)
        },
    }
}

/// Checks the checked and unchecked variants of a kernel at `n`³ (each into a freshly
/// poisoned C), then times them.
fn gemm(
    stream: &Stream,
    sms: usize,
    n: usize,
    reps: usize,
    (variant, persistent, suffix): (Variant, bool, &str),
) -> BenchResult<bool> {
    let (bm, bn, bk) = TILE;
    assert!(
        n % bm == 0 && n % bn == 0 && n % bk == 0,
        "n = {n} is not a multiple of the tile"
    );
    let name = format!("gemm_bf16_{n}");
    let ha: Vec<bf16> = (0..(n * n) as u64).map(|i| input(11, i)).collect();
    let hb: Vec<bf16> = (0..(n * n) as u64).map(|i| input(22, i)).collect();
    let ops = Operands::new(&ha, &hb)?;
    let maps = ops.maps(n)?;
    let mut c = DeviceArray::from_slice(&vec![bf16::NAN; n * n])?;
    let tiles = (n / bm) * (n / bn);
    let blocks = if persistent { tiles.min(sms) } else { tiles } as u32;
    let cfg = || {
        LaunchConfig::new(blocks, THREADS)
            .stream(stream)
            .shared_bytes(SHARED_BYTES)
    };
    let mut errors = [0.0; 2];
    for (slot, checked) in [true, false].into_iter().enumerate() {
        c.copy_from_host(&vec![bf16::NAN; n * n])?;
        launch(variant, checked, cfg(), (&ops, &maps), &mut c, n)?;
        let got = c.to_host()?;
        let unwritten = got.iter().filter(|x| x.to_f64().is_nan()).count();
        let error = sample_error(&ha, &hb, &got, n);
        if unwritten > 0 || !(error <= 1e-2) {
            println!("WRONG {name}.cudajit{suffix} (checked: {checked}): {unwritten} unwritten, error {error:.3e}");
            return Ok(false);
        }
        errors[slot] = error;
    }
    let (with_checks, without) =
        stats::time_checked_pair(stream, WARMUP, reps, &mut || Ok(()), &mut |checked| {
            Ok(launch(variant, checked, cfg(), (&ops, &maps), &mut c, n)?)
        })?;
    let flops = 2.0 * (n as f64).powi(3);
    let variants = [
        (format!("cudajit{suffix}"), with_checks),
        (format!("cudajit{suffix}_nocheck"), without),
    ];
    for ((variant, us), error) in variants.into_iter().zip(errors) {
        println!("RESULT {name}.{variant} {us:.3} flops={flops:.0},reps={reps},error={error:.3e}");
        println!(
            "  {name:<16} {variant:<16} {us:10.1} us {:8.1} TFLOP/s",
            flops / us * 1e-6
        );
    }
    Ok(true)
}

/// `--inspect DIR`: the kernels' PTX, NVVM IR and ptxas resources for compute_90a.
fn inspect_all(dir: &str) -> BenchResult<()> {
    use cudajit::inspect::inspect;
    hopper_harness::write_inspection(
        dir,
        "gemm_bf16_tma.checked",
        inspect(checked::gemm_bf16_tma::source(), hopper_harness::ARCH),
    )?;
    hopper_harness::write_inspection(
        dir,
        "gemm_bf16_tma.nocheck",
        inspect(nocheck::gemm_bf16_tma::source(), hopper_harness::ARCH),
    )?;
    hopper_harness::write_inspection(
        dir,
        "gemm_bf16_tma_setmaxnreg.checked",
        inspect(
            checked::gemm_bf16_tma_setmaxnreg::source(),
            hopper_harness::ARCH,
        ),
    )?;
    hopper_harness::write_inspection(
        dir,
        "gemm_bf16_tma_setmaxnreg.nocheck",
        inspect(
            nocheck::gemm_bf16_tma_setmaxnreg::source(),
            hopper_harness::ARCH,
        ),
    )?;
    hopper_harness::write_inspection(
        dir,
        "gemm_bf16_wgmma.checked",
        inspect(checked::gemm_bf16_wgmma::source(), hopper_harness::ARCH),
    )?;
    hopper_harness::write_inspection(
        dir,
        "gemm_bf16_wgmma.nocheck",
        inspect(nocheck::gemm_bf16_wgmma::source(), hopper_harness::ARCH),
    )?;
    Ok(())
}

fn main() {
    hopper_harness::main(
        "hopper_gemm",
        inspect_all,
        &[4096, 8192],
        |device, stream, sizes| {
            let sms = device.multiprocessor_count() as usize;
            let mut all_right = true;
            for &n in sizes {
                for run in RUNS {
                    let reps = if n >= 8192 { 20 } else { 50 };
                    all_right &= gemm(stream, sms, n, reps, run)?;
                }
            }
            Ok(all_right)
        },
    );
}
