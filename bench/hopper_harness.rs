//! The `main` the Hopper benchmarks share (bench/hopper_gemm.rs, hopper_fp8.rs,
//! hopper_attention.rs): `--inspect DIR` writes each kernel's PTX, NVVM IR and ptxas
//! resources for compute_90a (no GPU needed); otherwise the numeric arguments (the
//! bench's defaults when there are none) run on an sm_90 GPU, and the process exits 1
//! when a result was wrong or an error occurred.

use std::process::exit;

use cudajit::inspect::Inspection;
use cudajit::{Device, Stream};

pub type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The target the kernels are inspected for (wgmma and the TMA forms need `a`).
pub const ARCH: &str = "compute_90a";

/// Writes one kernel's inspection as `DIR/NAME.ptx` and `DIR/NAME.ll` and prints its
/// ptxas resources.
pub fn write_inspection(
    dir: &str,
    name: &str,
    inspection: cudajit::Result<Inspection>,
) -> BenchResult<()> {
    let inspection = inspection?;
    std::fs::write(format!("{dir}/{name}.ptx"), &inspection.ptx)?;
    std::fs::write(format!("{dir}/{name}.ll"), &inspection.nvvm_ir)?;
    println!("{name}: {:?}", inspection.resources);
    Ok(())
}

/// The benchmark `bench`'s `main`: `inspect_all(dir)` for `--inspect [DIR]` (default
/// `target/<bench>-inspect`), else `run(device, stream, values)` with the numeric
/// arguments (sizes, head dims), `defaults` when there are none.
pub fn main(
    bench: &str,
    inspect_all: fn(&str) -> BenchResult<()>,
    defaults: &[usize],
    run: impl FnOnce(&Device, &Stream, &[usize]) -> BenchResult<bool>,
) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--inspect") {
        let default_dir = format!("target/{}-inspect", bench.replace('_', "-"));
        let dir = args.get(1).map_or(default_dir.as_str(), String::as_str);
        let written = std::fs::create_dir_all(dir)
            .map_err(Into::into)
            .and_then(|()| inspect_all(dir));
        if let Err(e) = written {
            eprintln!("{bench}: inspect: {e}");
            exit(1);
        }
        return;
    }
    // Numbers; anything else (a test harness's flags under `cargo test --benches`) is not
    // one.
    let values: Vec<usize> = if args.is_empty() {
        defaults.to_vec()
    } else {
        args.iter().filter_map(|a| a.parse().ok()).collect()
    };
    let Some(device) = crate::stats::gpu_device() else {
        return;
    };
    if device.compute_capability() != (9, 0) {
        println!(
            "skipped: wgmma needs sm_90a; this device is {:?}",
            device.compute_capability()
        );
        return;
    }
    println!(
        "{bench} cudajit: {}, {} SMs",
        device.name(),
        device.multiprocessor_count()
    );
    let result = device
        .new_stream()
        .map_err(Into::into)
        .and_then(|stream| run(&device, &stream, &values));
    match result {
        Ok(true) => {}
        Ok(false) => exit(1),
        Err(e) => {
            eprintln!("{bench}: error: {e}");
            exit(1);
        }
    }
}
