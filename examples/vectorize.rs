//! A GPU ufunc from a scalar function: `#[vectorize] fn saxpy(x, y)` stays callable on
//! the host (the reference below calls it) and `saxpy::apply(&x, &y)` runs it over
//! 2^24 + 1 elements (2^16 + 1 on the CPU simulator) with a launch shape chosen for
//! the device. Checked against the CPU, then timed on device arrays.
//!
//! `cargo run --release --example vectorize` (on an NVIDIA GPU; without one, on the
//! CPU simulator).

use cudajit::prelude::*;

#[path = "common/mod.rs"]
mod common;

#[vectorize]
fn saxpy(x: f32, y: f32) -> f32 {
    2.5 * x + y
}

fn main() -> common::MainResult {
    let device = common::announce("vectorize")?;
    let n = common::size_for(&device, (1 << 24) + 1, (1 << 16) + 1);
    let mut rng = common::Rng::fresh("vectorize");
    let x = rng.vec_f32(n, -1.0, 1.0);
    let y = rng.vec_f32(n, -1.0, 1.0);
    // The same f32 operations on the host: the results must agree exactly.
    let want: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(&a, &b)| saxpy(a, b) as f64)
        .collect();

    let got = saxpy::apply(&x, &y)?.to_host()?;
    common::compare("saxpy::apply (host slices)", &got, &want, 0.0, 0.0)?;

    // A scalar in place of an array is broadcast: saxpy(0.5, y[i]) for every i.
    let want_half: Vec<f64> = y.iter().map(|&b| saxpy(0.5, b) as f64).collect();
    let got = saxpy::apply(&0.5, &y)?.to_host()?;
    common::compare("saxpy::apply (scalar, slice)", &got, &want_half, 0.0, 0.0)?;

    let (dx, dy) = (cudajit::to_device(&x)?, cudajit::to_device(&y)?);
    let mut out = cudajit::to_device(&vec![f32::NAN; n])?;
    let stream = Stream::new()?;
    let ms = common::time_on(&stream, || {
        saxpy::apply_into_on(&stream, &dx, &dy, &mut out)
    })?;
    common::compare(
        "saxpy::apply_into_on (device arrays)",
        &out.to_host()?,
        &want,
        0.0,
        0.0,
    )?;
    println!(
        "vectorize: n = {n}: OK; {}",
        common::describe_time(&device, ms, n, 3 * 4 * n)
    );
    Ok(())
}
