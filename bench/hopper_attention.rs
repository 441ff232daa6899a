//! cudajit's side of the Hopper attention benchmark (issue 24): the FlashAttention-3-
//! structured kernels of bench/hopper_attention_kernels.rs (the algorithm of
//! bench/cuda/hopper_attention.cu's `nvcc` row), bf16, non-causal, batch·heads 128,
//! sequence 4096, head dims 128 and 64, on the inputs the twin draws (splitmix64 of
//! (seed, index), seeds 33, 44, 55), each variant checked against an f64 reference on 16
//! sampled rows with every output checked written (poisoned first), then the
//! bounds-checked and unchecked variants timed interleaved, launch by launch (CUDA
//! events, 3 warm-ups, median). bench/run_hopper_attention.sh runs it beside the twin and
//! PyTorch's cuDNN and FLASH backends; bench/report_hopper_attention.py makes the table.
//!
//! Prints `RESULT attention_d<D>.cudajit[_nocheck] <median_us> flops=<n>,reps=<n>,error=<e>`
//! (flops = 4 · batch·heads · seq² · D) and exits 0 with `skipped: <reason>` where there
//! is no GPU.
//!
//!     hopper_attention [D ...]          (default: 128 64)
//!     hopper_attention --inspect DIR    (PTX, NVVM IR and ptxas resources; no GPU)

use cudajit::{bf16, DeviceArray, LaunchConfig, Stream, TensorMap};

mod common;
mod hopper_attention_kernels;
mod hopper_harness;
mod stats;

use common::input;
use hopper_attention_kernels::{checked, nocheck, shared_bytes, BLOCK_ROWS, THREADS};

use hopper_harness::BenchResult;

const HEADS: usize = 128; // batch × heads
const SEQ: usize = 4096;
const WARMUP: usize = 3;
const REPS: usize = 20;

/// Q, K and V on the device as the kernels read them: maps of the `[heads · seq][d]`
/// arrays with boxes of 128 rows × 64 columns (128B swizzle), each holding its array's
/// shared borrow.
struct Maps<'a> {
    q: TensorMap<'a, bf16, 2>,
    k: TensorMap<'a, bf16, 2>,
    v: TensorMap<'a, bf16, 2>,
}

fn launch(
    d: usize,
    checked: bool,
    cfg: LaunchConfig<'_>,
    maps: &Maps<'_>,
    o: &mut DeviceArray<bf16>,
    scale_log2: f32,
) -> cudajit::Result<()> {
    let (q, k, v) = (&maps.q, &maps.k, &maps.v);
    // SAFETY (unchecked): the sequence is a multiple of the 128-row tiles and the maps
    // cover the arrays (asserted in `attention`), as the checked variant verifies on the
    // same inputs first.
    match (d, checked) {
        (128, true) => checked::attention_fa3_d128::launch(cfg, q, k, v, o, SEQ, scale_log2),
        (128, false) => unsafe {
            nocheck::attention_fa3_d128::launch(cfg, q, k, v, o, SEQ, scale_log2)
        },
        (_, true) => checked::attention_fa3_d64::launch(cfg, q, k, v, o, SEQ, scale_log2),
        (_, false) => unsafe {
            nocheck::attention_fa3_d64::launch(cfg, q, k, v, o, SEQ, scale_log2)
        },
    }
}

/// Checks the checked and unchecked kernels at head dim `d` (each into a freshly
/// poisoned O), then times them.
fn attention(stream: &Stream, d: usize) -> BenchResult<bool> {
    assert!(SEQ % BLOCK_ROWS == 0 && (d == 64 || d == 128));
    let name = format!("attention_d{d}");
    let elems = HEADS * SEQ * d;
    let host = |seed| -> Vec<bf16> { (0..elems as u64).map(|i| input(seed, i)).collect() };
    let (hq, hk, hv) = (host(33), host(44), host(55));
    let (q, k, v) = (
        DeviceArray::from_slice(&hq)?,
        DeviceArray::from_slice(&hk)?,
        DeviceArray::from_slice(&hv)?,
    );
    let rows = HEADS * SEQ;
    let maps = Maps {
        q: common::swizzled_map(&q, rows, d, BLOCK_ROWS)?,
        k: common::swizzled_map(&k, rows, d, BLOCK_ROWS)?,
        v: common::swizzled_map(&v, rows, d, BLOCK_ROWS)?,
    };
    let poison = vec![bf16::NAN; elems];
    let mut o = DeviceArray::from_slice(&poison)?;
    let scale_log2 = std::f32::consts::LOG2_E / (d as f32).sqrt();
    let grid = ((SEQ / BLOCK_ROWS) as u32, HEADS as u32);
    let cfg = || {
        LaunchConfig::new(grid, THREADS)
            .stream(stream)
            .shared_bytes(shared_bytes(d))
    };
    let mut errors = [0.0; 2];
    for (slot, checked) in [true, false].into_iter().enumerate() {
        o.copy_from_host(&poison)?;
        launch(d, checked, cfg(), &maps, &mut o, scale_log2)?;
        let got = o.to_host()?;
        let unwritten = got.iter().filter(|x| x.is_nan()).count();
        let error = common::attention_error((&hq, &hk, &hv, &got), HEADS, SEQ, d);
        if unwritten > 0 || !(error <= 2e-2) {
            println!("WRONG {name}.cudajit (checked: {checked}): {unwritten} unwritten, error {error:.3e}");
            return Ok(false);
        }
        errors[slot] = error;
    }
    let (with_checks, without) =
        stats::time_checked_pair(stream, WARMUP, REPS, &mut || Ok(()), &mut |checked| {
            Ok(launch(d, checked, cfg(), &maps, &mut o, scale_log2)?)
        })?;
    let flops = 4.0 * HEADS as f64 * (SEQ as f64).powi(2) * d as f64;
    let variants = [
        ("cudajit", with_checks, errors[0]),
        ("cudajit_nocheck", without, errors[1]),
    ];
    for (variant, us, error) in variants {
        println!("RESULT {name}.{variant} {us:.3} flops={flops:.0},reps={REPS},error={error:.3e}");
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
        "attention_fa3_d128.checked",
        inspect(checked::attention_fa3_d128::source(), hopper_harness::ARCH),
    )?;
    hopper_harness::write_inspection(
        dir,
        "attention_fa3_d128.nocheck",
        inspect(nocheck::attention_fa3_d128::source(), hopper_harness::ARCH),
    )?;
    hopper_harness::write_inspection(
        dir,
        "attention_fa3_d64.checked",
        inspect(checked::attention_fa3_d64::source(), hopper_harness::ARCH),
    )?;
    hopper_harness::write_inspection(
        dir,
        "attention_fa3_d64.nocheck",
        inspect(nocheck::attention_fa3_d64::source(), hopper_harness::ARCH),
    )?;
    Ok(())
}

fn main() {
    hopper_harness::main(
        "hopper_attention",
        inspect_all,
        &[128, 64],
        |_, stream, dims| {
            let mut all_right = true;
            for &d in dims {
                if d != 64 && d != 128 {
                    println!("WRONG attention_d{d}: D must be 64 or 128");
                    all_right = false;
                    continue;
                }
                all_right &= attention(stream, d)?;
            }
            Ok(all_right)
        },
    );
}
