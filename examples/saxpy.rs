//! `y = a*x + y` in place with a grid-stride loop (fewer threads than elements) and a
//! scalar parameter. Checks against an f64 CPU reference (the GPU may fuse into an FMA,
//! so the tolerance is a few f32 ulps), then times the kernel alone.
//!
//! `cargo run --release --example saxpy` (2^24 + 17 elements on a GPU, 2^20 + 17 on the
//! CPU simulator).

use cudajit::prelude::*;

#[path = "common/mod.rs"]
mod common;

#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    for i in (grid(1)..y.len()).step_by(grid_size(1)) {
        y[i] = a * x[i] + y[i];
    }
}

fn main() -> common::MainResult {
    let device = common::announce("saxpy")?;
    let n = common::size_for(&device, (1 << 24) + 17, (1 << 20) + 17);
    let mut rng = common::Rng::fresh("saxpy");
    let a = rng.f32_in(-4.0, 4.0);
    let x = rng.vec_f32(n, -1.0, 1.0);
    let y0 = rng.vec_f32(n, -1.0, 1.0);
    let want: Vec<f64> = x
        .iter()
        .zip(&y0)
        .map(|(&x, &y)| a as f64 * x as f64 + y as f64)
        .collect();
    // Two roundings at most (product, sum), each within half an f32 ulp of ~|a x| + |y|.
    let (abs, rel) = (4.0 * 4.0 * f32::EPSILON as f64, 2.0 * f32::EPSILON as f64);

    // 262144 threads on a GPU (16 per thread on the simulator), each doing ~64 elements.
    let (threads, blocks) = (256, common::size_for(&device, 1024, 64));
    let mut y = y0.clone();
    launch!(saxpy[blocks, threads](a, &x, &mut y))?;
    common::compare("saxpy (host slices)", &y, &want, abs, rel)?;

    let dx = cudajit::to_device(&x)?;
    let mut dy = cudajit::to_device(&y0)?;
    let stream = Stream::new()?;
    let ms = common::time_on(
        &stream,
        || launch!(saxpy[blocks, threads, stream, 0](a, &dx, &mut dy)),
    )?;
    // saxpy updates y in place: the timing launches compounded, so check one fresh run.
    dy.copy_from_host(&y0)?;
    launch!(saxpy[blocks, threads, stream, 0](a, &dx, &mut dy))?;
    common::compare("saxpy (device arrays)", &dy.to_host()?, &want, abs, rel)?;

    println!(
        "saxpy: n = {n}, a = {a}, OK; {}",
        common::describe_time(&device, ms, threads * blocks, 3 * 4 * n)
    );
    Ok(())
}
