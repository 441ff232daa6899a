//! Issue 28's bench, on a host with two or more GPUs: a peer copy of 1 GiB from GPU 0
//! to GPU 1, and `all_reduce` (sum of f32) over all GPUs at 1 MiB, 64 MiB and 1 GiB,
//! each checked once against the CPU's result and then timed (median of 20, after
//! warm-up), reported as NCCL-tests do: algorithm bandwidth = bytes / time, bus
//! bandwidth = algbw * 2 (n - 1) / n. `bench/run_multi.sh` runs PyTorch's
//! `torch.distributed` on the same GPUs in the same run for the comparison.
//!
//! Prints `RESULT multi <row> ...` lines for the report.

use std::time::Instant;

use cudajit::prelude::*;
use cudajit::{Communicators, ReduceOp};

mod stats;
use stats::median;

const REPS: usize = 20;

fn main() -> cudajit::Result<()> {
    // `cargo test --all-targets` runs benches too: without a driver this is a skip.
    let devices = match Device::all() {
        Ok(devices) => devices,
        Err(error) => {
            println!("skipped: {error}");
            return Ok(());
        }
    };
    if devices.len() < 2 {
        println!("multi_gpu: {} GPU(s): this bench needs two", devices.len());
        return Ok(());
    }
    let (major, minor, patch) = cudajit::nccl_version()?;
    println!(
        "multi_gpu: {} GPUs, NCCL {major}.{minor}.{patch}, peer path {:?}",
        devices.len(),
        devices[0].peer_path(&devices[1])?
    );

    // Peer copy, 1 GiB.
    let n = (1usize << 30) / 4;
    let host: Vec<f32> = (0..n).map(|i| (i % 1021) as f32).collect();
    let src = devices[0].to_device(&host)?;
    let mut dst = devices[1].to_device(&vec![f32::NAN; n])?;
    dst.copy_from_array(&src)?;
    if dst.to_host()? != host {
        return Err(cudajit::Error::Refused {
            operation: "peer copy",
            detail: "wrong result".into(),
        });
    }
    let mut times = Vec::new();
    for _ in 0..REPS {
        devices.iter().try_for_each(Device::synchronize)?;
        let t = Instant::now();
        dst.copy_from_array(&src)?;
        devices.iter().try_for_each(Device::synchronize)?;
        times.push(t.elapsed().as_secs_f64());
    }
    let t = median(times);
    println!(
        "RESULT multi peer_copy_1GiB seconds={t:.6} gbps={:.1}",
        (n * 4) as f64 / t / 1e9
    );

    // all_reduce.
    let comms = Communicators::new(&devices)?;
    let ranks = devices.len();
    for (label, bytes) in [
        ("1MiB", 1usize << 20),
        ("64MiB", 64 << 20),
        ("1GiB", 1 << 30),
    ] {
        let n = bytes / 4;
        let inputs: Vec<Vec<f32>> = (0..ranks)
            .map(|r| (0..n).map(|i| ((i * (r + 3)) % 17) as f32).collect())
            .collect();
        let mut bufs = devices
            .iter()
            .zip(&inputs)
            .map(|(d, v)| d.to_device(v))
            .collect::<cudajit::Result<Vec<_>>>()?;
        comms.all_reduce(&mut bufs, ReduceOp::Sum)?;
        let want: Vec<f32> = (0..n).map(|i| inputs.iter().map(|v| v[i]).sum()).collect();
        for b in &bufs {
            if b.to_host()? != want {
                return Err(cudajit::Error::Refused {
                    operation: "all_reduce",
                    detail: "wrong result".into(),
                });
            }
        }
        for _ in 0..5 {
            comms.all_reduce(&mut bufs, ReduceOp::Sum)?;
        }
        let mut times = Vec::new();
        for _ in 0..REPS {
            devices.iter().try_for_each(Device::synchronize)?;
            let t = Instant::now();
            comms.all_reduce(&mut bufs, ReduceOp::Sum)?;
            devices.iter().try_for_each(Device::synchronize)?;
            times.push(t.elapsed().as_secs_f64());
        }
        let t = median(times);
        let algbw = bytes as f64 / t / 1e9;
        let busbw = algbw * 2.0 * (ranks - 1) as f64 / ranks as f64;
        println!(
            "RESULT multi all_reduce_{label} seconds={t:.6} algbw={algbw:.1} busbw={busbw:.1}"
        );
    }
    Ok(())
}
