//! cudajit's side of the fp8 Hopper GEMM benchmark (issue 24): the warp-specialised
//! mbarrier + wgmma e4m3 kernel of bench/hopper_fp8_kernels.rs (the algorithm of
//! bench/cuda/hopper_fp8.cu), `C (bf16) = A·Bᵀ` with A and B e4m3, at 4096³ and 8192³ on
//! the inputs the nvcc twin draws (splitmix64 of (seed, index), uniform in [-1, 1),
//! rounded to e4m3), the checked and unchecked variants each checked on a 32×32 sample
//! against an f64 reference from the decoded inputs with every output checked written
//! (poisoned first), then timed interleaved launch by launch (CUDA events, 3 warm-ups,
//! median). bench/run_hopper_fp8.sh runs it beside the twin and cuBLASLt.
//!
//! Prints `RESULT gemm_e4m3_<n>.cudajit[_nocheck] <median_us> flops=<n>,reps=<n>,error=<e>`
//! and exits 0 with `skipped: <reason>` where there is no sm_90 GPU.
//!
//!     hopper_fp8 [n ...]          (default: 4096 8192)
//!     hopper_fp8 --inspect DIR    (PTX, NVVM IR and ptxas resources; no GPU)

use cudajit::{bf16, e4m3, DeviceArray, LaunchConfig, Stream};

mod hopper_fp8_kernels;
mod hopper_harness;
mod stats;

use hopper_fp8_kernels::{checked, nocheck, SHARED_BYTES, THREADS, TILE};

use hopper_harness::BenchResult;

const WARMUP: usize = 3;

/// bench/cuda/hopper_fp8.cu's `mix` (splitmix64).
fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform in [-1, 1) with 24 random bits, rounded to e4m3 (the twin's `fill`).
fn input(seed: u64, i: u64) -> e4m3 {
    e4m3::from_f32((mix(seed, i) >> 40) as f32 * (1.0 / 8_388_608.0) - 1.0)
}

/// ‖got − ref‖ / ‖ref‖ over a 32×32 sample of C = A·Bᵀ (n×n, both K-contiguous), in f64
/// from the decoded inputs.
fn sample_error(a: &[e4m3], b: &[e4m3], c: &[bf16], n: usize) -> f64 {
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

fn launch(
    checked: bool,
    cfg: LaunchConfig<'_>,
    a: &DeviceArray<e4m3>,
    b: &DeviceArray<e4m3>,
    c: &mut DeviceArray<bf16>,
    n: usize,
) -> cudajit::Result<()> {
    if checked {
        checked::gemm_e4m3_wgmma::launch(cfg, a, b, c, n, n, n)
    } else {
        // SAFETY: n is a multiple of the tile (asserted in `gemm`), as the checked
        // variant verifies on the same inputs first.
        unsafe { nocheck::gemm_e4m3_wgmma::launch(cfg, a, b, c, n, n, n) }
    }
}

/// Checks the checked and unchecked kernels at `n`³ (each into a freshly poisoned C),
/// then times them.
fn gemm(stream: &Stream, n: usize, reps: usize) -> BenchResult<bool> {
    let (bm, bn, bk) = TILE;
    assert!(
        n % bm == 0 && n % bn == 0 && n % bk == 0,
        "n = {n} is not a multiple of the tile"
    );
    let name = format!("gemm_e4m3_{n}");
    let ha: Vec<e4m3> = (0..(n * n) as u64).map(|i| input(11, i)).collect();
    let hb: Vec<e4m3> = (0..(n * n) as u64).map(|i| input(22, i)).collect();
    let (a, b) = (DeviceArray::from_slice(&ha)?, DeviceArray::from_slice(&hb)?);
    let mut c = DeviceArray::from_slice(&vec![bf16::NAN; n * n])?;
    let blocks = ((n / bm) * (n / bn)) as u32;
    let cfg = || {
        LaunchConfig::new(blocks, THREADS)
            .stream(stream)
            .shared_bytes(SHARED_BYTES)
    };
    let mut errors = [0.0; 2];
    for (slot, checked) in [true, false].into_iter().enumerate() {
        c.copy_from_host(&vec![bf16::NAN; n * n])?;
        launch(checked, cfg(), &a, &b, &mut c, n)?;
        let got = c.to_host()?;
        let unwritten = got.iter().filter(|x| x.to_f64().is_nan()).count();
        let error = sample_error(&ha, &hb, &got, n);
        if unwritten > 0 || !(error <= 1e-2) {
            println!("WRONG {name}.cudajit (checked: {checked}): {unwritten} unwritten, error {error:.3e}");
            return Ok(false);
        }
        errors[slot] = error;
    }
    let (with_checks, without) =
        stats::time_checked_pair(stream, WARMUP, reps, &mut || Ok(()), &mut |checked| {
            Ok(launch(checked, cfg(), &a, &b, &mut c, n)?)
        })?;
    let flops = 2.0 * (n as f64).powi(3);
    let variants = [("cudajit", with_checks), ("cudajit_nocheck", without)];
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
        "gemm_e4m3_wgmma.checked",
        inspect(checked::gemm_e4m3_wgmma::source(), hopper_harness::ARCH),
    )?;
    hopper_harness::write_inspection(
        dir,
        "gemm_e4m3_wgmma.nocheck",
        inspect(nocheck::gemm_e4m3_wgmma::source(), hopper_harness::ARCH),
    )?;
    Ok(())
}

fn main() {
    hopper_harness::main(
        "hopper_fp8",
        inspect_all,
        &[4096, 8192],
        |_, stream, sizes| {
            let mut all_right = true;
            for &n in sizes {
                all_right &= gemm(stream, n, if n >= 8192 { 20 } else { 50 })?;
            }
            Ok(all_right)
        },
    );
}
