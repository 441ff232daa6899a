//! Scans and stream compaction without writing a kernel: the inclusive and exclusive
//! prefix sums of 2^24 + 5 integers (2^14 + 5 on the CPU simulator), a running maximum
//! by a user's operator, and the positive elements kept in order by `compact`, each
//! checked against the CPU; then the inclusive scan into an existing array is timed
//! (one pass: each element read and written once).
//!
//! `cargo run --release --example scan` (on an NVIDIA GPU; without one, on the CPU
//! simulator).

use cudajit::device_fn;
use cudajit::prelude::*;

#[path = "common/mod.rs"]
mod common;

#[device]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[device]
fn running_max(a: i64, b: i64) -> i64 {
    if b > a {
        b
    } else {
        a
    }
}

#[device]
fn positive(x: i64) -> bool {
    x > 0
}

fn main() -> common::MainResult {
    let device = common::announce("scan")?;
    let n = common::size_for(&device, (1 << 24) + 5, (1 << 14) + 5);
    let mut rng = common::Rng::fresh("scan");
    let x: Vec<i64> = (0..n).map(|_| rng.below(2001) as i64 - 1000).collect();
    let dx = cudajit::to_device(&x)?;

    let inclusive = cudajit::inclusive_scan(&dx, device_fn!(add), 0)?.to_host()?;
    let exclusive = cudajit::exclusive_scan(&dx, device_fn!(add), 0)?.to_host()?;
    let mut run = 0i64;
    for i in 0..n {
        assert_eq!(exclusive[i], run, "exclusive scan at {i}");
        run += x[i];
        assert_eq!(inclusive[i], run, "inclusive scan at {i}");
    }
    let peaks = cudajit::inclusive_scan(&dx, device_fn!(running_max), i64::MIN)?.to_host()?;
    let mut peak = i64::MIN;
    for i in 0..n {
        peak = peak.max(x[i]);
        assert_eq!(peaks[i], peak, "running max at {i}");
    }
    let kept = cudajit::compact(&dx, device_fn!(positive))?.to_host()?;
    let want: Vec<i64> = x.iter().copied().filter(|&v| v > 0).collect();
    assert_eq!(kept, want, "compact(positive)");

    // Into an existing array (no allocation): the form to time, and to repeat.
    let stream = Stream::new()?;
    let mut out = cudajit::to_device(&vec![i64::MIN; n])?;
    cudajit::inclusive_scan_into_on(&stream, &dx, device_fn!(add), 0, &mut out)?;
    stream.synchronize()?;
    assert_eq!(out.to_host()?, inclusive, "inclusive_scan_into_on");
    let ms = common::time_on(&stream, || {
        cudajit::inclusive_scan_into_on(&stream, &dx, device_fn!(add), 0, &mut out)
    })?;
    println!(
        "scan: n = {n}: total {run}, {} positive: OK; inclusive scan {}",
        kept.len(),
        common::describe_time(&device, ms, n, 2 * 8 * n)
    );
    Ok(())
}
